#include "filter/own_disable_filter.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "ufm/inventory.h"

namespace ufmr {

FilterVerdict OwnDisableFilter::Check(Sifting& s) {
  const Observation& o = s.observation();
  if (o.kind != Observation::Kind::kEvent || !AboutOurDisable(o)) return FilterVerdict::kPass;
  metrics_.Add(MetricName("ufmr_events_on_held_links_total", {{"source", o.source}}));
  spdlog::debug("event {} ({}) is about a link this service holds disabled: not for the rules",
                o.event_id, o.name);
  return FilterVerdict::kDrop;
}

bool OwnDisableFilter::AboutOurDisable(const Observation& o) const {
  if ((!held_.AnyDisabled() && !o.reread) || o.ports.empty()) return false;
  // On every event: the inventory is asked for the link only when a held port is named, or when
  // the event names one end and the held one may be its peer. An event read again after a
  // restart is judged by when UFM stamped it: the link-down of a disable since undone is still
  // this service's doing, not a fault.
  auto held = [this, &o](const std::string& p) {
    return held_.HoldsDisabled(p) || (o.reread && held_.DisabledAt(p, o.time));
  };
  const bool named = std::any_of(o.ports.begin(), o.ports.end(), held);
  if (!named && o.ports.size() > 1) return false;  // a link event names both ends
  std::vector<std::string> ends = inventory_.LinkEnds(o.ports);
  if (!named && !std::any_of(ends.begin(), ends.end(), held)) return false;
  return !soaking_.UnderSoak(ends);
}

}  // namespace ufmr
