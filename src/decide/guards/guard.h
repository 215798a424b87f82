// Guard: one check of the decision stage on a finding (inhibited, silenced, open_ticket, shadow,
// ..., rate_limit, dry_run). The Decider runs its guards in order (guard_list.h); the first that
// holds the finding decides: its name is the Decision's guard word, its reason the note. A guard
// reads the world through GuardContext and keeps no state of its own, so one guard serves every
// thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "decide/decision.h"
#include "decide/guards/guard_context.h"
#include "rules/finding.h"

namespace ufmr {

// What one guard makes of a finding: let it through to the next guard, or hold it (the decision
// is then `kind`, with `why` as its note).
struct GuardOutcome {
  bool holds = false;
  DecisionKind kind = DecisionKind::kBlocked;
  std::string why;
  // What the decision records whether or not the guard holds: the open ticket that covers the
  // entity (or that an acting rule upgrades), the silence in force.
  std::optional<int64_t> ticket_id;
  std::optional<int64_t> silence_id;
  // Set when holding trips the circuit breaker: the findings counted within its window. The
  // Decider tells the world (DecisionContext::TripBreaker) once the decision is complete.
  std::optional<int> trips_breaker;
  // Set by last_link when the host at one end is to be drained in the job scheduler before the
  // cut, instead of holding it: the host as UFM names it. The later guards still judge the cut.
  std::string drain_host;

  static GuardOutcome Pass() { return {}; }
  static GuardOutcome Hold(DecisionKind kind, std::string why) {
    GuardOutcome o;
    o.holds = true;
    o.kind = kind;
    o.why = std::move(why);
    return o;
  }
};

class Guard {
 public:
  virtual ~Guard() = default;
  // The stable word a decision records when this guard holds it (Decision::guard).
  virtual const char* name() const = 0;
  virtual GuardOutcome Check(const Finding& f, const GuardContext& ctx) const = 0;
};

}  // namespace ufmr
