// The counters that say a link is unwell, under the names UFM Telemetry uses (symbol errors, link
// downs, error recoveries, receive errors, discards, ...): kept for the ticket page's charts and
// followed before a ticket opens (LeadUp). Constant data.
#pragma once

#include <set>
#include <string>

namespace ufmr {

const std::set<std::string>& ErrorCounters();

}  // namespace ufmr
