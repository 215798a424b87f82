// LeadUp: the recent rise of the error counters of ports whose counters are moving, so that a
// ticket's counter chart starts before the ticket opened and shows the rise that led to it. For
// at most max_ports ports (those that rose most recently; the others are forgotten), it holds the
// last points_per_port changes of their counters, each with the value before and after. Fed by the
// telemetry intake as counters move; drained by CounterHistory when a ticket's port is first
// recorded. Bounded: 24 bytes a point plus about 200 a port, at most about 9.5 MB with the
// defaults however many ports rise (bytes() says; docs/PERFORMANCE.md). Owned by one thread (the
// pipeline's); not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/clock.h"

namespace ufmr {

class LeadUp {
 public:
  struct Point {
    TimePoint at;
    std::string counter;
    uint64_t value = 0;
  };

  explicit LeadUp(size_t max_ports = 10000, size_t points_per_port = 32);

  // `counter` of `port` went from `before` (sampled at `prev`) to `value` (at `at`).
  void Rose(const std::string& port, std::string_view counter, TimePoint prev, uint64_t before,
            TimePoint at, uint64_t value);
  // The points held for `port` at or after `since`, oldest first.
  std::vector<Point> Points(const std::string& port, TimePoint since) const;
  // Drops what is held for `port` (recorded elsewhere now).
  void Forget(const std::string& port);

  size_t ports() const { return tracks_.size(); }
  // Heap bytes held, estimated from the containers' sizes.
  size_t bytes() const;

 private:
  struct Stored {
    int64_t at_us = 0;
    uint64_t value = 0;
    uint32_t counter = 0;
  };
  struct Track {
    std::vector<Stored> ring;  // up to points_per_port_; `next` is the oldest once full
    size_t next = 0;
    std::list<std::string>::iterator recent;  // in recent_
  };

  uint32_t CounterId(std::string_view counter);
  Track& TrackOf(const std::string& port);
  void Add(Track& track, int64_t at_us, uint32_t counter, uint64_t value) const;

  size_t max_ports_;
  size_t points_per_port_;
  std::vector<std::string> counters_;
  std::unordered_map<std::string, uint32_t> counter_ids_;
  std::unordered_map<std::string, Track> tracks_;
  std::list<std::string> recent_;  // ports, least recently risen first
};

}  // namespace ufmr
