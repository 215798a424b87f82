// Ticket list parameters: reads GET /api/tickets' query string (state, fabric, switch, host, rack,
// rule, assigned, q, min_age, max_age, sort, limit, offset) into a TicketQuery, refusing unknown
// names and bad values with a message that says what is accepted. Pure; thread-safe.
#pragma once

#include <map>
#include <string>

#include "base/status.h"
#include "store/store.h"

namespace ufmr {

inline constexpr int kDefaultTicketPage = 100;
inline constexpr int kMaxTicketPage = 5000;

// `default_state` applies when the query names none.
Result<TicketQuery> ParseTicketQuery(const std::map<std::string, std::string>& params,
                                     const std::string& default_state = "all");

}  // namespace ufmr
