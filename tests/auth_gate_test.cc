// AuthGate and AuthStore against a real PostgreSQL (schema/ migrated) and the real HttpServer on
// loopback, with a fake clock for expiry and lockouts: login cookies (HttpOnly, SameSite=Strict,
// Secure when configured, a new session at every login), logout, expiry, Bearer tokens (unknown,
// revoked, a disabled user's), anonymous reads by config and never anonymous mutations, roles,
// CSRF on cookie sessions, the audit log (accepted and refused mutations, secrets left out, GET
// /api/audit for admins), secrets never logged, and throttled failed logins.
#include "api/auth_gate.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>
#include <sstream>
#include <string>

#include "api/auth_store.h"
#include "http/http_server.h"
#include "store/store.h"
#include "support/test_env.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

using Json = nlohmann::json;
using std::chrono::seconds;

constexpr const char* kPassword = "Pa55word-for-tests";

struct Reply {
  long status = 0;
  Json body;
  std::map<std::string, std::string> headers;
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

// The session id a Set-Cookie header carries ("" if none).
std::string CookieValue(const std::string& set_cookie) {
  std::string prefix = std::string(kSessionCookie) + "=";
  if (set_cookie.rfind(prefix, 0) != 0) return "";
  return set_cookie.substr(prefix.size(), set_cookie.find(';') - prefix.size());
}

struct Login {
  std::string session;
  std::string csrf;
  std::string set_cookie;
};

class AuthGateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::Open(testing::TestPostgres::Get().CreateDatabase(), "fab-a");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store.value());
    ASSERT_TRUE(store_->Migrate(testing::SourceDir() + "/schema").ok());
    auth_ = std::make_unique<AuthStore>(*store_);
    for (auto [name, role] : {std::pair{"vera", Role::kViewer},
                              {"tom", Role::kTechnician},
                              {"erin", Role::kEngineer},
                              {"ada", Role::kAdmin}}) {
      ASSERT_TRUE(auth_->AddUser(name, role, kPassword).ok());
    }
  }

  // Starts the gate and server with the config as it is then.
  void Start() {
    gate_ = std::make_unique<AuthGate>(*auth_, config_, clock_);
    gate_->Register(router_);
    router_.Add("GET", "/api/things", gate_->Read([](const HttpRequest&, const Principal& p) {
      return HttpResponse::Json(200, {{"who", p.name}, {"via", p.via}});
    }));
    router_.Add("POST", "/api/things/{id}/poke",
                gate_->Mutate(Role::kTechnician, "thing.poke",
                              [this](const HttpRequest&, const Principal& p) {
                                ++pokes_;
                                return HttpResponse::Json(200, {{"by", p.name}});
                              }));
    router_.Add(
        "POST", "/api/things/{id}/drop",
        gate_->Mutate(Role::kEngineer, "thing.drop", [](const HttpRequest&, const Principal&) {
          return HttpResponse::Error(409, "already dropped");
        }));
    server_ = std::make_unique<HttpServer>("127.0.0.1", 0, [this](const HttpRequest& r) {
      HttpRequest copy = r;
      return router_.Dispatch(copy);
    });
    ASSERT_TRUE(server_->Start().ok());
    base_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }

  void TearDown() override {
    if (server_) server_->Stop();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("default"));
  }

  // One request from a fresh client (no cookie jar carried over): `session` becomes the Cookie
  // header, `csrf` the X-CSRF-Token header, `bearer` the Authorization header.
  Reply Call(const std::string& method, const std::string& path, const std::string& body = "",
             const std::string& session = "", const std::string& csrf = "",
             const std::string& bearer = "") {
    HttpClient client;
    if (!session.empty()) client.SetHeader("Cookie", std::string(kSessionCookie) + "=" + session);
    if (!csrf.empty()) client.SetHeader("X-CSRF-Token", csrf);
    if (!bearer.empty()) client.SetHeader("Authorization", "Bearer " + bearer);
    auto r = method == "GET" ? client.Get(base_ + path) : client.Post(base_ + path, body);
    EXPECT_TRUE(r.ok()) << method << " " << path << ": " << r.status().ToString();
    Reply out;
    if (!r.ok()) return out;
    out.status = r->status;
    out.body = Json::parse(r->body, nullptr, false);
    out.headers = r->headers;
    return out;
  }

  Login LogIn(const std::string& name, const std::string& password = kPassword,
              const std::string& old_session = "") {
    Reply r = Call("POST", "/api/login", Json{{"name", name}, {"password", password}}.dump(),
                   old_session);
    EXPECT_EQ(r.status, 200) << r.body.dump();
    Login l;
    l.set_cookie = r.Header("set-cookie");
    l.session = CookieValue(l.set_cookie);
    if (r.body.is_object() && r.body.contains("csrf")) l.csrf = r.body["csrf"].get<std::string>();
    EXPECT_FALSE(l.session.empty()) << l.set_cookie;
    EXPECT_FALSE(l.csrf.empty());
    return l;
  }

  std::vector<AuditEntry> Audit() {
    auto a = auth_->RecentAudit(100);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    return a.ok() ? a.value() : std::vector<AuditEntry>{};
  }

  FakeClock clock_;
  Config::Auth config_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<AuthStore> auth_;
  std::unique_ptr<AuthGate> gate_;
  HttpRouter router_;
  std::unique_ptr<HttpServer> server_;
  std::string base_;
  std::atomic<int> pokes_{0};
};

TEST_F(AuthGateTest, LoginSetsAStrictHttpOnlyCookieAndMeTellsWho) {
  Start();
  Login l = LogIn("tom");
  EXPECT_EQ(l.set_cookie, std::string(kSessionCookie) + "=" + l.session +
                              "; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200");
  EXPECT_EQ(l.session.size(), 43u);
  Reply me = Call("GET", "/api/me", "", l.session);
  EXPECT_EQ(me.status, 200);
  EXPECT_EQ(me.body, (Json{{"authenticated", true},
                           {"name", "tom"},
                           {"role", "technician"},
                           {"via", "session"},
                           {"csrf", l.csrf},
                           {"anonymous_read", false}}));
  Reply anon = Call("GET", "/api/me");
  EXPECT_EQ(anon.status, 200);
  EXPECT_EQ(anon.body["authenticated"], false);
  EXPECT_EQ(anon.body["role"], nullptr);
  EXPECT_EQ(anon.body["via"], "anonymous");
  // The database keeps the id's digest only.
  Status s = store_->Run([&](pqxx::work& w) {
    EXPECT_EQ(w.exec_params("SELECT 1 FROM sessions WHERE id_hash = $1", l.session).size(), 0u);
    EXPECT_EQ(w.exec("SELECT 1 FROM sessions").size(), 1u);
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(AuthGateTest, SecureCookieWhenConfigured) {
  config_.secure_cookies = true;
  config_.session_ttl_s = 600;
  Start();
  Login l = LogIn("tom");
  EXPECT_NE(l.set_cookie.find("; Max-Age=600; Secure"), std::string::npos) << l.set_cookie;
  Reply out = Call("POST", "/api/logout", "", l.session, l.csrf);
  EXPECT_EQ(out.status, 200);
  EXPECT_NE(out.Header("set-cookie").find("Max-Age=0; Secure"), std::string::npos);
}

TEST_F(AuthGateTest, EveryLoginIsANewSessionAndEndsTheOldOne) {
  Start();
  Login a = LogIn("tom");
  Login other = LogIn("tom");  // another browser: both live
  EXPECT_NE(a.session, other.session);
  EXPECT_NE(a.csrf, other.csrf);
  Login b = LogIn("tom", kPassword, a.session);  // the first browser logs in again
  EXPECT_NE(a.session, b.session);
  EXPECT_EQ(Call("GET", "/api/things", "", a.session).status, 401);
  EXPECT_EQ(Call("GET", "/api/things", "", b.session).status, 200);
  EXPECT_EQ(Call("GET", "/api/things", "", other.session).status, 200);
}

TEST_F(AuthGateTest, LogoutEndsTheSessionAndNeedsItsCsrfToken) {
  Start();
  Login l = LogIn("tom");
  EXPECT_EQ(Call("POST", "/api/logout", "", l.session).status, 403);
  EXPECT_EQ(Call("GET", "/api/things", "", l.session).status, 200);
  Reply out = Call("POST", "/api/logout", "", l.session, l.csrf);
  EXPECT_EQ(out.status, 200);
  EXPECT_EQ(out.Header("set-cookie"),
            std::string(kSessionCookie) + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
  Reply after = Call("GET", "/api/things", "", l.session);
  EXPECT_EQ(after.status, 401);
  EXPECT_TRUE(after.body.contains("error"));
  EXPECT_EQ(Call("POST", "/api/logout", "", l.session).status, 200);  // already gone: fine
}

TEST_F(AuthGateTest, ExpiredSessionIsRefused) {
  config_.session_ttl_s = 3600;
  Start();
  Login l = LogIn("tom");
  clock_.Advance(seconds(3599));
  EXPECT_EQ(Call("GET", "/api/things", "", l.session).status, 200);
  clock_.Advance(seconds(2));
  EXPECT_EQ(Call("GET", "/api/things", "", l.session).status, 401);
  EXPECT_EQ(Call("POST", "/api/things/1/poke", "{}", l.session, l.csrf).status, 401);
  // /api/me answers as anonymous and clears the stale cookie.
  Reply me = Call("GET", "/api/me", "", l.session);
  EXPECT_EQ(me.status, 200);
  EXPECT_EQ(me.body["authenticated"], false);
  EXPECT_NE(me.Header("set-cookie").find("Max-Age=0"), std::string::npos);
  EXPECT_EQ(pokes_, 0);
}

TEST_F(AuthGateTest, BearerTokens) {
  Start();
  auto t = auth_->CreateToken("tom", "ci");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  Reply r = Call("GET", "/api/things", "", "", "", t->token);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, (Json{{"who", "tom"}, {"via", "token"}}));
  // No CSRF token needed: a script's request carries no ambient credentials.
  EXPECT_EQ(Call("POST", "/api/things/3/poke", "{}", "", "", t->token).status, 200);
  EXPECT_EQ(Call("GET", "/api/me", "", "", "", t->token).body["via"], "token");
  auto listed = auth_->ListTokens();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->at(0).last_used_at, ToEpochSeconds(clock_.Now()));
  EXPECT_EQ(listed->at(0).prefix, t->token.substr(0, 11));

  EXPECT_EQ(Call("GET", "/api/things", "", "", "", t->token + "x").status, 401);
  EXPECT_EQ(Call("GET", "/api/things", "", "", "", "ufmr_unknown").status, 401);
  EXPECT_EQ(Call("GET", "/api/me", "", "", "", "ufmr_unknown").status, 401);
  {
    HttpClientOptions options;
    options.basic_user = "tom";
    options.basic_password = kPassword;
    HttpClient basic(options);
    auto b = basic.Get(base_ + "/api/things");
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->status, 401);
  }
  ASSERT_TRUE(auth_->RevokeToken(t->id).ok());
  EXPECT_EQ(auth_->RevokeToken(t->id).code(), Status::Code::kConflict);
  EXPECT_EQ(auth_->RevokeToken(999).code(), Status::Code::kNotFound);
  EXPECT_EQ(Call("GET", "/api/things", "", "", "", t->token).status, 401);
  EXPECT_EQ(Call("POST", "/api/things/3/poke", "{}", "", "", t->token).status, 401);
  EXPECT_EQ(pokes_, 1);

  // A disabled user's tokens and sessions end with the user.
  auto t2 = auth_->CreateToken("erin", "");
  ASSERT_TRUE(t2.ok());
  Login l = LogIn("erin");
  ASSERT_TRUE(auth_->DisableUser("erin").ok());
  EXPECT_EQ(Call("GET", "/api/things", "", "", "", t2->token).status, 401);
  EXPECT_EQ(Call("GET", "/api/things", "", l.session).status, 401);
  EXPECT_EQ(auth_->CreateToken("erin", "").status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(auth_->CreateToken("nobody", "").status().code(), Status::Code::kNotFound);
}

TEST_F(AuthGateTest, AnonymousMayNeverMutate) {
  Start();
  EXPECT_EQ(Call("GET", "/api/things").status, 401);
  EXPECT_EQ(Call("POST", "/api/things/1/poke", "{}").status, 401);
  EXPECT_EQ(Call("GET", "/api/audit").status, 401);
  EXPECT_EQ(pokes_, 0);
}

TEST_F(AuthGateTest, AnonymousReadsWhenConfigured) {
  config_.anonymous_read = true;
  Start();
  Reply r = Call("GET", "/api/things");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body["via"], "anonymous");
  EXPECT_EQ(Call("GET", "/api/me").body["anonymous_read"], true);
  EXPECT_EQ(Call("POST", "/api/things/1/poke", "{}").status, 401);
  EXPECT_EQ(Call("GET", "/api/audit").status, 401);  // admins only, whatever the config
  EXPECT_EQ(pokes_, 0);
}

TEST_F(AuthGateTest, RolesAndCsrf) {
  Start();
  Login vera = LogIn("vera");
  Login tom = LogIn("tom");
  Login erin = LogIn("erin");
  Login ada = LogIn("ada");
  EXPECT_EQ(Call("GET", "/api/things", "", vera.session).status, 200);
  Reply refused = Call("POST", "/api/things/1/poke", "{}", vera.session, vera.csrf);
  EXPECT_EQ(refused.status, 403);
  EXPECT_TRUE(refused.body.contains("error"));
  EXPECT_EQ(Call("POST", "/api/things/1/drop", "{}", tom.session, tom.csrf).status, 403);
  EXPECT_EQ(Call("POST", "/api/things/1/drop", "{}", erin.session, erin.csrf).status, 409);
  EXPECT_EQ(Call("POST", "/api/things/1/drop", "{}", ada.session, ada.csrf).status, 409);
  // CSRF: missing, another session's, then the right one.
  EXPECT_EQ(Call("POST", "/api/things/1/poke", "{}", tom.session).status, 403);
  EXPECT_EQ(Call("POST", "/api/things/1/poke", "{}", tom.session, erin.csrf).status, 403);
  EXPECT_EQ(Call("POST", "/api/things/1/poke", "{}", tom.session, tom.csrf + "x").status, 403);
  EXPECT_EQ(pokes_, 0);
  EXPECT_EQ(Call("POST", "/api/things/1/poke", "{}", tom.session, tom.csrf).status, 200);
  EXPECT_EQ(pokes_, 1);
  // The audit log is for admins.
  EXPECT_EQ(Call("GET", "/api/audit", "", erin.session).status, 403);
  EXPECT_EQ(Call("GET", "/api/audit", "", ada.session).status, 200);
}

TEST_F(AuthGateTest, MutationsAreAuditedWithoutSecrets) {
  Start();
  Login tom = LogIn("tom");
  EXPECT_EQ(Call("POST", "/api/things/7/poke",
                 R"({"note":"reseated","password":"p1","nested":{"api_token":"t1","ok":1},)"
                 R"("client_secret":"s1"})",
                 tom.session, tom.csrf)
                .status,
            200);
  EXPECT_EQ(Call("POST", "/api/things/8/poke", "not json at all", tom.session, tom.csrf).status,
            200);
  EXPECT_EQ(Call("POST", "/api/things/9/poke", "{}", tom.session).status, 403);
  EXPECT_EQ(Call("POST", "/api/things/10/poke", "{}").status, 401);
  std::string big = Json{{"note", std::string(10000, 'x')}}.dump();
  EXPECT_EQ(Call("POST", "/api/things/11/poke", big, tom.session, tom.csrf).status, 200);

  std::vector<AuditEntry> entries = Audit();
  std::map<std::string, AuditEntry> by_target;
  for (const auto& e : entries) {
    if (e.action == "thing.poke") by_target[e.target] = e;
  }
  ASSERT_EQ(by_target.size(), 5u);
  const AuditEntry& a = by_target["id=7"];
  EXPECT_EQ(a.actor, "tom");
  EXPECT_EQ(a.role, "technician");
  EXPECT_EQ(a.via, "session");
  EXPECT_EQ(a.method, "POST");
  EXPECT_EQ(a.path, "/api/things/7/poke");
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.fabric, "fab-a");
  EXPECT_EQ(a.at, ToEpochSeconds(clock_.Now()));
  EXPECT_EQ(a.details, (Json{{"note", "reseated"}, {"nested", {{"ok", 1}}}}));
  EXPECT_EQ(by_target["id=8"].details, (Json{{"body_bytes", 15}}));
  EXPECT_EQ(by_target["id=9"].status, 403);
  EXPECT_EQ(by_target["id=9"].actor, "tom");
  EXPECT_EQ(by_target["id=10"].status, 401);
  EXPECT_EQ(by_target["id=10"].actor, "");
  EXPECT_EQ(by_target["id=10"].via, "anonymous");
  EXPECT_EQ(by_target["id=11"].details["truncated"], true);
  EXPECT_LE(by_target["id=11"].details.dump().size(), 4200u);

  // Logins are audited too; the list is newest first and admins read it over HTTP.
  Login ada = LogIn("ada");
  Reply r = Call("GET", "/api/audit?limit=3", "", ada.session);
  ASSERT_EQ(r.status, 200);
  ASSERT_EQ(r.body["entries"].size(), 3u);
  EXPECT_EQ(r.body["entries"][0]["action"], "login");
  EXPECT_EQ(r.body["entries"][0]["actor"], "ada");
  EXPECT_GT(r.body["entries"][0]["id"], r.body["entries"][1]["id"]);
  EXPECT_EQ(Call("GET", "/api/audit?limit=0", "", ada.session).status, 400);
  EXPECT_EQ(Call("GET", "/api/audit?limit=x", "", ada.session).status, 400);

  std::string all = Call("GET", "/api/audit?limit=1000", "", ada.session).body.dump();
  for (const char* secret : {"p1", "t1", "s1", kPassword}) {
    EXPECT_EQ(all.find(std::string("\"") + secret + "\""), std::string::npos) << secret;
  }
  EXPECT_EQ(all.find(kPassword), std::string::npos);
  EXPECT_EQ(all.find(tom.session), std::string::npos);
  EXPECT_EQ(all.find(tom.csrf), std::string::npos);
}

// A name that holds a newline would write a line of its own into a text log (a forged "login:
// admin" entry); it is logged escaped, on the line that refused it.
TEST_F(AuthGateTest, ALoginNameCannotForgeALogLine) {
  std::ostringstream log;
  auto logger = std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  logger->set_pattern("%l %v");
  spdlog::set_default_logger(logger);
  config_.login_max_failures = 2;
  Start();
  const std::string forged = "x\ninfo login: admin (admin)";
  for (int i = 0; i < 3; ++i) {
    Call("POST", "/api/login", Json{{"name", forged}, {"password", "wrong-one"}}.dump());
  }
  logger->flush();
  std::istringstream lines(log.str());
  int refused = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_NE(line.rfind("info login: admin", 0), 0u) << "a forged line:\n" << log.str();
    refused += line.find("x\\x0ainfo login: admin (admin)") != std::string::npos;
  }
  EXPECT_GE(refused, 2) << log.str();
}

TEST_F(AuthGateTest, SecretsAreNeverLogged) {
  std::ostringstream log;
  auto logger = std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  logger->set_level(spdlog::level::trace);
  spdlog::set_default_logger(logger);
  config_.login_max_failures = 2;
  Start();
  Login tom = LogIn("tom");
  EXPECT_EQ(
      Call("POST", "/api/login", Json{{"name", "tom"}, {"password", "wrong-one-1"}}.dump()).status,
      401);
  EXPECT_EQ(
      Call("POST", "/api/login", Json{{"name", "tom"}, {"password", "wrong-one-2"}}.dump()).status,
      401);
  EXPECT_EQ(
      Call("POST", "/api/login", Json{{"name", "tom"}, {"password", kPassword}}.dump()).status,
      429);
  auto t = auth_->CreateToken("tom", "");
  ASSERT_TRUE(t.ok());
  Call("POST", "/api/things/1/poke", Json{{"password", "in-a-body"}}.dump(), "", "", t->token);
  Call("GET", "/api/things", "", "", "", t->token + "bad");
  logger->flush();
  std::string text = log.str();
  EXPECT_NE(text.find("tom"), std::string::npos) << "nothing was logged: " << text;
  for (const std::string& secret :
       {std::string(kPassword), std::string("wrong-one-1"), std::string("wrong-one-2"),
        std::string("in-a-body"), tom.session, tom.csrf, t->token}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in:\n" << text;
  }
}

TEST_F(AuthGateTest, FailedLoginsAreThrottled) {
  config_.login_max_failures = 3;
  config_.login_lockout_s = 60;
  Start();
  Json wrong = {{"name", "tom"}, {"password", "not-the-password"}};
  Reply first = Call("POST", "/api/login", wrong.dump());
  EXPECT_EQ(first.status, 401);
  // An unknown name answers the same.
  Reply unknown = Call("POST", "/api/login", Json{{"name", "nobody"}, {"password", "x"}}.dump());
  EXPECT_EQ(unknown.status, 401);
  EXPECT_EQ(unknown.body, first.body);
  EXPECT_EQ(Call("POST", "/api/login", wrong.dump()).status, 401);
  EXPECT_EQ(Call("POST", "/api/login", wrong.dump()).status, 401);
  // Locked: even the right password is refused, with Retry-After.
  Reply locked = Call("POST", "/api/login", Json{{"name", "tom"}, {"password", kPassword}}.dump());
  EXPECT_EQ(locked.status, 429);
  EXPECT_EQ(locked.Header("retry-after"), "60");
  EXPECT_TRUE(locked.Header("set-cookie").empty());
  clock_.Advance(seconds(45));
  EXPECT_EQ(Call("POST", "/api/login", wrong.dump()).Header("retry-after"), "15");
  // Other names are not locked.
  LogIn("erin");
  clock_.Advance(seconds(16));
  LogIn("tom");
  // A success starts the count afresh.
  EXPECT_EQ(Call("POST", "/api/login", wrong.dump()).status, 401);
  EXPECT_EQ(Call("POST", "/api/login", wrong.dump()).status, 401);
  LogIn("tom");
}

TEST_F(AuthGateTest, BadLoginsAndDisabledUsers) {
  Start();
  EXPECT_EQ(Call("POST", "/api/login", "").status, 400);
  EXPECT_EQ(Call("POST", "/api/login", "name=tom&password=x").status, 400);
  EXPECT_EQ(Call("POST", "/api/login", R"({"name":"tom"})").status, 400);
  EXPECT_EQ(Call("POST", "/api/login", R"({"name":"tom","password":5})").status, 400);
  EXPECT_EQ(Call("GET", "/api/login").status, 405);
  ASSERT_TRUE(auth_->DisableUser("vera").ok());
  Reply r = Call("POST", "/api/login", Json{{"name", "vera"}, {"password", kPassword}}.dump());
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body["error"], "wrong name or password");
  // A changed password ends the user's sessions; the new one works.
  Login tom = LogIn("tom");
  ASSERT_TRUE(auth_->SetPassword("tom", "a-new-password").ok());
  EXPECT_EQ(Call("GET", "/api/things", "", tom.session).status, 401);
  LogIn("tom", "a-new-password");
  EXPECT_EQ(auth_->SetPassword("tom", "short").code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(auth_->AddUser("tom", Role::kAdmin, kPassword).code(), Status::Code::kConflict);
  EXPECT_EQ(auth_->AddUser("bad name", Role::kAdmin, kPassword).code(),
            Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace ufmr

namespace ufmr {
namespace {

TEST_F(AuthGateTest, ANameWithANulByteNeverReachesTheUser) {
  config_.login_max_failures = 2;
  config_.login_lockout_s = 60;
  Start();
  // The database would cut "tom\0..." at the NUL: it must not log in as tom.
  auto nul_login = [&](const std::string& suffix) {
    return Call("POST", "/api/login",
                R"({"name":"tom\u0000)" + suffix + R"(","password":")" + kPassword + R"("})");
  };
  EXPECT_EQ(nul_login("a").status, 401);
  // Nor get around tom's lockout with a different suffix each time.
  Json wrong = {{"name", "tom"}, {"password", "not-the-password"}};
  EXPECT_EQ(Call("POST", "/api/login", wrong.dump()).status, 401);
  EXPECT_EQ(Call("POST", "/api/login", wrong.dump()).status, 401);
  EXPECT_EQ(
      Call("POST", "/api/login", Json{{"name", "tom"}, {"password", kPassword}}.dump()).status,
      429);
  for (const char* suffix : {"b", "c", "d"}) {
    Reply r = nul_login(suffix);
    EXPECT_EQ(r.status, 401) << suffix;
    EXPECT_TRUE(r.Header("set-cookie").empty());
  }
}

TEST_F(AuthGateTest, LoginOnlyAsJsonAndNotFromAnotherSite) {
  Start();
  HttpClient form;
  auto r = form.PostForm(base_ + "/api/login", "name=tom&password=" + std::string(kPassword));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 415) << r->body;
  HttpClient cross;
  cross.SetHeader("Sec-Fetch-Site", "cross-site");
  r = cross.Post(base_ + "/api/login", Json{{"name", "tom"}, {"password", kPassword}}.dump());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 403) << r->body;
  EXPECT_TRUE(r->Header("set-cookie").empty());
  HttpClient same;
  same.SetHeader("Sec-Fetch-Site", "same-origin");
  r = same.Post(base_ + "/api/login", Json{{"name", "tom"}, {"password", kPassword}}.dump());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200) << r->body;
}

TEST_F(AuthGateTest, AChangeIsAuditedBeforeItIsMadeEvenWithANulInItsBody) {
  Start();
  Login tom = LogIn("tom");
  Reply r = Call("POST", "/api/things/7/poke", R"({"note":"a\u0000b"})", tom.session, tom.csrf);
  EXPECT_EQ(r.status, 200) << r.body.dump();
  EXPECT_EQ(pokes_.load(), 1);
  bool found = false;
  for (const auto& e : Audit()) {
    if (e.action != "thing.poke") continue;
    found = true;
    EXPECT_EQ(e.actor, "tom");
    EXPECT_EQ(e.status, 200) << "the answer replaces the pending status";
    EXPECT_EQ(e.details["note"],
              "a\xef\xbf\xbd"
              "b")
        << e.details.dump();
  }
  EXPECT_TRUE(found) << "no audit row for the change";
}

}  // namespace
}  // namespace ufmr

namespace ufmr {
namespace {

TEST_F(AuthGateTest, AChangeThatCannotBeAuditedIsNotMade) {
  Start();
  Login tom = LogIn("tom");
  // The audit log cannot be written (as if its table were gone): the change must not happen.
  ASSERT_TRUE(store_
                  ->Run([](pqxx::work& w) {
                    w.exec("ALTER TABLE audit_log RENAME TO audit_log_away");
                    return Status::Ok();
                  })
                  .ok());
  Reply r = Call("POST", "/api/things/7/poke", "{}", tom.session, tom.csrf);
  EXPECT_EQ(r.status, 503) << r.body.dump();
  EXPECT_EQ(pokes_.load(), 0) << "the handler ran without an audit row";
  ASSERT_TRUE(store_
                  ->Run([](pqxx::work& w) {
                    w.exec("ALTER TABLE audit_log_away RENAME TO audit_log");
                    return Status::Ok();
                  })
                  .ok());
  EXPECT_EQ(Call("POST", "/api/things/7/poke", "{}", tom.session, tom.csrf).status, 200);
  EXPECT_EQ(pokes_.load(), 1);
}

}  // namespace
}  // namespace ufmr

namespace ufmr {
namespace {

// A body of a million '[' then a million ']' (2 MB, under the body limit) once crashed the audit
// log's scrubbing, which walks a JSON value recursively. It is now audited by its length only,
// and the login refuses it as any other bad body.
TEST_F(AuthGateTest, ADeeplyNestedBodyIsAuditedByItsLengthAndNothingCrashes) {
  Start();
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  EXPECT_EQ(Call("POST", "/api/things/7/poke", deep).status, 401);
  EXPECT_EQ(Call("POST", "/api/login", deep).status, 400);
  Login tom = LogIn("tom");
  EXPECT_EQ(Call("POST", "/api/things/7/poke", deep, tom.session, tom.csrf).status, 200);
  int by_length = 0;
  for (const auto& e : Audit()) {
    if (e.details.is_object() && e.details.value("body_bytes", size_t{0}) == deep.size()) {
      ++by_length;
    }
  }
  EXPECT_EQ(by_length, 3) << "the anonymous poke, the login and tom's poke";
  // Still serving.
  EXPECT_EQ(Call("GET", "/api/me").status, 200);
}

}  // namespace
}  // namespace ufmr
