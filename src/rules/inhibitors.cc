#include "rules/inhibitors.h"

#include <algorithm>
#include <memory>

namespace ufmr {

void Inhibitors::Extend(const Rule& r, const std::string& entity, const std::string& name,
                        TimePoint t) {
  auto& list = inhibitors_[entity];
  TimePoint until = TimeAfter(t, r.inhibit_for_s);
  for (auto& i : list) {
    if (i.rule == r.name) {
      i.until = std::max(i.until, until);
      return;
    }
  }
  list.push_back({r.name, name, until});
  may_cover_.clear();
  earliest_end_ = std::min(earliest_end_, until);
}

bool Inhibitors::MayCover(const std::string& rule, const RulesByName& rules) const {
  auto [known, added] = may_cover_.try_emplace(rule, false);
  if (!added) return known->second;
  for (const auto& [entity, list] : inhibitors_) {
    for (const auto& i : list) {
      auto r = rules.find(i.rule);
      if (r != rules.end() && r->second->inhibits.count(rule)) return known->second = true;
    }
  }
  return false;
}

std::string Inhibitors::Covering(const std::string& entity, const char* what,
                                 const std::string& rule, TimePoint t,
                                 const RulesByName& rules) const {
  auto it = inhibitors_.find(entity);
  if (it == inhibitors_.end()) return "";
  for (const auto& i : it->second) {
    if (i.until < t) continue;
    auto r = rules.find(i.rule);
    if (r == rules.end() || !r->second->inhibits.count(rule)) continue;
    return i.rule + " on " + what + " " + i.entity_name;
  }
  return "";
}

std::string Inhibitors::InhibitedBy(const std::string& rule, const Finding& f, TimePoint t,
                                    const SubjectResolver& resolver, const RulesByName& rules,
                                    bool placed_now) const {
  if (inhibitors_.empty() || !MayCover(rule, rules)) return "";
  // The switches and hosts the finding's observations named, then what the inventory says now.
  const SubjectResolver::Nodes now =
      placed_now ? SubjectResolver::Nodes{} : resolver.InventoryNodes(f.ports);
  // Each name once, in key order (as the two maps merged would give them).
  std::vector<const std::string*> keys;
  std::string entity;
  for (bool sw : {true, false}) {
    keys.clear();
    for (const auto& [k, n] : sw ? f.switches : f.hosts) keys.push_back(&k);
    for (const auto& k : sw ? now.switches : now.hosts) keys.push_back(&k);
    std::sort(keys.begin(), keys.end(), [](auto* a, auto* b) { return *a < *b; });
    keys.erase(std::unique(keys.begin(), keys.end(), [](auto* a, auto* b) { return *a == *b; }),
               keys.end());
    for (const std::string* key : keys) {
      entity.assign(sw ? "switch:" : "node:").append(*key);
      if (auto why = Covering(entity, sw ? "switch" : "node", rule, t, rules); !why.empty()) {
        return why;
      }
    }
  }
  return "";
}

void Inhibitors::Expire(TimePoint now) {
  if (now <= earliest_end_) return;
  earliest_end_ = TimePoint::max();
  for (auto it = inhibitors_.begin(); it != inhibitors_.end();) {
    auto& list = it->second;
    list.erase(
        std::remove_if(list.begin(), list.end(), [&](const Inhibitor& i) { return i.until < now; }),
        list.end());
    for (const auto& i : list) earliest_end_ = std::min(earliest_end_, i.until);
    it = list.empty() ? inhibitors_.erase(it) : std::next(it);
  }
  may_cover_.clear();
}

void Inhibitors::Adopt(Inhibitors&& old, const RulesByName& rules) {
  for (auto& [entity, list] : old.inhibitors_) {
    for (auto& i : list) {
      if (!rules.count(i.rule)) continue;
      earliest_end_ = std::min(earliest_end_, i.until);
      inhibitors_[entity].push_back(std::move(i));
    }
  }
  may_cover_.clear();
}

void FindingSink::Emit(const Rule& r, Finding f, const ObservationSubjects* subjects) {
  if (r.scope == RuleScope::kPort || r.scope == RuleScope::kLink) {
    const bool placed_now = subjects && subjects->generation == resolver_.generation();
    f.inhibited_by = inhibitors_.InhibitedBy(r.name, f, f.time, resolver_, rules_, placed_now);
  }
  if (!r.description.empty()) f.reason = r.description + " (" + f.reason + ")";
  out_->push_back(std::move(f));
}

}  // namespace ufmr
