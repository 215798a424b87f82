// switch_cap: for each switch end of the link, the links with an end on that switch this service
// holds out of service: at most remediation.max_disabled_per_switch (0: off).
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

// Held ports on switch `sw`, or whose peer is on it.
int HeldOnSwitch(const std::string& sw, const GuardContext& ctx) {
  int on_switch = 0;
  for (const auto& h : ctx.HeldPorts()) {
    const PortInfo* hp = ctx.world().Port(h);
    if (!hp) continue;
    const PortInfo* peer = hp->peer.empty() ? nullptr : ctx.world().Port(hp->peer);
    bool touches = (hp->is_switch() && NodeName(hp) == sw) ||
                   (peer && peer->is_switch() && NodeName(peer) == sw);
    on_switch += touches;
  }
  return on_switch;
}

class SwitchCapGuard final : public Guard {
 public:
  const char* name() const override { return "switch_cap"; }
  GuardOutcome Check(const Finding&, const GuardContext& ctx) const override {
    const int cap = ctx.policy().max_disabled_per_switch;
    if (cap <= 0) return GuardOutcome::Pass();
    for (const auto& end : ctx.Ends()) {
      if (!end.info || !end.info->is_switch()) continue;
      std::string sw(NodeName(end.info));
      int on_switch = HeldOnSwitch(sw, ctx);
      if (on_switch >= cap) {
        return GuardOutcome::Hold(DecisionKind::kBlocked,
                                  "switch cap reached: this service already holds " +
                                      std::to_string(on_switch) + " links of switch " + sw +
                                      " out of service (the cap is " + std::to_string(cap) + ")");
      }
    }
    return GuardOutcome::Pass();
  }
};

}  // namespace

std::unique_ptr<Guard> MakeSwitchCapGuard() { return std::make_unique<SwitchCapGuard>(); }

}  // namespace ufmr
