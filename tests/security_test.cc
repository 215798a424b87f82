// Security of the real service, attacked over loopback as a client would: ufm-sim, a throwaway
// PostgreSQL and the built `ufm-remediator serve` with the default auth settings; one user of each
// role with an API token, made by `user add` and `token create` (testing::CreateApiToken).
// - Every route that changes something (each non-GET route that src/ registers, the simulator
// aside,
//   but POST /api/login, the way in) is in a table, which is checked against the source and
//   schema/openapi.yaml. Each: no credentials, an unknown token or a made-up session 401; every
//   role below its minimum 403, by token and by session; a cookie session of the minimum role
//   without its CSRF token or with a wrong one 403; that session with its token, and the
//   minimum role's token, get past the gate. Refused requests change nothing and are audited.
// - Sessions: a login from a browser that holds a session makes a new session id and CSRF token
//   and ends the old one; a planted session id (made up, or the attacker's own) is never adopted.
// - Failed logins: after auth.login_max_failures (the default) failures, 429 with Retry-After even
//   with the right password; an unknown name answers as a wrong password; other names unaffected.
// - SQL injection strings in every query parameter of GET /api/tickets, /api/tickets.csv,
//   /api/decisions, /api/audit and /api/silences: 200 with no extra rows or 400 with a JSON error,
//   never 5xx, no pg_sleep run, every table intact.
// - Hostile HTTP: a body over the server's 4 MiB limit (by Content-Length or chunked) is 413 and
//   the connection closed, exactly 4 MiB is not; a 100 kB header or request target, or 5,000
//   headers, are refused; stalled, trickling and idle connections (more than the server's
//   threads) are cut at its 30 s read timeout, unanswered, while other clients are served.
// - JSON nested 100,000 deep (arrays, and objects) as the body of the login and of every
//   mutation, with and without credentials: a 4xx, and the service lives on.
// - The dashboard has no HTML or script sinks, so text from UFM in any field stays text.
// - A database outage, and a table gone, are answered 503 (the probes: "unavailable") without
//   libpq's message, which names the server's socket, the database and the user.
// Each test starts its own PostgreSQL, simulator and service (ctest runs each test in a process
// of its own), so the checks are grouped into a few tests; the hostile requests are all sent while
// the slow clients hold their connections, whose 30 s timeout sets the file's pace (~45 s).
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "api/auth_gate.h"
#include "config/config.h"
#include "http/http_server.h"
#include "store/store.h"
#include "store/ticket.h"
#include "support/service_config.h"
#include "support/service_process.h"
#include "support/shipped_rules.h"
#include "support/sim_process.h"
#include "support/test_env.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

using Json = nlohmann::json;
using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::SourceDir;
using testing::WaitUntil;

// The password testing::CreateApiToken gives the users it adds.
constexpr const char* kPassword = "test-password-1";
// src/http/http_server.cc: a request body over kMaxBodyBytes is 413; a whole request must arrive
// within 30 s of its read starting (stream_.expires_after before each read), and an idle
// keep-alive connection is closed after as long.
constexpr size_t kBodyLimit = 4 * 1024 * 1024;
constexpr int kReadTimeoutS = 30;

constexpr Role kRoles[] = {Role::kViewer, Role::kTechnician, Role::kEngineer, Role::kAdmin};

// What a route's {id} stands for.
enum class IdOf { kNone, kTicket, kAlert, kSilence };

struct MutatingRoute {
  const char* method;
  const char* pattern;  // as registered
  Role min;             // the lowest role allowed
  IdOf id;
  const char* body;  // a valid body
  // POST /api/logout is the gate's own: it needs no role, and without a live session there is
  // nothing to end (200, docs/SECURITY.md section 2); a live session must send its CSRF token.
  bool logout;
};

// Every route that changes something but POST /api/login (docs/SECURITY.md section 2).
const MutatingRoute kMutatingRoutes[] = {
    {"POST", "/api/tickets/{id}/acknowledge", Role::kTechnician, IdOf::kTicket,
     R"({"note":"on my way"})", false},
    {"POST", "/api/tickets/{id}/assign", Role::kTechnician, IdOf::kTicket, R"({"to":"tess"})",
     false},
    {"POST", "/api/tickets/{id}/comments", Role::kTechnician, IdOf::kTicket,
     R"({"text":"checked the cable"})", false},
    {"POST", "/api/tickets/{id}/repaired", Role::kTechnician, IdOf::kTicket,
     R"({"kind":"reseat","note":"reseated both ends"})", false},
    {"POST", "/api/tickets/{id}/reopen", Role::kEngineer, IdOf::kTicket,
     R"({"reason":"still flapping"})", false},
    {"POST", "/api/tickets/{id}/wontfix", Role::kEngineer, IdOf::kTicket,
     R"({"reason":"decommissioned"})", false},
    {"POST", "/api/alerts/{id}/clear", Role::kEngineer, IdOf::kAlert, R"({"note":"seen"})", false},
    {"POST", "/api/silences", Role::kEngineer, IdOf::kNone,
     R"({"switch":"leaf-sec[0-9]+","reason":"PDU swap","duration":"2h"})", false},
    {"POST", "/api/silences/{id}/expire", Role::kEngineer, IdOf::kSilence, "{}", false},
    {"POST", "/api/breaker/rearm", Role::kEngineer, IdOf::kNone, R"({"note":"storm over"})", false},
    {"POST", "/api/logout", Role::kViewer, IdOf::kNone, "", true},
};

std::string RouteKey(const MutatingRoute& r) { return std::string(r.method) + " " + r.pattern; }

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Percent-encodes everything but RFC 3986's unreserved characters.
std::string UrlEncode(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

// j[key] when j is an object with an array there; else an empty array.
Json ArrayAt(const Json& j, const char* key) {
  if (j.is_object() && j.contains(key) && j[key].is_array()) return j[key];
  return Json::array();
}

// j[key] when j is an object with a number there; else -1.
long NumberAt(const Json& j, const char* key) {
  if (j.is_object() && j.contains(key) && j[key].is_number_integer()) return j[key].get<long>();
  return -1;
}

// The "id" of each object in `list`, in order.
std::vector<long> Ids(const Json& list) {
  std::vector<long> ids;
  for (const auto& item : list) ids.push_back(NumberAt(item, "id"));
  return ids;
}

std::string Str(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return "";
  return j[key].get<std::string>();
}

// The session id a Set-Cookie header carries ("" if none).
std::string CookieValue(const std::string& set_cookie) {
  const std::string prefix = std::string(kSessionCookie) + "=";
  if (set_cookie.rfind(prefix, 0) != 0) return "";
  return set_cookie.substr(prefix.size(), set_cookie.find(';') - prefix.size());
}

double SecondsSince(SteadyClock::time_point t) {
  return std::chrono::duration<double>(SteadyClock::now() - t).count();
}

// A whole HTTP response (its head, and the body its Content-Length announces) is in `s`.
bool WholeResponse(const std::string& s) {
  const size_t end = s.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  const std::string head = Lower(s.substr(0, end));
  const size_t at = head.find("\r\ncontent-length:");
  const size_t length = at == std::string::npos ? 0 : std::stoul(head.substr(at + 17));
  return s.size() >= end + 4 + length;
}

// The status code of the HTTP response `s` starts with; 0 if it does not start with one.
int StatusOf(const std::string& s) {
  if (s.rfind("HTTP/1.1 ", 0) != 0 || s.size() < 12) return 0;
  return std::atoi(s.substr(9, 3).c_str());
}

// The body of the HTTP response `s`, parsed as JSON (discarded if it is not JSON).
Json BodyOf(const std::string& s) {
  const size_t end = s.find("\r\n\r\n");
  if (end == std::string::npos) return Json::value_t::discarded;
  return Json::parse(s.substr(end + 4), nullptr, false);
}

// A raw TCP connection to the service, for what HttpClient cannot send: partial, stalled,
// trickled and oversized requests. Non-blocking; never raises SIGPIPE.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ADD_FAILURE() << "cannot connect to 127.0.0.1:" << port << ": " << std::strerror(errno);
      ended_ = true;
      return;
    }
    fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
  }
  ~RawConnection() {
    if (fd_ >= 0) close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // The server closed or reset the connection (as far as reading has seen).
  bool ended() const { return ended_; }
  SteadyClock::time_point ended_at() const { return ended_at_; }
  const std::string& received() const { return received_; }

  // Sends `data` while reading what the server says meanwhile; stops early once the server has
  // answered or ended the connection (as it may to a request it refuses), or after `timeout`.
  // Returns the bytes sent.
  size_t Send(std::string_view data, milliseconds timeout = milliseconds(10000)) {
    const auto deadline = SteadyClock::now() + timeout;
    size_t sent = 0;
    while (sent < data.size() && !ended_ && !send_failed_ && received_.empty()) {
      const auto left =
          std::chrono::duration_cast<milliseconds>(deadline - SteadyClock::now()).count();
      if (left <= 0) break;
      pollfd p{fd_, POLLIN | POLLOUT, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
        Drain();
        continue;
      }
      const size_t n = std::min<size_t>(data.size() - sent, 64 * 1024);
      const ssize_t w = send(fd_, data.data() + sent, n, MSG_NOSIGNAL);
      if (w > 0) {
        sent += static_cast<size_t>(w);
      } else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        // EPIPE, ECONNRESET: the server has closed it. Reading tells when (what it answered
        // before is still there to read).
        send_failed_ = true;
      }
    }
    return sent;
  }

  // Reads until the server ends the connection, `done(received())` holds, or `timeout` passes
  // (0: only what has already arrived).
  void Read(milliseconds timeout, const std::function<bool(const std::string&)>& done = {}) {
    const auto deadline = SteadyClock::now() + timeout;
    while (!ended_ && !(done && done(received_))) {
      const auto left = std::max<int64_t>(
          0, std::chrono::duration_cast<milliseconds>(deadline - SteadyClock::now()).count());
      pollfd p{fd_, POLLIN, 0};
      const int ready = poll(&p, 1, static_cast<int>(left));
      if (ready > 0) {
        Drain();
      } else if (left == 0) {
        break;
      }
    }
  }

 private:
  void Drain() {
    char buf[64 * 1024];
    while (true) {
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n > 0) {
        received_.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) End();
      return;
    }
  }

  void End() {
    if (ended_) return;
    ended_ = true;
    ended_at_ = SteadyClock::now();
  }

  int fd_ = -1;
  bool ended_ = false;  // recv saw the end (0) or a reset
  bool send_failed_ = false;
  SteadyClock::time_point ended_at_{};
  std::string received_;
};

// Who asks: an API token, or a browser's session cookie and the CSRF token it sends.
struct Creds {
  std::string bearer;
  std::string session;
  std::string csrf;
};

struct Reply {
  long status = 0;  // 0: no answer (the transport failed: see error)
  std::string error;
  std::string text;
  Json body;
  std::map<std::string, std::string> headers;
  double seconds = 0;

  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  std::string Describe() const {
    if (status == 0) return "no answer: " + error;
    return std::to_string(status) + " " + text.substr(0, 400);
  }
  // A JSON answer {"error": "<something>"}.
  bool IsJsonError() const { return !Str(body, "error").empty(); }
};

struct Session {
  std::string id;
  std::string csrf;
  std::string set_cookie;
};

class SecurityTest : public ::testing::Test {
 protected:
  struct User {
    std::string name;
    std::string token;
  };

  void SetUp() override {
    dir_ = testing::MakeTempDir("ufmr-sec");
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    sim_ = std::make_unique<testing::SimProcess>(
        dir_,
        std::vector<std::string>{"--topology", "fat-tree:leaves=2,spines=1,hosts_per_leaf=2"});
    ASSERT_TRUE(sim_->AwaitReady());
    ASSERT_TRUE(testing::ShippedRulesWithShortHold(dir_ + "/rules"));
    service_ = std::make_unique<testing::ServiceProcess>(dir_, "service");
    service_->PrintOnFailure(1, 20000);  // the end of the log
    port_ = service_->port();
    ASSERT_GT(port_, 0);
    base_ = service_->api();
    service_->WriteConfig(testing::ServiceConfigYaml({.fabric = "sec",
                                                      .ufm_url = sim_->url(),
                                                      .telemetry_url = sim_->telemetry_url(),
                                                      .db_url = db_url_,
                                                      .rules_dir = dir_ + "/rules",
                                                      .http_port = port_}));
    ASSERT_TRUE(service_->Migrate());
    service_->Start({.log_level = "", .crash_at = ""});
    // One user of each role, with an API token, while the service starts.
    const std::map<Role, std::string> names = {{Role::kViewer, "vic"},
                                               {Role::kTechnician, "tess"},
                                               {Role::kEngineer, "eng"},
                                               {Role::kAdmin, "ada"}};
    std::map<Role, std::future<std::string>> tokens;
    for (const auto& [role, name] : names) {
      tokens[role] = std::async(std::launch::async, [this, role = role, name = name] {
        return service_->CreateToken(name, RoleName(role));
      });
    }
    for (auto& [role, token] : tokens) {
      try {
        users_[role] = User{names.at(role), token.get()};
      } catch (const std::exception& e) {
        FAIL() << "cannot add the " << RoleName(role) << ": " << e.what();
      }
    }
    ASSERT_TRUE(service_->AwaitHealthz(seconds(20)));
    auto store = Store::Open(db_url_, "sec");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store.value());
  }

  void TearDown() override {
    store_.reset();
    service_.reset();  // (each prints its log if the test failed)
    sim_.reset();
    testing::RemoveTree(dir_);
  }

  // One request from a fresh client (no cookie jar carried over).
  Reply Call(const std::string& method, const std::string& path, const std::string& body = "",
             const Creds& who = {}, milliseconds timeout = milliseconds(10000)) const {
    HttpClientOptions options;
    options.timeout = timeout;
    HttpClient client(options);
    if (!who.bearer.empty()) client.SetHeader("Authorization", "Bearer " + who.bearer);
    if (!who.session.empty()) {
      client.SetHeader("Cookie", std::string(kSessionCookie) + "=" + who.session);
    }
    if (!who.csrf.empty()) client.SetHeader("X-CSRF-Token", who.csrf);
    Reply out;
    const auto start = SteadyClock::now();
    Result<HttpResult> r = Status::InvalidArgument("unsupported method " + method);
    if (method == "GET") {
      r = client.Get(base_ + path);
    } else if (method == "POST") {
      r = client.Post(base_ + path, body);
    } else {
      ADD_FAILURE() << "Call: no way to send " << method;
    }
    out.seconds = SecondsSince(start);
    if (!r.ok()) {
      out.error = r.status().ToString();
      return out;
    }
    out.status = r->status;
    out.text = r->body;
    out.body = Json::parse(r->body, nullptr, false);
    out.headers = r->headers;
    return out;
  }

  Creds Token(Role role) const { return Creds{users_.at(role).token, "", ""}; }

  bool Healthy() const {
    return service_->running() && Call("GET", "/healthz", "", {}, milliseconds(3000)).status == 200;
  }

  // Logs in as `name` from a browser that holds the session `cookie` ("" for none).
  Session LogIn(const std::string& name, const std::string& cookie = "") const {
    const Reply r = Call("POST", "/api/login", Json{{"name", name}, {"password", kPassword}}.dump(),
                         Creds{"", cookie, ""});
    EXPECT_EQ(r.status, 200) << "login as " << name << ": " << r.Describe();
    Session s;
    s.set_cookie = r.Header("set-cookie");
    s.id = CookieValue(s.set_cookie);
    s.csrf = Str(r.body, "csrf");
    EXPECT_FALSE(s.id.empty()) << s.set_cookie;
    EXPECT_FALSE(s.csrf.empty()) << r.Describe();
    return s;
  }

  // Who the service takes the session `id` for ("" for nobody).
  std::string Who(const std::string& id) const {
    const Reply r = Call("GET", "/api/me", "", Creds{"", id, ""});
    if (r.status != 200 || !r.body.is_object() || r.body.value("authenticated", false) != true) {
      return "";
    }
    return Str(r.body, "name");
  }

  // Files a ticket that holds nothing out of service, as the service would.
  int64_t FileTicket(const std::string& name) {
    Ticket t;
    t.link_key = name + "_1|" + name + "_2";
    t.port_a = name + "_1";
    t.port_b = name + "_2";
    t.state = ticket_state::kTicketOnly;
    t.rule = "link_down";
    t.reason = "filed by security_test";
    t.switch_name = "leaf-" + name;
    t.rack = "rack-" + name;
    t.host_name = "host-" + name;
    t.ends = Json::array({{{"name", t.port_a}, {"system_name", t.switch_name}},
                          {{"name", t.port_b}, {"system_name", t.host_name}}});
    t.search_text = t.link_key + " " + t.switch_name + " " + t.host_name;
    auto tx = store_->Begin();
    if (!tx.ok()) {
      ADD_FAILURE() << tx.status().ToString();
      return -1;
    }
    const int64_t id = tx.value()->InsertTicket(t);
    tx.value()->AddDecision({{"time", "2026-01-01T00:00:00Z"},
                             {"rule", "link_down"},
                             {"decision", "ticket_only"},
                             {"guard", ""},
                             {"entity", t.port_a},
                             {"port", t.port_a},
                             {"peer", t.port_b},
                             {"reason", "filed by security_test"},
                             {"rules_hash", ""}},
                            id);
    tx.value()->Commit();
    return id;
  }

  int64_t RaiseAlert() {
    auto tx = store_->Begin();
    if (!tx.ok()) {
      ADD_FAILURE() << tx.status().ToString();
      return -1;
    }
    const int64_t id = tx.value()->AddAlert("security_test", "raised by security_test");
    tx.value()->Commit();
    return id;
  }

  int64_t AddSilence() const {
    const Reply r = Call("POST", "/api/silences",
                         R"({"switch":"leaf-sec[0-9]+","reason":"seeded","duration":"2h"})",
                         Token(Role::kEngineer));
    EXPECT_EQ(r.status, 201) << r.Describe();
    return r.body.is_object() && r.body.contains("id") && r.body["id"].is_number_integer()
               ? r.body["id"].get<int64_t>()
               : -1;
  }

  // The checks. Each test starts its own PostgreSQL, simulator and service (seconds each), so the
  // tests below run several checks against one service; each check files what it needs.
  void CheckEveryMutationsGate();
  void CheckLoginRenewsTheSession();
  void CheckFailedLoginsAreThrottled();
  void CheckSqlInjectionIsInert();
  void CheckOversizedRequests();
  void CheckDeeplyNestedJson();

  // The route's path with real ids.
  static std::string PathOf(const MutatingRoute& route, int64_t ticket, int64_t alert,
                            int64_t silence) {
    std::string path = route.pattern;
    const size_t at = path.find("{id}");
    if (at == std::string::npos) return path;
    const int64_t id = route.id == IdOf::kTicket  ? ticket
                       : route.id == IdOf::kAlert ? alert
                                                  : silence;
    return path.replace(at, 4, std::to_string(id));
  }

  std::string dir_;
  std::string db_url_;
  std::string base_;
  int port_ = 0;
  std::map<Role, User> users_;
  std::unique_ptr<testing::SimProcess> sim_;
  std::unique_ptr<testing::ServiceProcess> service_;
  std::unique_ptr<Store> store_;
};

// The table above is every route that changes something: each non-GET route the service's source
// registers (`.Add("POST", "/api/...")` anywhere in src/ but src/sim) and each non-GET operation of
// schema/openapi.yaml is in it, and each row is both registered and documented.
// Text from UFM (node descriptions, event messages, cable serials, names) reaches the dashboard
// in every field of a ticket. The page never turns a string into markup or code: no HTML sinks
// at all, and attributes are never given a URL from data (the browser test checks a hostile node
// description end to end; this holds it for every field).
TEST(SecurityDashboard, NoHtmlOrScriptSinksSoTextFromUfmStaysText) {
  const std::string page = testing::ReadFile(testing::SourceDir() + "/src/web/dashboard.html");
  ASSERT_GT(page.size(), 10000u);
  for (const char* sink :
       {".innerHTML", ".outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
        "srcdoc", "javascript:", "setTimeout(\"", "setInterval(\"", "href:", "src:"}) {
    EXPECT_EQ(page.find(sink), std::string::npos) << "dashboard.html uses " << sink;
  }
  // Where text is shown: createTextNode, through the one helper that builds elements.
  EXPECT_NE(page.find("document.createTextNode(String(c))"), std::string::npos);
}

TEST(SecurityRoutes, TheMutatingRouteTableListsEveryRouteThatChangesSomething) {
  std::set<std::string> registered;
  const std::regex add(R"re(\.Add(?:Prefix)?\(\s*"([A-Z]+)"\s*,\s*"([^"]*)")re");
  // Every folder of src/ but the simulator's (its routes are UFM's, not the service's).
  for (const auto& entry : std::filesystem::recursive_directory_iterator(SourceDir() + "/src")) {
    if (entry.path().extension() != ".cc") continue;
    if (entry.path().parent_path().filename() == "sim") continue;
    const std::string text = testing::ReadFile(entry.path().string());
    for (std::sregex_iterator it(text.begin(), text.end(), add), end; it != end; ++it) {
      registered.insert((*it)[1].str() + " " + (*it)[2].str());
    }
  }
  // The scan sees the service's routes (an empty scan would pass the checks below).
  for (const char* known :
       {"GET /api/tickets", "POST /api/login", "POST /api/tickets/{id}/acknowledge",
        "POST /api/silences", "GET /healthz"}) {
    ASSERT_TRUE(registered.count(known)) << known << " not found by the scan of src/";
  }

  std::set<std::string> documented;
  const YAML::Node doc = YAML::LoadFile(SourceDir() + "/schema/openapi.yaml");
  ASSERT_TRUE(doc["paths"].IsMap());
  for (const auto& path : doc["paths"]) {
    for (const auto& op : path.second) {
      const std::string method = op.first.as<std::string>();
      for (const char* m : {"get", "put", "post", "delete", "options", "head", "patch", "trace"}) {
        if (method == m) documented.insert(Upper(method) + " " + path.first.as<std::string>());
      }
    }
  }
  ASSERT_TRUE(documented.count("POST /api/login")) << "schema/openapi.yaml has no paths?";

  std::set<std::string> table;
  for (const auto& route : kMutatingRoutes) table.insert(RouteKey(route));
  for (const auto& [source, routes] :
       {std::pair{"registered in src/", &registered}, {"in schema/openapi.yaml", &documented}}) {
    for (const auto& route : *routes) {
      if (route.rfind("GET ", 0) == 0 || route.rfind("HEAD ", 0) == 0) continue;
      if (route == "POST /api/login") continue;  // the way in: the session and throttle tests
      EXPECT_TRUE(table.count(route))
          << route << " (" << source << ") changes something but is not in kMutatingRoutes";
    }
  }
  for (const auto& route : table) {
    EXPECT_TRUE(registered.count(route)) << route << " is in the table but not registered";
    EXPECT_TRUE(documented.count(route)) << route << " is in the table but not documented";
  }
}

// Every route in kMutatingRoutes: no credentials (or unknown ones) 401; each role below the
// minimum 403, by token and by session; a session of the minimum role without its CSRF token or
// with a wrong one 403; the minimum role, by session with its CSRF token and by token, gets past
// the gate. Refused requests change nothing, and each is in the audit log with its answer.
void SecurityTest::CheckEveryMutationsGate() {
  const int64_t ticket = FileTicket("gate0");
  const int64_t alert = RaiseAlert();
  const int64_t silence = AddSilence();
  std::map<Role, Session> sessions;
  for (Role role : kRoles) {
    sessions[role] = LogIn(users_[role].name);
    ASSERT_FALSE(sessions[role].id.empty() || sessions[role].csrf.empty()) << RoleName(role);
  }
  // Made-up credentials, shaped like real ones.
  const std::string fake_token = "ufmr_" + std::string(43, 'A');
  const std::string fake_session = std::string(43, 'B');

  std::map<std::string, std::pair<int, int>> refusals;  // path: expected 401s, 403s
  int comments_accepted = 0;
  for (const auto& route : kMutatingRoutes) {
    const std::string path = PathOf(route, ticket, alert, silence);
    SCOPED_TRACE(std::string(route.method) + " " + path + " (" + RoleName(route.min) + ")");
    auto call = [&](const Creds& who) { return Call(route.method, path, route.body, who); };

    // No credentials, or credentials the service does not know.
    const long anonymous = route.logout ? 200 : 401;
    for (const auto& [what, who] : {std::pair{"no credentials", Creds{}},
                                    {"an unknown token", Creds{fake_token, "", ""}},
                                    {"a made-up session", Creds{"", fake_session, fake_session}}}) {
      const Reply r = call(who);
      EXPECT_EQ(r.status, anonymous) << what << ": " << r.Describe();
      if (!route.logout) {
        EXPECT_TRUE(r.IsJsonError()) << what << ": " << r.Describe();
      }
    }
    // Each role below the minimum, by token and by session (with its own CSRF token).
    int below = 0;
    for (Role lower : kRoles) {
      if (lower >= route.min) break;
      ++below;
      const Reply by_token = call(Token(lower));
      EXPECT_EQ(by_token.status, 403) << RoleName(lower) << " by token: " << by_token.Describe();
      EXPECT_TRUE(by_token.IsJsonError()) << by_token.Describe();
      const Session& s = sessions[lower];
      const Reply by_session = call(Creds{"", s.id, s.csrf});
      EXPECT_EQ(by_session.status, 403)
          << RoleName(lower) << " by session: " << by_session.Describe();
    }
    // A session of the minimum role without its CSRF token, or with a wrong one (logout: a fresh
    // session, since the accepted call ends it).
    const Session own = route.logout ? LogIn(users_[Role::kViewer].name) : sessions[route.min];
    std::string altered = own.csrf;
    if (!altered.empty()) altered.back() = altered.back() == 'x' ? 'y' : 'x';
    const Session& other = sessions[route.min == Role::kAdmin ? Role::kViewer : Role::kAdmin];
    for (const auto& [what, csrf] : {std::pair{"no X-CSRF-Token", std::string()},
                                     {"another session's CSRF token", other.csrf},
                                     {"the session id as CSRF token", own.id},
                                     {"its CSRF token altered", altered},
                                     {"a made-up CSRF token", std::string(43, 'C')}}) {
      const Reply r = call(Creds{"", own.id, csrf});
      EXPECT_EQ(r.status, 403) << what << ": " << r.Describe();
      EXPECT_TRUE(r.IsJsonError()) << what << ": " << r.Describe();
    }
    // The minimum role gets past the gate: by session with its CSRF token, and by token (what
    // the route answers then, 200, 404 or 409, is its own business).
    const Reply by_session = call(Creds{"", own.id, own.csrf});
    EXPECT_GT(by_session.status, 0) << by_session.Describe();
    EXPECT_NE(by_session.status, 401) << by_session.Describe();
    EXPECT_NE(by_session.status, 403) << by_session.Describe();
    EXPECT_LT(by_session.status, 500) << by_session.Describe();
    if (route.logout) {
      EXPECT_EQ(by_session.status, 200) << by_session.Describe();
      EXPECT_EQ(Call("GET", "/api/tickets", "", Creds{"", own.id, ""}).status, 401)
          << "the session outlived its logout";
      continue;
    }
    const Reply by_token = call(Token(route.min));
    EXPECT_GT(by_token.status, 0) << by_token.Describe();
    EXPECT_NE(by_token.status, 401) << by_token.Describe();
    EXPECT_NE(by_token.status, 403) << by_token.Describe();
    EXPECT_LT(by_token.status, 500) << by_token.Describe();
    if (std::string(route.pattern).ends_with("/comments")) {
      comments_accepted += (by_session.status == 200) + (by_token.status == 200);
    }
    refusals[path] = {3, 2 * below + 5};
  }

  // Refused requests changed nothing: the ticket has the accepted comments only.
  const Reply t = Call("GET", "/api/tickets/" + std::to_string(ticket), "", Token(Role::kViewer));
  ASSERT_EQ(t.status, 200) << t.Describe();
  int comments = 0;
  for (const auto& e : ArrayAt(t.body, "timeline")) comments += Str(e, "kind") == "comment";
  EXPECT_EQ(comments_accepted, 2);
  EXPECT_EQ(comments, comments_accepted) << ArrayAt(t.body, "timeline").dump(2);

  // Each refusal is in the audit log, with its answer.
  const Reply audit = Call("GET", "/api/audit?limit=1000", "", Token(Role::kAdmin));
  ASSERT_EQ(audit.status, 200) << audit.Describe();
  std::map<std::string, std::pair<int, int>> seen;
  for (const auto& e : ArrayAt(audit.body, "entries")) {
    const std::string path = Str(e, "path");
    const long status = NumberAt(e, "status");
    if (status == 401) ++seen[path].first;
    if (status == 403) ++seen[path].second;
  }
  for (const auto& [path, expected] : refusals) {
    EXPECT_EQ(seen[path].first, expected.first) << "401s audited for " << path;
    EXPECT_EQ(seen[path].second, expected.second) << "403s audited for " << path;
  }
}

// A login from a browser that holds a session makes a new session id and CSRF token and ends the
// old session; a planted session id, made up or the attacker's own, is never adopted.
void SecurityTest::CheckLoginRenewsTheSession() {
  const int64_t ticket = FileTicket("session0");
  const std::string comments = "/api/tickets/" + std::to_string(ticket) + "/comments";
  const std::string note = R"({"text":"on it"})";
  const std::string tess = users_[Role::kTechnician].name;

  const Session first = LogIn(tess);
  ASSERT_FALSE(first.id.empty() || first.csrf.empty());
  for (const char* flag : {"; Path=/", "; HttpOnly", "; SameSite=Strict"}) {
    EXPECT_NE(first.set_cookie.find(flag), std::string::npos) << first.set_cookie;
  }
  EXPECT_EQ(Who(first.id), tess);

  // The same browser logs in again: a new session id and CSRF token; the old session is over.
  const Session second = LogIn(tess, first.id);
  EXPECT_NE(second.id, first.id);
  EXPECT_NE(second.csrf, first.csrf);
  EXPECT_EQ(Call("GET", "/api/tickets", "", Creds{"", first.id, ""}).status, 401);
  EXPECT_EQ(Call("POST", comments, note, Creds{"", first.id, first.csrf}).status, 401);
  EXPECT_EQ(Who(first.id), "");
  // The new session works, with its own CSRF token only.
  EXPECT_EQ(Call("GET", "/api/tickets", "", Creds{"", second.id, ""}).status, 200);
  EXPECT_EQ(Call("POST", comments, note, Creds{"", second.id, first.csrf}).status, 403);
  EXPECT_EQ(Call("POST", comments, note, Creds{"", second.id, second.csrf}).status, 200);

  // Session fixation with a made-up id: the login does not take it, and it opens nothing.
  const std::string planted = "planted-by-an-attacker-0123456789abcdefghi";
  const Session fixed = LogIn(tess, planted);
  EXPECT_NE(fixed.id, planted);
  EXPECT_EQ(Who(fixed.id), tess);
  EXPECT_EQ(Who(planted), "");
  EXPECT_EQ(Call("GET", "/api/tickets", "", Creds{"", planted, ""}).status, 401);
  EXPECT_EQ(Call("POST", comments, note, Creds{"", planted, fixed.csrf}).status, 401);

  // ... and with a live session of the attacker's own, planted in the victim's browser: the
  // victim gets a session of their own, and the attacker's ends (it never becomes the victim's).
  const Session attacker = LogIn(users_[Role::kViewer].name);
  const Session victim = LogIn(users_[Role::kEngineer].name, attacker.id);
  EXPECT_NE(victim.id, attacker.id);
  EXPECT_NE(victim.csrf, attacker.csrf);
  EXPECT_EQ(Who(victim.id), users_[Role::kEngineer].name);
  EXPECT_EQ(Who(attacker.id), "");
  EXPECT_EQ(Call("GET", "/api/tickets", "", Creds{"", attacker.id, ""}).status, 401);
  EXPECT_EQ(Call("POST", comments, note, Creds{"", attacker.id, attacker.csrf}).status, 401);
}

// After auth.login_max_failures failed logins (the default) the name is locked: 429 with
// Retry-After, even with the right password. Locks the technician's name: run it last.
void SecurityTest::CheckFailedLoginsAreThrottled() {
  // The service runs with the defaults: the config sets no auth keys.
  ASSERT_EQ(testing::ReadFile(service_->config_path()).find("auth:"), std::string::npos);
  const Config::Auth defaults;
  ASSERT_GE(defaults.login_max_failures, 1);
  const std::string name = users_[Role::kTechnician].name;
  const std::string wrong = Json{{"name", name}, {"password", "not-the-password"}}.dump();
  const std::string right = Json{{"name", name}, {"password", kPassword}}.dump();

  Reply first;
  for (int i = 1; i <= defaults.login_max_failures; ++i) {
    const Reply r = Call("POST", "/api/login", wrong);
    EXPECT_EQ(r.status, 401) << "failure " << i << ": " << r.Describe();
    EXPECT_EQ(r.Header("set-cookie"), "");
    if (i == 1) first = r;
  }
  // An unknown name answers exactly as a wrong password (and is counted apart).
  const Reply unknown =
      Call("POST", "/api/login", Json{{"name", "nobody"}, {"password", "x-password"}}.dump());
  EXPECT_EQ(unknown.status, 401) << unknown.Describe();
  EXPECT_EQ(unknown.text, first.text);

  // Locked: the right password is refused too, with Retry-After.
  for (int attempt = 1; attempt <= 2; ++attempt) {
    const Reply locked = Call("POST", "/api/login", right);
    EXPECT_EQ(locked.status, 429) << "attempt " << attempt << ": " << locked.Describe();
    EXPECT_TRUE(locked.IsJsonError()) << locked.Describe();
    EXPECT_EQ(locked.Header("set-cookie"), "");
    const std::string retry = locked.Header("retry-after");
    ASSERT_FALSE(retry.empty()) << "no Retry-After";
    ASSERT_EQ(retry.find_first_not_of("0123456789"), std::string::npos) << retry;
    EXPECT_GE(std::stol(retry), 1);
    EXPECT_LE(std::stol(retry), static_cast<long>(defaults.login_lockout_s));
  }
  // Other names are not locked.
  EXPECT_FALSE(LogIn(users_[Role::kEngineer].name).id.empty());
}

// SQL injection strings in every query parameter of the GET routes that take any: 200 with no
// extra rows, or 400 with a JSON error; never 5xx, never slow (no pg_sleep ran); the tables and
// their rows intact.
void SecurityTest::CheckSqlInjectionIsInert() {
  for (const char* name : {"inject0", "inject1", "inject2"}) FileTicket(name);
  AddSilence();
  const Creds viewer = Token(Role::kViewer);
  const Creds admin = Token(Role::kAdmin);

  // What each list holds before: rows and, for tickets, the total.
  auto tickets = [&](const std::string& query) {
    return Call("GET", "/api/tickets" + query, "", viewer);
  };
  const Reply base_list = tickets("");
  ASSERT_EQ(base_list.status, 200) << base_list.Describe();
  const long base_total = NumberAt(base_list.body, "total");
  ASSERT_GE(base_total, 3) << base_list.Describe();
  const Reply base_csv = Call("GET", "/api/tickets.csv", "", viewer);
  ASSERT_EQ(base_csv.status, 200) << base_csv.Describe();
  ASSERT_EQ(base_csv.Header("x-total-count"), std::to_string(base_total));
  const Reply base_decisions = Call("GET", "/api/decisions", "", viewer);
  ASSERT_EQ(base_decisions.status, 200) << base_decisions.Describe();
  ASSERT_GE(ArrayAt(base_decisions.body, "decisions").size(), 3u);
  const Reply base_silences = Call("GET", "/api/silences", "", viewer);
  ASSERT_EQ(base_silences.status, 200) << base_silences.Describe();
  ASSERT_GE(ArrayAt(base_silences.body, "silences").size(), 1u);

  // Query values as sent (percent-encoded); the label is what the server decodes. A bare "%"
  // would match every ticket if the search let it through as a LIKE wildcard.
  std::vector<std::pair<std::string, std::string>> payloads;
  for (const char* p :
       {"' OR 1=1 --", "' OR '1'='1", "1' OR '1'='1' --", "'; DROP TABLE tickets; --",
        "x'); DROP TABLE users; --", "1; SELECT pg_sleep(5)", "1) OR pg_sleep(5) IS NULL --",
        "'||pg_sleep(5)||'", "' UNION SELECT name, password_hash FROM users --", "\\' OR 1=1 --",
        "%27%20OR%20%271%27=%271", "$1", "%", "-id; DELETE FROM tickets"}) {
    payloads.emplace_back(p, UrlEncode(p));
  }
  // Sent as is: the server decodes it to ' OR '1'='1.
  payloads.emplace_back("%27%20OR%20%271%27=%271 (decoded by the server)",
                        "%27%20OR%20%271%27=%271");
  // Bytes the database refuses (its error text once came back in a 503) or cuts a value at (a
  // NUL once emptied the decisions' rule filter, which then matched every row).
  payloads.emplace_back("invalid UTF-8 0xff", "%FF");
  payloads.emplace_back("invalid UTF-8 0xc3 0x28", "%C3%28");
  payloads.emplace_back("a NUL, then text", "%00nope");

  struct Endpoint {
    std::string path;
    Creds who;
    std::vector<std::string> params;
    std::set<std::string> filters;  // text filters: a match needs the text, so no rows match
    std::function<long(const Reply&)> rows;  // how many rows an answer holds
  };
  const std::vector<std::string> ticket_params = {
      "state", "fabric",  "switch",  "host", "rack",  "rule",  "assigned",
      "q",     "min_age", "max_age", "sort", "limit", "offset"};
  const std::set<std::string> ticket_filters = {"fabric", "switch",   "host", "rack",
                                                "rule",   "assigned", "q"};
  const std::vector<Endpoint> endpoints = {
      {"/api/tickets", viewer, ticket_params, ticket_filters,
       [](const Reply& r) {
         return std::max(NumberAt(r.body, "total"),
                         static_cast<long>(ArrayAt(r.body, "tickets").size()));
       }},
      {"/api/tickets.csv", viewer, ticket_params, ticket_filters,
       [](const Reply& r) {
         const long lines = static_cast<long>(std::count(r.text.begin(), r.text.end(), '\n')) - 1;
         const std::string total = r.Header("x-total-count");
         return std::max(lines, total.empty() ? -1L : std::stol(total));
       }},
      {"/api/decisions",
       viewer,
       {"limit", "rule"},
       {"rule"},
       [](const Reply& r) { return static_cast<long>(ArrayAt(r.body, "decisions").size()); }},
      {"/api/audit", admin, {"limit"}, {}, [](const Reply&) { return 0L; }},
      {"/api/silences",
       viewer,
       {"all"},
       {},
       [](const Reply& r) { return static_cast<long>(ArrayAt(r.body, "silences").size()); }},
  };
  const std::map<std::string, long> baseline = {
      {"/api/tickets", base_total},
      {"/api/tickets.csv", base_total},
      {"/api/decisions", static_cast<long>(ArrayAt(base_decisions.body, "decisions").size())},
      {"/api/audit", 0},
      {"/api/silences", static_cast<long>(ArrayAt(base_silences.body, "silences").size())}};

  int answered = 0;
  for (const auto& e : endpoints) {
    for (const auto& param : e.params) {
      for (const auto& [label, encoded] : payloads) {
        const std::string target = e.path + "?" + param + "=" + encoded;
        SCOPED_TRACE("GET " + target + "  [" + param + " = " + label + "]");
        const Reply r = Call("GET", target, "", e.who);
        EXPECT_LT(r.seconds, 3.0) << "slow answer: did the database sleep?";
        ASSERT_TRUE(r.status == 200 || r.status == 400) << r.Describe();
        ++answered;
        if (r.status == 400) {
          EXPECT_TRUE(r.IsJsonError()) << r.Describe();
          continue;
        }
        if (e.path == "/api/audit") continue;  // the log grows with every change: no baseline
        const long rows = e.rows(r);
        EXPECT_LE(rows, baseline.at(e.path)) << r.Describe();
        if (e.filters.count(param)) {
          EXPECT_EQ(rows, 0) << "a filter no ticket matches: " << r.Describe();
        }
      }
    }
  }
  EXPECT_GT(answered, 400);
  // A parameter's name is checked too.
  const Reply by_name = tickets("?" + UrlEncode("state' OR 1=1 --") + "=open");
  EXPECT_EQ(by_name.status, 400) << by_name.Describe();
  EXPECT_TRUE(by_name.IsJsonError()) << by_name.Describe();

  // Every table is still there, with the same rows; a plain list answers as before.
  const Reply after = tickets("");
  ASSERT_EQ(after.status, 200) << after.Describe();
  EXPECT_EQ(NumberAt(after.body, "total"), base_total);
  EXPECT_EQ(Ids(ArrayAt(after.body, "tickets")), Ids(ArrayAt(base_list.body, "tickets")));
  pqxx::connection c(db_url_);
  pqxx::work w(c);
  for (const char* table : {"tickets", "users", "sessions", "api_tokens", "audit_log", "decisions",
                            "silences", "alerts"}) {
    EXPECT_FALSE(w.exec("SELECT to_regclass('public." + std::string(table) + "')")[0][0].is_null())
        << "table " << table << " is gone";
  }
  EXPECT_EQ(w.exec("SELECT count(*) FROM tickets")[0][0].as<long>(), base_total);
  EXPECT_EQ(w.exec("SELECT count(*) FROM users")[0][0].as<long>(), 4);
}

// A body over the server's limit, by Content-Length or chunked: 413 (before authentication) and
// the connection closed; exactly the limit is read. A 100 kB header or request target, or 5,000
// headers: refused (431) or closed unanswered. The service serves on after each.
void SecurityTest::CheckOversizedRequests() {
  const int64_t ticket = FileTicket("big0");
  const std::string comments = "/api/tickets/" + std::to_string(ticket) + "/comments";
  const Creds viewer = Token(Role::kViewer);
  const std::string host = "Host: 127.0.0.1\r\n";

  // A body over the limit, announced by Content-Length: 413 before authentication, and closed.
  {
    RawConnection c(port_);
    c.Send("POST " + comments + " HTTP/1.1\r\n" + host +
           "Content-Type: application/json\r\nContent-Length: " + std::to_string(kBodyLimit + 1) +
           "\r\n\r\n" + std::string(kBodyLimit + 1, ' '));
    c.Read(seconds(10));
    EXPECT_EQ(StatusOf(c.received()), 413) << c.received().substr(0, 300);
    EXPECT_FALSE(Str(BodyOf(c.received()), "error").empty()) << c.received().substr(0, 300);
    EXPECT_TRUE(c.ended()) << "the connection stays open after the 413";
    EXPECT_TRUE(Healthy());
  }
  // ... and one that grows past it in chunks, with no length given.
  {
    RawConnection c(port_);
    std::string request = "POST " + comments + " HTTP/1.1\r\n" + host +
                          "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    const std::string chunk = "10000\r\n" + std::string(0x10000, ' ') + "\r\n";
    for (size_t sent = 0; sent <= kBodyLimit; sent += 0x10000) request += chunk;
    request += "0\r\n\r\n";
    c.Send(request);
    c.Read(seconds(10));
    EXPECT_EQ(StatusOf(c.received()), 413) << c.received().substr(0, 300);
    EXPECT_TRUE(c.ended()) << "the connection stays open after the 413";
    EXPECT_TRUE(Healthy());
  }
  // Exactly the limit is read, and reaches the gate.
  {
    const Reply r = Call("POST", comments, std::string(kBodyLimit, ' '));
    EXPECT_EQ(r.status, 401) << r.Describe();
  }
  // Huge headers and request targets: refused (431) or the connection closed, unanswered.
  for (const auto& [what, request] :
       {std::pair{"a 100 kB header",
                  "GET /api/tickets HTTP/1.1\r\n" + host + "Authorization: Bearer " +
                      viewer.bearer + "\r\nX-Filler: " + std::string(100 * 1024, 'a') + "\r\n\r\n"},
        {"a 100 kB request target", "GET /api/tickets?q=" + std::string(100 * 1024, 'a') +
                                        " HTTP/1.1\r\n" + host + "Authorization: Bearer " +
                                        viewer.bearer + "\r\n\r\n"},
        {"5,000 small headers", [&] {
           std::string r = "GET /api/tickets HTTP/1.1\r\n" + host + "Authorization: Bearer " +
                           viewer.bearer + "\r\n";
           for (int i = 0; i < 5000; ++i) r += "X-H" + std::to_string(i) + ": v\r\n";
           return r + "\r\n";
         }()}}) {
    RawConnection c(port_);
    c.Send(request);
    c.Read(seconds(5));
    const int status = StatusOf(c.received());
    EXPECT_TRUE(status == 431 || (c.received().empty() && c.ended()))
        << what << ": " << (c.ended() ? "closed" : "open") << ", answered "
        << c.received().substr(0, 300);
    EXPECT_TRUE(Healthy()) << what;
  }
}

// JSON nested 100,000 deep (arrays, and objects) as the body of the login and of every mutation,
// without credentials and with the role it needs: a 4xx, and the service lives on.
void SecurityTest::CheckDeeplyNestedJson() {
  const int64_t ticket = FileTicket("deep0");
  const int64_t alert = RaiseAlert();
  const int64_t silence = AddSilence();
  constexpr int kDepth = 100000;
  const std::string arrays = std::string(kDepth, '[') + std::string(kDepth, ']');
  std::string objects;
  objects.reserve(kDepth * 6 + 1);
  for (int i = 0; i < kDepth; ++i) objects += "{\"a\":";
  objects += "1" + std::string(kDepth, '}');
  auto crashed = [&](const std::string& request) {
    return request + " with JSON nested " + std::to_string(kDepth) +
           " deep: the service is gone (signal " + std::to_string(service_->term_signal()) + ")";
  };

  for (const auto& [what, body] : {std::pair{"arrays", &arrays}, {"objects", &objects}}) {
    const Reply r = Call("POST", "/api/login", *body);
    EXPECT_GE(r.status, 400) << what << ": " << r.Describe();
    EXPECT_LT(r.status, 500) << what << ": " << r.Describe();
    ASSERT_TRUE(Healthy()) << crashed(std::string("POST /api/login (") + what + ")");
  }
  for (const auto& route : kMutatingRoutes) {
    const std::string path = PathOf(route, ticket, alert, silence);
    const std::string request = std::string(route.method) + " " + path;
    // Without credentials (logout: nothing to end, 200).
    const Reply anonymous = Call(route.method, path, arrays);
    if (route.logout) {
      EXPECT_EQ(anonymous.status, 200) << request << ": " << anonymous.Describe();
    } else {
      EXPECT_GE(anonymous.status, 400) << request << ": " << anonymous.Describe();
      EXPECT_LT(anonymous.status, 500) << request << ": " << anonymous.Describe();
    }
    ASSERT_TRUE(Healthy()) << crashed(request + " without credentials");
    if (route.logout) continue;
    // With the role it needs: the body is refused as a request, and audited without harm.
    const Reply allowed = Call(route.method, path, arrays, Token(route.min));
    EXPECT_GE(allowed.status, 400) << request << ": " << allowed.Describe();
    EXPECT_LT(allowed.status, 500) << request << ": " << allowed.Describe();
    ASSERT_TRUE(Healthy()) << crashed(request + " by " + RoleName(route.min));
  }
}

TEST_F(SecurityTest, ChangesNeedTheirRoleAndCsrfTokenLoginsRenewSessionsGuessingIsThrottled) {
  {
    SCOPED_TRACE("every mutation's gate");
    CheckEveryMutationsGate();
  }
  {
    SCOPED_TRACE("a new session at every login");
    CheckLoginRenewsTheSession();
  }
  {
    SCOPED_TRACE("failed logins throttled");
    CheckFailedLoginsAreThrottled();
  }
}

// Hostile requests (SQL injection, oversized requests, deeply nested JSON), all sent while slow
// clients hold connections (more than the server's 4 threads): headers never finished, a request
// line cut short, a body shorter than announced, headers trickled a byte at a time, an idle
// keep-alive connection. Each slow client is cut within the read timeout, unanswered, and other
// clients are served meanwhile.
TEST_F(SecurityTest, HostileRequestsAreRefusedAndSlowClientsCutWhileOthersAreServed) {
  const Creds viewer = Token(Role::kViewer);
  const std::string host = "Host: 127.0.0.1\r\n";

  // Slow clients first, more than the server's 4 threads, so the rest of this test runs while
  // they hold their connections.
  struct Slow {
    std::string what;
    std::unique_ptr<RawConnection> c;
    SteadyClock::time_point since;
    size_t answered = 0;  // bytes of answers before the connection went quiet
  };
  std::vector<Slow> slow;
  auto open = [&](const std::string& what, const std::string& bytes) {
    Slow s{what, std::make_unique<RawConnection>(port_), SteadyClock::now(), 0};
    EXPECT_EQ(s.c->Send(bytes), bytes.size()) << what;
    slow.push_back(std::move(s));
  };
  for (int i = 0; i < 5; ++i) {
    open("headers without their end #" + std::to_string(i),
         "GET /healthz HTTP/1.1\r\n" + host + "X-Slow-" + std::to_string(i) + ": ");
  }
  open("a request line cut short", "POST /api/login HT");
  open("a body shorter than its Content-Length",
       "POST /api/login HTTP/1.1\r\n" + host +
           "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":");
  open("headers trickled a byte every 0.5 s", "GET /healthz HTTP/1.1\r\n" + host + "X-Drip: ");
  const size_t drip = slow.size() - 1;
  open("an idle keep-alive connection", "GET /healthz HTTP/1.1\r\n" + host + "\r\n");
  Slow& idle = slow.back();
  idle.c->Read(seconds(5), WholeResponse);
  ASSERT_EQ(StatusOf(idle.c->received()), 200) << idle.c->received();
  idle.since = SteadyClock::now();
  idle.answered = idle.c->received().size();
  const auto slow_start = SteadyClock::now();

  {
    SCOPED_TRACE("SQL injection");
    CheckSqlInjectionIsInert();
  }
  {
    SCOPED_TRACE("oversized requests");
    CheckOversizedRequests();
  }
  {
    SCOPED_TRACE("deeply nested JSON");
    CheckDeeplyNestedJson();
  }
  ASSERT_TRUE(Healthy()) << "the service is gone: the slow clients cannot be checked";

  // Now the slow clients: other clients are served while they wait, and each is cut at the
  // read timeout (trickling does not extend it).
  int served = 0;
  std::vector<std::string> failures;
  double slowest = 0;
  auto next_drip = SteadyClock::now();
  auto next_probe = SteadyClock::now();
  const auto deadline = slow_start + seconds(kReadTimeoutS + 8);
  auto open_count = [&] {
    return std::count_if(slow.begin(), slow.end(), [](const Slow& s) { return !s.c->ended(); });
  };
  while (SteadyClock::now() < deadline && open_count() > 0) {
    for (auto& s : slow) s.c->Read(milliseconds(0));
    if (!slow[drip].c->ended() && SteadyClock::now() >= next_drip) {
      slow[drip].c->Send("a", milliseconds(100));
      next_drip += milliseconds(500);
    }
    if (SteadyClock::now() >= next_probe) {
      for (const auto& [path, who] :
           {std::pair{std::string("/healthz"), Creds{}}, {"/api/tickets?limit=1", viewer}}) {
        const Reply r = Call("GET", path, "", who, milliseconds(3000));
        if (r.status == 200) {
          ++served;
        } else {
          failures.push_back(path + ": " + r.Describe());
        }
        slowest = std::max(slowest, r.seconds);
      }
      next_probe += seconds(1);
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  for (const auto& s : slow) {
    SCOPED_TRACE(s.what);
    // `since`: when the server began reading its request (the idle one's: after its answer).
    EXPECT_TRUE(s.c->ended()) << "still open " << SecondsSince(s.since) << " s on";
    if (s.c->ended()) {
      const double after = std::chrono::duration<double>(s.c->ended_at() - s.since).count();
      EXPECT_LE(after, kReadTimeoutS + 3.0) << "cut only after " << after << " s";
    }
    // Closed unanswered (or with 408 Request Timeout): never served.
    const std::string late = s.c->received().substr(s.answered);
    EXPECT_TRUE(late.empty() || StatusOf(late) == 408) << late.substr(0, 300);
  }
  EXPECT_TRUE(failures.empty()) << ::testing::PrintToString(failures);
  EXPECT_GE(served, 10) << "other clients were not served meanwhile";
  EXPECT_LT(slowest, 2.0) << "other clients waited behind the slow ones";
  EXPECT_TRUE(Healthy());
}

// A database outage (the service's database refusing connections, its pooled ones cut), then a
// table gone: the API answers 503 and the probes say "unavailable", in words of their own.
// libpq's message names the server's socket, the database and the user: the log has it, once per
// change. (The leader lock's connection is spared: a leader that loses its lock exits, by design.)
TEST_F(SecurityTest, ADatabaseOutageIsAnsweredWithoutTheDatabasesWords) {
  std::string name = db_url_.substr(db_url_.find("dbname=") + 7);
  name = name.substr(0, name.find(' '));
  auto admin = [&](const std::string& sql) {
    pqxx::connection c(testing::TestPostgres::Get().admin_url());
    pqxx::nontransaction w(c);
    w.exec(sql);
  };
  auto says_nothing_inside = [&](const std::string& what, const Reply& r) {
    for (const std::string& inner :
         {name, std::string("ufmr-pg"), std::string("PGSQL"), std::string("FATAL"),
          std::string("accepting"), std::string("does not exist"), std::string("relation")}) {
      EXPECT_EQ(r.text.find(inner), std::string::npos)
          << what << " says " << inner << ": " << r.Describe();
    }
  };
  const Creds viewer = Token(Role::kViewer);
  ASSERT_EQ(Call("GET", "/api/tickets", "", viewer).status, 200);
  store_.reset();
  admin("ALTER DATABASE " + name + " ALLOW_CONNECTIONS false");
  admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name +
        "' AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')");

  Reply ready;
  EXPECT_TRUE(WaitUntil(
      [&] {
        ready = Call("GET", "/readyz");
        return ready.status == 503;
      },
      seconds(20)))
      << ready.Describe();
  says_nothing_inside("/readyz", ready);
  EXPECT_EQ(ready.body["checks"]["database"]["ok"], false) << ready.Describe();
  const Reply health = Call("GET", "/healthz");
  EXPECT_EQ(health.status, 200) << health.Describe();
  EXPECT_EQ(Str(health.body, "database"), "unavailable") << health.Describe();
  says_nothing_inside("/healthz", health);
  const Reply list = Call("GET", "/api/tickets", "", viewer);
  EXPECT_EQ(list.status, 503) << list.Describe();
  EXPECT_TRUE(list.IsJsonError()) << list.Describe();
  says_nothing_inside("a token's request", list);
  const Reply login =
      Call("POST", "/api/login", Json{{"name", "vic"}, {"password", kPassword}}.dump());
  EXPECT_EQ(login.status, 503) << login.Describe();
  says_nothing_inside("a login", login);
  EXPECT_NE(service_->Log().find("database ping: "), std::string::npos)
      << "the cause is not logged";
  EXPECT_NE(service_->Log().find("\"" + name + "\" is not currently accepting connections"),
            std::string::npos)
      << "the cause is not logged";

  admin("ALTER DATABASE " + name + " ALLOW_CONNECTIONS true");
  ASSERT_TRUE(
      WaitUntil([&] { return Call("GET", "/api/tickets", "", viewer).status == 200; }, seconds(30)))
      << "the service did not come back with its database";
  {
    pqxx::connection c(db_url_);
    pqxx::nontransaction w(c);
    w.exec("ALTER TABLE tickets RENAME TO tickets_away");
  }
  const Reply gone = Call("GET", "/api/tickets", "", viewer);
  EXPECT_EQ(gone.status, 503) << gone.Describe();
  EXPECT_EQ(Str(gone.body, "error"), kUnavailableAnswer) << gone.Describe();
  says_nothing_inside("the ticket list without its table", gone);
  {
    pqxx::connection c(db_url_);
    pqxx::nontransaction w(c);
    w.exec("ALTER TABLE tickets_away RENAME TO tickets");
  }
  EXPECT_EQ(Call("GET", "/api/tickets", "", viewer).status, 200);
  EXPECT_TRUE(Healthy());
}

}  // namespace
}  // namespace ufmr
