// breaker: the circuit breaker. Tripped, it blocks every cut until a person re-arms it. Otherwise
// each finding that reaches it is counted; more than remediation.breaker_findings within
// breaker_window_s trips it (0: no breaker), and the finding that does is blocked and says so.
#include "base/duration.h"
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class BreakerGuard final : public Guard {
 public:
  const char* name() const override { return "breaker"; }
  GuardOutcome Check(const Finding& f, const GuardContext& ctx) const override {
    if (ctx.world().BreakerTripped()) {
      return GuardOutcome::Hold(DecisionKind::kBlocked,
                                "circuit breaker tripped by a storm of findings: no port is cut "
                                "until a person re-arms it");
    }
    const DecisionPolicy& policy = ctx.policy();
    if (policy.breaker_findings <= 0) return GuardOutcome::Pass();
    int n = ctx.world().CountActingFinding(f.time, policy.breaker_window_s);
    if (n <= policy.breaker_findings) return GuardOutcome::Pass();
    GuardOutcome o = GuardOutcome::Hold(
        DecisionKind::kBlocked,
        "storm: " + std::to_string(n) + " findings that would act within " +
            FormatDuration(policy.breaker_window_s) + " (more than " +
            std::to_string(policy.breaker_findings) +
            "); circuit breaker tripped: no port is cut until a person re-arms it");
    o.trips_breaker = n;
    return o;
  }
};

}  // namespace

std::unique_ptr<Guard> MakeBreakerGuard() { return std::make_unique<BreakerGuard>(); }

}  // namespace ufmr
