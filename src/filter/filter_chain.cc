#include "filter/filter_chain.h"

namespace ufmr {

void FilterChain::Add(std::unique_ptr<ObservationFilter> filter) {
  filters_.push_back(std::move(filter));
}

FilterVerdict FilterChain::Run(Sifting& s) {
  for (const auto& f : filters_) {
    FilterVerdict v = f->Check(s);
    if (v != FilterVerdict::kPass) return v;
  }
  return FilterVerdict::kPass;
}

std::vector<std::string> FilterChain::names() const {
  std::vector<std::string> out;
  out.reserve(filters_.size());
  for (const auto& f : filters_) out.push_back(f->name());
  return out;
}

}  // namespace ufmr
