// GuardContext: what the guards read about one finding: the world (DecisionContext: ports, open
// tickets, silences, ports held out of service, actions, the breaker), the policy, the port the
// decision would act on, and what several guards ask (the ports held out of service, what the
// inventory knows of the link's ends), asked of the world once, on first use. One context per
// finding, used by one thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "decide/decision.h"
#include "rules/finding.h"
#include "ufm/inventory.h"

namespace ufmr {

// One end of the finding's link and what the inventory knows of it (null when unknown; kept by
// the DecisionContext for the decision).
struct LinkEnd {
  std::string_view name;  // one of the finding's ports
  const PortInfo* info = nullptr;
};

class GuardContext {
 public:
  // Works out the port to act on (port and link scopes) right away; the rest on first use.
  // `f`, `world` and `policy` must outlive the context.
  GuardContext(const Finding& f, DecisionContext& world, const DecisionPolicy& policy);

  DecisionContext& world() const { return world_; }
  const DecisionPolicy& policy() const { return policy_; }
  // The port to act on (ActionPort), "" when no end qualifies or the scope has none.
  const std::string& action_port() const { return action_port_; }
  // The decision's port and peer: the port to act on, else the link's first end; the other end.
  const std::string& port() const { return port_; }
  const std::string& peer() const { return peer_; }
  // The ports this service holds out of service (DecisionContext::HeldPorts).
  const std::vector<std::string>& HeldPorts() const;
  bool Held(const std::string& port) const;
  // The finding's ends, each with what the inventory knows of it.
  const std::vector<LinkEnd>& Ends() const;
  // The end named `port` (its inventory entry looked up already), or null when it is none.
  const LinkEnd* End(std::string_view port) const;

 private:
  const Finding& finding_;
  DecisionContext& world_;
  const DecisionPolicy& policy_;
  std::string action_port_;
  std::string port_;
  std::string peer_;
  static constexpr size_t kScanHeld = 32;
  mutable std::optional<std::vector<std::string>> held_;
  mutable std::unordered_set<std::string> held_set_;  // more than kScanHeld held ports
  mutable std::optional<std::vector<LinkEnd>> ends_;
};

// The rule asks to take the link out (disable or isolate), whatever its mode.
bool RuleActs(const Finding& f);
// "isolate" or "disable", as the rule's action says.
const char* ActionVerb(const Finding& f);

}  // namespace ufmr
