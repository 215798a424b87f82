// Store's one path to the database (Store::Query, Store::Run) against a real PostgreSQL: a
// function's ok result commits, any other rolls back; an exception or a database that is gone is
// Unavailable; Run binds only to the pqxx::work it hands out; every operation is timed.
#include <gtest/gtest.h>

#include <pqxx/pqxx>

#include "base/metrics.h"
#include "store/store.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

class StoreQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testing::TestPostgres::Get().CreateDatabase();
    auto store = Store::Open(url_, "test");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store.value());
    ASSERT_TRUE(store_->Migrate(testing::SourceDir() + "/schema").ok());
  }

  int64_t Count(const std::string& table) {
    pqxx::connection c(url_);
    pqxx::read_transaction w(c);
    return w.exec("SELECT count(*) FROM " + table)[0][0].as<int64_t>();
  }

  Status AddAlert(Status answer) {
    return store_->Run([&](pqxx::work& w) {
      w.exec("INSERT INTO alerts (fabric, kind, message) VALUES ('test', 'k', 'm')");
      return answer;
    });
  }

  std::string url_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreQueryTest, RunCommitsWhenTheFunctionIsOkAndRollsBackWhenNot) {
  EXPECT_TRUE(AddAlert(Status::Ok()).ok());
  EXPECT_EQ(Count("alerts"), 1);
  Status s = AddAlert(Status::Conflict("changed its mind"));
  EXPECT_EQ(s.code(), Status::Code::kConflict);
  EXPECT_EQ(s.message(), "changed its mind");
  EXPECT_EQ(Count("alerts"), 1);
}

TEST_F(StoreQueryTest, AnExceptionIsUnavailableAndRollsBack) {
  Status s = store_->Run([](pqxx::work& w) {
    w.exec("INSERT INTO alerts (fabric, kind, message) VALUES ('test', 'k', 'm')");
    w.exec("SELECT * FROM no_such_table");
    return Status::Ok();
  });
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_NE(s.message().find("database: "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("no_such_table"), std::string::npos) << s.message();
  EXPECT_EQ(Count("alerts"), 0);
  EXPECT_TRUE(store_->Ping().ok()) << "the connection went back to the pool usable";
}

TEST_F(StoreQueryTest, RunBindsOnlyToTheWorkItHandsOut) {
  bool ran = false;
  Status s = store_->Run([&](pqxx::read_transaction&) {
    ran = true;
    return Status::Ok();
  });
  EXPECT_FALSE(ran);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
}

TEST_F(StoreQueryTest, EveryOperationIsTimedUnderItsName) {
  Metrics metrics;
  store_->set_metrics(&metrics);
  EXPECT_TRUE(store_->Ping().ok());
  EXPECT_TRUE(store_->TicketCounts().ok());
  EXPECT_EQ(store_->GetTicket(42).status().code(), Status::Code::kNotFound);
  std::string text = metrics.Render();
  for (const char* op : {"ping", "ticket_counts", "get_ticket"}) {
    EXPECT_NE(text.find(std::string("ufmr_db_query_duration_seconds_count{op=\"") + op + "\"} 1"),
              std::string::npos)
        << op << "\n"
        << text;
  }
}

TEST_F(StoreQueryTest, ADatabaseThatIsGoneIsUnavailable) {
  std::string name = url_.substr(url_.find("dbname=") + 7);
  name = name.substr(0, name.find(' '));
  {
    pqxx::connection admin(testing::TestPostgres::Get().admin_url());
    pqxx::nontransaction w(admin);
    w.exec("DROP DATABASE " + w.quote_name(name) + " WITH (FORCE)");
  }
  EXPECT_EQ(store_->Ping().code(), Status::Code::kUnavailable);
  EXPECT_EQ(store_->GetTicket(1).status().code(), Status::Code::kUnavailable);
  EXPECT_EQ(store_->ExpireSilence(1, "me").code(), Status::Code::kUnavailable);
  EXPECT_EQ(store_->MissingTicket(1).code(), Status::Code::kNotFound);
  EXPECT_EQ(store_->Begin().status().code(), Status::Code::kUnavailable);
}

}  // namespace
}  // namespace ufmr
