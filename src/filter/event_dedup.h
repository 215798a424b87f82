// EventDeduper: the same UFM event can arrive twice, from REST and from the event log on disk (or
// syslog). It is one observation: the first arrival counts, later ones are dropped. Events are
// keyed by what every source carries: the event id (type), the time to the second, and the
// ports (or the object) it names. Keys are kept for a window, then forgotten. Owned by the
// pipeline thread; not thread-safe.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <unordered_map>

#include "ingest/observation.h"

namespace ufmr {

class EventDeduper {
 public:
  explicit EventDeduper(double window_s = 600) : window_s_(window_s) {}

  // True if this sighting is a new event (see above); records it. Counter observations always
  // pass. The source is Observation::source ("rest", "event_log", "syslog").
  bool FirstSighting(const Observation& o);
  static std::string Key(const Observation& o);
  size_t size() const { return seen_.size(); }

 private:
  double window_s_;
  std::unordered_map<std::string, std::map<std::string, int>> seen_;  // key -> source -> count
  std::deque<std::pair<TimePoint, std::string>> order_;
};

}  // namespace ufmr
