// Store::Tx on the tickets and ticket_events tables: the pipeline's view of a link's ticket, the
// tickets that hold ports out of service, and a ticket's place.
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_rows.h"

namespace ufmr {

namespace {

// The tickets table's severity CHECK: a rule's severity outside it is filed as major.
std::string SeverityOrMajor(const std::string& s) {
  for (const char* known : {"critical", "major", "minor", "warning", "info"}) {
    if (s == known) return s;
  }
  return "major";
}

// Tickets whose port this service holds out of service, or is about to (an open ticket's
// action is pending or in flight).
constexpr const char* kHeldTickets =
    "fabric = $1 AND action_port <> '' AND "
    "(disabled_by_us OR state IN ('open', 'draining', 'drained')) AND "
    "state NOT IN ('closed', 'verifying')";

std::optional<Ticket> FirstTicket(const pqxx::result& r) {
  if (r.empty()) return std::nullopt;
  return ReadTicket(r[0]);
}

}  // namespace

std::optional<Ticket> Store::Tx::OpenTicketForLink(const std::string& link_key) {
  // Every finding asks (a storm: thousands a minute), so it is prepared.
  return FirstTicket(impl_->ExecPrepared(
      "SELECT " + store_->ticket_columns_ +
          " FROM tickets WHERE fabric = $1 AND link_key = $2 AND state <> 'closed' FOR UPDATE",
      store_->fabric_, link_key));
}

std::optional<Ticket> Store::Tx::TicketById(int64_t id) {
  return FirstTicket(impl_->Exec("SELECT " + store_->ticket_columns_ +
                                     " FROM tickets WHERE id = $1 AND fabric = $2 FOR UPDATE",
                                 id, store_->fabric_));
}

std::vector<Ticket> Store::Tx::TicketsInState(const std::string& state) {
  return ReadTickets(impl_->Exec("SELECT " + store_->ticket_columns_ +
                                     " FROM tickets WHERE fabric = $1 AND state = $2 ORDER BY id "
                                     "FOR UPDATE",
                                 store_->fabric_, state));
}

int64_t Store::Tx::InsertTicket(const Ticket& t) {
  auto r = impl_->Exec(
      "INSERT INTO tickets (fabric, link_key, port_a, port_b, state, rule, reason, action_port, "
      "disabled_by_us, attempts, method, guard, explanation, severity, switch_name, rack, "
      "host_name, ends, search_text) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
      "$13, $14, $15, $16, $17, $18::jsonb, $19) RETURNING id",
      store_->fabric_, t.link_key, t.port_a, t.port_b, t.state, t.rule, t.reason, t.action_port,
      t.disabled_by_us, t.attempts, t.method, t.guard, t.explanation, SeverityOrMajor(t.severity),
      t.switch_name, t.rack, t.host_name, JsonText(t.ends), t.search_text);
  return r[0][0].as<int64_t>();
}

void Store::Tx::UpdateTicket(const Ticket& t) {
  impl_->Exec(
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
  impl_->Exec(
      "INSERT INTO ticket_events (ticket_id, kind, actor, message, details) VALUES ($1, $2, $3, "
      "$4, $5::jsonb)",
      ticket_id, kind, actor, message, JsonText(details));
  // For the notifier (notify/), in this transaction: told of exactly when it happened.
  if (IsNotifiedEventKind(kind)) {
    impl_->Exec(
        "INSERT INTO notify_events (fabric, kind, ticket_id, message) VALUES ($1, $2, $3, $4)",
        store_->fabric_, kind, ticket_id, message);
  }
}

int Store::Tx::CountHeldDisabled() {
  auto r = impl_->Exec(std::string("SELECT count(*) FROM tickets WHERE ") + kHeldTickets,
                       store_->fabric_);
  return r[0][0].as<int>();
}

std::vector<Ticket> Store::Tx::HeldTickets() {
  return ReadTickets(impl_->Exec(
      "SELECT " + store_->ticket_columns_ + " FROM tickets WHERE " + kHeldTickets + " ORDER BY id",
      store_->fabric_));
}

std::vector<std::string> Store::Tx::HeldPorts() {
  auto r = impl_->Exec(
      std::string("SELECT action_port FROM tickets WHERE ") + kHeldTickets + " ORDER BY id",
      store_->fabric_);
  return ReadAll(r, [](const pqxx::row& row) { return row[0].as<std::string>(); });
}

std::vector<Ticket> Store::Tx::UnplacedTickets(int limit) {
  return ReadTickets(
      impl_->Exec("SELECT " + store_->ticket_columns_ +
                      " FROM tickets WHERE fabric = $1 AND state <> 'closed' AND "
                      "link_key <> 'storm' AND ends = '[]'::jsonb ORDER BY id LIMIT $2",
                  store_->fabric_, limit));
}

void Store::Tx::SetPlace(const Ticket& t) {
  impl_->Exec(
      "UPDATE tickets SET switch_name = $2, rack = $3, host_name = $4, ends = $5::jsonb, "
      "search_text = $6 WHERE id = $1",
      t.id, t.switch_name, t.rack, t.host_name, JsonText(t.ends), t.search_text);
}

}  // namespace ufmr
