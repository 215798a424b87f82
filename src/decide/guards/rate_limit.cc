// rate_limit: the ports this service took out of service within the hour before the finding: at
// most remediation.max_actions_per_hour (0: off).
#include <chrono>

#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class RateLimitGuard final : public Guard {
 public:
  const char* name() const override { return "rate_limit"; }
  GuardOutcome Check(const Finding& f, const GuardContext& ctx) const override {
    const int limit = ctx.policy().max_actions_per_hour;
    if (limit <= 0) return GuardOutcome::Pass();
    int recent = ctx.world().ActionsSince(f.time - std::chrono::hours(1));
    if (recent < limit) return GuardOutcome::Pass();
    return GuardOutcome::Hold(DecisionKind::kBlocked,
                              "rate limit reached: this service took " + std::to_string(recent) +
                                  " ports out of service in the last hour (the limit is " +
                                  std::to_string(limit) + ")");
  }
};

}  // namespace

std::unique_ptr<Guard> MakeRateLimitGuard() { return std::make_unique<RateLimitGuard>(); }

}  // namespace ufmr
