#include "filter/duplicate_filter.h"

#include <algorithm>

#include "base/clock.h"

namespace ufmr {

FilterVerdict DuplicateFilter::Check(Sifting& s) {
  const Observation& o = s.observation();
  if (o.kind != Observation::Kind::kEvent) return FilterVerdict::kPass;
  if (!deduper_.FirstSighting(o)) {
    metrics_.Add(MetricName("ufmr_duplicate_events_total", {{"source", o.source}}));
    return FilterVerdict::kDrop;
  }
  metrics_.Add(MetricName("ufmr_events_total", {{"source", o.source}}));
  TimePoint stamped;
  if (!o.reread && ParseUfmTimestamp(o.ufm_timestamp, utc_offset_s_, &stamped)) {
    // UFM stamps whole seconds (and a clock a little ahead reads as no lag, not a negative one).
    metrics_.Observe(MetricName("ufmr_event_lag_seconds", {{"source", o.source}}),
                     std::max(0.0, ToEpochSeconds(o.time) - ToEpochSeconds(stamped)));
  }
  return FilterVerdict::kPass;
}

}  // namespace ufmr
