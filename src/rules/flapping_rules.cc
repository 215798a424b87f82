#include "rules/flapping_rules.h"

#include <algorithm>

#include "base/duration.h"

namespace ufmr {

bool FlappingRules::Trim(FlapState* st, double window_s, TimePoint now) {
  while (!st->down_times.empty() && SecondsFrom(st->down_times.front(), now) > window_s) {
    st->down_times.pop_front();
  }
  while (!st->events.empty() && SecondsFrom(st->events.front().time, now) > window_s) {
    st->events.pop_front();
  }
  bool empty = st->down_times.empty();
  for (auto& [port, downs] : st->counter_downs) {
    while (!downs.empty() && SecondsFrom(downs.front().first, now) > window_s) downs.pop_front();
    empty = empty && downs.empty();
  }
  return empty;
}

void FlappingRules::CountDown(const Rule& r, const Observation& o, const ObservationSubjects& s,
                              FindingSink* sink, const std::shared_ptr<const Observation>& shared) {
  if (s.link_key.empty()) return;
  auto& flaps = flaps_[r.index];
  auto slot = flaps.find(s.link_key);
  if (slot == flaps.end()) slot = flaps.emplace(s.link_key, FlapState{}).first;
  FlapState& st = slot->second;
  st.rule = &r;
  if (o.kind == Observation::Kind::kEvent) {
    // A day-long window on a flapping link sees thousands of downs: count them all, keep only
    // the newest as evidence.
    st.down_times.push_back(o.time);
    if (st.events.size() >= kMaxFindingEvidence) st.events.pop_front();
    st.events.push_back({o.time, 0, shared ? shared : std::make_shared<const Observation>(o)});
  } else {
    st.counter_downs[o.ports.front()].emplace_back(o.time, o.delta);
  }
  st.last_down = o.time;
  Trim(&st, r.window_s, o.time);
  double from_counters = 0;
  for (const auto& [port, downs] : st.counter_downs) {
    double sum = 0;
    for (const auto& d : downs) sum += d.second;
    from_counters = std::max(from_counters, sum);
  }
  double downs = std::max(static_cast<double>(st.down_times.size()), from_counters);
  if (st.active || downs < r.count) return;
  st.active = true;  // until the link is quiet for a whole window
  Finding f = Found(r, o, s, st, downs, from_counters, sink->rules_hash());
  st.events.clear();
  st.down_times.clear();
  st.counter_downs.clear();
  sink->Emit(r, std::move(f));
}

Finding FlappingRules::Found(const Rule& r, const Observation& o, const ObservationSubjects& s,
                             const FlapState& st, double downs, double from_counters,
                             const std::string& rules_hash) {
  Finding f = MakeFinding(r, s, o.time, rules_hash);
  f.reason = std::to_string(static_cast<long long>(downs)) + " link-down transitions within " +
             FormatDuration(r.window_s);
  auto& observations = f.evidence["observations"].get_ref<nlohmann::json::array_t&>();
  observations.reserve(st.events.size() + 1);
  for (const auto& e : st.events) observations.push_back(ObservationToJson(*e.obs));
  if (from_counters > 0) {
    f.evidence["counter_downs"] = from_counters;
    observations.push_back(ObservationToJson(o));
  }
  return f;
}

void FlappingRules::Sweep(TimePoint now) {
  for (auto& flaps : flaps_) {
    for (auto it = flaps.begin(); it != flaps.end();) {
      FlapState& st = it->second;
      double window = st.rule->window_s;
      if (st.active && SecondsFrom(st.last_down, now) > window) st.active = false;
      bool empty = Trim(&st, window, now);
      it = (!st.active && empty) ? flaps.erase(it) : std::next(it);
    }
  }
}

void FlappingRules::Visit(double max_window_s,
                          const std::function<void(const SeenObservation&)>& visit) const {
  for (const auto& flaps : flaps_) {
    for (const auto& [entity, st] : flaps) {
      if (!st.rule || st.rule->window_s > max_window_s) continue;
      for (const auto& s : st.events) visit(s);
    }
  }
}

}  // namespace ufmr
