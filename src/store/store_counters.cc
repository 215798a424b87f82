// Store::Tx and Store on the counter_samples table: the error counters of ticketed ports over
// time, for the ticket page's chart (CounterHistory records them).
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_rows.h"

namespace ufmr {

std::vector<std::string> Store::Tx::OpenTicketPorts() {
  auto r = impl_->Exec(
      "SELECT DISTINCT p FROM tickets, unnest(ARRAY[port_a, port_b]) AS p WHERE fabric = $1 AND "
      "state <> 'closed' AND p <> '' AND link_key <> 'storm' ORDER BY p",
      store_->fabric_);
  return ReadAll(r, [](const pqxx::row& row) { return row[0].as<std::string>(); });
}

void Store::Tx::AddCounterSample(const std::string& port, double at_epoch_s,
                                 const nlohmann::json& counters) {
  impl_->Exec(
      "INSERT INTO counter_samples (fabric, port, at, counters) VALUES ($1, $2, "
      "to_timestamp($3::float8), $4::jsonb) ON CONFLICT DO NOTHING",
      store_->fabric_, port, EpochOrEmpty(at_epoch_s), counters.dump());
}

int Store::Tx::PruneCounterSamples(double before_epoch_s) {
  auto r =
      impl_->Exec("DELETE FROM counter_samples WHERE fabric = $1 AND at < to_timestamp($2::float8)",
                  store_->fabric_, EpochOrEmpty(before_epoch_s));
  return static_cast<int>(r.affected_rows());
}

Result<std::vector<CounterSample>> Store::CounterSamples(const std::string& fabric,
                                                         const std::vector<std::string>& ports,
                                                         double since_epoch_s,
                                                         std::optional<double> until_epoch_s,
                                                         int per_port) {
  return Query<ReadTx>("counter_samples", [&](ReadTx& w) -> Result<std::vector<CounterSample>> {
    auto r = w.exec_params(
        "SELECT port, extract(epoch from at)::float8, counters::text FROM (SELECT port, at, "
        "counters, row_number() OVER (PARTITION BY port ORDER BY at) AS rn, count(*) OVER "
        "(PARTITION BY port) AS n FROM counter_samples WHERE fabric = $1 AND port = "
        "ANY($2::text[]) AND at >= to_timestamp($3::float8) AND ($4 = '' OR at <= "
        "to_timestamp(NULLIF($4, '')::float8))) s WHERE n <= $5 OR rn = n OR (rn - 1) % "
        "ceil((n - 1)::float8 / GREATEST($5 - 1, 1))::bigint = 0 ORDER BY at, port",
        fabric, TextArray(ports), EpochOrEmpty(since_epoch_s), EpochOrEmpty(until_epoch_s),
        per_port);
    std::vector<CounterSample> out;
    for (const auto& row : r) {
      CounterSample c;
      c.port = row[0].as<std::string>();
      c.at = row[1].as<double>();
      c.counters = nlohmann::json::parse(row[2].as<std::string>(), nullptr, false);
      if (c.counters.is_object()) out.push_back(std::move(c));
    }
    return out;
  });
}

}  // namespace ufmr
