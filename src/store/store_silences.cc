// Store on the silences table: maintenance windows, in force by the database's clock.
#include "base/clock.h"
#include "store/store.h"
#include "store/store_db.h"
#include "store/store_rows.h"

namespace ufmr {

namespace {

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

// Records `s` with the database's now() as created_at, if its end is later than that now.
Result<Silence> InsertSilence(WriteTx& w, const std::string& fabric, const Silence& s) {
  pqxx::result r;
  try {
    r = w.exec_params(
        std::string("INSERT INTO silences (fabric, port_pattern, switch_pattern, host_pattern, "
                    "reason, created_by, expires_at) SELECT $1, $2, $3, $4, $5, $6, e FROM "
                    "(SELECT 'epoch'::timestamptz + $7::bigint * interval '1 microsecond' AS e) "
                    "AS t WHERE e > now() RETURNING ") +
            kSilenceColumns,
        fabric, s.port, s.switch_, s.host, s.reason, s.created_by, ToMicros(s.expires_at));
  } catch (const pqxx::check_violation& e) {
    return Status::InvalidArgument(std::string("silence rejected by the database: ") + e.what());
  }
  if (r.empty()) {
    return Status::InvalidArgument("expires_at (" + FormatIsoTime(s.expires_at) +
                                   ") is not in the future by the database clock");
  }
  return ReadSilence(r[0]);
}

}  // namespace

Result<Silence> Store::AddSilence(const Silence& s) {
  Status valid = ValidateSilence(s);
  if (!valid.ok()) return valid;
  return Query<WriteTx>("silences", [&](WriteTx& w) { return InsertSilence(w, fabric_, s); });
}

Result<std::vector<Silence>> Store::ListSilences(bool include_expired, int limit) {
  return Query<ReadTx>("silences", [&](ReadTx& w) -> Result<std::vector<Silence>> {
    return ReadAll(w.exec_params(std::string("SELECT ") + kSilenceColumns +
                                     " FROM silences WHERE fabric = $1 AND ($2 OR (" +
                                     kSilenceInForce + ")) ORDER BY id DESC LIMIT $3",
                                 fabric_, include_expired, limit),
                   ReadSilence);
  });
}

Result<std::vector<Silence>> Store::ActiveSilences() {
  return Query<ReadTx>("silences", [&](ReadTx& w) -> Result<std::vector<Silence>> {
    return ReadAll(w.exec_params(std::string("SELECT ") + kSilenceColumns +
                                     " FROM silences WHERE fabric = $1 AND " + kSilenceInForce +
                                     " ORDER BY id",
                                 fabric_),
                   ReadSilence);
  });
}

Result<Silence> Store::GetSilence(int64_t id) {
  return Query<ReadTx>("silences", [&](ReadTx& w) -> Result<Silence> {
    auto r = w.exec_params(
        std::string("SELECT ") + kSilenceColumns + " FROM silences WHERE id = $1 AND fabric = $2",
        id, fabric_);
    if (r.empty()) return Status::NotFound("no silence " + std::to_string(id));
    return ReadSilence(r[0]);
  });
}

Status Store::ExpireSilence(int64_t id, const std::string& by) {
  return Query<WriteTx>("silences", [&](WriteTx& w) {
    auto r = w.exec_params(std::string("UPDATE silences SET expired_at = now(), expired_by = "
                                       "NULLIF($3, '') WHERE id = $1 AND fabric = $2 AND ") +
                               kSilenceInForce,
                           id, fabric_, by);
    if (r.affected_rows() == 0) return Status::NotFound("no active silence " + std::to_string(id));
    return Status::Ok();
  });
}

}  // namespace ufmr
