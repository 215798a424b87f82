// open_ticket: the link, switch or host already has an open ticket. A ticket-only ticket does not
// stop an enforcing rule that acts (the link is worse than first judged): that finding passes and
// the decision names the ticket it upgrades.
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class OpenTicketGuard final : public Guard {
 public:
  const char* name() const override { return "open_ticket"; }
  GuardOutcome Check(const Finding& f, const GuardContext& ctx) const override {
    auto open = ctx.world().OpenTicket(f.link_key);
    if (!open) return GuardOutcome::Pass();
    bool upgrade = !open->acted && RuleActs(f) && f.mode == RuleMode::kEnforce;
    GuardOutcome o =
        upgrade
            ? GuardOutcome::Pass()
            : GuardOutcome::Hold(DecisionKind::kSuppressed,
                                 "ticket " + std::to_string(open->id) + " is already open for it");
    o.ticket_id = open->id;
    return o;
  }
};

}  // namespace

std::unique_ptr<Guard> MakeOpenTicketGuard() { return std::make_unique<OpenTicketGuard>(); }

}  // namespace ufmr
