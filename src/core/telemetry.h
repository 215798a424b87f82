// Telemetry: the UFM Telemetry CSV (/csv/metrics) parser and the CounterTracker that turns
// cumulative counters into per-interval deltas. The parser is pure; a CounterTracker is owned by
// one thread (the telemetry poller) and is not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/observation.h"
#include "core/status.h"

namespace ufmr {

struct CounterSample {
  std::string port;          // <port guid without 0x>_<port number>
  int64_t timestamp_us = 0;  // from the row; 0 if absent
  std::map<std::string, double> counters;
};

struct ParsedTelemetry {
  std::vector<CounterSample> samples;
  std::vector<std::string> errors;  // "line N: ..." for rows that were skipped
};

// A missing header or missing port_guid/Port_Number columns is an error; bad rows are skipped.
Result<ParsedTelemetry> ParseTelemetryCsv(const std::string& text);

class CounterTracker {
 public:
  // Returns one Observation per counter that moved since the port's last sample. A port's first
  // sample is only a baseline. A counter that went down was reset (or wrapped): the new value is
  // the count since the reset. A step up from 0 is a real increase.
  std::vector<Observation> Update(const CounterSample& sample, TimePoint now);
  size_t tracked_ports() const { return last_.size(); }

 private:
  struct Last {
    TimePoint time;
    std::map<std::string, double> counters;
  };
  std::unordered_map<std::string, Last> last_;
};

}  // namespace ufmr
