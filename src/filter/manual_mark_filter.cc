#include "filter/manual_mark_filter.h"

namespace ufmr {

FilterVerdict ManualMarkFilter::Check(Sifting& s) {
  const Observation& o = s.observation();
  if (o.event_type != 702) return FilterVerdict::kPass;
  std::vector<std::string> ports;
  for (const auto& p : s.ports()) {
    if (!held_.HoldsIsolated(p)) ports.push_back(p);
  }
  if (!ports.empty()) marks_.Observe(o, ports);
  return FilterVerdict::kPass;
}

}  // namespace ufmr
