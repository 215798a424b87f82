#include "store/ticket.h"

#include <set>

namespace ufmr {

bool IsKnownTicketState(const std::string& s) {
  static const std::set<std::string> kAll = {
      ticket_state::kOpen,         ticket_state::kPortDisabled,   ticket_state::kTicketOnly,
      ticket_state::kAcknowledged, ticket_state::kRepairReported, ticket_state::kVerifying,
      ticket_state::kClosed,       ticket_state::kEscalated,      ticket_state::kDraining,
      ticket_state::kDrained};
  return kAll.count(s) > 0;
}

bool AcceptsRepairReport(const std::string& s) {
  return s == ticket_state::kPortDisabled || s == ticket_state::kTicketOnly ||
         s == ticket_state::kAcknowledged || s == ticket_state::kEscalated;
}

bool AcceptsAcknowledge(const std::string& s) {
  return s == ticket_state::kPortDisabled || s == ticket_state::kTicketOnly ||
         s == ticket_state::kEscalated || s == ticket_state::kOpen ||
         s == ticket_state::kDraining || s == ticket_state::kDrained;
}

bool RuleMayUpgrade(const Ticket& t) {
  return t.state == ticket_state::kTicketOnly && t.attempts == 0 && t.guard != "drift" &&
         t.guard != "action_failed" && t.guard != "drain_failed";
}

bool IsKnownRepairKind(const std::string& kind) { return !RepairKindWords(kind).empty(); }

std::string RepairKindWords(const std::string& kind) {
  if (kind == repair_kind::kReseat) return "cable reseated";
  if (kind == repair_kind::kCableReplaced) return "cable replaced";
  if (kind == repair_kind::kTransceiverReplaced) return "transceiver replaced";
  if (kind == repair_kind::kSwitchPortReplaced) return "switch port replaced";
  if (kind == repair_kind::kHcaReplaced) return "HCA replaced";
  if (kind == repair_kind::kOther) return "other repair";
  return "";
}

bool IsNotifiedEventKind(const std::string& kind) {
  for (const char* k : {"opened", "soak_failed", "escalated", "drift", "soak_passed", "rearmed"}) {
    if (kind == k) return true;
  }
  return false;
}

}  // namespace ufmr
