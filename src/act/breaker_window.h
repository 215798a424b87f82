// BreakerWindow: the circuit breaker's count of findings that would act, within its window
// (remediation.breaker_window_s). In memory: a restart starts it afresh; the tripped state itself
// is in the database. Count and ForgetIfRearmed belong to the pipeline thread; Rearm may be called
// from any thread (a person re-arms the breaker from the API).
#pragma once

#include <atomic>
#include <deque>

#include "base/clock.h"

namespace ufmr {

class BreakerWindow {
 public:
  // Counts a finding at `t` and answers how many fell within `window_s` up to `t`, it included.
  int Count(TimePoint t, double window_s);
  // The breaker was re-armed: the pipeline forgets the storm's count at its next ForgetIfRearmed.
  void Rearm() { rearmed_.store(true); }
  // At the start of recording a pass: a storm is judged afresh after a re-arm.
  void ForgetIfRearmed();

 private:
  std::deque<TimePoint> acting_;  // findings that reached the breaker, in its window
  std::atomic<bool> rearmed_{false};
};

}  // namespace ufmr
