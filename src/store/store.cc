#include "store/store.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <pqxx/pqxx>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "base/json_writer.h"
#include "config/db_url.h"
#include "ufm/ufm_json.h"

namespace ufmr {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Times one Store operation into ufmr_db_query_duration_seconds{op}, however it ends.
class OpTimer {
 public:
  OpTimer(Metrics* metrics, const char* op)
      : metrics_(metrics), op_(op), start_(std::chrono::steady_clock::now()) {}
  ~OpTimer() {
    if (metrics_) {
      metrics_->Observe(MetricName("ufmr_db_query_duration_seconds", {{"op", op_}}),
                        SecondsSince(start_));
    }
  }
  OpTimer(const OpTimer&) = delete;
  OpTimer& operator=(const OpTimer&) = delete;

 private:
  Metrics* metrics_;
  const char* op_;
  std::chrono::steady_clock::time_point start_;
};

constexpr const char* kTicketColumnsTemplate =
    "id, fabric, link_key, port_a, port_b, state, rule, reason, action_port, disabled_by_us, "
    "attempts, coalesce(acknowledged_by, ''), extract(epoch from soak_until)::float8, "
    "extract(epoch from created_at)::float8, extract(epoch from updated_at)::float8, "
    "extract(epoch from closed_at)::float8, method, guard, explanation, repair_kind, "
    "(SELECT count(*) FROM tickets o WHERE o.fabric = tickets.fabric AND o.link_key = "
    "tickets.link_key AND o.id < tickets.id AND o.created_at > tickets.created_at - "
    "make_interval(secs => $REPEAT))::int, severity, priority, coalesce(assigned_to, ''), "
    "resolution, resolution_note, switch_name, rack, host_name, ends::text, search_text";

constexpr const char* kActionColumns =
    "id, fabric, coalesce(ticket_id, 0), port, system_guid, action, state, reason, "
    "coalesce(job_id, ''), coalesce(error, ''), extract(epoch from created_at)::float8, "
    "extract(epoch from updated_at)::float8, tries, extract(epoch from next_try_at)::float8, "
    "announced, extract(epoch from confirmed_at)::float8";

// A float8 column (epoch seconds): from_chars on the text PostgreSQL sent. pqxx's own conversion
// goes through a locale-aware stream, and a ticket has four of these.
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

// One row of kTicketColumnsTemplate. With parse_ends false, the ends are left as text
// (Ticket::ends_text) and `ends` is empty.
Ticket ReadTicket(const pqxx::row& r, bool parse_ends = true) {
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
  t.switch_name = r[26].as<std::string>();
  t.rack = r[27].as<std::string>();
  t.host_name = r[28].as<std::string>();
  if (parse_ends) {
    t.ends = nlohmann::json::parse(r[29].c_str(), nullptr, false);  // no copy of the text first
    if (!t.ends.is_array()) t.ends = nlohmann::json::array();
  } else {
    t.ends = nlohmann::json::array();
    t.ends_text.assign(r[29].c_str(), r[29].size());
  }
  t.search_text = r[30].as<std::string>();
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

// Silence times travel as whole microseconds since the epoch, exact both ways.
constexpr const char* kSilenceColumns =
    "id, port_pattern, switch_pattern, host_pattern, reason, created_by, "
    "(extract(epoch from created_at) * 1000000)::bigint, "
    "(extract(epoch from expires_at) * 1000000)::bigint, "
    "(extract(epoch from expired_at) * 1000000)::bigint, coalesce(expired_by, '')";

// In force at the database's now().
constexpr const char* kSilenceInForce =
    "expired_at IS NULL AND created_at <= now() AND expires_at > now()";

TimePoint FromMicros(int64_t us) {
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds(us)));
}

int64_t ToMicros(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

Silence ReadSilence(const pqxx::row& r) {
  Silence s;
  s.id = r[0].as<int64_t>();
  s.port = r[1].as<std::string>();
  s.switch_ = r[2].as<std::string>();
  s.host = r[3].as<std::string>();
  s.reason = r[4].as<std::string>();
  s.created_by = r[5].as<std::string>();
  s.created_at = FromMicros(r[6].as<int64_t>());
  s.expires_at = FromMicros(r[7].as<int64_t>());
  if (!r[8].is_null()) s.expired_at = FromMicros(r[8].as<int64_t>());
  s.expired_by = r[9].as<std::string>();
  return s;
}

// The tickets table's severity CHECK: a rule's severity outside it is filed as major.
std::string SeverityOrMajor(const std::string& s) {
  for (const char* known : {"critical", "major", "minor", "warning", "info"}) {
    if (s == known) return s;
  }
  return "major";
}

// NULL-able timestamps travel as text: "" means NULL.
std::string EpochOrEmpty(const std::optional<double>& t) {
  if (!t) return "";
  std::ostringstream s;
  s.precision(17);
  s << *t;
  return s.str();
}

}  // namespace

Result<std::unique_ptr<Store>> Store::Open(const std::string& url, const std::string& fabric) {
  std::unique_ptr<Store> store(new Store(url, fabric));
  try {
    auto conn = std::make_unique<pqxx::connection>(url);
    store->Release(std::move(conn));
  } catch (const std::exception& e) {
    return Status::Unavailable("cannot connect to PostgreSQL: " +
                               RedactDatabasePassword(e.what(), url));
  }
  return store;
}

Store::~Store() = default;

Store::Store(std::string url, std::string fabric)
    : url_(std::move(url)), fabric_(std::move(fabric)) {
  set_repeat_window_s(90 * 86400.0);
}

void Store::set_repeat_window_s(double seconds) {
  std::string t = kTicketColumnsTemplate;
  t.replace(t.find("$REPEAT"), 7, std::to_string(static_cast<int64_t>(seconds)));
  ticket_columns_ = t;
}

namespace {

// An idle connection whose server went away (PostgreSQL restarted, the backend was terminated)
// has the news waiting on its socket: read it without blocking, and drop the connection rather
// than fail the next transaction on it. (libpqxx 6.4 also leaks the answer of a statement sent
// on a broken connection; tests/lsan.supp says why that cannot be closed here.) The first read
// takes the server's last words, the second finds the end of the stream.
bool StillOpen(pqxx::connection& c) {
  try {
    for (int i = 0; i < 2 && c.is_open(); ++i) c.get_notifs();
  } catch (const std::exception&) {
    return false;
  }
  return c.is_open();
}

}  // namespace

std::unique_ptr<pqxx::connection> Store::Acquire() {
  for (;;) {
    std::unique_ptr<pqxx::connection> c;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (idle_.empty()) break;
      c = std::move(idle_.back());
      idle_.pop_back();
    }
    if (StillOpen(*c)) return c;
  }
  try {
    return std::make_unique<pqxx::connection>(url_);
  } catch (const std::exception& e) {
    // libpq may quote the URL, password and all: callers log what is thrown.
    throw std::runtime_error(RedactDatabasePassword(e.what(), url_));
  }
}

std::string Store::Prepared(pqxx::connection& conn, const std::string& sql) {
  // The ticket list's statements differ only by which filters are set (a few dozen in practice);
  // the pipeline's per-finding statements are a handful more.
  constexpr size_t kMaxPrepared = 256;
  std::string name;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = prepared_.find(sql);
    if (it == prepared_.end()) {
      if (prepared_.size() >= kMaxPrepared) return "";
      it = prepared_.emplace(sql, "ufmr_stmt_" + std::to_string(prepared_.size() + 1)).first;
    }
    name = it->second;
  }
  conn.prepare(name, sql);  // a no-op when this connection has it already
  return name;
}

void Store::Release(std::unique_ptr<pqxx::connection> conn) {
  if (!conn || !conn->is_open()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < 8) idle_.push_back(std::move(conn));
}

Result<std::unique_ptr<Store::Tx>> Store::Begin() {
  try {
    return std::unique_ptr<Tx>(new Tx(this, Acquire()));
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database unavailable: ") + e.what());
  }
}

Store::Tx::Tx(Store* store, std::unique_ptr<pqxx::connection> conn)
    : store_(store),
      conn_(std::move(conn)),
      work_(std::make_unique<pqxx::work>(*conn_)),
      began_(std::chrono::steady_clock::now()) {}

Store::Tx::~Tx() {
  try {
    work_.reset();  // aborts if not committed
  } catch (...) {
  }
  store_->Release(std::move(conn_));
  if (store_->metrics_) {
    store_->metrics_->Observe(MetricName("ufmr_db_transaction_duration_seconds",
                                         {{"result", committed_ ? "commit" : "rollback"}}),
                              SecondsSince(began_));
  }
}

void Store::Tx::Commit() {
  WriteDecisions();
  work_->commit();
  committed_ = true;
}

template <typename... Args>
pqxx::result Store::Tx::ExecPrepared(const std::string& sql, Args&&... args) {
  const std::string name = store_->Prepared(*conn_, sql);
  if (name.empty()) return work_->exec_params(sql, std::forward<Args>(args)...);
  return work_->exec_prepared(name, std::forward<Args>(args)...);
}

std::optional<Ticket> Store::Tx::OpenTicketForLink(const std::string& link_key) {
  // Every finding asks (a storm: thousands a minute), so it is prepared.
  auto r = ExecPrepared("SELECT " + store_->ticket_columns_ +
                            " FROM tickets WHERE fabric = $1 AND link_key = $2 AND state "
                            "<> 'closed' FOR UPDATE",
                        store_->fabric_, link_key);
  if (r.empty()) return std::nullopt;
  return ReadTicket(r[0]);
}

std::optional<Ticket> Store::Tx::TicketById(int64_t id) {
  auto r = work_->exec_params("SELECT " + store_->ticket_columns_ +
                                  " FROM tickets WHERE id = $1 AND fabric = $2 FOR UPDATE",
                              id, store_->fabric_);
  if (r.empty()) return std::nullopt;
  return ReadTicket(r[0]);
}

std::vector<Ticket> Store::Tx::TicketsInState(const std::string& state) {
  auto r = work_->exec_params("SELECT " + store_->ticket_columns_ +
                                  " FROM tickets WHERE fabric = $1 AND state = $2 ORDER BY id "
                                  "FOR UPDATE",
                              store_->fabric_, state);
  std::vector<Ticket> out;
  for (const auto& row : r) out.push_back(ReadTicket(row));
  return out;
}

int64_t Store::Tx::InsertTicket(const Ticket& t) {
  auto r = work_->exec_params(
      "INSERT INTO tickets (fabric, link_key, port_a, port_b, state, rule, reason, action_port, "
      "disabled_by_us, attempts, method, guard, explanation, severity, switch_name, rack, "
      "host_name, ends, search_text) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
      "$13, $14, $15, $16, $17, $18::jsonb, $19) RETURNING id",
      store_->fabric_, t.link_key, t.port_a, t.port_b, t.state, t.rule, t.reason, t.action_port,
      t.disabled_by_us, t.attempts, t.method, t.guard, t.explanation, SeverityOrMajor(t.severity),
      t.switch_name, t.rack, t.host_name,
      t.ends.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), t.search_text);
  return r[0][0].as<int64_t>();
}

void Store::Tx::UpdateTicket(const Ticket& t) {
  work_->exec_params(
      "UPDATE tickets SET state = $2, attempts = $3, disabled_by_us = $4, action_port = $5, "
      "acknowledged_by = NULLIF($6, ''), "
      "soak_until = CASE WHEN $7 = '' THEN NULL ELSE to_timestamp($7::float8) END, "
      "closed_at = CASE WHEN $8 = '' THEN NULL ELSE to_timestamp($8::float8) END, "
      "rule = COALESCE(NULLIF($9, ''), rule), reason = COALESCE(NULLIF($10, ''), reason), "
      "method = $11, guard = $12, explanation = COALESCE(NULLIF($13, ''), explanation), "
      "repair_kind = $14, assigned_to = NULLIF($15, ''), resolution = $16, "
      "resolution_note = $17, severity = $18, updated_at = now() WHERE id = $1",
      t.id, t.state, t.attempts, t.disabled_by_us, t.action_port, t.acknowledged_by,
      EpochOrEmpty(t.soak_until), EpochOrEmpty(t.closed_at), t.rule, t.reason, t.method, t.guard,
      t.explanation, t.repair_kind, t.assigned_to, t.resolution, t.resolution_note,
      SeverityOrMajor(t.severity));
}

void Store::Tx::AddEvent(int64_t ticket_id, const std::string& kind, const std::string& actor,
                         const std::string& message, const nlohmann::json& details) {
  work_->exec_params(
      "INSERT INTO ticket_events (ticket_id, kind, actor, message, details) VALUES ($1, $2, $3, "
      "$4, $5::jsonb)",
      ticket_id, kind, actor, message,
      details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::vector<std::string> Store::Tx::OpenTicketPorts() {
  auto r = work_->exec_params(
      "SELECT DISTINCT p FROM tickets, unnest(ARRAY[port_a, port_b]) AS p WHERE fabric = $1 AND "
      "state <> 'closed' AND p <> '' AND link_key <> 'storm' ORDER BY p",
      store_->fabric_);
  std::vector<std::string> out;
  for (const auto& row : r) out.push_back(row[0].as<std::string>());
  return out;
}

void Store::Tx::AddCounterSample(const std::string& port, double at_epoch_s,
                                 const nlohmann::json& counters) {
  work_->exec_params(
      "INSERT INTO counter_samples (fabric, port, at, counters) VALUES ($1, $2, "
      "to_timestamp($3::float8), $4::jsonb) ON CONFLICT DO NOTHING",
      store_->fabric_, port, EpochOrEmpty(at_epoch_s), counters.dump());
}

int Store::Tx::PruneCounterSamples(double before_epoch_s) {
  auto r = work_->exec_params(
      "DELETE FROM counter_samples WHERE fabric = $1 AND at < to_timestamp($2::float8)",
      store_->fabric_, EpochOrEmpty(before_epoch_s));
  return static_cast<int>(r.affected_rows());
}

std::vector<Ticket> Store::Tx::UnplacedTickets(int limit) {
  auto r = work_->exec_params("SELECT " + store_->ticket_columns_ +
                                  " FROM tickets WHERE fabric = $1 AND state <> 'closed' AND "
                                  "link_key <> 'storm' AND ends = '[]'::jsonb ORDER BY id LIMIT $2",
                              store_->fabric_, limit);
  std::vector<Ticket> out;
  for (const auto& row : r) out.push_back(ReadTicket(row));
  return out;
}

void Store::Tx::SetPlace(const Ticket& t) {
  work_->exec_params(
      "UPDATE tickets SET switch_name = $2, rack = $3, host_name = $4, ends = $5::jsonb, "
      "search_text = $6 WHERE id = $1",
      t.id, t.switch_name, t.rack, t.host_name,
      t.ends.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), t.search_text);
}

int64_t Store::Tx::InsertAction(const PortAction& a) {
  auto r = work_->exec_params(
      "INSERT INTO port_actions (fabric, ticket_id, port, system_guid, action, state, reason, "
      "error) VALUES ($1, NULLIF($2, 0), $3, $4, $5, $6, $7, NULLIF($8, '')) RETURNING id",
      store_->fabric_, a.ticket_id, a.port, a.system_guid, a.action, a.state, a.reason, a.error);
  return r[0][0].as<int64_t>();
}

void Store::Tx::UpdateAction(const PortAction& a) {
  work_->exec_params(
      "UPDATE port_actions SET state = $2, job_id = NULLIF($3, ''), error = NULLIF($4, ''), "
      "tries = $5, next_try_at = CASE WHEN $6 = '' THEN NULL ELSE to_timestamp($6::float8) END, "
      "announced = $7, system_guid = $8, "
      "confirmed_at = CASE WHEN $2 = 'confirmed' THEN coalesce(confirmed_at, now()) END, "
      "updated_at = now() WHERE id = $1",
      a.id, a.state, a.job_id, a.error, a.tries, EpochOrEmpty(a.next_try_at), a.announced,
      a.system_guid);
}

std::vector<PortAction> Store::Tx::OpenActions() {
  auto r = work_->exec_params("SELECT " + std::string(kActionColumns) +
                                  " FROM port_actions WHERE fabric = $1 AND state IN "
                                  "('pending', 'submitted') ORDER BY id",
                              store_->fabric_);
  std::vector<PortAction> out;
  for (const auto& row : r) out.push_back(ReadAction(row));
  return out;
}

std::vector<PortAction> Store::Tx::UnannouncedActions() {
  auto r = work_->exec_params("SELECT " + std::string(kActionColumns) +
                                  " FROM port_actions WHERE fabric = $1 AND state = 'confirmed' "
                                  "AND NOT announced ORDER BY id LIMIT 100",
                              store_->fabric_);
  std::vector<PortAction> out;
  for (const auto& row : r) out.push_back(ReadAction(row));
  return out;
}

std::optional<PortAction> Store::Tx::ActionById(int64_t id) {
  auto r = work_->exec_params("SELECT " + std::string(kActionColumns) +
                                  " FROM port_actions WHERE id = $1 AND fabric = $2 FOR UPDATE",
                              id, store_->fabric_);
  if (r.empty()) return std::nullopt;
  return ReadAction(r[0]);
}

std::vector<PortAction> Store::Tx::ActionsOfTicket(int64_t ticket_id) {
  auto r = work_->exec_params("SELECT " + std::string(kActionColumns) +
                                  " FROM port_actions WHERE ticket_id = $1 ORDER BY id",
                              ticket_id);
  std::vector<PortAction> out;
  for (const auto& row : r) out.push_back(ReadAction(row));
  return out;
}

namespace {
// Tickets whose port this service holds out of service, or is about to (an open ticket's
// action is pending or in flight).
constexpr const char* kHeldTickets =
    "fabric = $1 AND action_port <> '' AND (disabled_by_us OR state = 'open') AND "
    "state NOT IN ('closed', 'verifying')";
}  // namespace

int Store::Tx::CountHeldDisabled() {
  auto r = work_->exec_params(std::string("SELECT count(*) FROM tickets WHERE ") + kHeldTickets,
                              store_->fabric_);
  return r[0][0].as<int>();
}

std::vector<Ticket> Store::Tx::HeldTickets() {
  auto r = work_->exec_params(
      "SELECT " + store_->ticket_columns_ + " FROM tickets WHERE " + kHeldTickets + " ORDER BY id",
      store_->fabric_);
  std::vector<Ticket> out;
  for (const auto& row : r) out.push_back(ReadTicket(row));
  return out;
}

std::vector<std::string> Store::Tx::HeldPorts() {
  auto r = work_->exec_params(
      std::string("SELECT action_port FROM tickets WHERE ") + kHeldTickets + " ORDER BY id",
      store_->fabric_);
  std::vector<std::string> out;
  for (const auto& row : r) out.push_back(row[0].as<std::string>());
  return out;
}

int Store::Tx::CutActionsSince(double epoch_s) {
  auto r = work_->exec_params(
      "SELECT count(*) FROM port_actions WHERE fabric = $1 AND action IN ('disable', 'isolate') "
      "AND state IN ('pending', 'submitted', 'confirmed') AND created_at >= to_timestamp($2)",
      store_->fabric_, epoch_s);
  return r[0][0].as<int>();
}

std::optional<double> Store::Tx::LastActionOn(const std::string& port) {
  auto r = work_->exec_params(
      "SELECT extract(epoch from max(created_at))::float8 FROM port_actions WHERE fabric = $1 AND "
      "port = $2 AND state IN ('pending', 'submitted', 'confirmed')",
      store_->fabric_, port);
  return OptFloat(r[0][0]);
}

Store::BreakerState Store::Tx::Breaker() {
  auto r = work_->exec_params(
      "SELECT tripped, extract(epoch from tripped_at)::float8, reason, coalesce(ticket_id, 0), "
      "coalesce(rearmed_by, ''), extract(epoch from rearmed_at)::float8 FROM breaker WHERE "
      "fabric = $1",
      store_->fabric_);
  BreakerState b;
  if (r.empty()) return b;
  b.tripped = r[0][0].as<bool>();
  b.tripped_at = OptFloat(r[0][1]);
  b.reason = r[0][2].as<std::string>();
  b.ticket_id = r[0][3].as<int64_t>();
  b.rearmed_by = r[0][4].as<std::string>();
  b.rearmed_at = OptFloat(r[0][5]);
  return b;
}

void Store::Tx::TripBreaker(const std::string& reason, int64_t ticket_id) {
  work_->exec_params(
      "INSERT INTO breaker (fabric, tripped, tripped_at, reason, ticket_id) VALUES ($1, true, "
      "now(), $2, NULLIF($3, 0)) ON CONFLICT (fabric) DO UPDATE SET tripped = true, tripped_at = "
      "now(), reason = EXCLUDED.reason, ticket_id = EXCLUDED.ticket_id",
      store_->fabric_, reason, ticket_id);
}

bool Store::Tx::RearmBreaker(const std::string& by) {
  auto r = work_->exec_params(
      "UPDATE breaker SET tripped = false, rearmed_by = $2, rearmed_at = now() WHERE fabric = $1 "
      "AND tripped",
      store_->fabric_, by);
  return r.affected_rows() > 0;
}

std::optional<int64_t> Store::Tx::Cursor(const std::string& source) {
  auto r = work_->exec_params("SELECT position FROM cursors WHERE fabric = $1 AND source = $2",
                              store_->fabric_, source);
  if (r.empty()) return std::nullopt;
  return r[0][0].as<int64_t>();
}

nlohmann::json Store::Tx::CursorState(const std::string& source) {
  auto r = work_->exec_params("SELECT state::text FROM cursors WHERE fabric = $1 AND source = $2",
                              store_->fabric_, source);
  if (r.empty()) return nlohmann::json::object();
  auto j = nlohmann::json::parse(r[0][0].as<std::string>(), nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

void Store::Tx::SetCursor(const std::string& source, int64_t position,
                          const nlohmann::json& state) {
  work_->exec_params(
      "INSERT INTO cursors (fabric, source, position, state) VALUES ($1, $2, $3, $4::jsonb) ON "
      "CONFLICT (fabric, source) DO UPDATE SET position = EXCLUDED.position, state = "
      "EXCLUDED.state, updated_at = now()",
      store_->fabric_, source, position, state.dump());
}

int64_t Store::Tx::AddAlert(const std::string& kind, const std::string& message,
                            const nlohmann::json& details) {
  auto r = work_->exec_params(
      "INSERT INTO alerts (fabric, kind, message, details) VALUES ($1, $2, $3, $4::jsonb) "
      "RETURNING id",
      store_->fabric_, kind, message,
      details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return r[0][0].as<int64_t>();
}

int Store::Tx::ClearAlertsOfKind(const std::string& kind, const std::string& by) {
  auto r = work_->exec_params(
      "UPDATE alerts SET cleared_at = now(), cleared_by = $3 "
      "WHERE fabric = $1 AND kind = $2 AND cleared_at IS NULL",
      store_->fabric_, kind, by);
  return static_cast<int>(r.affected_rows());
}

void Store::Tx::AddDecision(const nlohmann::json& d, std::optional<int64_t> ticket_id) {
  auto text = [&](const char* k) { return d.contains(k) ? d[k].get<std::string>() : ""; };
  JsonWriter w;
  w.BeginObject();
  for (const char* k :
       {"time", "rule", "decision", "guard", "entity", "port", "peer", "reason", "rules_hash"}) {
    w.Key(k).String(text(k));
  }
  w.Key("ticket_id").Int(ticket_id.value_or(0));
  w.Key("details").String(d.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  w.EndObject();
  if (!decisions_.empty()) decisions_ += ',';
  decisions_ += w.str();
}

void Store::Tx::WriteDecisions() {
  if (decisions_.empty()) return;
  ExecPrepared(
      "INSERT INTO decisions (fabric, finding_at, rule, decision, guard, entity, port, peer, "
      "reason, rules_hash, ticket_id, details) SELECT $1, (e->>'time')::timestamptz, e->>'rule', "
      "e->>'decision', e->>'guard', e->>'entity', e->>'port', e->>'peer', e->>'reason', "
      "e->>'rules_hash', NULLIF((e->>'ticket_id')::bigint, 0), (e->>'details')::jsonb FROM "
      "jsonb_array_elements($2::jsonb) WITH ORDINALITY AS d(e, n) ORDER BY n",
      store_->fabric_, "[" + decisions_ + "]");
  decisions_.clear();
}

namespace {

Result<std::vector<std::filesystem::path>> MigrationFiles(const std::string& schema_dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(schema_dir, ec)) {
    if (e.path().extension() == ".sql") files.push_back(e.path());
  }
  if (ec) {
    return Status::NotFound("cannot read schema directory " + schema_dir + ": " + ec.message());
  }
  if (files.empty()) return Status::NotFound("no *.sql migrations in " + schema_dir);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

Result<std::vector<std::string>> Store::PendingMigrations(const std::string& schema_dir) {
  OpTimer timer(metrics_, "migrate");
  auto files = MigrationFiles(schema_dir);
  if (!files.ok()) return files.status();
  try {
    auto conn = Acquire();
    std::vector<std::string> pending;
    {
      pqxx::read_transaction w(*conn);
      bool table = w.exec("SELECT to_regclass('schema_migrations') IS NOT NULL")[0][0].as<bool>();
      for (const auto& f : files.value()) {
        std::string version = f.filename().string();
        if (!table ||
            w.exec_params("SELECT 1 FROM schema_migrations WHERE version = $1", version).empty()) {
          pending.push_back(version);
        }
      }
    }
    Release(std::move(conn));
    return pending;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Status Store::Migrate(const std::string& schema_dir) {
  OpTimer timer(metrics_, "migrate");
  auto listed = MigrationFiles(schema_dir);
  if (!listed.ok()) return listed.status();
  const auto& files = listed.value();
  try {
    auto conn = Acquire();
    for (const auto& f : files) {
      pqxx::work w(*conn);
      w.exec("SELECT pg_advisory_xact_lock(7419001)");  // one migrator at a time
      w.exec(
          "CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at "
          "timestamptz NOT NULL DEFAULT now())");
      std::string version = f.filename().string();
      if (!w.exec_params("SELECT 1 FROM schema_migrations WHERE version = $1", version).empty()) {
        continue;
      }
      std::ifstream in(f);
      std::stringstream sql;
      sql << in.rdbuf();
      w.exec(sql.str());
      w.exec_params("INSERT INTO schema_migrations (version) VALUES ($1)", version);
      w.commit();
      spdlog::info("applied migration {}", version);
    }
    Release(std::move(conn));
  } catch (const std::exception& e) {
    return Status::Internal(std::string("migration failed: ") + e.what());
  }
  return Status::Ok();
}

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

}  // namespace

Result<TicketPage> Store::ListTickets(const TicketQuery& q) {
  OpTimer timer(metrics_, "list_tickets");
  std::string sort_key = !q.sort.empty() && q.sort[0] == '-' ? q.sort.substr(1) : q.sort;
  if (!IsKnownTicketSort(sort_key)) return Status::InvalidArgument("unknown sort '" + q.sort + "'");
  try {
    auto conn = Acquire();
    TicketPage page;
    {
      // One statement, so one snapshot without a transaction around it (a transaction would
      // cost two more round trips per list).
      pqxx::nontransaction w(*conn);
      std::vector<std::string> values;
      std::string where = "TRUE";
      auto add = [&](const std::string& cond, const std::string& value) {
        values.push_back(value);
        std::string n = "$" + std::to_string(values.size());
        std::string c = cond;
        for (size_t at; (at = c.find('?')) != std::string::npos;) c.replace(at, 1, n);
        where += " AND " + c;
      };
      if (q.state == "open") {
        where += " AND state <> 'closed'";
      } else if (q.state != "all" && !q.state.empty()) {
        add("state = ?", q.state);
      }
      if (!q.fabric.empty()) add("fabric = ?", q.fabric);
      if (!q.switch_name.empty()) add("lower(switch_name) = lower(?)", q.switch_name);
      if (!q.host.empty()) add("lower(host_name) = lower(?)", q.host);
      if (!q.rack.empty()) add("rack = ?", q.rack);
      if (!q.rule.empty()) add("rule = ?", q.rule);
      if (!q.assigned_to.empty()) add("assigned_to = ?", q.assigned_to);
      if (!q.q.empty()) {
        // LIKE, which a trigram index serves; the pattern's own % _ \ are escaped.
        std::string pattern = "%";
        for (char c : AsciiLower(q.q)) {
          if (c == '%' || c == '_' || c == '\\') pattern += '\\';
          pattern += c;
        }
        add("search_text LIKE ?", pattern + "%");
      }
      if (q.min_age_s) {
        add("created_at <= now() - make_interval(secs => ?::float8)", std::to_string(*q.min_age_s));
      }
      if (q.max_age_s) {
        add("created_at >= now() - make_interval(secs => ?::float8)", std::to_string(*q.max_age_s));
      }
      std::vector<std::string> p = values;
      p.push_back(std::to_string(q.offset));
      // The limit is written into the statement (an int, not text from the request): a prepared
      // statement's plan is made once for any parameters, and with the limit a parameter too it
      // guessed a thousand rows a page and hash-joined the whole table (a deep page: 97 ms).
      std::string lim = std::to_string(std::max(q.limit, 0));
      std::string off = "$" + std::to_string(values.size() + 1) + "::bigint";
      // One statement (one snapshot): the page's ids, walked in index order and stopped at the
      // page's end; the total, counted apart (a window over every match would read and sort
      // them all); the wide columns, and the repeat count's subquery, only for the page.
      const std::string order = TicketOrder(q.sort);
      const std::string sql = "WITH page AS (SELECT id FROM tickets WHERE " + where + " ORDER BY " +
                              order + " LIMIT " + lim + " OFFSET " + off +
                              "), total AS (SELECT count(*) AS n FROM tickets WHERE " + where +
                              ") SELECT " + ticket_columns_ +
                              ", total.n FROM tickets JOIN page USING (id) CROSS JOIN total "
                              "ORDER BY " +
                              order;
      const std::string name = Prepared(*conn, sql);
      auto r = name.empty() ? w.exec_params(sql, pqxx::prepare::make_dynamic_params(p))
                            : w.exec_prepared(name, pqxx::prepare::make_dynamic_params(p));
      for (const auto& row : r) {
        page.tickets.push_back(ReadTicket(row, !q.unparsed_ends));
        page.total = row[row.size() - 1].as<int64_t>();
      }
      if (r.empty() && q.offset > 0) {
        // Past the last page (no row carries the total): it still says how many there are.
        page.total = w.exec_params("SELECT count(*) FROM tickets WHERE " + where,
                                   pqxx::prepare::make_dynamic_params(values))[0][0]
                         .as<int64_t>();
      }
    }
    Release(std::move(conn));
    return page;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Status Store::MissingTicket(int64_t id) {
  auto other = GetTicket(id);
  if (other.ok()) {
    return Status::Conflict("ticket " + std::to_string(id) + " belongs to fabric '" +
                            other->fabric + "': use that fabric's service");
  }
  return Status::NotFound("no ticket " + std::to_string(id));
}

Result<Ticket> Store::GetTicket(int64_t id) {
  OpTimer timer(metrics_, "get_ticket");
  try {
    auto conn = Acquire();
    std::optional<Ticket> t;
    {
      pqxx::read_transaction w(*conn);
      auto r = w.exec_params("SELECT " + ticket_columns_ + " FROM tickets WHERE id = $1", id);
      if (!r.empty()) t = ReadTicket(r[0]);
    }
    Release(std::move(conn));
    if (!t) return Status::NotFound("no ticket " + std::to_string(id));
    return *t;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Result<std::vector<TicketEvent>> Store::Events(int64_t ticket_id) {
  OpTimer timer(metrics_, "ticket_events");
  try {
    auto conn = Acquire();
    std::vector<TicketEvent> out;
    {
      pqxx::read_transaction w(*conn);
      auto r = w.exec_params(
          "SELECT id, ticket_id, extract(epoch from at)::float8, kind, actor, message, "
          "details::text FROM ticket_events WHERE ticket_id = $1 ORDER BY id",
          ticket_id);
      for (const auto& row : r) {
        TicketEvent e;
        e.id = row[0].as<int64_t>();
        e.ticket_id = row[1].as<int64_t>();
        e.at = row[2].as<double>();
        e.kind = row[3].as<std::string>();
        e.actor = row[4].as<std::string>();
        e.message = row[5].as<std::string>();
        e.details = nlohmann::json::parse(row[6].as<std::string>(), nullptr, false);
        out.push_back(std::move(e));
      }
    }
    Release(std::move(conn));
    return out;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Result<std::vector<CounterSample>> Store::CounterSamples(const std::string& fabric,
                                                         const std::vector<std::string>& ports,
                                                         double since_epoch_s,
                                                         std::optional<double> until_epoch_s,
                                                         int per_port) {
  OpTimer timer(metrics_, "counter_samples");
  try {
    auto conn = Acquire();
    std::vector<CounterSample> out;
    {
      pqxx::read_transaction w(*conn);
      std::string list = "{";
      for (size_t i = 0; i < ports.size(); ++i) {
        // An array literal's element: double-quoted, with \ and " escaped by a backslash.
        list += i ? ",\"" : "\"";
        for (char ch : ports[i]) {
          if (ch == '"' || ch == '\\') list += '\\';
          list += ch;
        }
        list += '"';
      }
      list += "}";
      auto r = w.exec_params(
          "SELECT port, extract(epoch from at)::float8, counters::text FROM (SELECT port, at, "
          "counters, row_number() OVER (PARTITION BY port ORDER BY at) AS rn, count(*) OVER "
          "(PARTITION BY port) AS n FROM counter_samples WHERE fabric = $1 AND port = "
          "ANY($2::text[]) AND at >= to_timestamp($3::float8) AND ($4 = '' OR at <= "
          "to_timestamp(NULLIF($4, '')::float8))) s WHERE n <= $5 OR rn = n OR (rn - 1) % "
          "ceil((n - 1)::float8 / GREATEST($5 - 1, 1))::bigint = 0 ORDER BY at, port",
          fabric, list, EpochOrEmpty(since_epoch_s), EpochOrEmpty(until_epoch_s), per_port);
      for (const auto& row : r) {
        CounterSample c;
        c.port = row[0].as<std::string>();
        c.at = row[1].as<double>();
        c.counters = nlohmann::json::parse(row[2].as<std::string>(), nullptr, false);
        if (!c.counters.is_object()) continue;
        out.push_back(std::move(c));
      }
    }
    Release(std::move(conn));
    return out;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Result<std::vector<PortAction>> Store::Actions(int64_t ticket_id) {
  OpTimer timer(metrics_, "ticket_actions");
  try {
    auto conn = Acquire();
    std::vector<PortAction> out;
    {
      pqxx::read_transaction w(*conn);
      auto r = w.exec_params(std::string("SELECT ") + kActionColumns +
                                 " FROM port_actions WHERE ticket_id = $1 ORDER BY id",
                             ticket_id);
      for (const auto& row : r) out.push_back(ReadAction(row));
    }
    Release(std::move(conn));
    return out;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Result<Store::BreakerState> Store::GetBreaker() {
  OpTimer timer(metrics_, "breaker");
  auto tx = Begin();
  if (!tx.ok()) return tx.status();
  try {
    return tx.value()->Breaker();
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Result<std::map<std::string, int64_t>> Store::TicketCounts() {
  OpTimer timer(metrics_, "ticket_counts");
  try {
    auto conn = Acquire();
    std::map<std::string, int64_t> out;
    {
      pqxx::read_transaction w(*conn);
      auto r = w.exec_params("SELECT state, count(*) FROM tickets WHERE fabric = $1 GROUP BY state",
                             fabric_);
      for (const auto& row : r) out[row[0].as<std::string>()] = row[1].as<int64_t>();
    }
    Release(std::move(conn));
    return out;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Result<std::vector<Alert>> Store::ActiveAlerts(int limit) {
  OpTimer timer(metrics_, "alerts");
  try {
    auto conn = Acquire();
    std::vector<Alert> out;
    {
      pqxx::read_transaction w(*conn);
      auto r = w.exec_params(
          "SELECT id, kind, message, details::text, extract(epoch from created_at)::float8 FROM "
          "alerts WHERE fabric = $1 AND cleared_at IS NULL ORDER BY id DESC LIMIT $2",
          fabric_, limit);
      for (const auto& row : r) {
        Alert a;
        a.id = row[0].as<int64_t>();
        a.kind = row[1].as<std::string>();
        a.message = row[2].as<std::string>();
        a.details = nlohmann::json::parse(row[3].as<std::string>(), nullptr, false);
        a.created_at = row[4].as<double>();
        out.push_back(std::move(a));
      }
    }
    Release(std::move(conn));
    return out;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Result<nlohmann::json> Store::RecentDecisions(int limit, const std::string& rule) {
  OpTimer timer(metrics_, "decisions");
  try {
    auto conn = Acquire();
    nlohmann::json out = nlohmann::json::array();
    {
      pqxx::read_transaction w(*conn);
      auto r = w.exec_params(
          "SELECT id, details::text, ticket_id, extract(epoch from decided_at)::float8 FROM "
          "decisions WHERE fabric = $1 AND ($3 = '' OR rule = $3) ORDER BY id DESC LIMIT $2",
          fabric_, limit, rule);
      for (const auto& row : r) {
        nlohmann::json d = nlohmann::json::parse(row[1].as<std::string>(), nullptr, false);
        if (!d.is_object()) d = nlohmann::json::object();
        d["id"] = row[0].as<int64_t>();
        d["ticket_id"] =
            row[2].is_null() ? nlohmann::json(nullptr) : nlohmann::json(row[2].as<int64_t>());
        d["decided_at"] = FormatIsoTime(FromEpochSeconds(row[3].as<double>()));
        out.push_back(std::move(d));
      }
    }
    Release(std::move(conn));
    return out;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Status Store::ClearAlert(int64_t id, const std::string& by) {
  OpTimer timer(metrics_, "clear_alert");
  try {
    auto conn = Acquire();
    size_t affected = 0;
    {
      pqxx::work w(*conn);
      auto r = w.exec_params(
          "UPDATE alerts SET cleared_at = now(), cleared_by = $3 WHERE id = $1 AND fabric = $2 "
          "AND cleared_at IS NULL",
          id, fabric_, by);
      affected = r.affected_rows();
      w.commit();
    }
    Release(std::move(conn));
    if (affected == 0) return Status::NotFound("no active alert " + std::to_string(id));
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Result<Silence> Store::AddSilence(const Silence& s) {
  OpTimer timer(metrics_, "silences");
  Status valid = ValidateSilence(s);
  if (!valid.ok()) return valid;
  try {
    auto conn = Acquire();
    std::optional<Silence> out;
    {
      pqxx::work w(*conn);
      auto r = w.exec_params(
          std::string("INSERT INTO silences (fabric, port_pattern, switch_pattern, host_pattern, "
                      "reason, created_by, expires_at) SELECT $1, $2, $3, $4, $5, $6, e FROM "
                      "(SELECT 'epoch'::timestamptz + $7::bigint * interval '1 microsecond' AS e) "
                      "AS t WHERE e > now() RETURNING ") +
              kSilenceColumns,
          fabric_, s.port, s.switch_, s.host, s.reason, s.created_by, ToMicros(s.expires_at));
      if (!r.empty()) out = ReadSilence(r[0]);
      w.commit();
    }
    Release(std::move(conn));
    if (!out) {
      return Status::InvalidArgument("expires_at (" + FormatIsoTime(s.expires_at) +
                                     ") is not in the future by the database clock");
    }
    return *out;
  } catch (const pqxx::check_violation& e) {
    return Status::InvalidArgument(std::string("silence rejected by the database: ") + e.what());
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Result<std::vector<Silence>> Store::ListSilences(bool include_expired, int limit) {
  OpTimer timer(metrics_, "silences");
  try {
    auto conn = Acquire();
    std::vector<Silence> out;
    {
      pqxx::read_transaction w(*conn);
      auto r = w.exec_params(std::string("SELECT ") + kSilenceColumns +
                                 " FROM silences WHERE fabric = $1 AND ($2 OR (" + kSilenceInForce +
                                 ")) ORDER BY id DESC LIMIT $3",
                             fabric_, include_expired, limit);
      for (const auto& row : r) out.push_back(ReadSilence(row));
    }
    Release(std::move(conn));
    return out;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Result<std::vector<Silence>> Store::ActiveSilences() {
  OpTimer timer(metrics_, "silences");
  try {
    auto conn = Acquire();
    std::vector<Silence> out;
    {
      pqxx::read_transaction w(*conn);
      auto r = w.exec_params(std::string("SELECT ") + kSilenceColumns +
                                 " FROM silences WHERE fabric = $1 AND " + kSilenceInForce +
                                 " ORDER BY id",
                             fabric_);
      for (const auto& row : r) out.push_back(ReadSilence(row));
    }
    Release(std::move(conn));
    return out;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Result<Silence> Store::GetSilence(int64_t id) {
  OpTimer timer(metrics_, "silences");
  try {
    auto conn = Acquire();
    std::optional<Silence> s;
    {
      pqxx::read_transaction w(*conn);
      auto r = w.exec_params(
          std::string("SELECT ") + kSilenceColumns + " FROM silences WHERE id = $1 AND fabric = $2",
          id, fabric_);
      if (!r.empty()) s = ReadSilence(r[0]);
    }
    Release(std::move(conn));
    if (!s) return Status::NotFound("no silence " + std::to_string(id));
    return *s;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Status Store::ExpireSilence(int64_t id, const std::string& by) {
  OpTimer timer(metrics_, "silences");
  try {
    auto conn = Acquire();
    size_t affected = 0;
    {
      pqxx::work w(*conn);
      auto r = w.exec_params(std::string("UPDATE silences SET expired_at = now(), expired_by = "
                                         "NULLIF($3, '') WHERE id = $1 AND fabric = $2 AND ") +
                                 kSilenceInForce,
                             id, fabric_, by);
      affected = r.affected_rows();
      w.commit();
    }
    Release(std::move(conn));
    if (affected == 0) return Status::NotFound("no active silence " + std::to_string(id));
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Status Store::Ping() {
  OpTimer timer(metrics_, "ping");
  try {
    auto conn = Acquire();
    {
      pqxx::read_transaction w(*conn);
      w.exec("SELECT 1");
    }
    Release(std::move(conn));
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Status Store::Run(const std::function<Status(pqxx::work&)>& fn, const char* op) {
  OpTimer timer(metrics_, op);
  try {
    auto conn = Acquire();
    Status st = Status::Ok();
    {
      pqxx::work w(*conn);
      st = fn(w);
      if (st.ok()) w.commit();
    }
    Release(std::move(conn));
    return st;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

}  // namespace ufmr
