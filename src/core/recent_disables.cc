#include "core/recent_disables.h"

#include <algorithm>

#include "core/inventory.h"

namespace ufmr {

namespace {
constexpr int kPortDisabled = 336;
constexpr int kPortEnabled = 337;
}  // namespace

std::vector<std::string> RecentDisables::Note(const Observation& o,
                                              const std::vector<std::string>& ports,
                                              const std::function<bool(const std::string&)>& ours) {
  std::vector<std::string> noted;
  if (o.event_type != kPortDisabled && o.event_type != kPortEnabled) return noted;
  for (const auto& port : ports) {
    if (o.event_type == kPortEnabled) {
      ports_.erase(port);
    } else if (!ours(port)) {
      ports_[port] = o.time;
      noted.push_back(port);
    }
  }
  return noted;
}

bool RecentDisables::Covers(const Observation& o, const Inventory& inventory) {
  if (ports_.empty() || o.ports.empty() || o.event_type == kPortDisabled ||
      o.event_type == kPortEnabled) {
    return false;
  }
  for (auto it = ports_.begin(); it != ports_.end();) {
    if (Seconds(o.time - it->second).count() > kWindowS) {
      it = ports_.erase(it);
    } else {
      ++it;
    }
  }
  auto noted = [this](const std::string& p) { return ports_.count(p) > 0; };
  if (std::any_of(o.ports.begin(), o.ports.end(), noted)) return true;
  if (ports_.empty() || o.ports.size() > 1) return false;  // a link event names both ends
  std::vector<std::string> ends = inventory.LinkEnds(o.ports);
  return std::any_of(ends.begin(), ends.end(), noted);
}

}  // namespace ufmr
