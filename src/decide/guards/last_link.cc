// last_link: never leave a host or a switch short of active links (topology-aware). For each end
// of the link the inventory knows, count its node's other ports that are up, not held out of
// service by this service (nor their peers) and not isolated by a person; fewer than the policy's
// minimum (remediation.min_active_links_host / _switch) blocks the cut. A node whose links are
// not known is not judged. With a job scheduler configured, a host short of links is drained
// first instead (the outcome names it, and the later guards judge the cut); so is the host of a
// drain_then_disable rule's link, whatever its links.
#include <optional>

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

std::string LinksLeft(int active, int minimum) {
  return std::to_string(active) + " other active link" + (active == 1 ? "" : "s") + " (at least " +
         std::to_string(minimum) + " must stay up)";
}

// What the ticket says: how many links the node keeps, and what a person may do.
std::string Why(const LinkEnd& end, int active, int minimum) {
  std::string node(NodeName(end.info));
  if (end.info->is_switch()) {
    return "switch " + node + " has " + LinksLeft(active, minimum) + ": not cut automatically";
  }
  return node + " has " + LinksLeft(active, minimum) + ": drain the host first, then take " +
         std::string(end.name) + " out of service by hand or report the repair";
}

// Whether the host end is short of links (false for a node whose links are unknown).
bool ShortOfLinks(const LinkEnd& end, int minimum, const GuardContext& ctx, int* active) {
  if (minimum <= 0) return false;
  auto node_ports = ctx.world().NodeLinks(*end.info);
  if (node_ports.empty()) return false;  // the node's links are not known: not judged
  *active = OtherActiveLinks(*end.info, node_ports, minimum, ctx);
  return *active < minimum;
}

// Names the host to drain in *drain; a hold when it cannot be named, or when the link's other
// end is a host to drain as well (one drain per cut: a person judges such a link).
std::optional<GuardOutcome> DrainOf(const LinkEnd& end, std::string* drain) {
  std::string host(HostNameOf(end.info));
  if (host.empty()) {
    return GuardOutcome::Hold(DecisionKind::kBlocked,
                              "the host of " + std::string(end.name) +
                                  " has no name in UFM's inventory, so it cannot be drained in "
                                  "the job scheduler: drain it and take the link out by hand");
  }
  if (!drain->empty() && *drain != host) {
    return GuardOutcome::Hold(DecisionKind::kBlocked, "both ends of the link are hosts to drain (" +
                                                          *drain + ", " + host +
                                                          "): not cut automatically");
  }
  *drain = std::move(host);
  return std::nullopt;
}

class LastLinkGuard final : public Guard {
 public:
  const char* name() const override { return "last_link"; }
  GuardOutcome Check(const Finding& f, const GuardContext& ctx) const override {
    const DecisionPolicy& policy = ctx.policy();
    const bool rule_drains = f.action == RuleAction::kDrainThenDisable;
    std::string drain;
    for (const auto& end : ctx.Ends()) {
      if (!end.info) continue;
      const bool host = !end.info->is_switch();
      int minimum = host ? policy.min_active_links_host : policy.min_active_links_switch;
      int active = 0;
      const bool short_of_links = ShortOfLinks(end, minimum, ctx, &active);
      if (!host) {
        if (short_of_links) {
          return GuardOutcome::Hold(DecisionKind::kBlocked, Why(end, active, minimum));
        }
        continue;
      }
      if (!short_of_links && !rule_drains) continue;
      if (policy.scheduler && (rule_drains || policy.drain_on_last_link)) {
        if (auto held = DrainOf(end, &drain)) return *held;
      } else if (short_of_links) {
        return GuardOutcome::Hold(DecisionKind::kBlocked, Why(end, active, minimum));
      } else {
        return GuardOutcome::Hold(DecisionKind::kBlocked,
                                  "the rule drains " + std::string(HostNameOf(end.info)) +
                                      " in the job scheduler before the cut, and no scheduler is "
                                      "configured (scheduler.backend)");
      }
    }
    GuardOutcome pass = GuardOutcome::Pass();
    pass.drain_host = std::move(drain);
    return pass;
  }
};

}  // namespace

std::unique_ptr<Guard> MakeLastLinkGuard() { return std::make_unique<LastLinkGuard>(); }

}  // namespace ufmr
