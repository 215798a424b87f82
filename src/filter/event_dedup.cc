#include "filter/event_dedup.h"

#include <algorithm>
#include <vector>

namespace ufmr {

std::string EventDeduper::Key(const Observation& o) {
  // "2026-11-29 18:46:32.123" and "2026-11-29 18:46:32" are the same second.
  std::string second = o.ufm_timestamp.substr(0, 19);
  std::vector<std::string> ports = o.ports;
  std::sort(ports.begin(), ports.end());
  std::string key = std::to_string(o.event_type) + "|" + second + "|";
  if (ports.empty()) {
    key += o.object_name;
  } else {
    for (const auto& p : ports) key += p + ",";
  }
  return key;
}

bool EventDeduper::FirstSighting(const Observation& o) {
  if (o.kind != Observation::Kind::kEvent) return true;
  const auto horizon = o.time - std::chrono::duration_cast<TimePoint::duration>(Seconds(window_s_));
  while (!order_.empty() && order_.front().first < horizon) {
    seen_.erase(order_.front().second);
    order_.pop_front();
  }
  std::string key = Key(o);
  auto [it, inserted] = seen_.try_emplace(key);
  if (inserted) order_.emplace_back(o.time, key);
  int mine = ++it->second[o.source];
  for (const auto& [source, count] : it->second) {
    if (source != o.source && count >= mine) return false;  // another source had it first
  }
  return true;
}

}  // namespace ufmr
