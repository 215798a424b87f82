// Counter rules: compare a counter's delta, rate, BER or level over a sliding window of one
// port's samples with the rule's threshold; the rule fires once the condition has held for
// `for`, and stays active until the measure falls under the clear level (hysteresis), so a link
// that stays bad is one finding. Samples on a link that went down less than `min_link_uptime`
// ago are not judged (LinkDowns: when each port last went down). Part of the rules engine
// (rule_engine.h); not thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/expiry_queue.h"
#include "base/fifo.h"
#include "rules/inhibitors.h"
#include "rules/rule_state.h"
#include "rules/subject_resolver.h"

namespace ufmr {

// When each port last went down (a link-down event or a LinkDownedCounterExtended rise): BER is
// meaningless on a link that just trained.
class LinkDowns {
 public:
  void Note(const std::string& port, TimePoint t) { last_down_[port] = t; }
  // Whether any of `ports` went down less than `within_s` before t.
  bool RecentlyDown(const std::vector<std::string>& ports, TimePoint t, double within_s) const;

 private:
  std::unordered_map<std::string, TimePoint> last_down_;
};

class CounterRules {
 public:
  // The observation's subjects, resolved only when needed.
  using SubjectsFn = std::function<const ObservationSubjects&()>;

  explicit CounterRules(size_t rule_count) : counters_(rule_count) {}

  // A sample `o` of rule `r`'s counter on its port (o.interval_s > 0).
  void Observe(const Rule& r, const Observation& o, const LinkDowns& downs,
               const SubjectsFn& subjects, FindingSink* sink);
  // Prunes late ports' samples and clears conditions that fell under their clear level (part
  // of the engine's sweep): only the states whose look is due (ExpiryQueue), not every state.
  void Sweep(TimePoint now);
  // Reload: takes over the state of `old` (see MapRules).
  void Adopt(CounterRules&& old, const RuleMapping& mapping);
  // For a link under soak: whether one sample is at or above rule `r`'s clear level.
  static bool BreaksClearLevel(const Rule& r, const Observation& o);

 private:
  struct CounterState {
    const Rule* rule = nullptr;
    Fifo<std::pair<TimePoint, Observation>> samples;
    bool active = false;
    std::optional<TimePoint> above_since;
    std::optional<TimePoint> scheduled;  // its look in expiry_
  };

  // The sample `o` against the rule, on the port's state.
  void Judge(const Rule& r, const Observation& o, const LinkDowns& downs,
             const SubjectsFn& subjects, FindingSink* sink, CounterState* st);
  // When the state next needs a look: once its port is late (no sample for one and a half
  // intervals: until then a quiet window is only the gap between samples) and a sample leaves
  // the window; at once when no sample is left.
  static std::optional<TimePoint> NextLook(const CounterState& st);
  void Reschedule(const std::string& port, CounterState* st) {
    expiry_.Schedule(NextLook(*st), st->rule->index, port, &st->scheduled);
  }

  // The rule's measure over the samples still in the window at `now`.
  static double Measure(const Rule& r, const CounterState& st, TimePoint now);
  static Finding Found(const Rule& r, const ObservationSubjects& s, const CounterState& st,
                       double measured, const std::string& port, TimePoint t,
                       const FindingSink& sink);

  PerRule<CounterState> counters_;
  ExpiryQueue expiry_;
};

}  // namespace ufmr
