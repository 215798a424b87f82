#include "store/connection_pool.h"

#include <spdlog/spdlog.h>

#include <pqxx/pqxx>
#include <stdexcept>

#include "config/db_url.h"

namespace ufmr {

namespace {

// An idle connection whose server went away (PostgreSQL restarted, the backend was terminated)
// has the news waiting on its socket: read it without blocking, and drop the connection rather
// than fail the next transaction on it. (libpqxx 6.4 also leaks the answer of a statement sent
// on a broken connection; tests/lsan.supp says why that cannot be closed here.) The first read
// takes the server's last words, the second finds the end of the stream.
bool StillOpen(pqxx::connection& c) {
  try {
    for (int i = 0; i < 2 && c.is_open(); ++i) c.get_notifs();
  } catch (const std::exception& e) {
    spdlog::info("store: dropping a pooled connection whose server went away: {}", e.what());
    return false;
  }
  return c.is_open();
}

}  // namespace

std::unique_ptr<pqxx::connection> ConnectionPool::Acquire() {
  for (;;) {
    std::unique_ptr<pqxx::connection> c;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (idle_.empty()) break;
      c = std::move(idle_.back());
      idle_.pop_back();
    }
    if (StillOpen(*c)) return c;
  }
  try {
    return std::make_unique<pqxx::connection>(url_);
  } catch (const std::exception& e) {
    // libpq may quote the URL, password and all: callers log what is thrown.
    throw std::runtime_error(RedactDatabasePassword(e.what(), url_));
  }
}

void ConnectionPool::Release(std::unique_ptr<pqxx::connection> conn) {
  if (!conn || !conn->is_open()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < kMaxIdle) idle_.push_back(std::move(conn));
}

std::string ConnectionPool::Prepared(pqxx::connection_base& conn, const std::string& sql) {
  std::string name;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = prepared_.find(sql);
    if (it == prepared_.end()) {
      if (prepared_.size() >= kMaxPrepared) return "";
      it = prepared_.emplace(sql, "ufmr_stmt_" + std::to_string(prepared_.size() + 1)).first;
    }
    name = it->second;
  }
  conn.prepare(name, sql);  // a no-op when this connection has it already
  return name;
}

}  // namespace ufmr
