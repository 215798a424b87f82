// How Store's files reach PostgreSQL, private to src/store/: Store::Query and
// Store::WithConnection (the one path of every Store method: connection, transaction, timing,
// exception to Status, logging) and Store::Tx::Impl (a Tx's connection and transaction, and the
// statements its methods run). The threading of Store and Tx (store.h) holds here too.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <type_traits>
#include <utility>

#include "base/metrics.h"
#include "base/status.h"
#include "store/connection_pool.h"
#include "store/store.h"

namespace ufmr {

// The transactions Store::Query runs fn in.
using ReadTx = pqxx::read_transaction;  // reads, one snapshot
using WriteTx = pqxx::work;             // reads and writes, committed when fn's result is ok
using NoTx = pqxx::nontransaction;      // one statement, so one snapshot: no BEGIN and COMMIT

double SecondsSince(std::chrono::steady_clock::time_point start);

// Times one Store operation into ufmr_db_query_duration_seconds{op}, however it ends.
class OpTimer {
 public:
  OpTimer(Metrics* metrics, const char* op)
      : metrics_(metrics), op_(op), start_(std::chrono::steady_clock::now()) {}
  ~OpTimer();
  OpTimer(const OpTimer&) = delete;
  OpTimer& operator=(const OpTimer&) = delete;

 private:
  Metrics* metrics_;
  const char* op_;
  std::chrono::steady_clock::time_point start_;
};

// What a Store method returns when `op` threw: Unavailable ("database: " and what was thrown),
// logged as a warning with the op's name.
Status DatabaseFailure(const char* op, const std::exception& e);

template <typename Fn>
auto Store::WithConnection(const char* op, Fn&& fn) {
  using R = std::invoke_result_t<Fn&, pqxx::connection&>;
  OpTimer timer(metrics_, op);
  try {
    std::unique_ptr<pqxx::connection> conn = pool_->Acquire();
    R out = fn(*conn);
    pool_->Release(std::move(conn));
    return out;
  } catch (const std::exception& e) {
    return R(DatabaseFailure(op, e));
  }
}

template <typename Work, typename Fn>
auto Store::Query(const char* op, Fn&& fn) {
  return WithConnection(op, [&](pqxx::connection& conn) {
    Work w(conn);
    auto out = fn(w);
    if constexpr (std::is_same_v<Work, WriteTx>) {
      if (out.ok()) w.commit();
    }
    return out;
  });
}

struct Store::Tx::Impl {
  Impl(ConnectionPool& pool_in, std::unique_ptr<pqxx::connection> conn_in)
      : pool(pool_in), conn(std::move(conn_in)), work(std::in_place, *conn) {}

  template <typename... Args>
  pqxx::result Exec(const std::string& sql, Args&&... args) {
    return work->exec_params(sql, std::forward<Args>(args)...);
  }
  // For a statement the pipeline runs for every finding: prepared once per pooled connection
  // (PostgreSQL plans it once, not every time).
  template <typename... Args>
  pqxx::result ExecPrepared(const std::string& sql, Args&&... args) {
    const std::string name = pool.Prepared(*conn, sql);
    if (name.empty()) return work->exec_params(sql, std::forward<Args>(args)...);
    return work->exec_prepared(name, std::forward<Args>(args)...);
  }

  ConnectionPool& pool;
  std::unique_ptr<pqxx::connection> conn;
  std::optional<WriteTx> work;  // rolled back when reset before its commit
};

}  // namespace ufmr
