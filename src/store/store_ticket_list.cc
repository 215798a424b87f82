// Store's reads of tickets for the API: the ticket list (filters, sort, page), one ticket, its
// timeline, and the counts by state.
#include <algorithm>

#include "store/store.h"
#include "store/store_db.h"
#include "store/store_rows.h"
#include "store/ticket_list.h"
#include "ufm/ufm_json.h"

namespace ufmr {

bool IsKnownTicketSort(const std::string& sort) {
  for (const char* k : {"priority", "age", "created", "updated", "id", "state", "rule"}) {
    if (sort == k) return true;
  }
  return false;
}

namespace {

// ORDER BY for a TicketQuery::sort (already checked by IsKnownTicketSort).
std::string TicketOrder(const std::string& sort) {
  bool desc = !sort.empty() && sort[0] == '-';
  std::string key = desc ? sort.substr(1) : sort;
  std::string dir = desc ? " DESC" : " ASC";
  if (key == "priority") return "priority" + dir + ", created_at ASC, id ASC";
  if (key == "age") return "created_at" + std::string(desc ? " DESC" : " ASC") + ", id ASC";
  if (key == "created") return "created_at" + dir + ", id" + dir;
  if (key == "updated") return "updated_at" + dir + ", id" + dir;
  if (key == "state") return "state" + dir + ", priority ASC, created_at ASC, id ASC";
  if (key == "rule") return "rule" + dir + ", priority ASC, created_at ASC, id ASC";
  return "id" + dir;
}

// A TicketQuery's filters as a WHERE condition over parameters $1, $2, ... (`values`).
struct TicketFilter {
  std::string where = "TRUE";
  std::vector<std::string> values;

  // `cond` with its ? as the next parameter, `value`.
  void Add(const std::string& cond, const std::string& value) {
    values.push_back(value);
    std::string n = "$" + std::to_string(values.size());
    std::string c = cond;
    for (size_t at; (at = c.find('?')) != std::string::npos;) c.replace(at, 1, n);
    where += " AND " + c;
  }
};

// LIKE, which a trigram index serves; the pattern's own % _ \ are escaped.
std::string ContainsPattern(const std::string& text) {
  std::string pattern = "%";
  for (char c : AsciiLower(text)) {
    if (c == '%' || c == '_' || c == '\\') pattern += '\\';
    pattern += c;
  }
  return pattern + "%";
}

TicketFilter FilterOf(const TicketQuery& q) {
  TicketFilter f;
  if (q.state == "open") {
    f.where += " AND state <> 'closed'";
  } else if (q.state != "all" && !q.state.empty()) {
    f.Add("state = ?", q.state);
  }
  if (!q.fabric.empty()) f.Add("fabric = ?", q.fabric);
  if (!q.switch_name.empty()) f.Add("lower(switch_name) = lower(?)", q.switch_name);
  if (!q.host.empty()) f.Add("lower(host_name) = lower(?)", q.host);
  if (!q.rack.empty()) f.Add("rack = ?", q.rack);
  if (!q.rule.empty()) f.Add("rule = ?", q.rule);
  if (!q.assigned_to.empty()) f.Add("assigned_to = ?", q.assigned_to);
  if (!q.q.empty()) f.Add("search_text LIKE ?", ContainsPattern(q.q));
  if (q.min_age_s) {
    f.Add("created_at <= now() - make_interval(secs => ?::float8)", std::to_string(*q.min_age_s));
  }
  if (q.max_age_s) {
    f.Add("created_at >= now() - make_interval(secs => ?::float8)", std::to_string(*q.max_age_s));
  }
  return f;
}

// One statement (one snapshot): the page's ids, walked in index order and stopped at the page's
// end; the total, counted apart (a window over every match would read and sort them all); the
// wide columns, and the repeat count's subquery, only for the page. Its parameters: the
// filter's, then the offset. The limit is written into the statement (an int, not text from the
// request): a prepared statement's plan is made once for any parameters, and with the limit a
// parameter too it guessed a thousand rows a page and hash-joined the whole table (a deep page:
// 97 ms).
std::string TicketPageSql(const TicketQuery& q, const TicketFilter& f, const std::string& columns) {
  const std::string lim = std::to_string(std::max(q.limit, 0));
  const std::string off = "$" + std::to_string(f.values.size() + 1) + "::bigint";
  const std::string order = TicketOrder(q.sort);
  return "WITH page AS (SELECT id FROM tickets WHERE " + f.where + " ORDER BY " + order +
         " LIMIT " + lim + " OFFSET " + off +
         "), total AS (SELECT count(*) AS n FROM tickets WHERE " + f.where + ") SELECT " + columns +
         ", total.n FROM tickets JOIN page USING (id) CROSS JOIN total ORDER BY " + order;
}

}  // namespace

Result<std::vector<Ticket>> Store::ListTickets(const std::string& state, int limit) {
  TicketQuery q;
  q.state = state;
  q.fabric = fabric_;
  q.sort = "-id";
  q.limit = limit;
  auto page = ListTickets(q);
  if (!page.ok()) return page.status();
  return std::move(page->tickets);
}

Result<TicketPage> Store::ListTickets(const TicketQuery& q) {
  std::string sort_key = !q.sort.empty() && q.sort[0] == '-' ? q.sort.substr(1) : q.sort;
  if (!IsKnownTicketSort(sort_key)) return Status::InvalidArgument("unknown sort '" + q.sort + "'");
  const TicketFilter f = FilterOf(q);
  const std::string sql = TicketPageSql(q, f, ticket_columns_);
  // One statement, so one snapshot without a transaction around it (a transaction would cost two
  // more round trips per list).
  return Query<NoTx>("list_tickets", [&](NoTx& w) -> Result<TicketPage> {
    std::vector<std::string> params = f.values;
    params.push_back(std::to_string(q.offset));
    const std::string name = pool_->Prepared(w.conn(), sql);
    auto r = name.empty() ? w.exec_params(sql, pqxx::prepare::make_dynamic_params(params))
                          : w.exec_prepared(name, pqxx::prepare::make_dynamic_params(params));
    TicketPage page;
    for (const auto& row : r) {
      page.tickets.push_back(ReadTicket(row, !q.unparsed_ends));
      page.total = row[row.size() - 1].as<int64_t>();
    }
    if (r.empty() && q.offset > 0) {
      // Past the last page (no row carries the total): it still says how many there are.
      page.total = w.exec_params("SELECT count(*) FROM tickets WHERE " + f.where,
                                 pqxx::prepare::make_dynamic_params(f.values))[0][0]
                       .as<int64_t>();
    }
    return page;
  });
}

Status Store::MissingTicket(int64_t id) {
  auto other = GetTicket(id);
  if (other.ok()) {
    return Status::Conflict("ticket " + std::to_string(id) + " belongs to fabric '" +
                            other->fabric + "': use that fabric's service");
  }
  if (other.status().code() != Status::Code::kNotFound) {
    // Answered as NotFound all the same: the caller asked about this fabric's ticket.
    LogIfError(other.status(), "looking for another fabric's ticket");
  }
  return Status::NotFound("no ticket " + std::to_string(id));
}

Result<Ticket> Store::GetTicket(int64_t id) {
  return Query<ReadTx>("get_ticket", [&](ReadTx& w) -> Result<Ticket> {
    auto r = w.exec_params("SELECT " + ticket_columns_ + " FROM tickets WHERE id = $1", id);
    if (r.empty()) return Status::NotFound("no ticket " + std::to_string(id));
    return ReadTicket(r[0]);
  });
}

Result<std::vector<Ticket>> Store::GetTickets(const std::vector<int64_t>& ids) {
  if (ids.empty()) return std::vector<Ticket>();
  std::vector<std::string> list;
  list.reserve(ids.size());
  for (int64_t id : ids) list.push_back(std::to_string(id));
  return Query<ReadTx>("get_tickets", [&](ReadTx& w) -> Result<std::vector<Ticket>> {
    return ReadTickets(w.exec_params(
        "SELECT " + ticket_columns_ + " FROM tickets WHERE id = ANY($1::bigint[]) ORDER BY id",
        TextArray(list)));
  });
}

Result<std::vector<TicketEvent>> Store::Events(int64_t ticket_id) {
  return Query<ReadTx>("ticket_events", [&](ReadTx& w) -> Result<std::vector<TicketEvent>> {
    auto r = w.exec_params(
        "SELECT id, ticket_id, extract(epoch from at)::float8, kind, actor, message, "
        "details::text FROM ticket_events WHERE ticket_id = $1 ORDER BY id",
        ticket_id);
    return ReadAll(r, [](const pqxx::row& row) {
      TicketEvent e;
      e.id = row[0].as<int64_t>();
      e.ticket_id = row[1].as<int64_t>();
      e.at = row[2].as<double>();
      e.kind = row[3].as<std::string>();
      e.actor = row[4].as<std::string>();
      e.message = row[5].as<std::string>();
      e.details = nlohmann::json::parse(row[6].as<std::string>(), nullptr, false);
      return e;
    });
  });
}

Result<std::map<std::string, int64_t>> Store::TicketCounts() {
  return Query<ReadTx>("ticket_counts", [&](ReadTx& w) -> Result<std::map<std::string, int64_t>> {
    auto r = w.exec_params("SELECT state, count(*) FROM tickets WHERE fabric = $1 GROUP BY state",
                           fabric_);
    std::map<std::string, int64_t> out;
    for (const auto& row : r) out[row[0].as<std::string>()] = row[1].as<int64_t>();
    return out;
  });
}

}  // namespace ufmr
