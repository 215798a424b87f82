#include "postgres_pair.h"

#include <gtest/gtest.h>

#include <pqxx/pqxx>
#include <stdexcept>
#include <vector>

#include "test_env.h"

namespace ufmr::testing {

PostgresPair::PostgresPair(const std::string& dir)
    : primary_dir_(dir + "/pg-primary"), replica_dir_(dir + "/pg-replica") {
  Script({"start", primary_dir_});
  Script({"replica", primary_dir_, replica_dir_});
  primary_socket_ = ReadFile(primary_dir_ + "/pgdir");
  replica_socket_ = ReadFile(replica_dir_ + "/pgdir");
  while (!primary_socket_.empty() && primary_socket_.back() == '\n') primary_socket_.pop_back();
  while (!replica_socket_.empty() && replica_socket_.back() == '\n') replica_socket_.pop_back();
}

PostgresPair::~PostgresPair() {
  for (const auto& d : {primary_dir_, replica_dir_}) {
    RunCommand({SourceDir() + "/scripts/pg-temp.sh", "stop", d});
  }
}

void PostgresPair::Script(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {SourceDir() + "/scripts/pg-temp.sh"};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult r = RunCommand(argv);
  if (r.exit_code != 0) {
    throw std::runtime_error("pg-temp.sh " + args[0] + " failed: " + r.err);
  }
}

std::string PostgresPair::CreateDatabase() {
  const std::string name = "failover" + std::to_string(databases_++);
  pqxx::connection c("host=" + primary_socket_ + " port=5432 dbname=postgres user=postgres");
  pqxx::nontransaction w(c);
  w.exec("CREATE DATABASE " + name);
  return "host=" + primary_socket_ + "," + replica_socket_ + " port=5432 dbname=" + name +
         " user=postgres target_session_attrs=read-write connect_timeout=2";
}

std::string PostgresPair::ReplicaUrl(const std::string& db) const {
  return "host=" + replica_socket_ + " port=5432 dbname=" + db + " user=postgres";
}

void PostgresPair::KillPrimary() { Script({"kill", primary_dir_}); }
void PostgresPair::Promote() {
  Script({"promote", replica_dir_});
  promoted_ = true;
}
void PostgresPair::RestartPrimary() {
  Script({"restart", promoted_ ? replica_dir_ : primary_dir_});
}

}  // namespace ufmr::testing
