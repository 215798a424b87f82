// LeaderLock: which of several instances of a fabric acts. The leader holds a PostgreSQL session
// advisory lock keyed by the fabric on a connection of its own; standbys try to take it every
// ha.lock_retry_s. PostgreSQL releases the lock when the leader's session ends (its process dies,
// its connection breaks), so a standby takes over within a retry. A leader that finds its lock
// connection gone has lost the lock (another instance may already act): it must stop acting at
// once; serve exits then, so a fresh start resumes from the database (systemd restarts it).
// Check() belongs to one thread (the loop); held() may be read from any.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "base/clock.h"

namespace ufmr {

class LeaderLock {
 public:
  LeaderLock(std::string url, std::string fabric, const Clock& clock, double retry_s);
  ~LeaderLock();

  // The lock's keys: pg_try_advisory_lock(kLockClass, hashtext(kKeyPrefix || fabric)); the
  // migrator's class is 7419001.
  static constexpr int kLockClass = 7419002;
  static constexpr const char* kKeyPrefix = "ufm-remediator:";

  enum class State { kStandby, kLeader, kLost };
  // As leader: confirms the lock's connection still answers (kLost when it does not). As
  // standby: tries to take the lock when a retry is due.
  State Check();
  bool held() const { return held_.load(); }

 private:
  std::string url_;
  std::string fabric_;
  const Clock& clock_;
  double retry_s_;
  TimePoint next_try_{};
  struct Session;  // the lock's own connection (libpqxx, in leader_lock.cc)
  std::unique_ptr<Session> session_;
  std::atomic<bool> held_{false};
  bool told_standby_ = false;
};

}  // namespace ufmr
