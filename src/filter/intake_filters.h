// IntakeFilters: the service's filter stage, the FilterChain every observation passes between its
// source and the rules, in this order:
//   1. hand_disable_notes  a 336 for a disable that is not this service's is noted (first, so a
//                          REST or event-log copy counts even when syslog brought it earlier)
//   2. duplicates          one UFM event whichever sources bring it; events are counted here
//   3. manual_marks        a 702 MANUAL marks its ports as a person's (the decision stage reads it)
//   4. hand_disables       what a link reports within a minute of a person's disable: not a fault
//   5. own_disables        what a link this service holds disabled reports: not for the rules
//   6. soak                what a link under soak reports is marked, to be judged as a verdict
// It owns the state the two hand-disable filters share; the manual marks it is given (the decision
// stage reads them), and what it knows of this service's holds it asks through HeldPorts and
// SoakingLinks. Pipeline thread only; not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/metrics.h"
#include "filter/filter_chain.h"
#include "filter/manual_marks.h"
#include "filter/our_holds.h"
#include "filter/recent_disables.h"

namespace ufmr {

class Inventory;

class IntakeFilters {
 public:
  struct Parts {
    const Inventory& inventory;
    Metrics& metrics;
    const HeldPorts& held;
    const SoakingLinks& soaking;
    ManualMarks& marks;
    int utc_offset_s = 0;  // UFM's zone, to read its timestamps
  };
  explicit IntakeFilters(const Parts& parts);

  // What the filters make of `s` (see FilterChain::Run).
  FilterVerdict Run(Sifting& s) { return chain_.Run(s); }
  // The filters' names, in order.
  std::vector<std::string> order() const { return chain_.names(); }

 private:
  RecentDisables hand_disables_;  // ports someone else disabled, for a minute
  FilterChain chain_;
};

}  // namespace ufmr
