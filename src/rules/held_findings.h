// Held findings: an event rule with `for` does not fire at once. Its finding is held until the
// hold runs out with no clear event (then it fires; see EventRules::FireHeld) or the rule's clear
// event cancels it; most holds end in a clear, so the finding itself is built only when it
// fires. While held, further matching events join its evidence. Part of the rules engine
// (rule_engine.h); not thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rules/rule_state.h"
#include "rules/subject_resolver.h"

namespace ufmr {

class HeldFindings {
 public:
  struct Held {
    const Rule* rule = nullptr;
    std::shared_ptr<const ObservationSubjects> subjects;
    std::string entity;  // the scope entity, and its name as written
    std::string name;
    std::string reason;
    TimePoint fire_at;
    std::vector<SeenObservation> seen;  // the window that started the hold, then every match
  };

  explicit HeldFindings(size_t rule_count) : held_(rule_count) {}

  // Holds `held` for its rule and entity until held.fire_at.
  void Hold(Held held);
  // If rule `r`'s finding on `entity` is held: adds `seen` to its evidence (up to
  // kMaxFindingEvidence) and returns true.
  bool Join(const Rule& r, const std::string& entity, SeenObservation seen);
  // A clear event: the hold ends without a finding.
  void Cancel(const Rule& r, const std::string& entity);
  // Takes out every hold due by `now`, in the order they fell due (then by rule, then entity:
  // deterministic).
  std::vector<Held> TakeDue(TimePoint now);

  void Forget(const std::set<std::string>& entities) { ForgetEntities(&held_, entities); }
  void ForgetOf(size_t rule, const std::set<std::string>& entities) {
    ForgetEntitiesOf(&held_, rule, entities);
  }
  // Reload: takes over the holds of `old` (see MapRules), as early as any of them is due.
  void Adopt(HeldFindings&& old, const RuleMapping& mapping);
  // Calls `visit` with every observation a hold keeps.
  void Visit(const std::function<void(const SeenObservation&)>& visit) const;
  size_t size() const;

 private:
  PerRule<Held> held_;
  // No hold is due before this (none when empty): TakeDue skips its scan until then. Never later
  // than the earliest hold (a hold cancelled since leaves it early, which costs one scan).
  std::optional<TimePoint> next_due_;
};

}  // namespace ufmr
