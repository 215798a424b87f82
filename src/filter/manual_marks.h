// ManualMarks: ports a person took into their own hands, as UFM's events say it: event 702 "...
// is considered by SM as unhealthy due to MANUAL" (a person isolated the port). The decision
// stage never acts on such a port. Fed with every event that reaches the marks (the service's
// ManualMarkFilter, replay), ports already resolved to names. Owned by one thread; not
// thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ingest/observation.h"

namespace ufmr {

class ManualMarks {
 public:
  static constexpr int kUnhealthyEvent = 702;  // "... is considered by SM as unhealthy due to"
  // Whether Observe reads events of this type (702) at all.
  static bool Reads(int event_type) { return event_type == kUnhealthyEvent; }
  // Records the ports of a manual-isolation event; `ports` are the event's ports as names.
  void Observe(const Observation& o, const std::vector<std::string>& ports);
  // Why a person owns this port, or "".
  std::string Why(const std::string& port) const;
  size_t size() const { return marks_.size(); }
  // Keeps only the marks of these ports (UFM's unhealthy list, read afresh: a person who made a
  // port healthy again has given it back).
  void Retain(const std::set<std::string>& still_isolated) {
    std::erase_if(marks_, [&](const auto& kv) { return !still_isolated.count(kv.first); });
  }

 private:
  std::map<std::string, std::string> marks_;
};

}  // namespace ufmr
