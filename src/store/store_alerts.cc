// Store::Tx and Store on the alerts table: banners about the intake until a person dismisses
// them.
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_rows.h"

namespace ufmr {

int64_t Store::Tx::AddAlert(const std::string& kind, const std::string& message,
                            const nlohmann::json& details) {
  auto r = impl_->Exec(
      "INSERT INTO alerts (fabric, kind, message, details) VALUES ($1, $2, $3, $4::jsonb) "
      "RETURNING id",
      store_->fabric_, kind, message, JsonText(details));
  return r[0][0].as<int64_t>();
}

int Store::Tx::ClearAlertsOfKind(const std::string& kind, const std::string& by) {
  auto r = impl_->Exec(
      "UPDATE alerts SET cleared_at = now(), cleared_by = $3 "
      "WHERE fabric = $1 AND kind = $2 AND cleared_at IS NULL",
      store_->fabric_, kind, by);
  return static_cast<int>(r.affected_rows());
}

Result<std::vector<Alert>> Store::ActiveAlerts(int limit) {
  return Query<ReadTx>("alerts", [&](ReadTx& w) -> Result<std::vector<Alert>> {
    auto r = w.exec_params(
        "SELECT id, kind, message, details::text, extract(epoch from created_at)::float8 FROM "
        "alerts WHERE fabric = $1 AND cleared_at IS NULL ORDER BY id DESC LIMIT $2",
        fabric_, limit);
    return ReadAll(r, [](const pqxx::row& row) {
      Alert a;
      a.id = row[0].as<int64_t>();
      a.kind = row[1].as<std::string>();
      a.message = row[2].as<std::string>();
      a.details = nlohmann::json::parse(row[3].as<std::string>(), nullptr, false);
      a.created_at = row[4].as<double>();
      return a;
    });
  });
}

Status Store::ClearAlert(int64_t id, const std::string& by) {
  return Query<WriteTx>("clear_alert", [&](WriteTx& w) {
    auto r = w.exec_params(
        "UPDATE alerts SET cleared_at = now(), cleared_by = $3 WHERE id = $1 AND fabric = $2 "
        "AND cleared_at IS NULL",
        id, fabric_, by);
    if (r.affected_rows() == 0) return Status::NotFound("no active alert " + std::to_string(id));
    return Status::Ok();
  });
}

}  // namespace ufmr
