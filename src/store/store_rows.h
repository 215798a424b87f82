// The columns Store's files select and how a row of them becomes a Ticket or a PortAction, and
// the conversions their parameters share. Private to src/store/. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "store/ticket.h"

namespace ufmr {

// The tickets columns ReadTicket reads, with Ticket::repeat_count counting earlier tickets on the
// link filed within `repeat_window_s`.
std::string TicketColumns(double repeat_window_s);
// One row of TicketColumns. With parse_ends false, the ends are left as text (Ticket::ends_text)
// and `ends` is empty.
Ticket ReadTicket(const pqxx::row& r, bool parse_ends = true);

// The port_actions columns ReadAction reads.
extern const char* const kActionColumns;
PortAction ReadAction(const pqxx::row& r);

// Every row of `r` through `read`.
template <typename Read>
auto ReadAll(const pqxx::result& r, Read&& read) {
  std::vector<decltype(read(r[0]))> out;
  out.reserve(r.size());
  for (const auto& row : r) out.push_back(read(row));
  return out;
}
std::vector<Ticket> ReadTickets(const pqxx::result& r);
std::vector<PortAction> ReadActions(const pqxx::result& r);

// A float8 column (epoch seconds): from_chars on the text PostgreSQL sent. pqxx's own conversion
// goes through a locale-aware stream, and a ticket has four of these.
double Float(const pqxx::field& f);
std::optional<double> OptFloat(const pqxx::field& f);

// A NULL-able timestamp as the text parameter the statements take: "" means NULL.
std::string EpochOrEmpty(const std::optional<double>& t);
// A PostgreSQL array literal of `items`, each element double-quoted with \ and " escaped: a
// text[] parameter, or another type's array by a cast (`$1::bigint[]`).
std::string TextArray(const std::vector<std::string>& items);
// JSON for a jsonb parameter; invalid UTF-8 replaced, not thrown.
std::string JsonText(const nlohmann::json& j);

}  // namespace ufmr
