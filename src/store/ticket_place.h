// TicketPlacer: where a ticket's link is, for the people who walk to it. From UFM's inventory it
// takes both ends (names, labels, GUIDs, node descriptions, cable serial), the switch end's name
// and its rack (the first capture group of dashboard.rack_pattern on the switch's name), the
// host end's name, and the lower-case text a search matches. Immutable after construction;
// thread-safe.
#pragma once

#include <memory>
#include <string>

#include "store/ticket.h"
#include "ufm/inventory.h"

namespace re2 {
class RE2;
}

namespace ufmr {

class TicketPlacer {
 public:
  // An empty or invalid pattern groups by switch alone (an invalid one is logged).
  explicit TicketPlacer(const std::string& rack_pattern);
  ~TicketPlacer();

  // The rack of a switch by its name; "" when the pattern does not match.
  std::string RackOf(const std::string& switch_name) const;
  // Fills t's switch_name, rack, host_name, ends and search_text from its ports (port_a, port_b)
  // as the inventory knows them now; a port it does not know keeps only its name (and
  // `cable_serial`). An end whose cable the inventory does not name takes `cable_serial` (what
  // the finding's events said), so the ticket keeps the cable it learned.
  void Place(const Inventory& inventory, Ticket* t, const std::string& cable_serial = "") const;

 private:
  std::unique_ptr<re2::RE2> rack_;
};

}  // namespace ufmr
