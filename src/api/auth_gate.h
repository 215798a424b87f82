// AuthGate: who is asking, and may they. Identifies a request by its API token
// (`Authorization: Bearer <token>`), else its session cookie, else as anonymous; wraps route
// handlers so reads need a login (unless auth.anonymous_read) and mutations need a role and, for
// cookie sessions, the session's CSRF token; records every mutation in the audit log (who, when,
// what, the answer). Also serves login, logout and "who am I". Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "api/role.h"
#include "base/clock.h"
#include "base/status.h"
#include "config/config.h"
#include "http/http_server.h"

namespace ufmr {

class AuthStore;

struct Principal {
  bool authenticated = false;  // false: anonymous
  std::string name;            // the user's name ("" when anonymous)
  Role role = Role::kViewer;
  std::string via;   // "session", "token" or "anonymous"
  std::string csrf;  // the session's CSRF token (sessions only)
};

// The header a browser session sends its CSRF token in, on every mutation.
inline constexpr const char* kCsrfHeader = "x-csrf-token";
// The session cookie's name.
inline constexpr const char* kSessionCookie = "ufmr_session";

class AuthGate {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&, const Principal&)>;

  AuthGate(AuthStore& store, const Config::Auth& config, const Clock& clock);
  ~AuthGate();

  // Who is asking. A Bearer token or a session cookie that is unknown, revoked or expired is an
  // error (401), not anonymous; no credentials at all is anonymous.
  Result<Principal> Identify(const HttpRequest& req) const;

  // A read: 401 (JSON error) unless the request is authenticated or anonymous reads are allowed.
  HttpHandler Read(Handler handler) const;
  // A read for `min` and above only (e.g. the audit log, admin): 401 without credentials (whatever
  // auth.anonymous_read says, unless `min` is kViewer), 403 below `min`.
  HttpHandler Read(Role min, Handler handler) const;
  // A mutation: 401 without credentials, 403 below `min`, 403 for a cookie session whose request
  // lacks the CSRF header (or carries the wrong one). Then the handler runs, and the audit log
  // records who, when, `action`, the path, the status code and the request body (secrets never).
  HttpHandler Mutate(Role min, std::string action, Handler handler) const;

  // POST /api/login {"name","password"} (sets the HttpOnly SameSite=Strict session cookie, a new
  // session on every login; answers {"name","role","csrf","expires_at"}; failed logins are
  // throttled: 429 with Retry-After), POST /api/logout (a session sends its CSRF header),
  // GET /api/me ({"authenticated","name","role","via","csrf","anonymous_read"}; a stale session
  // cookie answers as anonymous and is cleared), GET /api/audit?limit=N (admin; newest first,
  // {"entries":[...]}). The handlers refer to this gate: it must outlive the router's server.
  void Register(HttpRouter& router) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ufmr
