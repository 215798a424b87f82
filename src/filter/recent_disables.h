// RecentDisables: ports that UFM says someone other than this service disabled (event 336, "port
// action succeeded", whose message names the action: "Port Action Disable Succeeded"). For a
// minute after it, by UFM's own timestamps, what the port's link reports ("Link went down" first)
// is that disable's doing, not a fault, and no rule may count it; a 336 for an enable ends the
// minute early. A 337 ("port action failed") changed nothing and is ignored. The service (its
// filters HandDisableNotes and HandDisableFilter) and replay (ReplayPipeline, so also `rules test`)
// both use it, so a backtest counts what the service counts. Kept in memory only.
// Single-threaded.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "ingest/observation.h"

namespace ufmr {

class Inventory;

class RecentDisables {
 public:
  static constexpr double kWindowS = 60;  // UFM reports the link-down within seconds
  // UFM stamps whole seconds, and two sources may stamp one moment a second apart.
  static constexpr double kSlackS = 2;

  // Whether Note reads events of this type (336) at all; Covers reads every other one.
  static bool Reads(int event_type);
  // A 336 for a disable notes `ports` (the event's ports) but those `ours` says this service is
  // disabling; a 336 for an enable forgets them. Returns the ports newly noted. Any other event
  // (a 337, a 336 for another action such as a reset) is ignored.
  std::vector<std::string> Note(const Observation& o, const std::vector<std::string>& ports,
                                const std::function<bool(const std::string&)>& ours);
  // Whether `o` (not a 336 or 337), whose ports are `ports`, is about a link one of whose ports
  // was noted, and is stamped from kSlackS before that 336 to kWindowS after it (by UFM's
  // timestamps when both parse, else by intake time). An event naming one port is asked about
  // its peer through `inventory`.
  bool Covers(const Observation& o, const std::vector<std::string>& ports,
              const Inventory& inventory);
  bool empty() const { return ports_.empty(); }

  // The port action a 336 or 337 reports: the second slot of UFM's template ("Port %s action %s
  // succeeded"), else the first of the words in its name and message: "disable", "enable", or ""
  // (another action, such as a reset, or none named).
  static std::string ActionOf(const Observation& o);

 private:
  struct Noted {
    TimePoint seen;                    // intake time of the 336
    std::optional<TimePoint> stamped;  // UFM's timestamp of it, when it parses
  };
  bool Within(const Noted& n, const Observation& o) const;

  std::map<std::string, Noted> ports_;
};

}  // namespace ufmr
