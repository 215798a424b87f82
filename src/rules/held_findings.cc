#include "rules/held_findings.h"

#include <algorithm>

namespace ufmr {

void HeldFindings::Hold(Held held) {
  const TimePoint fire_at = held.fire_at;
  auto& map = held_[held.rule->index];
  std::string entity = held.entity;
  map[entity] = std::move(held);
  if (!next_due_ || fire_at < *next_due_) next_due_ = fire_at;
}

bool HeldFindings::Join(const Rule& r, const std::string& entity, SeenObservation seen) {
  auto& map = held_[r.index];
  auto it = map.find(entity);
  if (it == map.end()) return false;
  if (it->second.seen.size() < kMaxFindingEvidence) it->second.seen.push_back(std::move(seen));
  return true;
}

void HeldFindings::Cancel(const Rule& r, const std::string& entity) {
  auto& map = held_[r.index];
  if (auto it = map.find(entity); it != map.end()) map.erase(it);
}

std::vector<HeldFindings::Held> HeldFindings::TakeDue(TimePoint now) {
  std::vector<Held> out;
  if (!next_due_ || *next_due_ > now) return out;
  struct Due {
    TimePoint when;
    size_t index;
    const std::string* entity;  // the map's key: stays valid while other entries are erased
  };
  std::vector<Due> due;
  next_due_.reset();
  for (size_t i = 0; i < held_.size(); ++i) {
    for (const auto& [entity, h] : held_[i]) {
      if (h.fire_at <= now) {
        due.push_back({h.fire_at, i, &entity});
      } else if (!next_due_ || h.fire_at < *next_due_) {
        next_due_ = h.fire_at;
      }
    }
  }
  std::sort(due.begin(), due.end(), [](const Due& a, const Due& b) {
    if (a.when != b.when) return a.when < b.when;
    if (a.index != b.index) return a.index < b.index;
    return *a.entity < *b.entity;
  });
  out.reserve(due.size());
  for (const Due& d : due) {
    auto& map = held_[d.index];
    auto it = map.find(*d.entity);
    out.push_back(std::move(it->second));
    map.erase(it);
  }
  return out;
}

void HeldFindings::Adopt(HeldFindings&& old, const RuleMapping& mapping) {
  AdoptPerRule(&old.held_, mapping, &held_);
  if (old.next_due_ && (!next_due_ || *old.next_due_ < *next_due_)) {
    next_due_ = old.next_due_;  // as early as any hold taken over
  }
}

void HeldFindings::Visit(const std::function<void(const SeenObservation&)>& visit) const {
  for (const auto& map : held_) {
    for (const auto& [entity, h] : map) {
      for (const auto& s : h.seen) visit(s);
    }
  }
}

size_t HeldFindings::size() const {
  size_t n = 0;
  for (const auto& m : held_) n += m.size();
  return n;
}

}  // namespace ufmr
