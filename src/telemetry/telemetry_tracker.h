// CounterTracker: turns successive TelemetrySnapshots of cumulative counters into per-port,
// per-counter deltas over the interval between a port's samples. A port's first sample is a
// baseline; a counter that went down was reset or wrapped, and its delta is the new value (the
// count since the reset); a step up from 0 is a real increase. State is flat: ports map (64-bit
// GUID + number) to dense slots, the last values sit in one array indexed slot x counter.
// Owned by one thread (the telemetry poller); not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "ingest/observation.h"
#include "telemetry/telemetry_ber.h"
#include "telemetry/telemetry_port.h"
#include "telemetry/telemetry_snapshot.h"

namespace ufmr {

// One counter that moved on one port.
struct CounterDelta {
  size_t row = 0;         // in the snapshot
  size_t column = 0;      // the snapshot's counter column
  uint64_t value = 0;     // now
  uint64_t delta = 0;     // since the previous sample (the new value after a reset)
  uint64_t previous = 0;  // the value at the previous sample
  double interval_s = 0;
  TimePoint time;           // of the new sample
  TimePoint previous_time;  // of the previous sample
  double rate_per_s() const { return static_cast<double>(delta) / interval_s; }
};

class CounterTracker {
 public:
  struct Stats {
    size_t rows = 0;       // rows seen
    size_t baselines = 0;  // ports seen for the first time (or re-baselined: clock went back)
    size_t repeats = 0;    // rows with the same time as the port's last sample: ignored
    size_t moved = 0;      // counter deltas > 0 (all counters)
    size_t resets = 0;     // counters that went down
    size_t reported = 0;   // deltas passed to the sink
  };

  // Deltas of these counters are passed to the sink; the others are still tracked (their deltas
  // computed and their baselines kept) but not reported. Default: every counter is reported.
  void ReportOnly(std::set<std::string> counters);
  void ReportAll();
  bool Reports(const std::string& counter) const;

  // Folds one snapshot in. `sink(const CounterDelta&)` is called for every reported counter that
  // moved. A row without a timestamp is taken at `now`. A row whose time equals the port's last
  // sample is ignored (the same sample served twice); a row older than it re-baselines the port.
  // A counter absent from the row loses its baseline (its next value is a new baseline).
  template <typename Sink>
  Stats Update(const TelemetrySnapshot& snapshot, TimePoint now, Sink&& sink);

  // The deltas as Observations (kind kCounter, source "telemetry"), for reported counters.
  std::vector<Observation> UpdateObservations(const TelemetrySnapshot& snapshot, TimePoint now);

  // The link rate last seen for a port in a snapshot that carried speed/width.
  std::optional<LinkRate> Link(const PortKey& port) const;
  // A port's last sample: its time and the value of each counter it carried (in `values`, by
  // counter name). False for a port never seen.
  bool LastSample(const PortKey& port, TimePoint* at,
                  std::map<std::string, uint64_t>* values) const;

  size_t tracked_ports() const { return index_.size(); }
  size_t tracked_counters() const { return names_.size(); }
  // Heap bytes held by the per-port state (index, keys, times, values, link rates).
  size_t state_bytes() const;

 private:
  // Maps the snapshot's columns to tracker counter ids (adding new ones), and lists the ids the
  // snapshot lacks.
  void PrepareColumns(const TelemetrySnapshot& snapshot);
  void Grow(size_t counters);
  uint32_t SlotFor(const PortKey& key, uint32_t hint, bool* added);
  void Reserve(size_t ports);

  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> ids_;
  bool report_all_ = true;
  std::set<std::string> report_;
  std::vector<uint8_t> reported_;  // by id

  PortIndex index_;
  std::vector<int64_t> last_time_us_;  // by slot
  std::vector<uint64_t> last_;         // slot * stride_ + id; kNoValue = no baseline
  size_t stride_ = 0;
  std::vector<LinkRate> links_;  // by slot, once a snapshot carried speed/width
  bool track_links_ = false;

  // Per-update scratch.
  std::vector<uint32_t> column_ids_;
  std::vector<uint8_t> column_reported_;
  std::vector<uint32_t> missing_ids_;
};

template <typename Sink>
CounterTracker::Stats CounterTracker::Update(const TelemetrySnapshot& snapshot, TimePoint now,
                                             Sink&& sink) {
  Stats stats;
  PrepareColumns(snapshot);
  const size_t n = snapshot.counters.size();
  const int64_t now_us =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  const bool has_links = !snapshot.links.empty();
  if (has_links && !track_links_) {
    track_links_ = true;
    links_.resize(last_time_us_.size());
  }
  if (index_.size() == 0) Reserve(snapshot.rows());
  const uint64_t* row_values = snapshot.values.data();
  uint32_t slot = PortIndex::kNone;
  for (size_t row = 0; row < snapshot.rows(); ++row, row_values += n) {
    ++stats.rows;
    const int64_t t_us = snapshot.time_us[row] > 0 ? snapshot.time_us[row] : now_us;
    bool added = false;
    slot = SlotFor(snapshot.ports[row], slot + 1, &added);  // kNone + 1 == 0: the first slot
    uint64_t* last = last_.data() + static_cast<size_t>(slot) * stride_;
    if (has_links && snapshot.links[row].known()) links_[slot] = snapshot.links[row];
    const int64_t prev_us = last_time_us_[slot];
    if (!added && t_us == prev_us) {
      ++stats.repeats;
      continue;
    }
    if (added || t_us < prev_us) {
      ++stats.baselines;
      for (size_t c = 0; c < n; ++c) last[column_ids_[c]] = row_values[c];
      for (uint32_t id : missing_ids_) last[id] = kNoValue;
      last_time_us_[slot] = t_us;
      continue;
    }
    const double interval_s = static_cast<double>(t_us - prev_us) / 1e6;
    for (size_t c = 0; c < n; ++c) {
      const uint64_t v = row_values[c];
      uint64_t& old = last[column_ids_[c]];
      if (v != kNoValue && old != kNoValue && v != old) {
        uint64_t delta = v - old;
        if (v < old) {
          delta = v;  // reset or wrap: the count since the reset
          ++stats.resets;
        }
        if (delta > 0) {
          ++stats.moved;
          if (column_reported_[c]) {
            ++stats.reported;
            CounterDelta d;
            d.row = row;
            d.column = c;
            d.value = v;
            d.delta = delta;
            d.previous = old;
            d.interval_s = interval_s;
            d.time = TimePoint(
                std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds(t_us)));
            d.previous_time = TimePoint(std::chrono::duration_cast<TimePoint::duration>(
                std::chrono::microseconds(prev_us)));
            sink(d);
          }
        }
      }
      old = v;
    }
    for (uint32_t id : missing_ids_) last[id] = kNoValue;
    last_time_us_[slot] = t_us;
  }
  return stats;
}

}  // namespace ufmr
