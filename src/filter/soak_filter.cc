#include "filter/soak_filter.h"

#include "ufm/inventory.h"

namespace ufmr {

FilterVerdict SoakFilter::Check(Sifting& s) {
  const Observation& o = s.observation();
  if (!soaking_.AnyUnderSoak() || o.ports.empty() || o.reread) return FilterVerdict::kPass;
  std::vector<std::string> ends = inventory_.LinkEnds(o.ports);
  if (soaking_.UnderSoak(ends)) s.soak_ends = std::move(ends);
  return FilterVerdict::kPass;
}

}  // namespace ufmr
