// End to end: the real ufm-remediator never writes a secret to its output or its HTTP answers.
// Distinctive secrets (the UFM password in the file and, winning over it, in
// UFM_REMEDIATOR_UFM_PASSWORD; a UFM token; a database URL with a password) are given to the
// built binary at --log-level trace, with log.format text and json, in: `config check`;
// `db migrate`; `serve` against ufm-sim with basic, session and token auth until it is ready;
// `serve` while UFM refuses the password; `serve` with UFM unreachable; `serve` and `db migrate`
// with the database unreachable, and with a database URL libpq cannot parse. Each run's
// stdout+stderr, and the bodies and headers of /healthz, /readyz, /metrics, the dashboard and the
// GET APIs, must contain none of the secrets (nor the base64 of user:password that basic auth
// sends), and must show the run did what it was meant to (so an empty or broken run cannot pass).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "http/http_server.h"
#include "support/http_receiver.h"
#include "support/service_process.h"
#include "support/shipped_rules.h"
#include "support/sim_process.h"
#include "support/test_env.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

using json = nlohmann::json;
using std::chrono::seconds;
using testing::BinaryDir;
using testing::ChildProcess;
using testing::SourceDir;
using testing::WaitUntil;

// Letters and digits only, so JSON escaping, form encoding and URL encoding leave them as they
// are: a leak shows up verbatim in either log format.
constexpr const char* kUser = "admin";
constexpr const char* kFilePassword = "FilePw7Qx9Zk2Lp";  // in config.yaml, overridden by ...
constexpr const char* kEnvPassword = "EnvPw4Rt8Yh6Nc";    // ... UFM_REMEDIATOR_UFM_PASSWORD
constexpr const char* kFileToken = "FileTok8Hs2Jd5Kq";    // ufm.token that UFM does not know
constexpr const char* kDbPassword = "DbPw3Lm5Wq1Vb";      // in database.url

std::string Base64(const std::string& in) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v =
        (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
    for (int s : {18, 12, 6, 0}) out += kAlphabet[(v >> s) & 63];
  }
  if (i + 1 == in.size()) {
    unsigned v = (unsigned char)in[i] << 16;
    out += std::string{kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8;
    out += std::string{kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63],
                       kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

// The value of `key` in a libpq keyword string ("host=/tmp/x port=5432 dbname=t1 user=postgres").
std::string Keyword(const std::string& conninfo, const std::string& key) {
  size_t at = (" " + conninfo).find(" " + key + "=");
  if (at == std::string::npos) return "";
  size_t start = at + key.size() + 1;
  return conninfo.substr(start, conninfo.find(' ', start) - start);
}

class SecretsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("ufmr-secrets");
    // The test server listens on a Unix socket and trusts local users: the password in the URI
    // is accepted and ignored, as a real server's would be checked.
    std::string conninfo = testing::TestPostgres::Get().CreateDatabase();
    db_url_ = "postgresql://" + Keyword(conninfo, "user") + ":" + kDbPassword + "@/" +
              Keyword(conninfo, "dbname") + "?host=" + Keyword(conninfo, "host") +
              "&port=" + Keyword(conninfo, "port");
    secrets_ = {kFilePassword, kEnvPassword, kFileToken, kDbPassword};
    for (const char* p : {kFilePassword, kEnvPassword}) {
      secrets_.push_back(Base64(std::string(kUser) + ":" + p));
      secrets_.push_back(Base64(p));
    }
  }

  void TearDown() override {
    unsetenv("UFM_REMEDIATOR_UFM_PASSWORD");
    sim_.reset();
    testing::RemoveTree(dir_);
  }

  std::string format() const { return GetParam(); }

  void StartSim() {
    sim_ = std::make_unique<testing::SimProcess>(
        dir_, std::vector<std::string>{"--topology", "fat-tree:leaves=2,spines=1,hosts_per_leaf=2",
                                       "--password", kEnvPassword});
    ASSERT_TRUE(sim_->AwaitReady());
    sim_url_ = sim_->url();
    telemetry_url_ = sim_->telemetry_url();
  }

  // A token UFM (the simulator) issued, for auth: token; a secret like the others.
  std::string IssueToken() {
    HttpClientOptions o;
    o.basic_user = kUser;
    o.basic_password = kEnvPassword;
    HttpClient http(o);
    auto r = http.Post(sim_url_ + "/ufmRest/app/tokens", "{}");
    EXPECT_TRUE(r.ok() && r->status == 200) << (r.ok() ? r->body : r.status().ToString());
    if (!r.ok()) return "";
    std::string token = json::parse(r->body).value("access_token", "");
    EXPECT_GE(token.size(), 8u) << r->body;
    return token;
  }

  // A config; `ufm` is the ufm section's lines after url.
  std::string ConfigYaml(const std::string& ufm_url, const std::string& ufm,
                         const std::string& db_url, const std::string& telemetry_url,
                         int http_port) const {
    return "fabric: secrets\n"
           "ufm:\n  url: " +
           ufm_url + "\n" + ufm +
           "  timeout_s: 1\n  retries: 0\n"
           "telemetry:\n  url: \"" +
           telemetry_url +
           "\"\n  interval_s: 0.5\n"
           "database:\n  url: \"" +
           db_url + "\"\n  schema_dir: " + SourceDir() +
           "/schema\n"
           "rules:\n  dir: " +
           SourceDir() +
           "/rules\n"
           "events:\n  poll_interval_s: 0.3\n"
           "inventory:\n  refresh_interval_s: 1\n"
           "http:\n  listen: 127.0.0.1\n  port: " +
           std::to_string(http_port) +
           "\n"
           "auth:\n  anonymous_read: true\n"
           "log:\n  format: " +
           format() +
           "\n"
           "remediation:\n  dry_run: true\n";
  }

  // Writes a config of ConfigYaml's to <dir>/<name>.yaml; returns its path.
  std::string WriteConfig(const std::string& name, const std::string& ufm_url,
                          const std::string& ufm, const std::string& db_url,
                          const std::string& telemetry_url, int http_port) {
    const std::string path = dir_ + "/" + name + ".yaml";
    testing::WriteFile(path, ConfigYaml(ufm_url, ufm, db_url, telemetry_url, http_port));
    return path;
  }

  // An instance of the service, its config one of ConfigYaml's with the database under test.
  std::unique_ptr<testing::ServiceProcess> Service(const std::string& name,
                                                   const std::string& ufm_url,
                                                   const std::string& ufm,
                                                   const std::string& telemetry_url) {
    auto service = std::make_unique<testing::ServiceProcess>(dir_, name);
    service->WriteConfig(ConfigYaml(ufm_url, ufm, db_url_, telemetry_url, service->port()));
    return service;
  }

  std::string BasicUfm() const {
    return std::string("  auth: basic\n  user: ") + kUser + "\n  password: " + kFilePassword + "\n";
  }

  // Runs a command of the binary to its end; returns its stdout+stderr.
  std::string RunToEnd(const std::string& name, std::vector<std::string> args) {
    args.insert(args.begin(), BinaryDir() + "/ufm-remediator");
    ChildProcess p(args, dir_ + "/" + name + ".log");
    EXPECT_TRUE(WaitUntil([&] { return !p.running(); }, seconds(60))) << name;
    return p.Log();
  }

  struct ServeRun {
    std::string log;
    std::string http;  // every answer's status, headers and body
    bool condition_met = false;
  };

  // `serve` at trace level until `condition` holds (or 20 s), two more seconds of its loops, the
  // dashboard and GET APIs read, then SIGTERM.
  ServeRun Serve(testing::ServiceProcess& service,
                 const std::function<bool(HttpClient&, const std::string&)>& condition) {
    ServeRun run;
    service.Start({.log_level = "trace", .crash_at = ""});
    HttpClient http;
    run.condition_met =
        WaitUntil([&] { return condition(http, service.Log()) || !service.running(); },
                  seconds(20)) &&
        condition(http, service.Log());
    if (service.running()) {
      std::this_thread::sleep_for(seconds(2));
      for (const char* path : {"/healthz", "/readyz", "/metrics", "/", "/login", "/api/inputs",
                               "/api/rules", "/api/breaker", "/api/alerts", "/api/decisions",
                               "/api/tickets", "/api/silences", "/api/me", "/api/tickets.csv"}) {
        auto r = http.Get(service.api() + path);
        run.http += std::string("GET ") + path + " -> ";
        if (!r.ok()) {
          run.http += r.status().ToString() + "\n";
          continue;
        }
        run.http += std::to_string(r->status) + "\n";
        for (const auto& [k, v] : r->headers) run.http += k + ": " + v + "\n";
        run.http += r->body + "\n";
      }
      EXPECT_NE(run.http.find("GET /metrics -> 200"), std::string::npos) << run.http;
      EXPECT_NE(run.http.find("ufmr_"), std::string::npos) << run.http;
      service.Stop();
    }
    run.log = service.Log();
    return run;
  }

  // The test's core: no secret in `text`, and the run left evidence that it ran.
  void ExpectNoSecrets(const std::string& what, const std::string& text) {
    EXPECT_FALSE(text.empty()) << what << ": no output at all, so nothing was checked";
    for (const auto& secret : secrets_) {
      size_t at = text.find(secret);
      if (at == std::string::npos) continue;
      size_t from = text.rfind('\n', at);
      from = from == std::string::npos ? 0 : from + 1;
      ADD_FAILURE() << "FAIL: SECRET LEAKED in " << what << " (format " << format()
                    << "): " << secret
                    << "\n  in: " << text.substr(from, text.find('\n', at) - from);
    }
  }

  // The log is in the configured format: JSON objects, or text lines with a level word.
  void ExpectFormat(const std::string& what, const std::string& log) {
    if (format() == "json") {
      EXPECT_NE(log.find("{\"time\""), std::string::npos) << what << ":\n" << log;
    } else {
      EXPECT_EQ(log.find("{\"time\""), std::string::npos) << what << ":\n" << log;
    }
  }

  std::string dir_, db_url_, sim_url_, telemetry_url_;
  std::vector<std::string> secrets_;
  std::unique_ptr<testing::SimProcess> sim_;
};

TEST_P(SecretsTest, ConfigCheckAndMigrate) {
  ASSERT_EQ(setenv("UFM_REMEDIATOR_UFM_PASSWORD", kEnvPassword, 1), 0);
  const std::string basic = WriteConfig("basic", "http://127.0.0.1:9", BasicUfm(), db_url_,
                                        "http://127.0.0.1:9/csv/metrics", 0);
  std::string out = RunToEnd("check-basic", {"config", "check", basic, "--log-level", "trace"});
  ExpectNoSecrets("config check (basic)", out);
  EXPECT_NE(out.find("basic.yaml: ok"), std::string::npos) << out;
  EXPECT_NE(out.find("password set (from UFM_REMEDIATOR_UFM_PASSWORD)"), std::string::npos) << out;

  const std::string token =
      WriteConfig("token", "http://127.0.0.1:9",
                  std::string("  auth: token\n  token: ") + kFileToken + "\n", db_url_, "", 0);
  out = RunToEnd("check-token", {"config", "check", token, "--log-level", "trace"});
  ExpectNoSecrets("config check (token)", out);
  EXPECT_NE(out.find("token.yaml: ok"), std::string::npos) << out;

  // A config error after the secrets: the message names the key, never a value.
  const std::string broken = dir_ + "/broken.yaml";
  testing::WriteFile(broken, testing::ReadFile(basic) + "surprise: " + kFilePassword + "\n");
  out = RunToEnd("check-broken", {"config", "check", broken, "--log-level", "trace"});
  ExpectNoSecrets("config check (unknown key)", out);
  EXPECT_NE(out.find("surprise: unknown key"), std::string::npos) << out;

  out = RunToEnd("migrate", {"db", "migrate", "--config", basic, "--log-level", "trace"});
  ExpectNoSecrets("db migrate", out);
  EXPECT_NE(out.find("up to date"), std::string::npos) << out;
}

TEST_P(SecretsTest, ServeAgainstTheSimulator) {
  ASSERT_NO_FATAL_FAILURE(StartSim());
  const std::string token = IssueToken();
  ASSERT_FALSE(token.empty());
  secrets_.push_back(token);
  ASSERT_EQ(setenv("UFM_REMEDIATOR_UFM_PASSWORD", kEnvPassword, 1), 0);
  const struct {
    const char* name;
    std::string ufm;
  } modes[] = {
      {"basic", BasicUfm()},
      {"session",
       std::string("  auth: session\n  user: ") + kUser + "\n  password: " + kFilePassword + "\n"},
      {"token", "  auth: token\n  token: " + token + "\n"},
  };
  bool migrated = false;
  for (const auto& mode : modes) {
    SCOPED_TRACE(mode.name);
    auto service = Service(std::string("serve-") + mode.name, sim_url_, mode.ufm, telemetry_url_);
    if (!migrated) {
      ASSERT_TRUE(service->Migrate());
      migrated = true;
    }
    // Ready: UFM answered (with the right secret) and its ports are known.
    ServeRun run = Serve(*service, [&](HttpClient& http, const std::string&) {
      auto r = http.Get(service->api() + "/readyz");
      return r.ok() && r->status == 200;
    });
    EXPECT_TRUE(run.condition_met) << "never ready\n" << run.log << run.http;
    EXPECT_NE(run.log.find("startup: open database: ok"), std::string::npos) << run.log;
    ExpectFormat(std::string("serve ") + mode.name, run.log);
    ExpectNoSecrets(std::string("serve log, ") + mode.name + " auth", run.log);
    ExpectNoSecrets(std::string("HTTP answers, ") + mode.name + " auth", run.http);
  }
}

TEST_P(SecretsTest, ServeWhileUfmRefusesOrIsUnreachable) {
  ASSERT_NO_FATAL_FAILURE(StartSim());
  bool migrated = false;
  const int closed = testing::FreePort();
  const struct {
    const char* name;
    std::string url;
    std::string ufm;
    bool env_password;
  } cases[] = {
      // The file's password, which the simulator does not take: 401 on every request.
      {"refused-basic", sim_url_, BasicUfm(), false},
      {"refused-session", sim_url_,
       std::string("  auth: session\n  user: ") + kUser + "\n  password: " + kFilePassword + "\n",
       false},
      {"refused-token", sim_url_, std::string("  auth: token\n  token: ") + kFileToken + "\n",
       false},
      {"unreachable-basic", "http://127.0.0.1:" + std::to_string(closed), BasicUfm(), true},
      {"unreachable-token", "http://127.0.0.1:" + std::to_string(closed),
       std::string("  auth: token\n  token: ") + kFileToken + "\n", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    if (c.env_password) {
      ASSERT_EQ(setenv("UFM_REMEDIATOR_UFM_PASSWORD", kEnvPassword, 1), 0);
    } else {
      unsetenv("UFM_REMEDIATOR_UFM_PASSWORD");
    }
    auto service = Service(c.name, c.url, c.ufm,
                           "http://127.0.0.1:" + std::to_string(closed) + "/csv/metrics");
    if (!migrated) {
      ASSERT_TRUE(service->Migrate());
      migrated = true;
    }
    // Until the failures are logged: the inventory, and (as leader) that the inputs wait for it
    // (events are read only once UFM's ports are known).
    ServeRun run = Serve(*service, [](HttpClient&, const std::string& log) {
      return log.find("inventory refresh failed") != std::string::npos &&
             log.find("inputs wait until UFM's ports have been read") != std::string::npos;
    });
    EXPECT_TRUE(run.condition_met) << "the UFM failures were never logged\n" << run.log;
    ExpectFormat(c.name, run.log);
    ExpectNoSecrets(std::string("serve log, ") + c.name, run.log);
    ExpectNoSecrets(std::string("HTTP answers, ") + c.name, run.http);
    EXPECT_NE(run.http.find("GET /readyz -> 503"), std::string::npos) << run.http;
  }
}

TEST_P(SecretsTest, ServeWithTheDatabaseUnreachable) {
  ASSERT_EQ(setenv("UFM_REMEDIATOR_UFM_PASSWORD", kEnvPassword, 1), 0);
  const int closed = testing::FreePort();
  const std::string url = std::string("postgresql://ufmr:") + kDbPassword +
                          "@127.0.0.1:" + std::to_string(closed) + "/ufmr?connect_timeout=2";
  const std::string keywords = std::string("host=127.0.0.1 port=") + std::to_string(closed) +
                               " dbname=ufmr user=ufmr password=" + kDbPassword +
                               " connect_timeout=2";
  for (const std::string& db : {url, keywords}) {
    SCOPED_TRACE(db);
    std::string config = WriteConfig("db-down", "http://127.0.0.1:9", BasicUfm(), db,
                                     "http://127.0.0.1:9/csv/metrics", testing::FreePort());
    std::string log =
        RunToEnd("serve-db-down", {"serve", "--config", config, "--log-level", "trace"});
    EXPECT_NE(log.find("startup: open database:"), std::string::npos) << log;
    EXPECT_EQ(log.find("startup: open database: ok"), std::string::npos) << log;
    ExpectFormat("serve, database unreachable", log);
    ExpectNoSecrets("serve log, database unreachable", log);

    std::string out = RunToEnd("migrate-db-down", {"db", "migrate", "--config", config});
    EXPECT_NE(out.find("PostgreSQL"), std::string::npos) << out;
    ExpectNoSecrets("db migrate, database unreachable", out);
  }
}

// A database URL libpq cannot parse, e.g. a password with a '%' that is not percent-encoded (a
// common slip): libpq's error quotes the offending part of the URL, password and all. The store
// removes the URL's password from libpq's messages (src/config/db_url.h) before `serve`'s startup
// log and `db migrate`'s (and `user`/`token`'s) stderr show them.
TEST_P(SecretsTest, ServeWithAMalformedDatabaseUrl) {
  constexpr const char* kRawPercentPassword = "DbPw%Zq8Rn2Tx";  // libpq: invalid percent-encoding
  secrets_.push_back(kRawPercentPassword);
  ASSERT_EQ(setenv("UFM_REMEDIATOR_UFM_PASSWORD", kEnvPassword, 1), 0);
  const int closed = testing::FreePort();
  for (const std::string& db : {std::string("postgresql://ufmr:") + kRawPercentPassword +
                                    "@127.0.0.1:" + std::to_string(closed) + "/ufmr",
                                std::string("postgresql://ufmr:") + kDbPassword + "@[::1/ufmr"}) {
    SCOPED_TRACE(db);
    std::string config = WriteConfig("db-malformed", "http://127.0.0.1:9", BasicUfm(), db,
                                     "http://127.0.0.1:9/csv/metrics", testing::FreePort());
    std::string out =
        RunToEnd("check-db-malformed", {"config", "check", config, "--log-level", "trace"});
    ExpectNoSecrets("config check, malformed database URL", out);

    std::string log =
        RunToEnd("serve-db-malformed", {"serve", "--config", config, "--log-level", "trace"});
    EXPECT_NE(log.find("startup: open database:"), std::string::npos) << log;
    EXPECT_EQ(log.find("startup: open database: ok"), std::string::npos) << log;
    ExpectFormat("serve, malformed database URL", log);
    ExpectNoSecrets("serve log, malformed database URL", log);

    out = RunToEnd("migrate-db-malformed", {"db", "migrate", "--config", config});
    EXPECT_NE(out.find("PostgreSQL"), std::string::npos) << out;
    ExpectNoSecrets("db migrate, malformed database URL", out);
  }
}

// Peers that echo what they were sent, as web frameworks' 4xx and 5xx pages do: two receivers whose
// URLs hold keys in their path and query (one answers 404, the other 503, each echoing the path
// and every header), and a UFM that answers 400, 401 and 503 echoing the path, the body and the
// Authorization header. The service's log, its HTTP answers (the failing receivers, inputs,
// metrics, tickets) and `notify test`'s output show none of the URLs, their key-like parts, the
// password or basic auth's header value, while the echoes themselves did arrive (masked).
TEST_P(SecretsTest, PeersThatEchoTheRequestLeakNothing) {
  ASSERT_NO_FATAL_FAILURE(StartSim());
  ASSERT_EQ(setenv("UFM_REMEDIATOR_UFM_PASSWORD", kEnvPassword, 1), 0);
  testing::HttpReceiver refusing(404), failing(503);
  refusing.set_echo(true);
  failing.set_echo(true);
  const std::string refusing_url =
      refusing.Url("/services/T0HOOK404A/B0HOOK404B/xoxbEchoSecret404x?token=QueryTok404x");
  const std::string failing_url = failing.Url("/services/T0HOOK503A/B0HOOK503B/xoxbEcho503x");
  for (const std::string& s :
       {refusing_url, failing_url, std::string("T0HOOK404A"), std::string("B0HOOK404B"),
        std::string("xoxbEchoSecret404x"), std::string("QueryTok404x"), std::string("T0HOOK503A"),
        std::string("B0HOOK503B"), std::string("xoxbEcho503x")}) {
    secrets_.push_back(s);
  }
  const std::string notify =
      "notify:\n  retry_max_s: 1\n  receivers:\n"
      "    - {name: refusing, type: webhook, url: \"" +
      refusing_url + "\", timeout_s: 2}\n    - {name: failing, type: slack, url: \"" + failing_url +
      "\", timeout_s: 2}\n  route:\n    group_wait: 1s\n    group_interval: 1s\n    routes:\n"
      "      - {receiver: refusing, continue: true}\n      - {receiver: failing}\n";
  auto service = std::make_unique<testing::ServiceProcess>(dir_, "echo");
  ASSERT_TRUE(testing::ShippedRulesWithShortHold(dir_ + "/rules"));  // a ticket, soon
  std::string config =
      ConfigYaml(sim_url_, BasicUfm(), db_url_, telemetry_url_, service->port()) + notify;
  const std::string shipped = "  dir: " + SourceDir() + "/rules\n";
  config.replace(config.find(shipped), shipped.size(), "  dir: " + dir_ + "/rules\n");
  service->WriteConfig(config);
  ASSERT_TRUE(service->Migrate());
  HttpClient http;
  auto post = [&](const std::string& path, const json& body) {
    auto r = http.Post(sim_url_ + path, body.dump());
    EXPECT_TRUE(r.ok() && r->status / 100 == 2) << path << (r.ok() ? r->body : "");
  };
  std::string failing_list;  // GET /api/notify/failing's last answer
  ServeRun run =
      Serve(*service, [&, queued = false](HttpClient& h, const std::string& log) mutable {
        if (!queued && log.find("resuming events") == std::string::npos &&
            log.find("skipping") == std::string::npos) {
          return false;
        }
        if (!queued) {
          queued = true;
          const json links = json::parse(http.Get(sim_url_ + "/sim/links")->body);
          post("/sim/faults", {{"kind", "link_down"}, {"port", links[0]["a"]["port"]}});
          for (const char* mode : {"echo_503", "echo_400", "echo_401"}) {
            post("/sim/misbehave", {{"mode", mode}, {"count", 3}});
          }
        }
        auto r = h.Get(service->api() + "/api/notify/failing");
        if (r.ok()) failing_list = r->body;
        return r.ok() && r->body.find("refusing") != std::string::npos &&
               r->body.find("failing") != std::string::npos &&
               log.find("Service Unavailable") != std::string::npos;
      });
  EXPECT_TRUE(run.condition_met) << "the echoes never came\n" << run.log;
  run.http += "GET /api/notify/failing -> " + failing_list + "\n";
  ExpectNoSecrets("serve log, echoing peers", run.log);
  ExpectNoSecrets("HTTP answers, echoing peers", run.http);
  // The echoes arrived, masked: the test saw what it meant to.
  EXPECT_NE(run.log.find("Cannot POST /services/***/***/***?token=***"), std::string::npos)
      << run.log;
  EXPECT_NE(run.log.find("Basic ***"), std::string::npos) << run.log;  // UFM's echo
  EXPECT_NE(failing_list.find("POST /services/***/***/***"), std::string::npos) << failing_list;
  testing::WriteFile(dir_ + "/echo-test.yaml", config);
  std::string out =
      RunToEnd("notify-test", {"notify", "test", "--config", dir_ + "/echo-test.yaml"});
  ExpectNoSecrets("notify test, echoing receivers", out);
  EXPECT_NE(out.find("refusing (webhook): NOT delivered: HTTP 404"), std::string::npos) << out;
  EXPECT_NE(out.find("failing (slack): NOT delivered: HTTP 503"), std::string::npos) << out;
}

INSTANTIATE_TEST_SUITE_P(LogFormats, SecretsTest, ::testing::Values("text", "json"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace ufmr
