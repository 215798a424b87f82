#include "act/breaker_window.h"

namespace ufmr {

int BreakerWindow::Count(TimePoint t, double window_s) {
  acting_.push_back(t);
  TimePoint since = t - std::chrono::duration_cast<TimePoint::duration>(Seconds(window_s));
  while (!acting_.empty() && acting_.front() < since) acting_.pop_front();
  return static_cast<int>(acting_.size());
}

void BreakerWindow::ForgetIfRearmed() {
  if (rearmed_.exchange(false)) acting_.clear();
}

}  // namespace ufmr
