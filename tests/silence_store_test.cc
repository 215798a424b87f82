// Silences against a real PostgreSQL (tests/support TestPostgres, schema/ migrated): the Store's
// AddSilence / ListSilences / ActiveSilences / GetSilence / ExpireSilence (validation before
// writing, the database clock deciding what is in force, times exact to the microsecond, rows kept
// per fabric, the schema's own checks), and the JSON API routes (RegisterSilenceRoutes, which
// Api::Register mounts) over a real HTTP server on loopback: create by duration or expires_at,
// every rejected body answering 400 {"error"} and storing nothing, listing with and without
// ?all=1, and ending a silence early (200, then 404).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "api/api.h"
#include "decide/silence.h"
#include "http/http_server.h"
#include "store/store.h"
#include "support/test_env.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using Json = nlohmann::json;

TimePoint Now() { return std::chrono::system_clock::now(); }

Silence Make(std::string port, std::string sw, std::string host, TimePoint expires_at) {
  Silence s;
  s.port = std::move(port);
  s.switch_ = std::move(sw);
  s.host = std::move(host);
  s.reason = "firmware upgrade";
  s.created_by = "tech";
  s.created_at = Now();
  s.expires_at = expires_at;
  return s;
}

std::vector<int64_t> Ids(const std::vector<Silence>& silences) {
  std::vector<int64_t> ids;
  for (const auto& s : silences) ids.push_back(s.id);
  return ids;
}

class SilenceStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    auto store = Store::Open(db_url_, "fab-a");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store.value());
    ASSERT_TRUE(store_->Migrate(testing::SourceDir() + "/schema").ok());
  }

  // Writes a row as SQL, for windows the Store would refuse (already over, not yet begun).
  int64_t InsertRaw(const std::string& fabric, const std::string& created_at_sql,
                    const std::string& expires_at_sql, const std::string& host = "gpu-.*") {
    pqxx::connection c(db_url_);
    pqxx::work w(c);
    auto r = w.exec_params(
        "INSERT INTO silences (fabric, host_pattern, reason, created_at, expires_at) VALUES ($1, "
        "$2, 'raw', " +
            created_at_sql + ", " + expires_at_sql + ") RETURNING id",
        fabric, host);
    w.commit();
    return r[0][0].as<int64_t>();
  }

  // Adds through the Store; -1 (and a failed test) if it refuses.
  int64_t Add(const Silence& s) {
    auto r = store_->AddSilence(s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->id : -1;
  }

  int64_t CountRows() {
    pqxx::connection c(db_url_);
    pqxx::work w(c);
    return w.exec("SELECT count(*) FROM silences")[0][0].as<int64_t>();
  }

  std::string db_url_;
  std::unique_ptr<Store> store_;
};

TEST_F(SilenceStoreTest, MigrationAddsTheSilencesTable) {
  auto fresh = Store::Open(testing::TestPostgres::Get().CreateDatabase(), "fab-a");
  ASSERT_TRUE(fresh.ok());
  auto pending = fresh.value()->PendingMigrations(testing::SourceDir() + "/schema");
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  ASSERT_FALSE(pending->empty());
  EXPECT_NE(std::find(pending->begin(), pending->end(), "003_silences.sql"), pending->end());
  EXPECT_TRUE(store_->PendingMigrations(testing::SourceDir() + "/schema")->empty());
}

TEST_F(SilenceStoreTest, AddReturnsTheRowWithIdAndDatabaseCreatedAt) {
  // A whole number of microseconds, the database's resolution, so it must come back exactly.
  TimePoint expires =
      std::chrono::time_point_cast<microseconds>(Now() + hours(2)) + microseconds(7);
  TimePoint before = Now();
  auto added = store_->AddSilence(Make("fc6a1c0300000001_[12]", "ib-leaf-01", "", expires));
  TimePoint after = Now();
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  const Silence& s = added.value();
  EXPECT_GT(s.id, 0);
  EXPECT_EQ(s.port, "fc6a1c0300000001_[12]");
  EXPECT_EQ(s.switch_, "ib-leaf-01");
  EXPECT_EQ(s.host, "");
  EXPECT_EQ(s.reason, "firmware upgrade");
  EXPECT_EQ(s.created_by, "tech");
  EXPECT_EQ(s.expires_at, expires);
  EXPECT_FALSE(s.expired_at);
  EXPECT_EQ(s.expired_by, "");
  // created_at is the database's now(); the test and the server share a host clock.
  EXPECT_GE(s.created_at, before - seconds(5));
  EXPECT_LE(s.created_at, after + seconds(5));
  EXPECT_TRUE(s.ActiveAt(Now()));

  auto got = store_->GetSilence(s.id);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->created_at, s.created_at);
  EXPECT_EQ(got->expires_at, expires);
  EXPECT_EQ(got->port, s.port);
  EXPECT_EQ(store_->GetSilence(s.id + 1000).status().code(), Status::Code::kNotFound);
}

TEST_F(SilenceStoreTest, AddValidatesBeforeWritingAnything) {
  struct Case {
    const char* name;
    Silence silence;
    const char* message_part;
  };
  TimePoint later = Now() + hours(1);
  Silence no_reason = Make("", "ib-leaf-01", "", later);
  no_reason.reason.clear();
  Silence backwards = Make("", "ib-leaf-01", "", Now() - hours(1));
  const Case cases[] = {
      {"no_pattern", Make("", "", "", later), "at least one of"},
      {"bad_pattern", Make("", "ib-leaf-(", "", later), "\"switch\" is not a valid RE2"},
      {"no_reason", no_reason, "\"reason\" is required"},
      {"expires_before_created", backwards, "must be after created_at"},
  };
  for (const auto& c : cases) {
    auto r = store_->AddSilence(c.silence);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << c.name;
    EXPECT_NE(r.status().message().find(c.message_part), std::string::npos)
        << c.name << ": " << r.status().message();
  }
  EXPECT_EQ(CountRows(), 0);
}

TEST_F(SilenceStoreTest, AddRefusesAnExpiryNotAfterTheDatabaseClock) {
  // Valid by its own created_at, but already over by the time the database records it.
  Silence s = Make("", "ib-leaf-01", "", Now() - minutes(1));
  s.created_at = Now() - hours(1);
  ASSERT_TRUE(ValidateSilence(s).ok());
  auto r = store_->AddSilence(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("not in the future"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(CountRows(), 0);
}

TEST_F(SilenceStoreTest, ActiveAndListFollowTheDatabaseClock) {
  int64_t over = InsertRaw("fab-a", "now() - interval '3 hours'", "now() - interval '1 hour'");
  int64_t first = Add(Make("", "ib-leaf-01", "", Now() + hours(1)));
  int64_t future = InsertRaw("fab-a", "now() + interval '1 hour'", "now() + interval '2 hours'");
  int64_t second = Add(Make("", "", "gpu-node-00[1-4]", Now() + hours(3)));
  int64_t other_fabric =
      InsertRaw("fab-b", "now() - interval '1 hour'", "now() + interval '1 hour'");
  ASSERT_GT(second, first);

  auto active = store_->ActiveSilences();
  ASSERT_TRUE(active.ok()) << active.status().ToString();
  EXPECT_EQ(Ids(active.value()), (std::vector<int64_t>{first, second}));  // oldest first

  auto listed = store_->ListSilences(false, 100);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(Ids(listed.value()), (std::vector<int64_t>{second, first}));  // newest first

  auto all = store_->ListSilences(true, 100);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(Ids(all.value()), (std::vector<int64_t>{second, future, first, over}));
  EXPECT_EQ(Ids(store_->ListSilences(true, 2).value()), (std::vector<int64_t>{second, future}));

  // The other fabric's row is invisible here, even by id.
  EXPECT_EQ(store_->GetSilence(other_fabric).status().code(), Status::Code::kNotFound);

  // What the loop would do with them: compile and match at now.
  SilenceSet set(active.value());
  ASSERT_EQ(set.size(), 2u);
  SilenceSubject link{{"e41d2d0300000003_1"}, {"ib-leaf-02"}, {"gpu-node-003"}};
  const Silence* m = set.Match(link, Now());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->id, second);
  SilenceSubject elsewhere{{"e41d2d0300000009_1"}, {"ib-leaf-03"}, {"gpu-node-009"}};
  EXPECT_EQ(set.Match(elsewhere, Now()), nullptr);
}

TEST_F(SilenceStoreTest, ExpireEndsAnActiveSilenceOnce) {
  auto s = store_->AddSilence(Make("", "ib-leaf-01", "", Now() + hours(1)));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE(store_->ExpireSilence(s->id, "lead").ok());

  auto got = store_->GetSilence(s->id);
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->expired_at.has_value());
  EXPECT_EQ(got->expired_by, "lead");
  EXPECT_GE(*got->expired_at, got->created_at);
  EXPECT_FALSE(got->ActiveAt(Now()));
  EXPECT_TRUE(store_->ActiveSilences()->empty());
  EXPECT_TRUE(store_->ListSilences(false, 10)->empty());
  EXPECT_EQ(Ids(store_->ListSilences(true, 10).value()), (std::vector<int64_t>{s->id}));

  Status again = store_->ExpireSilence(s->id, "lead");
  EXPECT_EQ(again.code(), Status::Code::kNotFound);
  EXPECT_NE(again.message().find(std::to_string(s->id)), std::string::npos);
  EXPECT_EQ(store_->GetSilence(s->id)->expired_by, "lead");  // the first end stands
}

TEST_F(SilenceStoreTest, ExpireIsNotFoundForUnknownOverOrOtherFabric) {
  int64_t over = InsertRaw("fab-a", "now() - interval '3 hours'", "now() - interval '1 hour'");
  int64_t other = InsertRaw("fab-b", "now() - interval '1 hour'", "now() + interval '1 hour'");
  EXPECT_EQ(store_->ExpireSilence(999999, "x").code(), Status::Code::kNotFound);
  EXPECT_EQ(store_->ExpireSilence(over, "x").code(), Status::Code::kNotFound);
  EXPECT_EQ(store_->ExpireSilence(other, "x").code(), Status::Code::kNotFound);
  // Ending one without a name leaves expired_by empty.
  auto s = store_->AddSilence(Make("", "", "gpu-node-001", Now() + hours(1)));
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(store_->ExpireSilence(s->id, "").ok());
  EXPECT_EQ(store_->GetSilence(s->id)->expired_by, "");
}

TEST_F(SilenceStoreTest, SchemaRejectsRowsWithoutPatternOrWithABackwardsWindow) {
  pqxx::connection c(db_url_);
  auto insert = [&c](const std::string& values) {
    pqxx::work w(c);
    w.exec(
        "INSERT INTO silences (fabric, port_pattern, switch_pattern, host_pattern, reason, "
        "expires_at) VALUES " +
        values);
    w.commit();
  };
  EXPECT_THROW(insert("('fab-a', '', '', '', 'r', now() + interval '1 hour')"),
               pqxx::check_violation);
  EXPECT_THROW(insert("('fab-a', '', 'sw', '', '', now() + interval '1 hour')"),
               pqxx::check_violation);
  EXPECT_THROW(insert("('fab-a', '', 'sw', '', 'r', now() - interval '1 hour')"),
               pqxx::check_violation);
  EXPECT_NO_THROW(insert("('fab-a', '', 'sw', '', 'r', now() + interval '1 hour')"));
}

// ---- the JSON API ----

class SilenceApiTest : public SilenceStoreTest {
 protected:
  void SetUp() override {
    SilenceStoreTest::SetUp();
    if (HasFatalFailure()) return;
    RegisterSilenceRoutes(router_, *store_, clock_);
    server_ = std::make_unique<HttpServer>("127.0.0.1", 0, [this](const HttpRequest& r) {
      HttpRequest copy = r;
      return router_.Dispatch(copy);
    });
    ASSERT_TRUE(server_->Start().ok());
    base_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  // Status and parsed body of a request; a transport failure fails the test.
  std::pair<long, Json> Call(const std::string& method, const std::string& path,
                             const std::string& body = "") {
    HttpClient client;
    auto r = method == "GET" ? client.Get(base_ + path) : client.Post(base_ + path, body);
    EXPECT_TRUE(r.ok()) << method << " " << path << ": " << r.status().ToString();
    if (!r.ok()) return {0, Json()};
    return {r->status, Json::parse(r->body, nullptr, false)};
  }

  SystemClock clock_;  // the database's now() is real time too
  HttpRouter router_;
  std::unique_ptr<HttpServer> server_;
  std::string base_;
};

TEST_F(SilenceApiTest, CreateWithDurationAnswers201WithTheSilence) {
  TimePoint before = Now();
  auto [status, j] = Call("POST", "/api/silences",
                          R"({"switch": "ib-leaf-0[12]", "host": "gpu-node-00[1-8]",
                              "reason": "PDU swap", "duration": "2h", "by": "tech"})");
  ASSERT_EQ(status, 201) << j.dump();
  EXPECT_GT(j["id"].get<int64_t>(), 0);
  EXPECT_EQ(j["port"], "");
  EXPECT_EQ(j["switch"], "ib-leaf-0[12]");
  EXPECT_EQ(j["host"], "gpu-node-00[1-8]");
  EXPECT_EQ(j["reason"], "PDU swap");
  EXPECT_EQ(j["created_by"], "tech");
  EXPECT_TRUE(j["expired_at"].is_null());
  EXPECT_EQ(j["active"], true);
  auto created = ParseIsoTime(j["created_at"].get<std::string>());
  auto expires = ParseIsoTime(j["expires_at"].get<std::string>());
  ASSERT_TRUE(created.ok() && expires.ok()) << j.dump();
  // Two hours from the request, give or take the time the request took.
  EXPECT_GE(expires.value(), before + hours(2) - seconds(1));
  EXPECT_LE(expires.value(), Now() + hours(2) + seconds(1));
  EXPECT_NEAR(std::chrono::duration<double>(expires.value() - created.value()).count(), 7200, 5);

  auto stored = store_->GetSilence(j["id"].get<int64_t>());
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->switch_, "ib-leaf-0[12]");
  EXPECT_EQ(FormatIsoTime(stored->expires_at), j["expires_at"]);
}

TEST_F(SilenceApiTest, CreateWithExpiresAtAndNoAuthor) {
  TimePoint at = std::chrono::time_point_cast<seconds>(Now() + hours(5));
  auto [status, j] =
      Call("POST", "/api/silences",
           R"({"port": "fc6a1c0300000001_1", "reason": "optic swap", "expires_at": ")" +
               FormatIsoTime(at) + R"("})");
  ASSERT_EQ(status, 201) << j.dump();
  EXPECT_EQ(j["port"], "fc6a1c0300000001_1");
  EXPECT_EQ(j["expires_at"], FormatIsoTime(at));
  EXPECT_TRUE(j["created_by"].is_null());
  EXPECT_EQ(store_->GetSilence(j["id"].get<int64_t>())->expires_at, at);
}

struct BadBody {
  const char* name;
  std::string body;
  const char* message_part;
};

TEST_F(SilenceApiTest, RejectedBodiesAnswer400WithAnErrorAndStoreNothing) {
  std::string too_far = FormatIsoTime(Now() + hours(24 * 31));
  std::string past = FormatIsoTime(Now() - minutes(1));
  const BadBody cases[] = {
      {"not_json", "{\"host\": ", "body must be a JSON object"},
      {"not_an_object", "[1, 2]", "body must be a JSON object"},
      {"empty", "", "is required"},
      {"unknown_field", R"({"host": "a", "reason": "r", "duration": "1h", "until": "x"})",
       "unknown field \"until\""},
      {"pattern_not_string", R"({"host": 7, "reason": "r", "duration": "1h"})",
       "\"host\" must be a string"},
      {"bad_pattern", R"({"port": "fc6a(", "reason": "r", "duration": "1h"})",
       "\"port\" is not a valid RE2"},
      {"no_pattern", R"({"reason": "r", "duration": "1h"})", "at least one of"},
      {"empty_patterns", R"({"port": "", "switch": "", "reason": "r", "duration": "1h"})",
       "at least one of"},
      {"no_reason", R"({"host": "a", "duration": "1h"})", "\"reason\" is required"},
      {"empty_reason", R"({"host": "a", "reason": "", "duration": "1h"})",
       "\"reason\" is required"},
      {"no_end", R"({"host": "a", "reason": "r"})", "\"duration\" (e.g. \"2h\") or"},
      {"both_ends",
       R"({"host": "a", "reason": "r", "duration": "1h", "expires_at": ")" + past + R"("})",
       "not both"},
      {"zero_duration", R"({"host": "a", "reason": "r", "duration": "0s"})", "more than 0"},
      {"negative_duration", R"({"host": "a", "reason": "r", "duration": "-1h"})", "negative"},
      {"bad_duration", R"({"host": "a", "reason": "r", "duration": "soon"})",
       "\"duration\": 'soon'"},
      {"duration_over_30_days", R"({"host": "a", "reason": "r", "duration": "31d"})",
       "longer than 30d"},
      {"duration_not_string", R"({"host": "a", "reason": "r", "duration": 3600})",
       "\"duration\" must be a string"},
      {"expires_in_past", R"({"host": "a", "reason": "r", "expires_at": ")" + past + R"("})",
       "not in the future"},
      {"expires_over_30_days",
       R"({"host": "a", "reason": "r", "expires_at": ")" + too_far + R"("})",
       "more than 30d from now"},
      {"expires_without_zone",
       R"({"host": "a", "reason": "r", "expires_at": "2030-01-01T00:00:00"})",
       "a time zone is required"},
      {"by_too_long",
       R"({"host": "a", "reason": "r", "duration": "1h", "by": ")" + std::string(201, 'x') +
           R"("})",
       "\"by\" is longer"},
  };
  for (const auto& c : cases) {
    auto [status, j] = Call("POST", "/api/silences", c.body);
    EXPECT_EQ(status, 400) << c.name << ": " << j.dump();
    ASSERT_TRUE(j.is_object() && j.contains("error") && j["error"].is_string())
        << c.name << ": " << j.dump();
    EXPECT_NE(j["error"].get<std::string>().find(c.message_part), std::string::npos)
        << c.name << ": " << j["error"];
  }
  EXPECT_EQ(CountRows(), 0);
}

TEST_F(SilenceApiTest, DurationOfExactlyThirtyDaysIsAccepted) {
  auto [status, j] =
      Call("POST", "/api/silences", R"({"host": "a", "reason": "r", "duration": "30d"})");
  EXPECT_EQ(status, 201) << j.dump();
}

TEST_F(SilenceApiTest, ListShowsActiveOnesAndAllWithAll1) {
  int64_t over = InsertRaw("fab-a", "now() - interval '3 hours'", "now() - interval '1 hour'");
  auto [s1, a] = Call("POST", "/api/silences", R"({"host": "a", "reason": "r", "duration": "1h"})");
  auto [s2, b] = Call("POST", "/api/silences", R"({"host": "b", "reason": "r", "duration": "1h"})");
  ASSERT_EQ(s1, 201);
  ASSERT_EQ(s2, 201);
  auto [s3, ended] = Call("POST", "/api/silences/" + a["id"].dump() + "/expire");
  ASSERT_EQ(s3, 200) << ended.dump();

  auto [status, active] = Call("GET", "/api/silences");
  ASSERT_EQ(status, 200) << active.dump();
  ASSERT_TRUE(active["silences"].is_array());
  ASSERT_EQ(active["silences"].size(), 1u) << active.dump();
  EXPECT_EQ(active["silences"][0]["id"], b["id"]);
  EXPECT_EQ(active["silences"][0]["active"], true);

  auto [status_all, all] = Call("GET", "/api/silences?all=1");
  ASSERT_EQ(status_all, 200);
  ASSERT_EQ(all["silences"].size(), 3u) << all.dump();
  EXPECT_EQ(all["silences"][0]["id"], b["id"]);  // newest first
  EXPECT_EQ(all["silences"][1]["id"], a["id"]);
  EXPECT_EQ(all["silences"][1]["active"], false);
  EXPECT_FALSE(all["silences"][1]["expired_at"].is_null());
  EXPECT_EQ(all["silences"][2]["id"], over);
  EXPECT_EQ(all["silences"][2]["active"], false);
  EXPECT_TRUE(all["silences"][2]["expired_at"].is_null());  // ran out, not ended early

  EXPECT_EQ(Call("GET", "/api/silences?all=0").second["silences"].size(), 1u);
  auto [bad, err] = Call("GET", "/api/silences?all=yes");
  EXPECT_EQ(bad, 400);
  EXPECT_TRUE(err["error"].is_string());
}

TEST_F(SilenceApiTest, ExpireAnswersTheSilenceThen404) {
  auto [created, s] = Call("POST", "/api/silences",
                           R"({"switch": "ib-spine-01", "reason": "reboot", "duration": "30m"})");
  ASSERT_EQ(created, 201) << s.dump();
  std::string path = "/api/silences/" + s["id"].dump() + "/expire";

  auto [unknown_field, e1] = Call("POST", path, R"({"by": "lead", "note": "x"})");
  EXPECT_EQ(unknown_field, 400) << e1.dump();
  EXPECT_NE(e1["error"].get<std::string>().find("unknown field \"note\""), std::string::npos);
  auto [by_not_string, e2] = Call("POST", path, R"({"by": 5})");
  EXPECT_EQ(by_not_string, 400) << e2.dump();
  EXPECT_TRUE(store_->GetSilence(s["id"].get<int64_t>())->ActiveAt(Now()));

  auto [status, j] = Call("POST", path, R"({"by": "lead"})");
  ASSERT_EQ(status, 200) << j.dump();
  EXPECT_EQ(j["id"], s["id"]);
  EXPECT_EQ(j["switch"], "ib-spine-01");
  EXPECT_EQ(j["active"], false);
  EXPECT_EQ(j["expired_by"], "lead");
  ASSERT_TRUE(j["expired_at"].is_string());
  EXPECT_TRUE(ParseIsoTime(j["expired_at"].get<std::string>()).ok());

  auto [again, e3] = Call("POST", path, R"({"by": "lead"})");
  EXPECT_EQ(again, 404) << e3.dump();
  EXPECT_TRUE(e3["error"].is_string());
  EXPECT_EQ(Call("POST", "/api/silences/999999/expire").first, 404);
  EXPECT_EQ(Call("POST", "/api/silences/abc/expire").first, 400);
  EXPECT_EQ(Call("GET", "/api/silences/1/expire").first, 405);
}

TEST_F(SilenceApiTest, ExpireWithoutABodyRecordsNoName) {
  auto [created, s] =
      Call("POST", "/api/silences", R"({"host": "gpu-node-001", "reason": "r", "duration": "1h"})");
  ASSERT_EQ(created, 201);
  auto [status, j] = Call("POST", "/api/silences/" + s["id"].dump() + "/expire");
  ASSERT_EQ(status, 200) << j.dump();
  EXPECT_TRUE(j["expired_by"].is_null());
  EXPECT_EQ(j["active"], false);
}

}  // namespace
}  // namespace ufmr
