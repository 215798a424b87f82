// last_link: never leave a host or a switch short of active links (topology-aware). For each end
// of the link the inventory knows, count its node's other ports that are up, not held out of
// service by this service (nor their peers) and not isolated by a person; fewer than the policy's
// minimum (remediation.min_active_links_host / _switch) blocks the cut. A node whose links are
// not known is not judged.
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

// The node's ports other than `port` that carry traffic, counted up to `enough` (a busy switch
// need not be counted to the last port to know it keeps enough).
int OtherActiveLinks(const PortInfo& port, const std::vector<NodeLink>& node_ports, int enough,
                     const GuardContext& ctx) {
  int active = 0;
  for (const auto& p : node_ports) {
    if (active >= enough) break;
    if (p.name == port.name || !p.up || ctx.Held(p.name)) continue;
    if (!p.peer.empty() && ctx.Held(p.peer)) continue;
    // A port a person isolated is up but carries no traffic: not a link to count on.
    if (!ctx.world().OwnedByPerson(p.name).empty()) continue;
    ++active;
  }
  return active;
}

// What the ticket says: how many links the node keeps, and what a person may do.
std::string Why(const LinkEnd& end, int active, int minimum) {
  std::string node(NodeName(end.info));
  std::string left = std::to_string(active) + " other active link" + (active == 1 ? "" : "s") +
                     " (at least " + std::to_string(minimum) + " must stay up)";
  if (end.info->is_switch()) return "switch " + node + " has " + left + ": not cut automatically";
  return node + " has " + left + ": drain the host first, then take " + end.name +
         " out of service by hand or report the repair";
}

class LastLinkGuard final : public Guard {
 public:
  const char* name() const override { return "last_link"; }
  GuardOutcome Check(const Finding&, const GuardContext& ctx) const override {
    const DecisionPolicy& policy = ctx.policy();
    for (const auto& end : ctx.Ends()) {
      if (!end.info) continue;
      int minimum =
          end.info->is_switch() ? policy.min_active_links_switch : policy.min_active_links_host;
      if (minimum <= 0) continue;
      auto node_ports = ctx.world().NodeLinks(*end.info);
      if (node_ports.empty()) continue;  // the node's links are not known: not judged
      int active = OtherActiveLinks(*end.info, node_ports, minimum, ctx);
      if (active < minimum) {
        return GuardOutcome::Hold(DecisionKind::kBlocked, Why(end, active, minimum));
      }
    }
    return GuardOutcome::Pass();
  }
};

}  // namespace

std::unique_ptr<Guard> MakeLastLinkGuard() { return std::make_unique<LastLinkGuard>(); }

}  // namespace ufmr
