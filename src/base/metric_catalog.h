// MetricCatalog: every metric family the service exports at /metrics, with its type, labels, help
// text and, for a histogram, its bucket bounds. docs/METRICS.md documents the same list, and
// metrics_test checks that the two agree and that the code uses no family missing here.
#pragma once

#include <string>
#include <vector>

namespace ufmr {

struct MetricInfo {
  std::string name;
  std::string type;    // counter, gauge or histogram
  std::string labels;  // comma-separated label names, "" for none
  std::string help;
  std::vector<double> buckets;  // histograms: upper bounds, ascending
};

const std::vector<MetricInfo>& MetricCatalog();

}  // namespace ufmr
