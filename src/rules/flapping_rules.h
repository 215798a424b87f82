// Flapping rules: count a link's down transitions within the rule's window, from the matching
// events (by default 329, link down) and from the link's LinkDownedCounterExtended, whichever saw
// more; at the rule's count it fires once, and stays active until the link is quiet for a whole
// window. Part of the rules engine (rule_engine.h); not thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "base/expiry_queue.h"
#include "base/fifo.h"
#include "rules/inhibitors.h"
#include "rules/rule_state.h"
#include "rules/subject_resolver.h"

namespace ufmr {

class FlappingRules {
 public:
  explicit FlappingRules(size_t rule_count) : flaps_(rule_count) {}

  // A down transition of rule `r`'s link: a matching event, or a LinkDownedCounterExtended
  // sample that rose. `shared`: the event's shared copy, if it has one.
  void CountDown(const Rule& r, const Observation& o, const ObservationSubjects& s,
                 FindingSink* sink, const std::shared_ptr<const Observation>& shared = nullptr);

  // Ages the windows due by `now` and ends the episodes of quiet links (part of the engine's
  // sweep): only the states whose look is due (ExpiryQueue), not every state.
  void Sweep(TimePoint now);
  void Forget(const std::set<std::string>& entities) { ForgetEntities(&flaps_, entities); }
  void ForgetOf(size_t rule, const std::set<std::string>& entities) {
    ForgetEntitiesOf(&flaps_, rule, entities);
  }
  // Reload: takes over the state of `old` (see MapRules).
  void Adopt(FlappingRules&& old, const RuleMapping& mapping);
  // Calls `visit` with every event a rule with a window up to `max_window_s` keeps as evidence.
  void Visit(double max_window_s, const std::function<void(const SeenObservation&)>& visit) const;

 private:
  struct FlapState {
    const Rule* rule = nullptr;
    Fifo<TimePoint> down_times;    // every down event in the window: what is counted
    Fifo<SeenObservation> events;  // the newest of them (kMaxFindingEvidence), as evidence
    std::map<std::string, Fifo<std::pair<TimePoint, double>>> counter_downs;
    bool active = false;
    TimePoint last_down;
    std::optional<TimePoint> scheduled;  // its look in expiry_
  };

  // Drops what left the window ending at `now`; true when nothing is left.
  static bool Trim(FlapState* st, double window_s, TimePoint now);
  // The finding: the downs counted, the events kept, and the sample `o` if counters counted.
  static Finding Found(const Rule& r, const Observation& o, const ObservationSubjects& s,
                       const FlapState& st, double downs, double from_counters,
                       const FindingSink& sink);

  // When the state next needs a look: a down leaving the window, or the link quiet for a whole
  // window; at once when nothing is left of it.
  static std::optional<TimePoint> NextLook(const FlapState& st);
  void Reschedule(const std::string& key, FlapState* st) {
    expiry_.Schedule(NextLook(*st), st->rule->index, key, &st->scheduled);
  }

  PerRule<FlapState> flaps_;
  ExpiryQueue expiry_;
};

}  // namespace ufmr
