// Decider: the decision stage. It checks a Finding against the guards of guard_list.h, in their
// order; the first guard that holds the finding decides (suppressed, ticket or blocked, with the
// guard's word and why), and when none does, the rule's action (disable or isolate). It asks the
// world through DecisionContext (decide/decision.h). Decider is immutable and thread-safe; a
// context is not.
#pragma once

#include <memory>
#include <vector>

#include "decide/decision.h"
#include "decide/guards/guard.h"
#include "rules/finding.h"

namespace ufmr {

class Decider {
 public:
  // With the guards of guard_list.h, in their order.
  explicit Decider(DecisionPolicy policy);
  ~Decider();
  Decider(Decider&&) noexcept;
  Decider& operator=(Decider&&) noexcept;
  // The first guard that holds the finding decides; when none does, the rule's action.
  Decision Decide(const Finding& f, DecisionContext& ctx) const;
  const DecisionPolicy& policy() const { return policy_; }
  // The guards, in the order they are checked.
  const std::vector<std::unique_ptr<Guard>>& guards() const { return guards_; }

 private:
  DecisionPolicy policy_;
  std::vector<std::unique_ptr<Guard>> guards_;
};

}  // namespace ufmr
