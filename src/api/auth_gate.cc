#include "api/auth_gate.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "api/auth_store.h"
#include "api/password.h"
#include "api/request_body.h"
#include "base/text.h"
#include "base/utf8.h"

namespace ufmr {
namespace {

using Json = nlohmann::json;

// How much of a request body the audit log keeps.
constexpr size_t kMaxAuditBody = 4096;
// Names remembered for throttling before old entries are pruned.
constexpr size_t kMaxThrottled = 10000;
// Password checks at once (the HTTP server has 4 threads; the others keep serving).
constexpr int kMaxConcurrentLogins = 2;

std::string Clean(std::string_view s, size_t max) {
  std::string out;
  SanitizeUtf8(s.substr(0, std::min(s.size(), max)), &out);
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return std::string(s.substr(b, e - b));
}

// The value of the session cookie in a Cookie header; "" if absent.
std::string SessionCookie(const HttpRequest& req) {
  std::string header = req.Header("cookie");
  size_t pos = 0;
  while (pos <= header.size()) {
    size_t end = header.find(';', pos);
    if (end == std::string::npos) end = header.size();
    std::string pair = Trim(std::string_view(header).substr(pos, end - pos));
    size_t eq = pair.find('=');
    if (eq != std::string::npos && pair.substr(0, eq) == kSessionCookie) {
      return Trim(std::string_view(pair).substr(eq + 1));
    }
    pos = end + 1;
  }
  return "";
}

bool IsSecretKey(const std::string& key) {
  std::string k = AsciiLower(key);
  for (const char* word : {"password", "passwd", "token", "secret"}) {
    if (k.find(word) != std::string::npos) return true;
  }
  return false;
}

// Without secrets, and with every key and string UTF-8-clean and NUL-free (PostgreSQL's jsonb
// refuses \u0000: a body that smuggles one in must not cost the audit row).
Json Scrub(const Json& j) {
  if (j.is_object()) {
    Json out = Json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!IsSecretKey(it.key())) out[Clean(it.key(), 256)] = Scrub(it.value());
    }
    return out;
  }
  if (j.is_array()) {
    Json out = Json::array();
    for (const auto& v : j) out.push_back(Scrub(v));
    return out;
  }
  if (j.is_string()) return Clean(j.get_ref<const std::string&>(), kMaxAuditBody);
  return j;
}

// The request body as the audit log keeps it: JSON without secrets, at most kMaxAuditBody bytes;
// anything else (and JSON nested deeper than kMaxBodyDepth) by its length only.
Json AuditDetails(const std::string& body) {
  if (body.empty()) return Json::object();
  Json j = ParseBodyJson(body);  // nested at most kMaxBodyDepth deep: Scrub recurses
  if (j.is_discarded()) return {{"body_bytes", body.size()}};
  j = Scrub(j);
  std::string dumped = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (dumped.size() > kMaxAuditBody) {
    return {{"body_bytes", body.size()},
            {"truncated", true},
            {"body_prefix", Clean(dumped, kMaxAuditBody)}};
  }
  return j.is_object() ? j : Json{{"body", j}};
}

std::string Target(const HttpRequest& req) {
  std::string out;
  for (const auto& [k, v] : req.params) out += (out.empty() ? "" : ",") + k + "=" + v;
  return Clean(out, 256);
}

std::string CookieHeader(const std::string& value, long long max_age, bool secure) {
  return std::string(kSessionCookie) + "=" + value +
         "; Path=/; HttpOnly; SameSite=Strict; Max-Age=" + std::to_string(max_age) +
         (secure ? "; Secure" : "");
}

Principal Anonymous() {
  Principal p;
  p.via = "anonymous";
  return p;
}

// The answer to a request whose credentials could not be checked or were refused.
HttpResponse Refused(const Status& s) {
  if (s.code() == Status::Code::kUnavailable) {
    LogFailedAnswer(503, "cannot check credentials: " + s.message());
    return HttpResponse::Error(503, std::string("cannot check credentials: ") + kUnavailableAnswer);
  }
  return HttpResponse::Error(401, s.message());
}

}  // namespace

struct AuthGate::Impl {
  Impl(AuthStore& s, const Config::Auth& c, const Clock& k) : store(s), config(c), clock(k) {
    // Unknown names are checked against this, so a wrong name costs as long as a wrong password.
    auto h = HashPassword(RandomSecret());
    dummy_hash = h.ok() ? h.value() : "";
  }

  struct Failures {
    int count = 0;
    double first = 0;         // the first failure of the current window
    double locked_until = 0;  // 0: not locked
  };

  AuthStore& store;
  const Config::Auth config;
  const Clock& clock;
  std::string dummy_hash;
  std::mutex mu;
  std::unordered_map<std::string, Failures> failures;
  // Password checks in progress: each costs ~0.1 s and 64 MiB (argon2id) on an HTTP thread, so
  // a flood of logins must not take every thread (and the dashboard with them).
  std::atomic<int> verifying{0};

  double Now() const { return ToEpochSeconds(clock.Now()); }

  Result<Principal> Identify(const HttpRequest& req) const {
    std::string authorization = req.Header("authorization");
    if (!authorization.empty()) {
      std::string a = Trim(authorization);
      if (a.size() < 7 || AsciiLower(a.substr(0, 7)) != "bearer ") {
        return Status::InvalidArgument("unsupported Authorization: send 'Bearer <token>'");
      }
      std::string token = Trim(std::string_view(a).substr(7));
      auto found = store.FindToken(SecretDigest(token), Now());
      if (!found.ok()) return found.status();
      if (!found.value()) return Status::NotFound("unknown or revoked API token");
      Principal p;
      p.authenticated = true;
      p.name = found.value()->user;
      p.role = found.value()->role;
      p.via = "token";
      return p;
    }
    std::string sid = SessionCookie(req);
    if (sid.empty()) return Anonymous();
    auto found = store.FindSession(SecretDigest(sid));
    if (!found.ok()) return found.status();
    if (!found.value()) return Status::NotFound("the session has ended: log in again");
    if (found.value()->expires_at <= Now()) {
      return Status::NotFound("the session has expired: log in again");
    }
    Principal p;
    p.authenticated = true;
    p.name = found.value()->user;
    p.role = found.value()->role;
    p.via = "session";
    p.csrf = found.value()->csrf;
    return p;
  }

  // The audit row of an accepted change, written before the change is made (status 0); the
  // change is refused if the row cannot be written.
  Result<int64_t> BeginAudit(const HttpRequest& req, const Principal& who,
                             const std::string& action) const {
    return store.BeginAudit(Entry(req, who, action, 0));
  }

  void FinishAudit(int64_t id, const HttpRequest& req, const std::string& action,
                   int status) const {
    Status s = store.FinishAudit(id, status);
    if (!s.ok()) {
      spdlog::error("audit: could not record the answer {} to {} {} ({}, audit row {}): {}", status,
                    ForLog(req.method, 16), ForLog(req.path, 512), action, id, s.ToString());
    }
  }

  AuditEntry Entry(const HttpRequest& req, const Principal& who, const std::string& action,
                   int status) const {
    AuditEntry e;
    e.at = Now();
    e.actor = Clean(who.name, 64);
    if (who.authenticated) e.role = RoleName(who.role);
    e.via = who.via == "session" || who.via == "token" || who.via == "anonymous" ? who.via : "";
    e.action = action;
    e.method = Clean(req.method, 16);
    e.path = Clean(req.path, 512);
    e.target = Target(req);
    e.status = status;
    e.details = AuditDetails(req.body);
    return e;
  }

  void Audit(const HttpRequest& req, const Principal& who, const std::string& action,
             int status) const {
    AuditEntry e = Entry(req, who, action, status);
    Status s = store.AddAudit(e);
    if (!s.ok()) {
      spdlog::error("audit: could not record {} {} by '{}' ({}): {}", ForLog(e.method, 16),
                    ForLog(e.path, 512), ForLog(e.actor), action, s.ToString());
    }
  }

  // Counts a login attempt for the name before its password is checked, so guesses sent in
  // parallel count too (a good password then forgives it: RecordSuccess). Returns the seconds the
  // name is still locked out for; 0 when this attempt may go on.
  double BeginAttempt(const std::string& name, double now) {
    std::lock_guard lock(mu);
    if (failures.size() >= kMaxThrottled) {
      std::erase_if(failures, [&](const auto& kv) {
        return kv.second.locked_until <= now && kv.second.first + config.login_lockout_s <= now;
      });
    }
    Failures& f = failures[name];
    if (f.locked_until > now) return f.locked_until - now;
    if (f.count == 0 || f.first + config.login_lockout_s <= now || f.locked_until != 0) {
      f = Failures{0, now, 0};
    }
    if (++f.count >= config.login_max_failures) {
      f.locked_until = now + config.login_lockout_s;
      spdlog::warn("login: '{}' locked out for {:.0f} s after {} login attempts", ForLog(name),
                   config.login_lockout_s, f.count);
    }
    return 0;
  }

  void RecordSuccess(const std::string& name) {
    std::lock_guard lock(mu);
    failures.erase(name);
  }

  struct LoginForm {
    std::string name;
    std::string password;
  };

  // POST /api/login: the request's shape, the throttle, the password, then a new session.
  HttpResponse Login(const HttpRequest& req) {
    Principal who;
    who.via = "";
    HttpResponse refused;
    std::optional<LoginForm> form = ReadLogin(req, who, &refused);
    if (!form) return refused;
    const std::string key = Clean(form->name, 64);
    who.name = key;
    double now = Now();
    if (double wait = BeginAttempt(key, now); wait > 0) return LockedOut(req, who, wait);
    // Only a valid name is looked up: the database would cut a name at a NUL byte, and "admin\0x"
    // must not reach admin past the throttle (which counts the name as typed).
    const bool valid_name = ValidateUserName(form->name).ok();
    Result<User> user = Status::NotFound("no such user");
    if (valid_name) user = store.GetUser(form->name);
    if (!user.ok() && user.status().code() != Status::Code::kNotFound) {
      LogFailedAnswer(503, "login: cannot check credentials: " + user.status().message());
      return HttpResponse::Error(503,
                                 std::string("cannot check credentials: ") + kUnavailableAnswer);
    }
    int busy = verifying.fetch_add(1);
    struct Done {
      std::atomic<int>& n;
      ~Done() { n.fetch_sub(1); }
    } done{verifying};
    if (busy >= kMaxConcurrentLogins) {
      auto res = HttpResponse::Error(503, "too many logins at once: try again in a second");
      res.headers.emplace_back("Retry-After", "1");
      Audit(req, who, "login", 503);
      return res;
    }
    if (!PasswordMatches(user, form->password)) {
      spdlog::warn("login: refused for '{}'", ForLog(key));
      Audit(req, who, "login", 401);
      return HttpResponse::Error(401, "wrong name or password");
    }
    RecordSuccess(key);
    return StartSession(req, who, user.value(), now);
  }

  // The name and password of a login; nullopt, with the answer (audited) in *refused, when the
  // request is not a login this service takes.
  std::optional<LoginForm> ReadLogin(const HttpRequest& req, const Principal& who,
                                     HttpResponse* refused) const {
    // A cross-site form cannot send JSON without a preflight, and browsers mark a cross-site
    // request: either keeps another site from logging a visitor in as someone else.
    if (AsciiLower(req.Header("content-type")).rfind("application/json", 0) != 0) {
      Audit(req, who, "login", 415);
      *refused = HttpResponse::Error(415, "send the login as application/json");
      return std::nullopt;
    }
    if (AsciiLower(req.Header("sec-fetch-site")) == "cross-site") {
      Audit(req, who, "login", 403);
      *refused = HttpResponse::Error(403, "a login from another site is refused");
      return std::nullopt;
    }
    Json body = ParseBodyJson(req.body);
    if (!body.is_object() || !body.contains("name") || !body["name"].is_string() ||
        !body.contains("password") || !body["password"].is_string()) {
      Audit(req, who, "login", 400);
      *refused =
          HttpResponse::Error(400, R"(expected a JSON object {"name": ..., "password": ...})");
      return std::nullopt;
    }
    return LoginForm{body["name"].get<std::string>(), body["password"].get<std::string>()};
  }

  // 429 for a name locked out for `wait` more seconds.
  HttpResponse LockedOut(const HttpRequest& req, const Principal& who, double wait) const {
    long long retry = std::max(1LL, static_cast<long long>(std::ceil(wait)));
    auto res = HttpResponse::Error(
        429, "too many failed logins: try again in " + std::to_string(retry) + " s");
    res.headers.emplace_back("Retry-After", std::to_string(retry));
    Audit(req, who, "login", 429);
    return res;
  }

  // Whether the password is the user's (who is not disabled). An unknown or disabled user costs
  // the same work as a real one.
  bool PasswordMatches(const Result<User>& user, const std::string& password) const {
    if (user.ok() && !user->disabled) return VerifyPassword(user->password_hash, password);
    VerifyPassword(dummy_hash, password);
    return false;
  }

  // A new session for the user on every login (the one this browser had, if any, ends): the
  // session cookie, and the answer {"name","role","csrf","expires_at"}.
  HttpResponse StartSession(const HttpRequest& req, Principal who, const User& user, double now) {
    if (std::string old = SessionCookie(req); !old.empty()) {
      LogIfError(store.EndSession(SecretDigest(old)), "login: ending the browser's last session");
    }
    std::string sid = RandomSecret();
    std::string csrf = RandomSecret();
    double expires = now + config.session_ttl_s;
    Status s = store.CreateSession(SecretDigest(sid), user.name, csrf, now, expires);
    if (!s.ok()) {
      if (s.code() != Status::Code::kUnavailable) {
        return HttpResponse::Error(401, "wrong name or password");
      }
      LogFailedAnswer(503, "login: cannot start a session: " + s.message());
      return HttpResponse::Error(503, std::string("cannot start a session: ") + kUnavailableAnswer);
    }
    who.authenticated = true;
    who.role = user.role;
    who.via = "session";
    spdlog::info("login: {} ({})", user.name, RoleName(user.role));
    auto res = HttpResponse::Json(200, {{"name", user.name},
                                        {"role", RoleName(user.role)},
                                        {"csrf", csrf},
                                        {"expires_at", expires}});
    res.headers.emplace_back(
        "Set-Cookie", CookieHeader(sid, static_cast<long long>(std::ceil(config.session_ttl_s)),
                                   config.secure_cookies));
    res.headers.emplace_back("Cache-Control", "no-store");
    Audit(req, who, "login", 200);
    return res;
  }

  HttpResponse Logout(const HttpRequest& req) {
    std::string sid = SessionCookie(req);
    Principal who = Anonymous();
    if (!sid.empty()) {
      const std::string digest = SecretDigest(sid);
      auto found = store.FindSession(digest);
      if (!found.ok()) return Refused(found.status());
      if (found.value() && found.value()->expires_at > Now()) {
        who.authenticated = true;
        who.name = found.value()->user;
        who.role = found.value()->role;
        who.via = "session";
        if (!SecretsEqual(req.Header(kCsrfHeader), found.value()->csrf)) {
          Audit(req, who, "logout", 403);
          return HttpResponse::Error(403, "missing or wrong CSRF token (X-CSRF-Token)");
        }
      }
      if (Status s = store.EndSession(digest); !s.ok()) return Refused(s);
    }
    auto res = HttpResponse::Json(200, {{"ok", true}});
    res.headers.emplace_back("Set-Cookie", CookieHeader("", 0, config.secure_cookies));
    if (who.authenticated) Audit(req, who, "logout", 200);
    return res;
  }

  Json MeJson(const Principal& p) const {
    return {{"authenticated", p.authenticated},
            {"name", p.name},
            {"role", p.authenticated ? Json(RoleName(p.role)) : Json(nullptr)},
            {"via", p.via},
            {"csrf", p.csrf},
            {"anonymous_read", config.anonymous_read}};
  }

  HttpResponse Me(const HttpRequest& req) const {
    auto p = Identify(req);
    if (p.ok()) return HttpResponse::Json(200, MeJson(p.value()));
    if (p.status().code() == Status::Code::kUnavailable || !req.Header("authorization").empty()) {
      return Refused(p.status());
    }
    // A stale session cookie: the browser is anonymous now, and forgets it.
    auto res = HttpResponse::Json(200, MeJson(Anonymous()));
    res.headers.emplace_back("Set-Cookie", CookieHeader("", 0, config.secure_cookies));
    return res;
  }

  HttpResponse AuditList(const HttpRequest& req) const {
    int limit = 100;
    std::string text = req.Query("limit");
    if (!text.empty()) {
      try {
        size_t used = 0;
        limit = std::stoi(text, &used);
        if (used != text.size() || limit < 1 || limit > 1000) throw std::out_of_range("limit");
      } catch (const std::exception&) {
        return HttpResponse::Error(400, "limit must be an integer from 1 to 1000");
      }
    }
    auto entries = store.RecentAudit(limit);
    if (!entries.ok()) return HttpResponse::FromStatus(entries.status());
    Json out = Json::array();
    for (const auto& e : entries.value()) out.push_back(e.ToJson());
    return HttpResponse::Json(200, {{"entries", out}});
  }
};

AuthGate::AuthGate(AuthStore& store, const Config::Auth& config, const Clock& clock)
    : impl_(std::make_unique<Impl>(store, config, clock)) {}

AuthGate::~AuthGate() = default;

Result<Principal> AuthGate::Identify(const HttpRequest& req) const { return impl_->Identify(req); }

HttpHandler AuthGate::Read(Handler handler) const {
  return Read(Role::kViewer, std::move(handler));
}

HttpHandler AuthGate::Read(Role min, Handler handler) const {
  Impl* impl = impl_.get();
  return [impl, min, handler = std::move(handler)](const HttpRequest& req) {
    auto p = impl->Identify(req);
    if (!p.ok()) return Refused(p.status());
    if (!p->authenticated) {
      if (min != Role::kViewer || !impl->config.anonymous_read) {
        return HttpResponse::Error(401, "log in first");
      }
    } else if (p->role < min) {
      return HttpResponse::Error(403, std::string("this needs the role ") + RoleName(min) +
                                          " or above; " + p->name + " is " + RoleName(p->role));
    }
    return handler(req, p.value());
  };
}

HttpHandler AuthGate::Mutate(Role min, std::string action, Handler handler) const {
  Impl* impl = impl_.get();
  return [impl, min, action = std::move(action),
          handler = std::move(handler)](const HttpRequest& req) {
    auto p = impl->Identify(req);
    Principal who = p.ok() ? p.value() : Principal{};
    HttpResponse res;
    if (!p.ok()) {
      res = Refused(p.status());
    } else if (!who.authenticated) {
      res = HttpResponse::Error(401, "log in first: changes need a user");
    } else if (who.role < min) {
      res =
          HttpResponse::Error(403, std::string("'") + action + "' needs the role " + RoleName(min) +
                                       " or above; " + who.name + " is " + RoleName(who.role));
    } else if (who.via == "session" && !SecretsEqual(req.Header(kCsrfHeader), who.csrf)) {
      res = HttpResponse::Error(403, "missing or wrong CSRF token (X-CSRF-Token)");
    } else {
      // Who, when and what is on record before anything changes; without it, nothing does.
      auto audit = impl->BeginAudit(req, who, action);
      if (!audit.ok()) {
        spdlog::error("audit: cannot record {} {} by '{}': {}; refused", ForLog(req.method, 16),
                      ForLog(req.path, 512), ForLog(who.name), audit.status().ToString());
        return HttpResponse::Error(503, "cannot record the change in the audit log: not made");
      }
      try {
        res = handler(req, who);
      } catch (...) {
        impl->FinishAudit(audit.value(), req, action, 500);
        throw;
      }
      impl->FinishAudit(audit.value(), req, action, res.status);
      return res;
    }
    impl->Audit(req, who, action, res.status);
    return res;
  };
}

void AuthGate::Register(HttpRouter& router) const {
  Impl* impl = impl_.get();
  router.Add("POST", "/api/login", [impl](const HttpRequest& req) { return impl->Login(req); });
  router.Add("POST", "/api/logout", [impl](const HttpRequest& req) { return impl->Logout(req); });
  router.Add("GET", "/api/me", [impl](const HttpRequest& req) { return impl->Me(req); });
  router.Add("GET", "/api/audit",
             Read(Role::kAdmin, [impl](const HttpRequest& req, const Principal&) {
               return impl->AuditList(req);
             }));
}

}  // namespace ufmr
