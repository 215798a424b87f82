// Inhibitors: while a switch- or node-level finding is active (a reboot, a switch down), the
// port and link findings of the rules it inhibits on that switch's or node's ports are still
// made, marked `inhibited_by`, and the decision stage records them as suppressed (a reboot is
// not a bad cable). An inhibitor lasts the rule's `inhibits.for` past the last observation that
// matched or cleared it. FindingSink is where the engine's parts hand their findings, judged
// against the inhibitors of their time. Part of the rules engine (rule_engine.h); not
// thread-safe.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "rules/finding.h"
#include "rules/rule_state.h"
#include "rules/subject_resolver.h"

namespace ufmr {

class Inhibitors {
 public:
  // Rule `r`'s finding on `entity` ("switch:<key>", "node:<key>"; `name` as written) inhibits
  // until `inhibits.for` after t (or later, if it already did).
  void Extend(const Rule& r, const std::string& entity, const std::string& name, TimePoint t);
  // "switch_reboot on switch sw-1" when an inhibitor live at `t` covers a finding `f` of `rule`,
  // else "". Covered: a switch or host the finding's observations named, or where the
  // inventory now places its ports; the inhibiting rule (by name, in `rules`) lists `rule`.
  // `placed_now`: the finding's switches and hosts were resolved from the inventory as it is
  // now (the same generation), so it holds no other place for the ports: not asked again.
  std::string InhibitedBy(const std::string& rule, const Finding& f, TimePoint t,
                          const SubjectResolver& resolver, const RulesByName& rules,
                          bool placed_now = false) const;
  // Drops the inhibitors that ended before `now`.
  void Expire(TimePoint now);
  // Reload: takes over the inhibitors of `old` whose rule `rules` still names.
  void Adopt(Inhibitors&& old, const RulesByName& rules);

 private:
  struct Inhibitor {
    std::string rule;
    std::string entity_name;
    TimePoint until;
  };
  // Whether some inhibitor (live or not yet dropped) is of a rule that lists `rule`: most findings
  // are of rules nothing inhibits, and their places need no look.
  bool MayCover(const std::string& rule, const RulesByName& rules) const;
  // The inhibitor on `entity` that covers `rule` at t, as "<rule> on <what> <name>", or "".
  std::string Covering(const std::string& entity, const char* what, const std::string& rule,
                       TimePoint t, const RulesByName& rules) const;

  std::map<std::string, std::vector<Inhibitor>> inhibitors_;  // "switch:<key>" / "node:<key>"
  // MayCover's answers by rule, forgotten whenever an inhibitor is added or dropped.
  mutable std::unordered_map<std::string, bool> may_cover_;
  // No inhibitor ends before this: Expire, called on every tick, looks no further until then.
  TimePoint earliest_end_ = TimePoint::max();
};

// Where the engine's parts hand a finding: a port or link finding is judged against the
// inhibitors of its time, the rule's description leads its reason, and it is appended to *out.
// Made per call of the engine; holds references only.
class FindingSink {
 public:
  // `thresholds`, when given: RuleThreshold of each rule of `rule_set`, by Rule::index.
  FindingSink(const Inhibitors& inhibitors, const SubjectResolver& resolver,
              const RulesByName& rules, const std::string& rules_hash, std::vector<Finding>* out,
              bool observations = true, const RuleSet* rule_set = nullptr,
              const std::vector<std::shared_ptr<const nlohmann::json>>* thresholds = nullptr)
      : inhibitors_(inhibitors),
        resolver_(resolver),
        rules_(rules),
        rules_hash_(rules_hash),
        out_(out),
        observations_(observations),
        rule_set_(rule_set),
        thresholds_(thresholds) {}

  // `subjects`, when given, are what the finding was made from (their inventory generation
  // tells whether inhibition must look the ports up again).
  void Emit(const Rule& r, Finding f, const ObservationSubjects* subjects = nullptr);
  // The hash of the rule set, for MakeFinding.
  const std::string& rules_hash() const { return rules_hash_; }
  // Whether findings carry the observations that made them as evidence (RuleEngine::
  // SetEvidenceObservations).
  bool observations() const { return observations_; }
  // RuleThreshold(r), made once per rule set; null when the sink does not keep it.
  std::shared_ptr<const nlohmann::json> threshold(const Rule& r) const {
    const size_t i = static_cast<size_t>(r.index);
    if (!thresholds_ || !rule_set_ || i >= thresholds_->size() || i >= rule_set_->rules.size() ||
        &rule_set_->rules[i] != &r) {
      return nullptr;
    }
    return (*thresholds_)[i];
  }

 private:
  const Inhibitors& inhibitors_;
  const SubjectResolver& resolver_;
  const RulesByName& rules_;
  const std::string& rules_hash_;
  std::vector<Finding>* out_;
  bool observations_;
  const RuleSet* rule_set_;
  const std::vector<std::shared_ptr<const nlohmann::json>>* thresholds_;
};

}  // namespace ufmr
