// Rule state: what the parts of the rules engine (rule_engine.h) share: state kept per rule and
// per scope entity, the observations a window holds as evidence, the mapping a reload uses to
// hand state to the new rules, time arithmetic on the observations' clock, and the finding a
// rule starts from. Plain data and pure functions; thread-safe.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/expiry_queue.h"
#include "ingest/observation.h"
#include "rules/finding.h"
#include "rules/rules.h"

namespace ufmr {

struct ObservationSubjects;

// A finding carries at most this many observations as evidence.
constexpr size_t kMaxFindingEvidence = 50;

// State per scope entity (a link key, a port, "switch:<key>", "node:<key>").
struct EntityHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename T>
using ByEntity = std::unordered_map<std::string, T, EntityHash, std::equal_to<>>;
// ... and per rule, by Rule::index.
template <typename T>
using PerRule = std::vector<ByEntity<T>>;

// One matching observation held in a window.
struct SeenObservation {
  TimePoint time;
  size_t port = 0;  // hash of the port it counts for (switch/node scopes count distinct ports)
  // Shared by every window the observation sits in; made JSON only when a finding fires.
  std::shared_ptr<const Observation> obs;
};

using RulesByName = std::unordered_map<std::string, const Rule*>;

// For a reload: old rule index -> the new rule that takes its state over, or null. A rule keeps
// its state only under the same name and the same condition (ConditionSignature): state counted
// under another counter, measure, match or window would be judged by the new one.
using RuleMapping = std::vector<const Rule*>;
RuleMapping MapRules(const RuleSet& old_rules, const RulesByName& new_rules);

// Moves each entity's state of `from` to the new rule `mapping` names, if any. T has `rule`.
template <typename T>
void AdoptPerRule(PerRule<T>* from, const RuleMapping& mapping, PerRule<T>* to) {
  for (size_t i = 0; i < from->size(); ++i) {
    const Rule* now = mapping[i];
    if (!now) continue;
    auto& target = (*to)[now->index];
    for (auto& [entity, value] : (*from)[i]) {
      value.rule = now;
      target.emplace(entity, std::move(value));
    }
  }
}

// The states whose look is due by `now` (ExpiryQueue), each looked at once: look(key, state)
// ages it and returns true when nothing is left of it (it is then erased); a state that stays
// asks for its next look itself. Stale entries (the state gone, or scheduled again) are skipped.
// T has `scheduled`.
template <typename T, typename Look>
void LookAtDue(ExpiryQueue* queue, PerRule<T>* per_rule, TimePoint now, Look look) {
  for (auto& e : queue->TakeDue(now)) {
    auto& states = (*per_rule)[e.rule];
    auto it = states.find(e.entity);
    if (it == states.end() || it->second.scheduled != e.due) continue;
    it->second.scheduled.reset();
    if (look(it->first, it->second)) states.erase(it);
  }
}

// After a reload (AdoptPerRule): the looks were in the old queue, under the old rules' indexes;
// every state asks again, through reschedule(key, &state).
template <typename T, typename Reschedule>
void RescheduleAll(ExpiryQueue* queue, PerRule<T>* per_rule, Reschedule reschedule) {
  queue->Clear();
  for (auto& states : *per_rule) {
    for (auto& [key, state] : states) {
      state.scheduled.reset();
      reschedule(key, &state);
    }
  }
}

// Drops the state of the entities `names`, for every rule.
template <typename T>
void ForgetEntities(PerRule<T>* per_rule, const std::set<std::string>& names) {
  for (auto& map : *per_rule) {
    for (const auto& name : names) map.erase(name);
  }
}
// The same, for one rule's state only (by Rule::index).
template <typename T>
void ForgetEntitiesOf(PerRule<T>* per_rule, size_t rule, const std::set<std::string>& names) {
  if (rule >= per_rule->size()) return;
  for (const auto& name : names) (*per_rule)[rule].erase(name);
}

// `seconds` after t, saturated: the loader caps durations, but a time point must never wrap
// into the past.
inline TimePoint TimeAfter(TimePoint t, double seconds) {
  seconds = std::clamp(seconds, 0.0, 1e9);
  return t + std::chrono::duration_cast<TimePoint::duration>(Seconds(seconds));
}
inline double SecondsFrom(TimePoint a, TimePoint b) {
  return std::chrono::duration<double>(b - a).count();
}

// A finding of rule `r` about `s` at `t`: the rule's outcome, the subjects, the rule's threshold
// (Finding::threshold: `threshold` when the caller keeps it, else made), and evidence with the
// rule, the rules hash and the threshold (observations are added by the caller). `lean`
// (findings without observations as evidence: replay, whose decisions carry no evidence): no
// evidence; titles and hints read Finding::threshold.
Finding MakeFinding(const Rule& r, const ObservationSubjects& s, TimePoint t,
                    const std::string& rules_hash, bool lean = false,
                    std::shared_ptr<const nlohmann::json> threshold = nullptr);

// The evidence's "threshold": the rule's scope, condition, window and hold.
nlohmann::json RuleThreshold(const Rule& r);

// An observation as a finding's evidence holds it.
nlohmann::json ObservationToJson(const Observation& o);

}  // namespace ufmr
