#include "loop/ufm_claim.h"

#include <spdlog/spdlog.h>

#include <pqxx/pqxx>

#include "store/leader_lock.h"
#include "ufm/ufm_json.h"

namespace ufmr {

namespace {
constexpr double kCheckInterval_s = 10;
}  // namespace

UfmClaim::UfmClaim(Store& store, std::string ufm_url, const Clock& clock, Metrics& metrics)
    : store_(store), ufm_url_(AsciiLower(std::move(ufm_url))), clock_(clock), metrics_(metrics) {
  while (!ufm_url_.empty() && ufm_url_.back() == '/') ufm_url_.pop_back();
}

bool UfmClaim::Clear() {
  const TimePoint now = clock_.Now();
  if (now < next_check_) return clear_;
  next_check_ = now + std::chrono::duration_cast<TimePoint::duration>(
                          std::chrono::duration<double>(kCheckInterval_s));
  std::string other;
  Status s = store_.Run(
      [&](pqxx::work& w) {
        // The claim keeps its time while the URL stays the same: the oldest claim wins.
        w.exec_params(
            "INSERT INTO fabric_ufm (fabric, ufm_url) VALUES ($1, $2) ON CONFLICT (fabric) DO "
            "UPDATE SET ufm_url = excluded.ufm_url, claimed_at = CASE WHEN fabric_ufm.ufm_url = "
            "excluded.ufm_url THEN fabric_ufm.claimed_at ELSE now() END",
            store_.fabric(), ufm_url_);
        auto r = w.exec_params(
            "SELECT o.fabric FROM fabric_ufm o, fabric_ufm me WHERE me.fabric = $1 AND "
            "o.ufm_url = me.ufm_url AND o.fabric <> me.fabric AND (o.claimed_at, o.fabric) < "
            "(me.claimed_at, me.fabric) AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = "
            "'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE "
            "datname = current_database()) AND l.classid = $2::int4::oid AND l.objid = "
            "hashtext($3 || o.fabric)::oid AND l.objsubid = 2) ORDER BY o.claimed_at LIMIT 1",
            store_.fabric(), LeaderLock::kLockClass, std::string(LeaderLock::kKeyPrefix));
        if (!r.empty()) other = r[0][0].as<std::string>();
        return Status::Ok();
      },
      "ufm_claim");
  if (!s.ok()) {
    spdlog::warn("ufm claim: cannot check which fabric acts on {}: {}", ufm_url_, s.message());
    return clear_;
  }
  if (other != conflict_) {
    if (!other.empty()) {
      const std::string message =
          "fabric '" + other + "' acts on the same UFM (" + ufm_url_ + ") as this fabric '" +
          store_.fabric() +
          "': this instance will not act while that fabric's leader runs. One UFM is one fabric: "
          "check ufm.url (and UFM_REMEDIATOR_UFM_URL) of both.";
      spdlog::critical("ufm claim: {}", message);
      if (auto tx = store_.Begin(); tx.ok()) {
        try {
          tx.value()->AddAlert("ufm_shared", message, {{"other_fabric", other}, {"ufm", ufm_url_}});
          tx.value()->Commit();
        } catch (const std::exception& e) {
          spdlog::warn("ufm claim: cannot record the alert: {}", e.what());
        }
      }
    } else {
      spdlog::info("ufm claim: fabric '{}' is the only one acting on {}", store_.fabric(),
                   ufm_url_);
      if (auto tx = store_.Begin(); tx.ok()) {
        try {
          tx.value()->ClearAlertsOfKind("ufm_shared", "service");
          tx.value()->Commit();
        } catch (const std::exception& e) {
          spdlog::warn("ufm claim: cannot clear the alert: {}", e.what());
        }
      }
    }
  }
  conflict_ = other;
  clear_ = other.empty();
  metrics_.Set("ufmr_ufm_shared", clear_ ? 0 : 1);
  return clear_;
}

}  // namespace ufmr
