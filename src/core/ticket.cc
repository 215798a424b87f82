#include "core/ticket.h"

#include <set>

namespace ufmr {

bool IsKnownTicketState(const std::string& s) {
  static const std::set<std::string> kAll = {
      ticket_state::kOpen,         ticket_state::kPortDisabled,   ticket_state::kTicketOnly,
      ticket_state::kAcknowledged, ticket_state::kRepairReported, ticket_state::kVerifying,
      ticket_state::kClosed,       ticket_state::kEscalated};
  return kAll.count(s) > 0;
}

bool AcceptsRepairReport(const std::string& s) {
  return s == ticket_state::kPortDisabled || s == ticket_state::kTicketOnly ||
         s == ticket_state::kAcknowledged || s == ticket_state::kEscalated;
}

bool AcceptsAcknowledge(const std::string& s) {
  return s == ticket_state::kPortDisabled || s == ticket_state::kTicketOnly ||
         s == ticket_state::kEscalated || s == ticket_state::kOpen;
}

}  // namespace ufmr
