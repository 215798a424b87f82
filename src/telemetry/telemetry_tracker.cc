#include "telemetry/telemetry_tracker.h"

#include <algorithm>

namespace ufmr {

void CounterTracker::ReportOnly(std::set<std::string> counters) {
  report_all_ = false;
  report_ = std::move(counters);
  for (size_t id = 0; id < names_.size(); ++id) reported_[id] = report_.count(names_[id]) > 0;
}

void CounterTracker::ReportAll() {
  report_all_ = true;
  report_.clear();
  std::fill(reported_.begin(), reported_.end(), 1);
}

bool CounterTracker::Reports(const std::string& counter) const {
  return report_all_ || report_.count(counter) > 0;
}

void CounterTracker::PrepareColumns(const TelemetrySnapshot& snapshot) {
  const size_t n = snapshot.counters.size();
  column_ids_.resize(n);
  column_reported_.resize(n);
  for (size_t c = 0; c < n; ++c) {
    const std::string& name = snapshot.counters[c];
    auto it = ids_.find(name);
    if (it == ids_.end()) {
      it = ids_.emplace(name, static_cast<uint32_t>(names_.size())).first;
      names_.push_back(name);
      reported_.push_back(Reports(name) ? 1 : 0);
    }
    column_ids_[c] = it->second;
    column_reported_[c] = reported_[it->second];
  }
  if (names_.size() > stride_) Grow(names_.size());
  missing_ids_.clear();
  if (n != names_.size()) {
    std::vector<uint8_t> present(names_.size(), 0);
    for (uint32_t id : column_ids_) present[id] = 1;
    for (size_t id = 0; id < names_.size(); ++id) {
      if (!present[id]) missing_ids_.push_back(static_cast<uint32_t>(id));
    }
  }
}

void CounterTracker::Grow(size_t counters) {
  size_t stride = std::max<size_t>(counters, stride_ == 0 ? 16 : stride_ * 2);
  std::vector<uint64_t> wider(last_time_us_.size() * stride, kNoValue);
  for (size_t slot = 0; slot < last_time_us_.size(); ++slot) {
    std::copy_n(last_.data() + slot * stride_, stride_, wider.data() + slot * stride);
  }
  last_.swap(wider);
  stride_ = stride;
}

uint32_t CounterTracker::SlotFor(const PortKey& key, uint32_t hint, bool* added) {
  auto [slot, inserted] = index_.Insert(key, hint);
  *added = inserted;
  if (inserted) {
    last_time_us_.push_back(0);
    last_.resize(last_.size() + stride_, kNoValue);
    if (track_links_) links_.emplace_back();
  }
  return slot;
}

void CounterTracker::Reserve(size_t ports) {
  index_.Reserve(ports);
  last_time_us_.reserve(ports);
  last_.reserve(ports * stride_);
  if (track_links_) links_.reserve(ports);
}

std::vector<Observation> CounterTracker::UpdateObservations(const TelemetrySnapshot& snapshot,
                                                            TimePoint now) {
  std::vector<Observation> out;
  Update(snapshot, now, [&](const CounterDelta& d) {
    Observation o;
    o.kind = Observation::Kind::kCounter;
    o.time = d.time;
    o.source = "telemetry";
    o.ports = {PortName(snapshot.ports[d.row])};
    o.counter = snapshot.counters[d.column];
    o.delta = static_cast<double>(d.delta);
    o.interval_s = d.interval_s;
    o.value = static_cast<double>(d.value);
    out.push_back(std::move(o));
  });
  return out;
}

std::optional<LinkRate> CounterTracker::Link(const PortKey& port) const {
  uint32_t slot = index_.Find(port);
  if (slot == PortIndex::kNone || slot >= links_.size() || !links_[slot].known()) {
    return std::nullopt;
  }
  return links_[slot];
}

bool CounterTracker::LastSample(const PortKey& port, TimePoint* at,
                                std::map<std::string, uint64_t>* values) const {
  uint32_t slot = index_.Find(port);
  if (slot == PortIndex::kNone || slot >= last_time_us_.size()) return false;
  *at = TimePoint(std::chrono::duration_cast<TimePoint::duration>(
      std::chrono::microseconds(last_time_us_[slot])));
  values->clear();
  const uint64_t* last = last_.data() + static_cast<size_t>(slot) * stride_;
  for (size_t id = 0; id < names_.size() && id < stride_; ++id) {
    if (last[id] != kNoValue) (*values)[names_[id]] = last[id];
  }
  return true;
}

size_t CounterTracker::state_bytes() const {
  return index_.bytes() + last_time_us_.capacity() * sizeof(int64_t) +
         last_.capacity() * sizeof(uint64_t) + links_.capacity() * sizeof(LinkRate);
}

}  // namespace ufmr
