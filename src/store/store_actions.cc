// Store::Tx and Store on the port_actions table: the outbox of actions on the fabric (disable,
// enable, isolate, unisolate), from intent to confirmation and announcement.
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_rows.h"

namespace ufmr {

int64_t Store::Tx::InsertAction(const PortAction& a) {
  auto r = impl_->Exec(
      "INSERT INTO port_actions (fabric, ticket_id, port, system_guid, action, state, reason, "
      "error) VALUES ($1, NULLIF($2, 0), $3, $4, $5, $6, $7, NULLIF($8, '')) RETURNING id",
      store_->fabric_, a.ticket_id, a.port, a.system_guid, a.action, a.state, a.reason, a.error);
  return r[0][0].as<int64_t>();
}

void Store::Tx::UpdateAction(const PortAction& a) {
  impl_->Exec(
      "UPDATE port_actions SET state = $2, job_id = NULLIF($3, ''), error = NULLIF($4, ''), "
      "tries = $5, next_try_at = CASE WHEN $6 = '' THEN NULL ELSE to_timestamp($6::float8) END, "
      "announced = $7, system_guid = $8, "
      "confirmed_at = CASE WHEN $2 = 'confirmed' THEN coalesce(confirmed_at, now()) END, "
      "updated_at = now() WHERE id = $1",
      a.id, a.state, a.job_id, a.error, a.tries, EpochOrEmpty(a.next_try_at), a.announced,
      a.system_guid);
}

std::vector<HeldSpan> Store::Tx::HeldSpans(double within_s) {
  auto rows = impl_->Exec(
      "SELECT d.port, d.action, extract(epoch from d.created_at)::float8, coalesce(extract(epoch "
      "from (SELECT min(e.updated_at) FROM port_actions e WHERE e.fabric = d.fabric AND e.port = "
      "d.port AND e.action = CASE d.action WHEN 'disable' THEN 'enable' ELSE 'unisolate' END AND "
      "e.state = 'confirmed' AND e.created_at > d.created_at))::float8, 0) FROM port_actions d "
      "WHERE d.fabric = $1 AND d.action IN ('disable', 'isolate') AND d.state = 'confirmed' AND "
      "d.updated_at > now() - make_interval(secs => $2) ORDER BY d.id",
      store_->fabric_, within_s);
  std::vector<HeldSpan> out;
  for (const auto& r : rows) {
    out.push_back(
        {r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<double>(), r[3].as<double>()});
  }
  return out;
}

std::vector<PortAction> Store::Tx::OpenActions() {
  return ReadActions(impl_->Exec(std::string("SELECT ") + kActionColumns +
                                     " FROM port_actions WHERE fabric = $1 AND state IN "
                                     "('pending', 'submitted') ORDER BY id",
                                 store_->fabric_));
}

std::vector<PortAction> Store::Tx::UnannouncedActions() {
  return ReadActions(impl_->Exec(std::string("SELECT ") + kActionColumns +
                                     " FROM port_actions WHERE fabric = $1 AND state = "
                                     "'confirmed' AND NOT announced ORDER BY id LIMIT 100",
                                 store_->fabric_));
}

std::optional<PortAction> Store::Tx::ActionById(int64_t id) {
  auto r = impl_->Exec(std::string("SELECT ") + kActionColumns +
                           " FROM port_actions WHERE id = $1 AND fabric = $2 FOR UPDATE",
                       id, store_->fabric_);
  if (r.empty()) return std::nullopt;
  return ReadAction(r[0]);
}

std::vector<PortAction> Store::Tx::ActionsOfTicket(int64_t ticket_id) {
  return ReadActions(impl_->Exec(std::string("SELECT ") + kActionColumns +
                                     " FROM port_actions WHERE ticket_id = $1 ORDER BY id",
                                 ticket_id));
}

int Store::Tx::CutActionsSince(double epoch_s) {
  auto r = impl_->Exec(
      "SELECT count(*) FROM port_actions WHERE fabric = $1 AND action IN ('disable', 'isolate') "
      "AND state IN ('waiting', 'pending', 'submitted', 'confirmed') AND "
      "created_at >= to_timestamp($2)",
      store_->fabric_, epoch_s);
  return r[0][0].as<int>();
}

std::optional<double> Store::Tx::LastActionOn(const std::string& port) {
  auto r = impl_->Exec(
      "SELECT extract(epoch from max(created_at))::float8 FROM port_actions WHERE fabric = $1 AND "
      "port = $2 AND state IN ('waiting', 'pending', 'submitted', 'confirmed')",
      store_->fabric_, port);
  return OptFloat(r[0][0]);
}

Result<std::vector<PortAction>> Store::Actions(int64_t ticket_id) {
  return Query<ReadTx>("ticket_actions", [&](ReadTx& w) -> Result<std::vector<PortAction>> {
    return ReadActions(w.exec_params(std::string("SELECT ") + kActionColumns +
                                         " FROM port_actions WHERE ticket_id = $1 ORDER BY id",
                                     ticket_id));
  });
}

}  // namespace ufmr
