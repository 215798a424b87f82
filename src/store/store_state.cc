// Store::Tx and Store on the fabric's small state tables: the circuit breaker (one row per
// fabric) and the input cursors (one row per fabric and source).
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_rows.h"

namespace ufmr {

namespace {

Store::BreakerState ReadBreaker(pqxx::transaction_base& w, const std::string& fabric) {
  auto r = w.exec_params(
      "SELECT tripped, extract(epoch from tripped_at)::float8, reason, coalesce(ticket_id, 0), "
      "coalesce(rearmed_by, ''), extract(epoch from rearmed_at)::float8 FROM breaker WHERE "
      "fabric = $1",
      fabric);
  Store::BreakerState b;
  if (r.empty()) return b;
  b.tripped = r[0][0].as<bool>();
  b.tripped_at = OptFloat(r[0][1]);
  b.reason = r[0][2].as<std::string>();
  b.ticket_id = r[0][3].as<int64_t>();
  b.rearmed_by = r[0][4].as<std::string>();
  b.rearmed_at = OptFloat(r[0][5]);
  return b;
}

}  // namespace

Store::BreakerState Store::Tx::Breaker() { return ReadBreaker(*impl_->work, store_->fabric_); }

Result<Store::BreakerState> Store::GetBreaker() {
  return Query<ReadTx>("breaker",
                       [&](ReadTx& w) -> Result<BreakerState> { return ReadBreaker(w, fabric_); });
}

void Store::Tx::TripBreaker(const std::string& reason, int64_t ticket_id) {
  impl_->Exec(
      "INSERT INTO breaker (fabric, tripped, tripped_at, reason, ticket_id) VALUES ($1, true, "
      "now(), $2, NULLIF($3, 0)) ON CONFLICT (fabric) DO UPDATE SET tripped = true, tripped_at = "
      "now(), reason = EXCLUDED.reason, ticket_id = EXCLUDED.ticket_id",
      store_->fabric_, reason, ticket_id);
}

bool Store::Tx::RearmBreaker(const std::string& by) {
  auto r = impl_->Exec(
      "UPDATE breaker SET tripped = false, rearmed_by = $2, rearmed_at = now() WHERE fabric = $1 "
      "AND tripped",
      store_->fabric_, by);
  return r.affected_rows() > 0;
}

std::optional<int64_t> Store::Tx::Cursor(const std::string& source) {
  auto r = impl_->Exec("SELECT position FROM cursors WHERE fabric = $1 AND source = $2",
                       store_->fabric_, source);
  if (r.empty()) return std::nullopt;
  return r[0][0].as<int64_t>();
}

nlohmann::json Store::Tx::CursorState(const std::string& source) {
  auto r = impl_->Exec("SELECT state::text FROM cursors WHERE fabric = $1 AND source = $2",
                       store_->fabric_, source);
  if (r.empty()) return nlohmann::json::object();
  auto j = nlohmann::json::parse(r[0][0].as<std::string>(), nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

void Store::Tx::SetCursor(const std::string& source, int64_t position,
                          const nlohmann::json& state) {
  impl_->Exec(
      "INSERT INTO cursors (fabric, source, position, state) VALUES ($1, $2, $3, $4::jsonb) ON "
      "CONFLICT (fabric, source) DO UPDATE SET position = EXCLUDED.position, state = "
      "EXCLUDED.state, updated_at = now()",
      store_->fabric_, source, position, state.dump());
}

}  // namespace ufmr
