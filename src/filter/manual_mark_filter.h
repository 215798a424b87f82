// ManualMarkFilter: the filter that notes the ports a person isolated. Event 702 "... unhealthy due
// to MANUAL" marks its ports as a person's (ManualMarks), which the decision stage never acts on;
// a 702 for a port this service holds isolated is its own isolation, not a person's, and marks
// nothing. Passes every observation. Pipeline thread only.
#pragma once

#include "filter/manual_marks.h"
#include "filter/observation_filter.h"
#include "filter/our_holds.h"

namespace ufmr {

class ManualMarkFilter final : public ObservationFilter {
 public:
  // `marks` is read by the decision stage; `held` says which isolations are this service's.
  ManualMarkFilter(ManualMarks& marks, const HeldPorts& held) : marks_(marks), held_(held) {}
  const char* name() const override { return "manual_marks"; }
  FilterVerdict Check(Sifting& s) override;

 private:
  ManualMarks& marks_;
  const HeldPorts& held_;
};

}  // namespace ufmr
