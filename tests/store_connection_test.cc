// Store's connections against a real PostgreSQL that goes away under them: a pooled connection
// whose server restarted, or whose backend was terminated, is replaced before a transaction is
// begun on it, so the first transaction afterwards succeeds instead of failing on a dead socket.
#include <gtest/gtest.h>

#include <chrono>
#include <pqxx/pqxx>
#include <thread>

#include "store/store.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

class StoreConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testing::TestPostgres::Own().CreateDatabase();
    auto store = Store::Open(url_, "test");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store.value());
    ASSERT_TRUE(store_->Migrate(testing::SourceDir() + "/schema").ok());
  }

  // Runs one transaction that reads and writes; its connection goes back to the pool.
  ::testing::AssertionResult Transact() {
    auto tx = store_->Begin();
    if (!tx.ok()) return ::testing::AssertionFailure() << tx.status().ToString();
    try {
      tx.value()->SetCursor("store_connection_test", 7, {});
      if (tx.value()->CountHeldDisabled() != 0) return ::testing::AssertionFailure() << "held";
      tx.value()->Commit();
    } catch (const std::exception& e) {
      return ::testing::AssertionFailure() << e.what();
    }
    return ::testing::AssertionSuccess();
  }

  std::string url_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreConnectionTest, APooledConnectionWhoseBackendWasTerminatedIsReplaced) {
  ASSERT_TRUE(Transact());
  ASSERT_TRUE(Transact());  // the same pooled connection, reused
  std::string name = url_.substr(url_.find("dbname=") + 7);
  name = name.substr(0, name.find(' '));
  {
    pqxx::connection admin(testing::TestPostgres::Own().admin_url());
    pqxx::nontransaction w(admin);
    auto r =
        w.exec("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = " +
               w.quote(name));
    ASSERT_GE(r[0][0].as<int>(), 1) << "no pooled connection to terminate";
    // Terminating is a signal: wait until the backend is gone, and a moment more for its socket
    // to close (it leaves pg_stat_activity just before it exits).
    ASSERT_TRUE(testing::WaitUntil(
        [&] {
          return w.exec("SELECT count(*) FROM pg_stat_activity WHERE datname = " +
                        w.quote(name))[0][0]
                     .as<int>() == 0;
        },
        std::chrono::seconds(10)));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  EXPECT_TRUE(Transact());
  EXPECT_TRUE(Transact());
}

TEST_F(StoreConnectionTest, APooledConnectionSurvivesAPostgresRestart) {
  ASSERT_TRUE(Transact());
  testing::TestPostgres::Own().Restart();
  // Back once it takes a new connection (it recovers from the crash first).
  ASSERT_TRUE(testing::WaitUntil(
      [] {
        try {
          pqxx::connection c(testing::TestPostgres::Own().admin_url());
          return c.is_open();
        } catch (const std::exception&) {
          return false;
        }
      },
      std::chrono::seconds(30)));
  EXPECT_TRUE(Transact());
  EXPECT_TRUE(Transact());
}

}  // namespace
}  // namespace ufmr
