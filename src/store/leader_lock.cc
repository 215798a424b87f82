#include "store/leader_lock.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <pqxx/pqxx>

#include "config/db_url.h"

namespace ufmr {

struct LeaderLock::Session {
  explicit Session(const std::string& url) : conn(url) {}
  pqxx::connection conn;
};

LeaderLock::LeaderLock(std::string url, std::string fabric, const Clock& clock, double retry_s)
    : url_(std::move(url)), fabric_(std::move(fabric)), clock_(clock), retry_s_(retry_s) {}

LeaderLock::~LeaderLock() = default;

LeaderLock::State LeaderLock::Check() {
  if (held_.load()) {
    try {
      pqxx::nontransaction w(session_->conn);
      w.exec("SELECT 1");
      return State::kLeader;
    } catch (const std::exception& e) {
      held_.store(false);
      session_.reset();
      spdlog::critical(
          "leader: lost the lock's database connection ({}): another instance may "
          "act for fabric {} now",
          RedactDatabasePassword(e.what(), url_), fabric_);
      return State::kLost;
    }
  }
  TimePoint now = clock_.Now();
  if (now < next_try_) return State::kStandby;
  next_try_ = now + std::chrono::duration_cast<TimePoint::duration>(Seconds(retry_s_));
  try {
    if (!session_ || !session_->conn.is_open()) session_ = std::make_unique<Session>(url_);
    pqxx::nontransaction w(session_->conn);
    bool got = w.exec_params("SELECT pg_try_advisory_lock($1, hashtext($2))", kLockClass,
                             std::string(kKeyPrefix) + fabric_)[0][0]
                   .as<bool>();
    if (got) {
      held_.store(true);
      spdlog::info("leader: acting for fabric {}", fabric_);
      return State::kLeader;
    }
    if (!told_standby_) {
      told_standby_ = true;
      spdlog::info("standby: another instance acts for fabric {}; taking over when it stops",
                   fabric_);
    }
  } catch (const std::exception& e) {
    session_.reset();
    spdlog::warn("standby: cannot reach the database to take the leader lock: {}",
                 RedactDatabasePassword(e.what(), url_));
    return State::kStandby;
  }
  return State::kStandby;
}

}  // namespace ufmr
