// RecentDisables: ports that UFM says someone other than this service disabled (event 336, "port
// action disable succeeded"), each for a minute. Meanwhile, what the port's link reports ("Link
// went down" first) is that disable's doing, not a fault, and no rule may count it; a 337
// (enabled) ends the minute early. The service (Remediator) and replay (ReplayPipeline, so also
// `rules test`) both use it, so a backtest counts what the service counts. Single-threaded.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/observation.h"

namespace ufmr {

class Inventory;

class RecentDisables {
 public:
  static constexpr double kWindowS = 60;  // UFM reports the link-down within seconds

  // A 336 notes `ports` (the event's ports) but those `ours` says this service is disabling; a
  // 337 forgets them. Returns the ports noted. Any other event is ignored.
  std::vector<std::string> Note(const Observation& o, const std::vector<std::string>& ports,
                                const std::function<bool(const std::string&)>& ours);
  // Whether `o` (not a 336 or 337) is about a link one of whose ports was noted within the
  // window before o.time. A link event names both ends; an event naming one port is asked about
  // its peer through `inventory`.
  bool Covers(const Observation& o, const Inventory& inventory);

 private:
  std::map<std::string, TimePoint> ports_;  // port -> when its 336 was seen
};

}  // namespace ufmr
