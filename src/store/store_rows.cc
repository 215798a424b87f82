#include "store/store_rows.h"

#include <charconv>
#include <cstdint>
#include <sstream>
#include <system_error>

namespace ufmr {

namespace {

constexpr const char* kTicketColumnsTemplate =
    "id, fabric, link_key, port_a, port_b, state, rule, reason, action_port, disabled_by_us, "
    "attempts, coalesce(acknowledged_by, ''), extract(epoch from soak_until)::float8, "
    "extract(epoch from created_at)::float8, extract(epoch from updated_at)::float8, "
    "extract(epoch from closed_at)::float8, method, guard, explanation, repair_kind, "
    "(SELECT count(*) FROM tickets o WHERE o.fabric = tickets.fabric AND o.link_key = "
    "tickets.link_key AND o.id < tickets.id AND o.created_at > tickets.created_at - "
    "make_interval(secs => $REPEAT))::int, severity, priority, coalesce(assigned_to, ''), "
    "resolution, resolution_note, switch_name, rack, host_name, ends::text, search_text, "
    "coalesce(host_jobs::text, '')";

// The columns of the ticket's place (TicketPlacer), from 26 on.
void ReadPlace(const pqxx::row& r, bool parse_ends, Ticket* t) {
  t->switch_name = r[26].as<std::string>();
  t->rack = r[27].as<std::string>();
  t->host_name = r[28].as<std::string>();
  if (parse_ends) {
    t->ends = nlohmann::json::parse(r[29].c_str(), nullptr, false);  // no copy of the text first
    if (!t->ends.is_array()) t->ends = nlohmann::json::array();
  } else {
    t->ends = nlohmann::json::array();
    t->ends_text.assign(r[29].c_str(), r[29].size());
  }
  t->search_text = r[30].as<std::string>();
  if (r.size() > 31 && r[31].size() > 0) {
    t->host_jobs = nlohmann::json::parse(r[31].c_str(), nullptr, false);
    if (t->host_jobs.is_discarded()) t->host_jobs = nullptr;
  }
}

}  // namespace

const char* const kActionColumns =
    "id, fabric, coalesce(ticket_id, 0), port, system_guid, action, state, reason, "
    "coalesce(job_id, ''), coalesce(error, ''), extract(epoch from created_at)::float8, "
    "extract(epoch from updated_at)::float8, tries, extract(epoch from next_try_at)::float8, "
    "announced, extract(epoch from confirmed_at)::float8";

std::string TicketColumns(double repeat_window_s) {
  std::string t = kTicketColumnsTemplate;
  t.replace(t.find("$REPEAT"), 7, std::to_string(static_cast<int64_t>(repeat_window_s)));
  return t;
}

Ticket ReadTicket(const pqxx::row& r, bool parse_ends) {
  Ticket t;
  t.id = r[0].as<int64_t>();
  t.fabric = r[1].as<std::string>();
  t.link_key = r[2].as<std::string>();
  t.port_a = r[3].as<std::string>();
  t.port_b = r[4].as<std::string>();
  t.state = r[5].as<std::string>();
  t.rule = r[6].as<std::string>();
  t.reason = r[7].as<std::string>();
  t.action_port = r[8].as<std::string>();
  t.disabled_by_us = r[9].as<bool>();
  t.attempts = r[10].as<int>();
  t.acknowledged_by = r[11].as<std::string>();
  t.soak_until = OptFloat(r[12]);
  t.created_at = Float(r[13]);
  t.updated_at = Float(r[14]);
  t.closed_at = OptFloat(r[15]);
  t.method = r[16].as<std::string>();
  t.guard = r[17].as<std::string>();
  t.explanation = r[18].as<std::string>();
  t.repair_kind = r[19].as<std::string>();
  t.repeat_count = r[20].as<int>();
  t.severity = r[21].as<std::string>();
  t.priority = r[22].as<int>();
  t.assigned_to = r[23].as<std::string>();
  t.resolution = r[24].as<std::string>();
  t.resolution_note = r[25].as<std::string>();
  ReadPlace(r, parse_ends, &t);
  return t;
}

PortAction ReadAction(const pqxx::row& r) {
  PortAction a;
  a.id = r[0].as<int64_t>();
  a.fabric = r[1].as<std::string>();
  a.ticket_id = r[2].as<int64_t>();
  a.port = r[3].as<std::string>();
  a.system_guid = r[4].as<std::string>();
  a.action = r[5].as<std::string>();
  a.state = r[6].as<std::string>();
  a.reason = r[7].as<std::string>();
  a.job_id = r[8].as<std::string>();
  a.error = r[9].as<std::string>();
  a.created_at = Float(r[10]);
  a.updated_at = Float(r[11]);
  a.tries = r[12].as<int>();
  a.next_try_at = OptFloat(r[13]);
  a.announced = r[14].as<bool>();
  a.confirmed_at = OptFloat(r[15]);
  return a;
}

std::vector<Ticket> ReadTickets(const pqxx::result& r) {
  return ReadAll(r, [](const pqxx::row& row) { return ReadTicket(row); });
}

std::vector<PortAction> ReadActions(const pqxx::result& r) { return ReadAll(r, ReadAction); }

double Float(const pqxx::field& f) {
  const char* text = f.c_str();
  const char* end = text + f.size();
  double v = 0;
  auto [ptr, ec] = std::from_chars(text, end, v);
  if (ec == std::errc() && ptr == end) return v;
  return f.as<double>();  // anything from_chars does not take, as pqxx reads it
}

std::optional<double> OptFloat(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return Float(f);
}

std::string TextArray(const std::vector<std::string>& items) {
  std::string list = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    list += i ? ",\"" : "\"";
    for (char ch : items[i]) {
      if (ch == '"' || ch == '\\') list += '\\';
      list += ch;
    }
    list += '"';
  }
  return list + "}";
}

std::string EpochOrEmpty(const std::optional<double>& t) {
  if (!t) return "";
  std::ostringstream s;
  s.precision(17);
  s << *t;
  return s.str();
}

std::string JsonText(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ufmr
