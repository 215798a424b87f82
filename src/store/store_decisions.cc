// Store::Tx and Store on the decisions table: every decision on a finding, as recorded, and the
// newest of them for the API.
#include "base/clock.h"
#include "base/json_writer.h"
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_rows.h"

namespace ufmr {

void Store::Tx::AddDecision(const nlohmann::json& d, std::optional<int64_t> ticket_id,
                            const std::string& trigger) {
  auto text = [&](const char* k) { return d.contains(k) ? d[k].get<std::string>() : ""; };
  JsonWriter w;
  w.BeginObject();
  for (const char* k :
       {"time", "rule", "decision", "guard", "entity", "port", "peer", "reason", "rules_hash"}) {
    w.Key(k).String(text(k));
  }
  w.Key("ticket_id").Int(ticket_id.value_or(0));
  w.Key("trigger").String(trigger);
  w.Key("details").String(JsonText(d));
  w.EndObject();
  if (!decisions_.empty()) decisions_ += ',';
  decisions_ += w.str();
}

void Store::Tx::WriteDecisions() {
  if (decisions_.empty()) return;
  impl_->ExecPrepared(
      "INSERT INTO decisions (fabric, finding_at, rule, decision, guard, entity, port, peer, "
      "reason, rules_hash, ticket_id, details, trigger) SELECT $1, (e->>'time')::timestamptz, "
      "e->>'rule', e->>'decision', e->>'guard', e->>'entity', e->>'port', e->>'peer', "
      "e->>'reason', e->>'rules_hash', NULLIF((e->>'ticket_id')::bigint, 0), "
      "(e->>'details')::jsonb, e->>'trigger' FROM "
      "jsonb_array_elements($2::jsonb) WITH ORDINALITY AS d(e, n) ORDER BY n",
      store_->fabric_, "[" + decisions_ + "]");
  decisions_.clear();
}

bool Store::Tx::Decided(const std::string& trigger) {
  return !impl_
              ->Exec("SELECT 1 FROM decisions WHERE fabric = $1 AND trigger = $2 LIMIT 1",
                     store_->fabric_, trigger)
              .empty();
}

Result<nlohmann::json> Store::RecentDecisions(int limit, const std::string& rule) {
  return Query<ReadTx>("decisions", [&](ReadTx& w) -> Result<nlohmann::json> {
    auto r = w.exec_params(
        "SELECT id, details::text, ticket_id, extract(epoch from decided_at)::float8 FROM "
        "decisions WHERE fabric = $1 AND ($3 = '' OR rule = $3) ORDER BY id DESC LIMIT $2",
        fabric_, limit, rule);
    nlohmann::json out = nlohmann::json::array();
    for (const auto& row : r) {
      nlohmann::json d = nlohmann::json::parse(row[1].as<std::string>(), nullptr, false);
      if (!d.is_object()) d = nlohmann::json::object();
      d["id"] = row[0].as<int64_t>();
      d["ticket_id"] =
          row[2].is_null() ? nlohmann::json(nullptr) : nlohmann::json(row[2].as<int64_t>());
      d["decided_at"] = FormatIsoTime(FromEpochSeconds(row[3].as<double>()));
      out.push_back(std::move(d));
    }
    return out;
  });
}

}  // namespace ufmr
