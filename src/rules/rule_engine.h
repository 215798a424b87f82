// RuleEngine: matches Observations against a RuleSet and emits Findings. Event rules count
// matching events per port, link, switch or node over a sliding window and may hold a finding
// (`for`) until a clear event cancels it; flapping rules count a link's down transitions; counter
// rules compare a delta, rate, BER or level over a window with a threshold, with a separate clear
// level (hysteresis). A fired rule stays active for its entity until it clears, so one episode is
// one finding. Switch- and node-level findings inhibit the port findings they cover (a reboot is
// not a bad cable). Owned by the pipeline thread; not thread-safe. Time comes only from the
// observations and Tick, so replay drives it with recorded timestamps. The engine routes each
// observation to its parts (event_rules.h with held_findings.h, flapping_rules.h,
// counter_rules.h, inhibitors.h, subject_resolver.h) and runs their periodic sweep.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ingest/observation.h"
#include "rules/counter_rules.h"
#include "rules/event_rules.h"
#include "rules/finding.h"
#include "rules/flapping_rules.h"
#include "rules/inhibitors.h"
#include "rules/rule_state.h"
#include "rules/rules.h"
#include "rules/subject_resolver.h"

namespace ufmr {

class Inventory;

class RuleEngine {
 public:
  // `inventory` may be null: ports, switches and hosts then come from the events' text only.
  // It must outlive the engine.
  RuleEngine(std::shared_ptr<const RuleSet> rules, const Inventory* inventory);

  // Appends the findings this observation completes now (rules without `for`).
  void Observe(const Observation& o, std::vector<Finding>* out);
  // The same, for an observation its caller no longer needs: windows keep it without a copy.
  void Observe(Observation&& o, std::vector<Finding>* out);
  // A link-down kept from the rules (it follows someone's disable): no rule judges it, but the
  // link's uptime (a counter rule's min_link_uptime) starts again from it.
  void NoteLinkDown(const Observation& o, const std::vector<std::string>& ports);
  // Appends held findings whose `for` has passed without a clear; ages windows and clears counter
  // conditions that fell under their clear level.
  void Tick(TimePoint now, std::vector<Finding>* out);

  // For a link under soak: the first rule whose clear condition this observation breaks (any
  // matching event; a counter sample at or above the rule's clear level), or null.
  const Rule* BreaksSoak(const Observation& o);
  // Drops counting state for a link (its key or either end), e.g. once it has a ticket.
  void Forget(const std::string& link_key);
  // The same, for one rule's state only (an unknown rule: nothing).
  void ForgetRule(const std::string& rule, const std::string& link_key);

  // The smallest UFM event id that counting or holding state still depends on, if any. The
  // persisted event cursor must stay below it, so a restart replays what memory held. Windows
  // longer than an hour do not count (they would hold the cursor back for as long).
  // Only observations from `source` count (each source has its own cursor and ids).
  std::optional<int64_t> OldestEventInUse(const std::string& source = "rest") const;

  // Whether findings carry the observations that made them in their evidence (the default; the
  // service records them). Replay turns it off: its decisions carry no evidence, and building it
  // cost more than deciding. The threshold and measure stay (titles and hints use them). Off, the
  // flapping rules keep no events (they count downs by their times), so OldestEventInUse does not
  // see their windows: replay keeps no cursor.
  void SetEvidenceObservations(bool on) { evidence_observations_ = on; }
  // Whether the subjects of events are remembered per set of ports (the default: a storm names
  // the same links again and again). Replay turns it off (SubjectResolver::SetRemember).
  void SetRememberSubjects(bool on) { resolver_.SetRemember(on); }

  // Hot reload: takes over the state of `old` for rules that keep their name and kind.
  void AdoptState(RuleEngine&& old);

  size_t pending() const { return event_rules_.held(); }
  const RuleSet& rules() const { return *rules_; }
  const std::shared_ptr<const RuleSet>& rule_set() const { return rules_; }

  // Who an observation is about: the link's ends and the switches and hosts they sit on.
  using Subjects = ObservationSubjects;
  Subjects Resolve(const Observation& o) const;
  // Resolve, remembered per set of ports until the inventory changes (the hot path: a storm
  // names the same links again and again).
  std::shared_ptr<const Subjects> ResolveCached(const Observation& o) const;
  // The observation's ports, with "<node>:<label>" references resolved through the inventory.
  std::vector<std::string> PortsOf(const Observation& o) const;
  // Whether observing `o` can change anything: a counter sample, an event some rule looks at, or
  // a link-down (the link's uptime starts again). Observe returns at once when it cannot.
  bool Considers(const Observation& o) const;

 private:
  // Whether some event rule looks at events of this type.
  bool AnyEventRuleFor(const Observation& o) const;
  // `shared`, when given, is `o` as windows keep it.
  void ObserveEvent(const Observation& o, std::shared_ptr<const Observation> shared,
                    std::vector<Finding>* out);
  void ObserveCounter(const Observation& o, std::vector<Finding>* out);
  // Ageing windows and ending quiet episodes, every kSweepS of the observations' time.
  void Sweep(TimePoint now);
  FindingSink Sink(std::vector<Finding>* out) const {
    return FindingSink(inhibitors_, resolver_, by_name_, rules_->hash, out, evidence_observations_,
                       rules_.get(), &thresholds_);
  }

  std::shared_ptr<const RuleSet> rules_;
  RulesByName by_name_;
  // RuleThreshold of each rule, by Rule::index: shared by its findings.
  std::vector<std::shared_ptr<const nlohmann::json>> thresholds_;
  SubjectResolver resolver_;
  EventRules event_rules_;
  FlappingRules flapping_rules_;
  CounterRules counter_rules_;
  Inhibitors inhibitors_;
  LinkDowns link_downs_;
  TimePoint next_sweep_{};
  bool evidence_observations_ = true;
};

// ObservationToJson (an observation as evidence holds it): rule_state.h.

}  // namespace ufmr
