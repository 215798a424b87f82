#include "filter/manual_mark_filter.h"

namespace ufmr {

FilterVerdict ManualMarkFilter::Check(Sifting& s) {
  const Observation& o = s.observation();
  if (o.event_type != 702) return FilterVerdict::kPass;
  std::vector<std::string> ports;
  for (const auto& p : s.ports()) {
    // Not ours now, nor when UFM stamped it (a 702 read again after a restart, the isolation
    // undone since, is still this service's, not a person's).
    if (!held_.HoldsIsolated(p) && !(o.reread && held_.IsolatedAt(p, o.time))) ports.push_back(p);
  }
  if (!ports.empty()) marks_.Observe(o, ports);
  return FilterVerdict::kPass;
}

}  // namespace ufmr
