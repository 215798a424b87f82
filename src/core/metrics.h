// Metrics: named counters and gauges rendered in the Prometheus text format at /metrics.
// A name may carry labels, written as in the exposition format: `x_total{kind="disable"}`.
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>

namespace ufmr {

class Metrics {
 public:
  void Add(const std::string& name, double delta = 1);
  void Set(const std::string& name, double value);
  double Get(const std::string& name) const;
  std::string Render() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, double> values_;
};

}  // namespace ufmr
