// StaffActions: what people do to tickets through the API that the act stage follows up: report
// a repair (the port this service holds out is brought back, then the link soaks), acknowledge a
// ticket, re-arm the circuit breaker after a storm. Each only writes to the database (a repair
// records an enable or un-isolation intent, which the ActionExecutor carries out) and, for a
// re-arm, tells the breaker's window. Called from the HTTP server's threads: thread-safe (the
// store pools connections, the inventory and the soak lookup lock, the breaker's flag is atomic).
#pragma once

#include <functional>
#include <string>

#include "act/breaker_window.h"
#include "base/clock.h"
#include "base/metrics.h"
#include "base/status.h"
#include "store/store.h"
#include "store/ticket.h"
#include "ufm/inventory.h"

namespace ufmr {

class StaffActions {
 public:
  // How long a ticket's link soaks (the rule's soak, else the default); thread-safe.
  using SoakFor = std::function<double(const Ticket&)>;
  StaffActions(Store& store, const Inventory& inventory, Metrics& metrics, const Clock& clock,
               BreakerWindow& breaker, SoakFor soak_for)
      : store_(store),
        inventory_(inventory),
        metrics_(metrics),
        clock_(clock),
        breaker_(breaker),
        soak_for_(std::move(soak_for)) {}

  // `kind` is what was done (repair_kind::, required); `note` is required for "other".
  Result<Ticket> ReportRepair(int64_t ticket_id, const std::string& by, const std::string& kind,
                              const std::string& note);
  // Takes the ticket (and assigns it to `by` if nobody works it yet).
  Result<Ticket> Acknowledge(int64_t ticket_id, const std::string& by, const std::string& note);
  // Re-arms the circuit breaker after a storm; closes the storm ticket. Conflict if not tripped.
  Status RearmBreaker(const std::string& by, const std::string& note);

 private:
  // Whether the ticket's host is being drained for it (its cut waits for the drain).
  static bool DrainUnderWay(Store::Tx& tx, const Ticket& t);
  // The repair recorded on `t` in `tx`: what was done, then the port back or the soak started.
  void RecordRepair(Store::Tx& tx, Ticket& t, const std::string& by, const std::string& kind,
                    const std::string& note);

  Store& store_;
  const Inventory& inventory_;
  Metrics& metrics_;
  const Clock& clock_;
  BreakerWindow& breaker_;
  SoakFor soak_for_;
};

}  // namespace ufmr
