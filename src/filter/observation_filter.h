// ObservationFilter: one filter of the stage between the sources and the rules (FilterChain runs
// them in order), and Sifting, an observation on its way through them: its ports as names, worked
// out once, and what the filters noted of it for the rules. A filter looks at one observation,
// may keep state of its own (what it saw earlier), and answers whether the observation goes on.
// What a filter needs from the stages after it (the ports this service holds, the links under
// soak) it is given as a narrow interface (filter/our_holds.h). Pipeline thread only; not
// thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ingest/observation.h"

namespace ufmr {

class Inventory;

// What a filter makes of an observation.
enum class FilterVerdict {
  kPass,          // on to the next filter, then the rules
  kDrop,          // kept from the rules
  kNoteLinkDown,  // kept from the rules, which only note that its link went down (uptime restarts)
};
const char* FilterVerdictName(FilterVerdict v);

class Sifting {
 public:
  // `inventory` (may be null) names the ports the observation's text places as "<node>:<label>".
  Sifting(const Observation& o, const Inventory* inventory) : o_(o), inventory_(inventory) {}

  const Observation& observation() const { return o_; }
  // The observation's ports as names: its own, then those its text places that the inventory
  // knows (as RuleEngine::PortsOf). Worked out on the first ask.
  const std::vector<std::string>& ports();

  // Set by the soak filter: the link's two ends, when the observation is about a link under soak
  // (a repaired link being watched): the rules judge it against their clear levels first.
  std::optional<std::vector<std::string>> soak_ends;

 private:
  const Observation& o_;
  const Inventory* inventory_;
  std::optional<std::vector<std::string>> ports_;
};

class ObservationFilter {
 public:
  virtual ~ObservationFilter() = default;
  // A short stable name, for logs and tests ("duplicates", "own_disables", ...).
  virtual const char* name() const = 0;
  virtual FilterVerdict Check(Sifting& s) = 0;
};

}  // namespace ufmr
