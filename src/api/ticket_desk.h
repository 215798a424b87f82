// TicketDesk: what staff do to a ticket besides acknowledging it and reporting a repair (those
// belong to the Remediator, which acts on them): assign it, comment on it, reopen it, and close
// it as won't fix. Each is one transaction that locks the ticket row, checks the state, updates
// the ticket and adds a timeline event naming the person. Thread-safe (HTTP threads).
#pragma once

#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "store/store.h"
#include "store/ticket.h"

namespace ufmr {

class TicketDesk {
 public:
  TicketDesk(Store& store, const Clock& clock) : store_(store), clock_(clock) {}

  // `to` "" unassigns. Not on closed tickets.
  Result<Ticket> Assign(int64_t id, const std::string& by, const std::string& to);
  Result<Ticket> Comment(int64_t id, const std::string& by, const std::string& text);
  // A closed ticket opens again (ticket_only: the service holds nothing for it) unless another
  // ticket is open on the link; an escalated one gets a fresh count of repair attempts.
  Result<Ticket> Reopen(int64_t id, const std::string& by, const std::string& reason);
  // Closes a ticket that will not be repaired. Refused (Conflict) while the service holds the
  // port out of service or is bringing it back: report the repair first.
  Result<Ticket> WontFix(int64_t id, const std::string& by, const std::string& reason);

  // A person's name as the API accepts it: 1-64 of letters, digits, '.', '_', '-', '@'.
  static bool IsValidName(const std::string& name);

 private:
  Store& store_;
  const Clock& clock_;
};

}  // namespace ufmr
