// Store's schema migrations: schema/*.sql applied in name order, each once, recorded in
// schema_migrations; one migrator at a time (an advisory lock).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "store/store.h"
#include "store/store_db.h"

namespace ufmr {

namespace {

Result<std::vector<std::filesystem::path>> MigrationFiles(const std::string& schema_dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(schema_dir, ec)) {
    if (e.path().extension() == ".sql") files.push_back(e.path());
  }
  if (ec) {
    return Status::NotFound("cannot read schema directory " + schema_dir + ": " + ec.message());
  }
  if (files.empty()) return Status::NotFound("no *.sql migrations in " + schema_dir);
  std::sort(files.begin(), files.end());
  return files;
}

bool Applied(pqxx::transaction_base& w, const std::string& version) {
  return !w.exec_params("SELECT 1 FROM schema_migrations WHERE version = $1", version).empty();
}

// Applies the migration in `file` in a transaction of its own, unless it is applied already.
void ApplyMigration(pqxx::connection& conn, const std::filesystem::path& file) {
  WriteTx w(conn);
  w.exec("SELECT pg_advisory_xact_lock(7419001)");  // one migrator at a time
  w.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at "
      "timestamptz NOT NULL DEFAULT now())");
  const std::string version = file.filename().string();
  if (Applied(w, version)) return;
  std::ifstream in(file);
  std::stringstream sql;
  sql << in.rdbuf();
  w.exec(sql.str());
  w.exec_params("INSERT INTO schema_migrations (version) VALUES ($1)", version);
  w.commit();
  spdlog::info("applied migration {}", version);
}

}  // namespace

Result<std::vector<std::string>> Store::PendingMigrations(const std::string& schema_dir) {
  auto files = MigrationFiles(schema_dir);
  if (!files.ok()) return files.status();
  return Query<ReadTx>("migrate", [&](ReadTx& w) -> Result<std::vector<std::string>> {
    bool table = w.exec("SELECT to_regclass('schema_migrations') IS NOT NULL")[0][0].as<bool>();
    std::vector<std::string> pending;
    for (const auto& f : files.value()) {
      std::string version = f.filename().string();
      if (!table || !Applied(w, version)) pending.push_back(version);
    }
    return pending;
  });
}

Status Store::Migrate(const std::string& schema_dir) {
  auto files = MigrationFiles(schema_dir);
  if (!files.ok()) return files.status();
  return WithConnection("migrate", [&](pqxx::connection& conn) {
    try {
      for (const auto& f : files.value()) ApplyMigration(conn, f);
    } catch (const std::exception& e) {
      spdlog::warn("store: migrate: {}", e.what());
      return Status::Internal(std::string("migration failed: ") + e.what());
    }
    return Status::Ok();
  });
}

}  // namespace ufmr
