#include "rules/counter_rules.h"

#include <algorithm>
#include <cstdio>

#include "base/duration.h"

namespace ufmr {

namespace {

// Under its clear level: the episode is over. A clear level of 0 means "no errors at all".
bool Cleared(const Rule& r, double measure) {
  return r.condition.clear_below > 0 ? measure < r.condition.clear_below : measure <= 0;
}

std::string Fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", v);
  return buf;
}

std::string Reason(const Rule& r, double m, const std::string& port) {
  std::string reason;
  const std::string& what = r.counter;
  switch (r.condition.measure) {
    case CounterCondition::Measure::kRate:
      reason = what + " at " + Fmt(m) + " per " + FormatDuration(r.condition.per_s) +
               ", threshold " + Fmt(r.condition.above);
      break;
    case CounterCondition::Measure::kDelta:
      reason = what + " rose by " + Fmt(m) + ", threshold " + Fmt(r.condition.above);
      break;
    case CounterCondition::Measure::kBer:
    case CounterCondition::Measure::kValue:
      reason = what + " at " + Fmt(m) + ", threshold " + Fmt(r.condition.above);
      break;
  }
  if (r.window_s > 0) reason += " over " + FormatDuration(r.window_s);
  if (r.for_s > 0) reason += " for " + FormatDuration(r.for_s);
  return reason + " on " + port;
}

}  // namespace

bool LinkDowns::RecentlyDown(const std::vector<std::string>& ports, TimePoint t,
                             double within_s) const {
  for (const auto& p : ports) {
    auto it = last_down_.find(p);
    if (it != last_down_.end() && SecondsFrom(it->second, t) < within_s) return true;
  }
  return false;
}

void CounterRules::Observe(const Rule& r, const Observation& o, const LinkDowns& downs,
                           const SubjectsFn& subjects, FindingSink* sink) {
  auto& states = counters_[r.index];
  auto it = states.find(o.ports.front());
  if (it == states.end()) it = states.emplace(o.ports.front(), CounterState{}).first;
  it->second.rule = &r;
  Judge(r, o, downs, subjects, sink, &it->second);
  Reschedule(it->first, &it->second);
}

void CounterRules::Judge(const Rule& r, const Observation& o, const LinkDowns& downs,
                         const SubjectsFn& subjects, FindingSink* sink, CounterState* state) {
  const std::string& port = o.ports.front();
  CounterState& st = *state;
  if (r.min_link_uptime_s > 0 &&
      downs.RecentlyDown(subjects().ends.empty() ? o.ports : subjects().ends, o.time,
                         r.min_link_uptime_s)) {
    // The link trained recently: its error counts say nothing yet. Start the window afresh.
    st.samples.clear();
    st.above_since.reset();
    return;
  }
  st.samples.emplace_back(o.time, o);
  // Samples that left the window count no more (Measure skips them): drop them, or a port that
  // reports on time keeps every sample it ever sent (Sweep prunes only late ones).
  double window = std::max(r.window_s, o.interval_s);
  while (SecondsFrom(st.samples.front().first, o.time) >= window) st.samples.pop_front();
  double m = Measure(r, st, o.time);
  if (m <= r.condition.above) {
    st.above_since.reset();
    if (Cleared(r, m)) st.active = false;
    return;
  }
  if (st.active) return;
  if (!st.above_since) st.above_since = o.time;
  if (SecondsFrom(*st.above_since, o.time) < r.for_s) return;
  st.active = true;
  sink->Emit(r, Found(r, subjects(), st, m, port, o.time, *sink), &subjects());
}

Finding CounterRules::Found(const Rule& r, const ObservationSubjects& s, const CounterState& st,
                            double measured, const std::string& port, TimePoint t,
                            const FindingSink& sink) {
  Finding f = MakeFinding(r, s, t, sink.rules_hash(), !sink.observations(), sink.threshold(r));
  f.reason = Reason(r, measured, port);
  for (const auto& [time, sample] : st.samples) {
    if (!sink.observations() || f.observed.size() >= kMaxFindingEvidence) break;
    f.observed.push_back(std::make_shared<const Observation>(sample));
  }
  f.evidence["measured"] = measured;
  return f;
}

double CounterRules::Measure(const Rule& r, const CounterState& st, TimePoint now) {
  if (st.samples.empty()) return 0;
  // Telemetry reports only counters that moved: quiet samples are missing, not zeros. So a
  // window's rate divides by the window, not by the samples' intervals.
  double window = std::max(r.window_s, st.samples.back().second.interval_s);
  double sum = 0, weighted = 0;
  for (const auto& [t, o] : st.samples) {
    if (SecondsFrom(t, now) >= window) continue;
    sum += o.delta;
    weighted += o.value * o.interval_s;
  }
  switch (r.condition.measure) {
    case CounterCondition::Measure::kDelta:
      return sum;
    case CounterCondition::Measure::kRate:
      return sum / window * r.condition.per_s;
    case CounterCondition::Measure::kBer:
      return weighted / window;
    case CounterCondition::Measure::kValue:
      return SecondsFrom(st.samples.back().first, now) < window ? st.samples.back().second.value
                                                                : 0;
  }
  return 0;
}

std::optional<TimePoint> CounterRules::NextLook(const CounterState& st) {
  if (st.samples.empty()) return TimePoint{};  // at once: nothing is left
  const double interval = st.samples.back().second.interval_s;
  const double window = std::max(st.rule->window_s, interval);
  return std::max(TimeAfter(st.samples.back().first, interval * 1.5),
                  TimeAfter(st.samples.front().first, window));
}

void CounterRules::Sweep(TimePoint now) {
  LookAtDue(&expiry_, &counters_, now, [&](const std::string& port, CounterState& st) {
    const Rule* rule = st.rule;
    double interval = st.samples.empty() ? 0.0 : st.samples.back().second.interval_s;
    // The next sample is due about one interval after the last: until it is late, a quiet
    // window is only the gap between samples, not a clean link (an early look: a sample came
    // since this one was asked for).
    if (st.samples.empty() || SecondsFrom(st.samples.back().first, now) >= interval * 1.5) {
      double window = std::max(rule->window_s, interval);
      while (!st.samples.empty() && SecondsFrom(st.samples.front().first, now) >= window) {
        st.samples.pop_front();
      }
      if (Cleared(*rule, Measure(*rule, st, now))) {
        st.active = false;
        if (st.samples.empty()) st.above_since.reset();
      }
      if (st.samples.empty() && !st.active) return true;
    }
    Reschedule(port, &st);
    return false;
  });
}

void CounterRules::Adopt(CounterRules&& old, const RuleMapping& mapping) {
  AdoptPerRule(&old.counters_, mapping, &counters_);
  RescheduleAll(&expiry_, &counters_,
                [this](const std::string& port, CounterState* st) { Reschedule(port, st); });
}

bool CounterRules::BreaksClearLevel(const Rule& r, const Observation& o) {
  // One sample against the clear level: the hysteresis a repaired link must stay under.
  double m = 0;
  switch (r.condition.measure) {
    case CounterCondition::Measure::kDelta:
      m = o.delta;
      break;
    case CounterCondition::Measure::kRate:
      m = o.delta / o.interval_s * r.condition.per_s;
      break;
    case CounterCondition::Measure::kBer:
    case CounterCondition::Measure::kValue:
      m = o.value;
      break;
  }
  return r.condition.clear_below > 0 ? m >= r.condition.clear_below : m > 0;
}

}  // namespace ufmr
