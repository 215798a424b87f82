// Event rules: count the events that match a rule per scope entity (a port, a link, a switch or
// a node) over a sliding window; at the rule's count the rule fires, or, with `for`, its finding
// is held (held_findings.h) until the hold runs out without a clear event. A rule with a clear
// event, and a switch or node rule, stays active for its entity until cleared (or quiet), so one
// episode is one finding; an active switch or node rule keeps extending its inhibitors.
// EventView is one event with what every rule's match looks at, computed once. Part of the rules
// engine (rule_engine.h); not thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/expiry_queue.h"
#include "base/fifo.h"
#include "rules/held_findings.h"
#include "rules/inhibitors.h"
#include "rules/rule_state.h"
#include "rules/subject_resolver.h"

namespace ufmr {

// One event, with the normalized words and pattern hits every rule's match looks at, computed
// once and only when some rule needs them. Holds references: lives for one call of the engine.
class EventView {
 public:
  // `shared`, when given, is `o` as windows may keep it; otherwise a copy is made when needed.
  EventView(const RuleSet& rules, const SubjectResolver& resolver, const Observation& o,
            std::shared_ptr<const Observation> shared = nullptr)
      : rules_(rules), resolver_(resolver), o_(o), shared_(std::move(shared)) {}
  const Observation& obs() const { return o_; }

  bool Matches(const EventMatch& m);

  const ObservationSubjects& subjects() { return *shared_subjects(); }
  const std::shared_ptr<const ObservationSubjects>& shared_subjects();
  // One copy of the observation, shared by every window that keeps it.
  const std::shared_ptr<const Observation>& shared();

 private:
  bool MatchesDescription(const EventMatch& m);
  const std::string& Word(const std::string& raw, std::optional<std::string>* cache);

  const RuleSet& rules_;
  const SubjectResolver& resolver_;
  const Observation& o_;
  std::optional<std::string> severity_, name_, category_, object_type_;
  std::vector<int> hits_;
  bool hits_done_ = false;
  std::shared_ptr<const ObservationSubjects> subjects_;
  std::shared_ptr<const Observation> shared_;
};

class EventRules {
 public:
  explicit EventRules(size_t rule_count) : events_(rule_count), held_(rule_count) {}

  // An event matching rule `r`'s clear: ends its hold and its active finding on each entity the
  // event names, and extends the rule's inhibitors there.
  void Clear(const Rule& r, EventView& view, Inhibitors* inhibitors);
  // An event matching rule `r` (an event rule): counted for each entity the event names; fires
  // into `sink` at the rule's count, or is held by `for`.
  void Match(const Rule& r, EventView& view, Inhibitors* inhibitors, FindingSink* sink);
  // Held findings due by `now` fire, in the order they fell due; each is then active.
  void FireHeld(TimePoint now, FindingSink* sink);

  // Ages the windows due by `now` and ends quiet switch/node episodes (part of the engine's
  // sweep): only the states whose look is due (ExpiryQueue), not every state.
  void Sweep(TimePoint now);
  void Forget(const std::set<std::string>& entities);
  // The same, for one rule (by Rule::index).
  void ForgetOf(size_t rule, const std::set<std::string>& entities);
  // Reload: takes over the state (and holds) of `old` (see MapRules).
  void Adopt(EventRules&& old, const RuleMapping& mapping);
  // Calls `visit` with every observation a window of a rule with a window up to
  // `max_window_s` keeps, and every observation a hold keeps.
  void Visit(double max_window_s, const std::function<void(const SeenObservation&)>& visit) const;
  size_t held() const { return held_.size(); }

 private:
  struct EventState {
    const Rule* rule = nullptr;
    Fifo<SeenObservation> window;
    bool active = false;  // fired, not yet cleared
    TimePoint last_match;
    std::optional<TimePoint> scheduled;  // its look in expiry_
  };
  // The scope entity of one match: its key, its name as written, and the port it counts for.
  struct Entity {
    const std::string& key;
    const std::string& name;
    const std::string& port;
  };

  void MatchEntity(const Rule& r, EventView& view, const Entity& e, Inhibitors* inhibitors,
                   FindingSink* sink);
  // Adds the event to the window and ages it; returns what counts toward the rule's count.
  int Count(const Rule& r, EventView& view, const Entity& e, EventState* st);
  // The count was reached: fires into `sink`, or holds the finding.
  void Fire(const Rule& r, EventView& view, const Entity& e, int have, EventState* st,
            Inhibitors* inhibitors, FindingSink* sink);

  // Ages the window to `now` and ends a quiet episode; true when nothing is left of the state.
  static bool Age(EventState* st, TimePoint now);
  // When the state next needs a look: its oldest match leaving the window, or a quiet switch or
  // node episode ending; at once when nothing is left of it; never for an episode that only its
  // clear event ends.
  static std::optional<TimePoint> NextLook(const EventState& st);
  void Reschedule(const std::string& key, EventState* st) {
    expiry_.Schedule(NextLook(*st), st->rule->index, key, &st->scheduled);
  }

  PerRule<EventState> events_;
  HeldFindings held_;
  ExpiryQueue expiry_;
};

}  // namespace ufmr
