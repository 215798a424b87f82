// FilterChain: the filter stage, an ordered list of ObservationFilters between the sources and the
// rules. Each observation passes the filters in the order they were added; the first that does not
// pass it decides, and the filters after it do not see it. What passes every filter goes to the
// rules. The order is data: IntakeFilters (filter/intake_filters.h) builds the service's. Pipeline
// thread only; not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "filter/observation_filter.h"

namespace ufmr {

class FilterChain {
 public:
  void Add(std::unique_ptr<ObservationFilter> filter);
  // kPass when every filter passed `s`; else the verdict of the first that did not.
  FilterVerdict Run(Sifting& s);
  // The filters' names, in order.
  std::vector<std::string> names() const;
  size_t size() const { return filters_.size(); }

 private:
  std::vector<std::unique_ptr<ObservationFilter>> filters_;
};

}  // namespace ufmr
