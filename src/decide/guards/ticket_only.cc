// ticket_only: the rule asks for a ticket, no port action.
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class TicketOnlyGuard final : public Guard {
 public:
  const char* name() const override { return "ticket_only"; }
  GuardOutcome Check(const Finding& f, const GuardContext&) const override {
    if (f.action != RuleAction::kTicketOnly) return GuardOutcome::Pass();
    return GuardOutcome::Hold(DecisionKind::kTicket, "the rule asks for a ticket only");
  }
};

}  // namespace

std::unique_ptr<Guard> MakeTicketOnlyGuard() { return std::make_unique<TicketOnlyGuard>(); }

}  // namespace ufmr
