// LoopControl: what the API asks of the loop: whether this instance acts (leads its fabric), the
// rules in force, the health of each input, and the staff actions the loop follows up (a repair
// report, acknowledging a ticket, re-arming the circuit breaker; they record, the loop acts).
// The Remediator implements it. Every member is called from the HTTP server's threads and is
// thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "ingest/input_health.h"
#include "store/ticket.h"

namespace ufmr {

class LoopControl {
 public:
  virtual ~LoopControl() = default;

  // True when the last pass acted (this instance leads).
  virtual bool acting() const = 0;
  // The hash of the rules the loop decides with now.
  virtual std::string rules_hash() const = 0;
  // How each input is doing (GET /api/inputs).
  virtual const InputHealth& inputs() const = 0;

  // `kind` is what was done (repair_kind::, required); `note` is required for "other".
  virtual Result<Ticket> ReportRepair(int64_t ticket_id, const std::string& by,
                                      const std::string& kind, const std::string& note) = 0;
  // Takes the ticket (and assigns it to `by` if nobody works it yet).
  virtual Result<Ticket> Acknowledge(int64_t ticket_id, const std::string& by,
                                     const std::string& note) = 0;
  // Re-arms the circuit breaker after a storm; closes the storm ticket. Conflict if not tripped.
  virtual Status RearmBreaker(const std::string& by, const std::string& note) = 0;
};

}  // namespace ufmr
