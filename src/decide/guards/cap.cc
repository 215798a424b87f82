// cap: the ports this service holds out of service, fabric-wide: at most
// remediation.max_disabled_ports (0 blocks every cut), then at most max_disabled_percent of the
// ports the inventory knows, rounded down, at least 1 (0: off).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class CapGuard final : public Guard {
 public:
  const char* name() const override { return "cap"; }
  GuardOutcome Check(const Finding&, const GuardContext& ctx) const override {
    const DecisionPolicy& policy = ctx.policy();
    const int total = static_cast<int>(ctx.HeldPorts().size());
    if (total >= policy.max_disabled_ports) {
      return GuardOutcome::Hold(DecisionKind::kBlocked,
                                "cap reached: this service already holds " + std::to_string(total) +
                                    " ports out of service (the cap is " +
                                    std::to_string(policy.max_disabled_ports) + ")");
    }
    if (policy.max_disabled_percent <= 0) return GuardOutcome::Pass();
    int fabric = ctx.world().FabricPorts();
    int allowed = std::max(
        1, static_cast<int>(std::floor(fabric * policy.max_disabled_percent / 100.0 + 1e-9)));
    if (total < allowed) return GuardOutcome::Pass();
    char pct[32];
    std::snprintf(pct, sizeof pct, "%g", policy.max_disabled_percent);
    return GuardOutcome::Hold(DecisionKind::kBlocked,
                              "cap reached: this service already holds " + std::to_string(total) +
                                  " ports out of service (" + pct + "% of the fabric's " +
                                  std::to_string(fabric) + " ports allows " +
                                  std::to_string(allowed) + ")");
  }
};

}  // namespace

std::unique_ptr<Guard> MakeCapGuard() { return std::make_unique<CapGuard>(); }

}  // namespace ufmr
