// Metrics: the service's counters, gauges and histograms, rendered in the Prometheus text format
// (version 0.0.4) at /metrics. A series is named as in the exposition format, labels included:
// `ufmr_port_actions_total{action="disable",result="done"}`; MetricName() builds such a name with
// its label values escaped. Families in the catalog (metric_catalog.h) get their HELP, TYPE and
// histogram buckets, and those without labels show 0 before their first update. Thread-safe.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ufmr {

// `family{k1="v1",k2="v2"}`, with `\`, `"` and newlines in values escaped as the format wants.
std::string MetricName(std::string_view family,
                       std::initializer_list<std::pair<std::string_view, std::string_view>> labels);

class Metrics {
 public:
  struct Histogram {
    std::vector<double> bounds;    // upper bounds, ascending (+Inf implied)
    std::vector<uint64_t> counts;  // per bucket, not cumulative; one more than bounds (+Inf)
    double sum = 0;
    uint64_t count = 0;
  };

  Metrics();

  void Add(const std::string& name, double delta = 1);  // a counter (or a gauge moved)
  void Set(const std::string& name, double value);      // a gauge
  void Observe(const std::string& name, double value);  // one sample of a histogram
  double Get(const std::string& name) const;            // 0 if never set
  std::optional<Histogram> GetHistogram(const std::string& name) const;
  std::string Render() const;

 private:
  struct Family {
    std::string type;  // counter, gauge, histogram ("" for one outside the catalog)
    std::string help;
    bool labelled = false;
    std::vector<double> bounds;
    std::map<std::string, double> values;    // by label text (`a="b",c="d"`; "" for none)
    std::map<std::string, Histogram> hists;  // by label text
  };
  Family& FamilyOf(const std::string& family);

  mutable std::mutex mu_;
  std::map<std::string, Family> families_;
};

}  // namespace ufmr
