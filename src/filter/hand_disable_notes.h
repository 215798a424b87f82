// HandDisableNotes: the filter that notes a person's disables. UFM reports every port action that
// succeeded as event 336; one for a disable this service is not making was someone else's, and
// what that port's link reports for the next minute is the disable's doing (HandDisableFilter
// keeps it from the rules). Stands before the duplicate filter, so UFM's REST or event-log copy of
// a 336 counts even when syslog brought it first; a 336 from syslog is not noted (its senders are
// not checked: a forged 336 would hide a link's faults). Passes every observation. Pipeline
// thread only.
#pragma once

#include "filter/observation_filter.h"
#include "filter/our_holds.h"
#include "filter/recent_disables.h"

namespace ufmr {

class HandDisableNotes final : public ObservationFilter {
 public:
  // `disables` is shared with HandDisableFilter; `held` says which disables are this service's.
  HandDisableNotes(RecentDisables& disables, const HeldPorts& held)
      : disables_(disables), held_(held) {}
  const char* name() const override { return "hand_disable_notes"; }
  FilterVerdict Check(Sifting& s) override;

 private:
  RecentDisables& disables_;
  const HeldPorts& held_;
};

}  // namespace ufmr
