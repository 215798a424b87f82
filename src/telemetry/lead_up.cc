#include "telemetry/lead_up.h"

#include <algorithm>
#include <chrono>

namespace ufmr {

namespace {

int64_t Micros(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

TimePoint FromMicros(int64_t us) {
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds(us)));
}

}  // namespace

LeadUp::LeadUp(size_t max_ports, size_t points_per_port)
    : max_ports_(std::max<size_t>(1, max_ports)),
      points_per_port_(std::max<size_t>(2, points_per_port)) {}

uint32_t LeadUp::CounterId(std::string_view counter) {
  auto it = counter_ids_.find(std::string(counter));
  if (it != counter_ids_.end()) return it->second;
  counters_.emplace_back(counter);
  const auto id = static_cast<uint32_t>(counters_.size() - 1);
  counter_ids_.emplace(counters_.back(), id);
  return id;
}

LeadUp::Track& LeadUp::TrackOf(const std::string& port) {
  auto it = tracks_.find(port);
  if (it != tracks_.end()) {
    recent_.splice(recent_.end(), recent_, it->second.recent);  // now the most recent
    return it->second;
  }
  if (tracks_.size() >= max_ports_) {  // forget the port that rose longest ago
    tracks_.erase(recent_.front());
    recent_.pop_front();
  }
  Track& track = tracks_[port];
  track.recent = recent_.insert(recent_.end(), port);
  return track;
}

void LeadUp::Add(Track& track, int64_t at_us, uint32_t counter, uint64_t value) const {
  for (const Stored& s : track.ring) {
    if (s.counter == counter && s.at_us == at_us) return;  // the last rise's "after"
  }
  Stored point{at_us, value, counter};
  if (track.ring.size() < points_per_port_) {
    track.ring.push_back(point);
    return;
  }
  track.ring[track.next] = point;  // over the oldest
  track.next = (track.next + 1) % track.ring.size();
}

void LeadUp::Rose(const std::string& port, std::string_view counter, TimePoint prev,
                  uint64_t before, TimePoint at, uint64_t value) {
  const uint32_t id = CounterId(counter);
  Track& track = TrackOf(port);
  Add(track, Micros(prev), id, before);
  Add(track, Micros(at), id, value);
}

std::vector<LeadUp::Point> LeadUp::Points(const std::string& port, TimePoint since) const {
  std::vector<Point> points;
  auto it = tracks_.find(port);
  if (it == tracks_.end()) return points;
  const Track& track = it->second;
  const int64_t since_us = Micros(since);
  for (size_t i = 0; i < track.ring.size(); ++i) {
    const Stored& s = track.ring[(track.next + i) % track.ring.size()];
    if (s.at_us >= since_us) points.push_back({FromMicros(s.at_us), counters_[s.counter], s.value});
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const Point& a, const Point& b) { return a.at < b.at; });
  return points;
}

void LeadUp::Forget(const std::string& port) {
  auto it = tracks_.find(port);
  if (it == tracks_.end()) return;
  recent_.erase(it->second.recent);
  tracks_.erase(it);
}

size_t LeadUp::bytes() const {
  // A hash node (key, track, next pointer, cached hash), its bucket, its list node and key copy.
  constexpr size_t kPerPort = sizeof(std::string) + sizeof(Track) + 2 * sizeof(void*) +
                              sizeof(void*) + 2 * sizeof(void*) + sizeof(std::string);
  size_t total = tracks_.size() * kPerPort;
  for (const auto& [port, track] : tracks_) {
    total += track.ring.capacity() * sizeof(Stored) + 2 * port.capacity();
  }
  for (const auto& c : counters_) total += 2 * (sizeof(std::string) + c.capacity()) + 16;
  return total;
}

}  // namespace ufmr
