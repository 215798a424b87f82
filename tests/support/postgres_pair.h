// PostgresPair: a primary and its synchronous streaming replica (scripts/pg-temp.sh start, then
// replica: pg_basebackup), two throwaway clusters on Unix sockets, for failover tests. Databases
// are created on the primary and reach the replica; their URL names both servers, as an operator
// writes it (`host=<primary>,<replica> ... target_session_attrs=read-write`), so libpq connects
// to whichever is the writable primary. KillPrimary stops the primary at once, as a crash would;
// Promote makes the replica the primary (pg_ctl promote); RestartPrimary restarts whichever is
// the primary now. Destroying it stops both.
#pragma once

#include <string>
#include <vector>

namespace ufmr::testing {

class PostgresPair {
 public:
  explicit PostgresPair(const std::string& dir);  // under the test's folder
  ~PostgresPair();
  PostgresPair(const PostgresPair&) = delete;
  PostgresPair& operator=(const PostgresPair&) = delete;

  // A new database (on the primary, replicated); its multi-host URL.
  std::string CreateDatabase();
  void KillPrimary();
  void Promote();
  // Stops the primary at once and starts it again (after a Promote: the promoted one).
  void RestartPrimary();
  // The URL of one server alone (for the test's own checks).
  std::string ReplicaUrl(const std::string& db) const;

 private:
  void Script(const std::vector<std::string>& args) const;

  std::string primary_dir_, replica_dir_;
  std::string primary_socket_, replica_socket_;
  int databases_ = 0;
  bool promoted_ = false;
};

}  // namespace ufmr::testing
