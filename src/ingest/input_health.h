// InputHealth: how each of the service's inputs is doing (UFM REST events, the inventory, UFM
// Telemetry, the event log on disk, syslog), for the dashboard and GET /api/inputs. The loop
// reports each poll's outcome; readers get a state per input: ok, stale (no success for three
// intervals), failing (the last attempt failed), off (not configured), or waiting (no attempt
// yet). Thread-safe: the loop writes, HTTP threads read.
#pragma once

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/metrics.h"

namespace ufmr {

class InputHealth {
 public:
  // Declares an input: enabled or not, and how often it is expected to succeed.
  void Configure(const std::string& name, bool enabled, double interval_s);
  // Counts each reported outcome in ufmr_input_reads_total{input,result} from here on.
  void set_metrics(Metrics* metrics) { metrics_ = metrics; }
  // `detail` replaces the last one ("" clears it).
  void Ok(const std::string& name, TimePoint at, const std::string& detail = "");
  void Failed(const std::string& name, TimePoint at, const std::string& error);

  // "ok", "stale", "failing", "off" or "waiting".
  std::string State(const std::string& name, TimePoint now) const;
  // [{"name", "enabled", "state", "last_ok_at", "last_error", "last_error_at", "detail",
  //   "interval_s", "failures"}] in declaration order.
  nlohmann::json ToJson(TimePoint now) const;

 private:
  struct Input {
    bool enabled = false;
    double interval_s = 60;
    std::optional<TimePoint> last_ok, last_error;
    std::string error, detail;
    int failures = 0;  // in a row
  };
  std::string StateOf(const Input& in, TimePoint now) const;

  Metrics* metrics_ = nullptr;
  mutable std::mutex mu_;
  std::vector<std::string> order_;
  std::map<std::string, Input> inputs_;
};

}  // namespace ufmr
