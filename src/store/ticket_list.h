// TicketQuery and TicketPage: what the ticket list asks of Store::ListTickets (filters, sort,
// page) and what it answers. Plain data; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/ticket.h"

namespace ufmr {

// What the ticket list shows: filters (all optional), sort and page.
struct TicketQuery {
  std::string state = "all";  // a ticket state, "open" (not closed) or "all"
  std::string fabric;         // exact
  std::string switch_name;    // the switch end's system name, case-insensitive
  std::string host;           // the host end's system name, case-insensitive
  std::string rack;           // exact
  std::string rule;           // exact
  std::string assigned_to;    // exact
  std::string q;              // appears in a port name, label, GUID, host, cable serial, ...
  std::optional<double> min_age_s, max_age_s;  // since the ticket was filed
  // priority (1 first, then oldest), age (oldest first), created, updated, id, state, rule;
  // "-" before it reverses.
  std::string sort = "priority";
  int limit = 100;
  int64_t offset = 0;
  // Leave each ticket's ends as text (Ticket::ends_text; `ends` empty): for a list that mostly
  // shows ports as the inventory knows them now and falls back on the filed ends only now and
  // then. Parsing them for every ticket was a fifth of the ticket list's CPU.
  bool unparsed_ends = false;
};
// The sort keys TicketQuery::sort accepts (without "-").
bool IsKnownTicketSort(const std::string& sort);

struct TicketPage {
  std::vector<Ticket> tickets;
  int64_t total = 0;  // tickets that match the filters, all pages
};

}  // namespace ufmr
