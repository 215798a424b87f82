// cooldown: this service recorded an action on a port of the link less than
// remediation.port_cooldown_s ago (0: off).
#include <algorithm>
#include <chrono>

#include "base/duration.h"
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class CooldownGuard final : public Guard {
 public:
  const char* name() const override { return "cooldown"; }
  GuardOutcome Check(const Finding& f, const GuardContext& ctx) const override {
    const double cooldown = ctx.policy().port_cooldown_s;
    if (cooldown <= 0) return GuardOutcome::Pass();
    for (const auto& p : f.ports) {
      auto last = ctx.world().LastActionOn(p);
      if (!last) continue;
      double ago = std::chrono::duration<double>(f.time - *last).count();
      if (ago < cooldown) {
        return GuardOutcome::Hold(DecisionKind::kBlocked,
                                  "this service acted on " + p + " " +
                                      FormatDuration(std::max(0.0, ago)) + " ago (cooldown " +
                                      FormatDuration(cooldown) + "): not acted on again so soon");
      }
    }
    return GuardOutcome::Pass();
  }
};

}  // namespace

std::unique_ptr<Guard> MakeCooldownGuard() { return std::make_unique<CooldownGuard>(); }

}  // namespace ufmr
