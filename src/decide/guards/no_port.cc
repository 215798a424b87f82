// no_port: no end of the link is known to UFM (with a system GUID, when the policy requires one):
// there is nothing to act on, so the finding gets a ticket.
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class NoPortGuard final : public Guard {
 public:
  const char* name() const override { return "no_port"; }
  GuardOutcome Check(const Finding& f, const GuardContext& ctx) const override {
    if (!ctx.action_port().empty()) return GuardOutcome::Pass();
    return GuardOutcome::Hold(DecisionKind::kTicket,
                              std::string("no end of the link is known to UFM") +
                                  (ctx.policy().require_system_guid ? " with a system GUID" : "") +
                                  ": nothing to " + ActionVerb(f));
  }
};

}  // namespace

std::unique_ptr<Guard> MakeNoPortGuard() { return std::make_unique<NoPortGuard>(); }

}  // namespace ufmr
