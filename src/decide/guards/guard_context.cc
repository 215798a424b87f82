#include "decide/guards/guard_context.h"

#include <algorithm>

namespace ufmr {

GuardContext::GuardContext(const Finding& f, DecisionContext& world, const DecisionPolicy& policy)
    : finding_(f), world_(world), policy_(policy) {
  if (f.scope != RuleScope::kPort && f.scope != RuleScope::kLink) return;
  // Each end is looked up once, for the port to act on, the guards and the title.
  std::vector<std::pair<std::string_view, const PortInfo*>> known;
  known.reserve(Ends().size());
  for (const auto& end : Ends()) known.emplace_back(end.name, end.info);
  action_port_ = ActionPort(known, policy.require_system_guid);
  port_ = !action_port_.empty() ? action_port_ : (f.ports.empty() ? "" : f.ports.front());
  for (const auto& p : f.ports) {
    if (p != port_) peer_ = p;
  }
}

const std::vector<std::string>& GuardContext::HeldPorts() const {
  if (!held_) held_ = world_.HeldPorts();
  return *held_;
}

bool GuardContext::Held(const std::string& port) const {
  // Usually a few ports (the caps keep them few): a scan costs less than indexing them for every
  // finding; many are indexed once per decision.
  const auto& held = HeldPorts();
  if (held.size() <= kScanHeld) return std::find(held.begin(), held.end(), port) != held.end();
  if (held_set_.empty()) held_set_.insert(held.begin(), held.end());
  return held_set_.count(port) > 0;
}

const LinkEnd* GuardContext::End(std::string_view port) const {
  for (const auto& end : Ends()) {
    if (end.name == port) return &end;
  }
  return nullptr;
}

const std::vector<LinkEnd>& GuardContext::Ends() const {
  if (!ends_) {
    ends_.emplace();
    ends_->reserve(finding_.ports.size());
    for (const auto& p : finding_.ports) ends_->push_back({p, world_.Port(p)});
  }
  return *ends_;
}

bool RuleActs(const Finding& f) { return TakesPortOut(f.action); }

const char* ActionVerb(const Finding& f) {
  return f.action == RuleAction::kIsolatePort ? "isolate" : "disable";
}

}  // namespace ufmr
