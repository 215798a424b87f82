// Store::Tx on the node_drains table (the outbox of drains and resumes in the job scheduler), the
// cuts that wait for a drain, and the jobs recorded on tickets.
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_rows.h"

namespace ufmr {

namespace {

constexpr const char* kDrainColumns =
    "id, ticket_id, host, node, reason, coalesce(cut_action, 0), state, note, tries, "
    "extract(epoch from next_try_at)::float8, extract(epoch from sent_at)::float8, escalated, "
    "extract(epoch from created_at)::float8, extract(epoch from updated_at)::float8, by_person";

NodeDrain ReadDrain(const pqxx::row& r) {
  NodeDrain d;
  d.id = r[0].as<int64_t>();
  d.ticket_id = r[1].as<int64_t>();
  d.host = r[2].as<std::string>();
  d.node = r[3].as<std::string>();
  d.reason = r[4].as<std::string>();
  d.cut_action = r[5].as<int64_t>();
  d.state = r[6].as<std::string>();
  d.note = r[7].as<std::string>();
  d.tries = r[8].as<int>();
  d.next_try_at = OptFloat(r[9]);
  d.sent_at = OptFloat(r[10]);
  d.escalated = r[11].as<bool>();
  d.created_at = Float(r[12]);
  d.updated_at = Float(r[13]);
  d.by_person = r[14].as<bool>();
  return d;
}

}  // namespace

int64_t Store::Tx::InsertDrain(const NodeDrain& d) {
  auto r = impl_->Exec(
      "INSERT INTO node_drains (fabric, ticket_id, host, node, reason, cut_action, state, note) "
      "VALUES ($1, $2, $3, $4, $5, NULLIF($6, 0), $7, $8) RETURNING id",
      store_->fabric_, d.ticket_id, d.host, d.node, d.reason, d.cut_action, d.state, d.note);
  return r[0][0].as<int64_t>();
}

void Store::Tx::UpdateDrain(const NodeDrain& d) {
  impl_->Exec(
      "UPDATE node_drains SET state = $2, note = $3, tries = $4, "
      "next_try_at = CASE WHEN $5 = '' THEN NULL ELSE to_timestamp($5::float8) END, "
      "sent_at = CASE WHEN $6 = '' THEN NULL ELSE to_timestamp($6::float8) END, escalated = $7, "
      "by_person = $8, "
      "drained_at = CASE WHEN $2 = 'drained' THEN coalesce(drained_at, now()) ELSE drained_at END, "
      "resumed_at = CASE WHEN $2 = 'resumed' THEN coalesce(resumed_at, now()) END, "
      "updated_at = now() WHERE id = $1",
      d.id, d.state, d.note, d.tries, EpochOrEmpty(d.next_try_at), EpochOrEmpty(d.sent_at),
      d.escalated, d.by_person);
}

std::vector<NodeDrain> Store::Tx::OpenDrains() {
  return ReadAll(impl_->Exec(std::string("SELECT ") + kDrainColumns +
                                 " FROM node_drains WHERE fabric = $1 AND state IN ('pending', "
                                 "'draining', 'drained', 'resuming') ORDER BY id FOR UPDATE",
                             store_->fabric_),
                 ReadDrain);
}

std::vector<NodeDrain> Store::Tx::DrainsOfTicket(int64_t ticket_id) {
  return ReadAll(impl_->Exec(std::string("SELECT ") + kDrainColumns +
                                 " FROM node_drains WHERE ticket_id = $1 AND fabric = $2 ORDER BY "
                                 "id FOR UPDATE",
                             ticket_id, store_->fabric_),
                 ReadDrain);
}

void Store::Tx::SetCutState(int64_t action_id, const std::string& state, const std::string& why) {
  impl_->Exec(
      "UPDATE port_actions SET state = $2, error = NULLIF($3, ''), updated_at = now() "
      "WHERE id = $1 AND state = 'waiting'",
      action_id, state, why);
}

std::vector<Ticket> Store::Tx::TicketsWithoutHostJobs(int limit) {
  return ReadTickets(impl_->Exec("SELECT " + store_->ticket_columns_ +
                                     " FROM tickets WHERE fabric = $1 AND state <> 'closed' AND "
                                     "host_name <> '' AND host_jobs IS NULL ORDER BY id LIMIT $2",
                                 store_->fabric_, limit));
}

void Store::Tx::SetHostJobs(int64_t ticket_id, const nlohmann::json& jobs) {
  impl_->Exec("UPDATE tickets SET host_jobs = $2::jsonb WHERE id = $1", ticket_id, JsonText(jobs));
}

Result<std::vector<NodeDrain>> Store::Drains(int64_t ticket_id) {
  return Query<ReadTx>("ticket_drains", [&](ReadTx& w) -> Result<std::vector<NodeDrain>> {
    return ReadAll(w.exec_params(std::string("SELECT ") + kDrainColumns +
                                     " FROM node_drains WHERE ticket_id = $1 ORDER BY id",
                                 ticket_id),
                   ReadDrain);
  });
}

}  // namespace ufmr
