#include "filter/hand_disable_filter.h"

#include <spdlog/spdlog.h>

namespace ufmr {

FilterVerdict HandDisableFilter::Check(Sifting& s) {
  const Observation& o = s.observation();
  if (o.kind != Observation::Kind::kEvent || disables_.empty()) return FilterVerdict::kPass;
  if (!disables_.Covers(o, s.ports(), inventory_)) return FilterVerdict::kPass;
  metrics_.Add(MetricName("ufmr_events_after_hand_disable_total", {{"source", o.source}}));
  spdlog::info("event {} ({}) follows a disable in UFM that was not this service's: not a fault",
               o.event_id, o.name);
  return FilterVerdict::kNoteLinkDown;
}

}  // namespace ufmr
