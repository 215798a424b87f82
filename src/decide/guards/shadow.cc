// shadow: the rule is in shadow mode: the finding is recorded with what it would have done.
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class ShadowGuard final : public Guard {
 public:
  const char* name() const override { return "shadow"; }
  GuardOutcome Check(const Finding& f, const GuardContext& ctx) const override {
    if (f.mode != RuleMode::kShadow) return GuardOutcome::Pass();
    return GuardOutcome::Hold(DecisionKind::kFinding, RuleActs(f)
                                                          ? std::string("shadow mode: would ") +
                                                                ActionVerb(f) + " " + ctx.port()
                                                          : "shadow mode: recorded only");
  }
};

}  // namespace

std::unique_ptr<Guard> MakeShadowGuard() { return std::make_unique<ShadowGuard>(); }

}  // namespace ufmr
