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
    if (sink->observations()) {  // kept as evidence only (the downs are counted by their times)
      if (st.events.size() >= kMaxFindingEvidence) st.events.pop_front();
      st.events.push_back({o.time, 0, shared ? shared : std::make_shared<const Observation>(o)});
    }
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
  Reschedule(s.link_key, &st);
  if (st.active || downs < r.count) return;
  st.active = true;  // until the link is quiet for a whole window
  Finding f = Found(r, o, s, st, downs, from_counters, *sink);
  st.events.clear();
  st.down_times.clear();
  st.counter_downs.clear();
  sink->Emit(r, std::move(f), &s);
}

Finding FlappingRules::Found(const Rule& r, const Observation& o, const ObservationSubjects& s,
                             const FlapState& st, double downs, double from_counters,
                             const FindingSink& sink) {
  Finding f = MakeFinding(r, s, o.time, sink.rules_hash(), !sink.observations(), sink.threshold(r));
  f.reason = std::to_string(static_cast<long long>(downs)) + " link-down transitions within " +
             FormatDuration(r.window_s);
  if (from_counters > 0) f.evidence["counter_downs"] = from_counters;
  if (!sink.observations()) return f;
  f.observed.reserve(st.events.size() + 1);
  for (const auto& e : st.events) f.observed.push_back(e.obs);
  if (from_counters > 0) f.observed.push_back(std::make_shared<const Observation>(o));
  return f;
}

std::optional<TimePoint> FlappingRules::NextLook(const FlapState& st) {
  const double window = st.rule->window_s;
  std::optional<TimePoint> due;
  auto consider = [&](TimePoint t) {
    if (!due || t < *due) due = t;
  };
  if (!st.down_times.empty()) consider(TimeAfter(st.down_times.front(), window));
  if (!st.events.empty()) consider(TimeAfter(st.events.front().time, window));
  for (const auto& [port, downs] : st.counter_downs) {
    if (!downs.empty()) consider(TimeAfter(downs.front().first, window));
  }
  if (st.active) consider(TimeAfter(st.last_down, window));
  if (!due && !st.active) return TimePoint{};  // at once: nothing is left
  return due;
}

void FlappingRules::Sweep(TimePoint now) {
  LookAtDue(&expiry_, &flaps_, now, [&](const std::string& key, FlapState& st) {
    double window = st.rule->window_s;
    if (st.active && SecondsFrom(st.last_down, now) > window) st.active = false;
    if (Trim(&st, window, now) && !st.active) return true;
    Reschedule(key, &st);
    return false;
  });
}

void FlappingRules::Adopt(FlappingRules&& old, const RuleMapping& mapping) {
  AdoptPerRule(&old.flaps_, mapping, &flaps_);
  RescheduleAll(&expiry_, &flaps_,
                [this](const std::string& key, FlapState* st) { Reschedule(key, st); });
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
