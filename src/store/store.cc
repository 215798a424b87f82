#include "store/store.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "config/db_url.h"
#include "store/store_db.h"
#include "store/store_rows.h"

namespace ufmr {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

OpTimer::~OpTimer() {
  if (metrics_) {
    metrics_->Observe(MetricName("ufmr_db_query_duration_seconds", {{"op", op_}}),
                      SecondsSince(start_));
  }
}

Status DatabaseFailure(const char* op, const std::exception& e) {
  spdlog::warn("store: {}: {}", op, e.what());
  return Status::Unavailable(std::string("database: ") + e.what());
}

Result<std::unique_ptr<Store>> Store::Open(const std::string& url, const std::string& fabric) {
  std::unique_ptr<Store> store(new Store(url, fabric));
  try {
    store->pool_->Release(std::make_unique<pqxx::connection>(url));
  } catch (const std::exception& e) {
    return Status::Unavailable("cannot connect to PostgreSQL: " +
                               RedactDatabasePassword(e.what(), url));
  }
  return store;
}

Store::~Store() = default;

Store::Store(std::string url, std::string fabric)
    : fabric_(std::move(fabric)), pool_(std::make_unique<ConnectionPool>(std::move(url))) {
  set_repeat_window_s(90 * 86400.0);
}

void Store::set_repeat_window_s(double seconds) { ticket_columns_ = TicketColumns(seconds); }

Result<std::unique_ptr<Store::Tx>> Store::Begin() {
  try {
    auto impl = std::make_unique<Tx::Impl>(*pool_, pool_->Acquire());
    return std::unique_ptr<Tx>(new Tx(this, std::move(impl)));
  } catch (const std::exception& e) {
    spdlog::warn("store: begin: {}", e.what());
    return Status::Unavailable(std::string("database unavailable: ") + e.what());
  }
}

Store::Tx::Tx(Store* store, std::unique_ptr<Impl> impl)
    : store_(store), impl_(std::move(impl)), began_(std::chrono::steady_clock::now()) {}

Store::Tx::~Tx() {
  try {
    impl_->work.reset();  // rolls back if not committed
  } catch (const std::exception& e) {
    spdlog::warn("store: ending a transaction: {}", e.what());
  }
  store_->pool_->Release(std::move(impl_->conn));
  if (store_->metrics_) {
    store_->metrics_->Observe(MetricName("ufmr_db_transaction_duration_seconds",
                                         {{"result", committed_ ? "commit" : "rollback"}}),
                              SecondsSince(began_));
  }
}

void Store::Tx::Commit() {
  WriteDecisions();
  impl_->work->commit();
  committed_ = true;
}

Status Store::Ping() {
  return Query<ReadTx>("ping", [](ReadTx& w) {
    w.exec("SELECT 1");
    return Status::Ok();
  });
}

Status Store::Run(const std::function<Status(SqlWork&)>& fn, const char* op) {
  return Query<WriteTx>(op, [&](WriteTx& w) {
    SqlWork work(&w, typeid(WriteTx));
    return fn(work);
  });
}

}  // namespace ufmr
