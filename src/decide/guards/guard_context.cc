#include "decide/guards/guard_context.h"

namespace ufmr {

GuardContext::GuardContext(const Finding& f, DecisionContext& world, const DecisionPolicy& policy)
    : finding_(f), world_(world), policy_(policy) {
  if (f.scope != RuleScope::kPort && f.scope != RuleScope::kLink) return;
  // Each end is looked up once, for the port to act on, the guards and the title.
  std::vector<std::pair<std::string, const PortInfo*>> known;
  for (const auto& end : Ends()) known.emplace_back(end.name, end.info ? &*end.info : nullptr);
  action_port_ = ActionPort(known, policy.require_system_guid);
  port_ = !action_port_.empty() ? action_port_ : (f.ports.empty() ? "" : f.ports.front());
  for (const auto& p : f.ports) {
    if (p != port_) peer_ = p;
  }
}

const std::vector<std::string>& GuardContext::HeldPorts() const {
  if (!held_) {
    held_ = world_.HeldPorts();
    held_set_.insert(held_->begin(), held_->end());
  }
  return *held_;
}

bool GuardContext::Held(const std::string& port) const {
  HeldPorts();
  return held_set_.count(port) > 0;
}

const std::optional<PortInfo>* GuardContext::Known(const std::string& port) const {
  for (const auto& end : Ends()) {
    if (end.name == port) return &end.info;
  }
  return nullptr;
}

const std::vector<LinkEnd>& GuardContext::Ends() const {
  if (!ends_) {
    ends_.emplace();
    for (const auto& p : finding_.ports) ends_->push_back({p, world_.Port(p)});
  }
  return *ends_;
}

bool RuleActs(const Finding& f) {
  return f.action == RuleAction::kDisablePort || f.action == RuleAction::kIsolatePort;
}

const char* ActionVerb(const Finding& f) {
  return f.action == RuleAction::kIsolatePort ? "isolate" : "disable";
}

}  // namespace ufmr
