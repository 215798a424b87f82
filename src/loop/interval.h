// Interval: a timer the loop asks, each pass, whether a job is due. Pipeline thread only.
#pragma once

#include <chrono>

#include "base/clock.h"

namespace ufmr {

class Interval {
 public:
  // True when `now` has reached the next time (at once the first time); the next is then
  // `interval_s` after `now`.
  bool Due(TimePoint now, double interval_s) {
    if (now < next_) return false;
    next_ = now + std::chrono::duration_cast<TimePoint::duration>(Seconds(interval_s));
    return true;
  }

 private:
  TimePoint next_{};
};

}  // namespace ufmr
