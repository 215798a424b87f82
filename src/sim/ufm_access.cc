#include "sim/ufm_access.h"

#include <cctype>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "base/text.h"

namespace ufmr::sim {

namespace {

using Json = nlohmann::json;

// The prefix of a UFM REST path ("/ufmRest", "/ufmRestV2", "/ufmRestV3"); "" for none.
std::string RestPrefix(const std::string& path) {
  for (const char* p : {"/ufmRestV2", "/ufmRestV3", "/ufmRest"}) {
    std::string ps(p);
    if (path == ps || path.rfind(ps + "/", 0) == 0) return ps;
  }
  return "";
}

// A path of UFM's REST API asked for without a prefix (on the UFM host itself).
bool IsLocalRestPath(const std::string& path) {
  return path.rfind("/app/", 0) == 0 || path.rfind("/resources/", 0) == 0 || path == "/actions" ||
         path == "/jobs" || path.rfind("/jobs/", 0) == 0;
}

// A secret no one guesses twice: a counter and the time.
std::string NewSecret(char first, char middle, uint64_t n) {
  return first + std::to_string(n) + middle +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

}  // namespace

std::optional<std::string> DecodeBase64(const std::string& in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  size_t i = 0;
  for (; i < in.size() && in[i] != '='; ++i) {
    int v = value(in[i]);
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  for (; i < in.size(); ++i) {
    if (in[i] != '=') return std::nullopt;
  }
  return out;
}

std::optional<HttpResponse> UfmAccess::Admit(HttpRequest& r) {
  // UFM's four ways in: basic auth on /ufmRest, a session cookie on /ufmRestV2, a token on
  // /ufmRestV3, and X-Remote-User with no prefix on the UFM host itself. All reach one router.
  const std::string prefix = RestPrefix(r.path);
  const bool local = prefix.empty() && IsLocalRestPath(r.path);
  if (prefix.empty() && !local) return std::nullopt;
  bool ok = false;
  if (prefix == "/ufmRest") {
    ok = BasicAuthorized(r);
  } else if (local) {
    ok = r.Header("x-remote-user") == "ufmsystem";
  } else {
    ok = HoldsSecret(r, prefix);
  }
  if (!ok) {
    HttpResponse out = HttpResponse::Error(401, "authentication required");
    if (prefix == "/ufmRest") out.headers.emplace_back("WWW-Authenticate", "Basic realm=\"UFM\"");
    return out;
  }
  if (auto bad = NextMisbehaviour(r)) return bad;
  if (prefix != "/ufmRest") {
    r.path = "/ufmRest" + r.path.substr(prefix.size());
    r.target = "/ufmRest" + r.target.substr(prefix.size());
  }
  return std::nullopt;
}

bool UfmAccess::BasicAuthorized(const HttpRequest& request) const {
  const std::string header = request.Header("authorization");
  if (header.size() < 6 || AsciiLower(header.substr(0, 6)) != "basic ") return false;
  size_t start = 6;
  while (start < header.size() && header[start] == ' ') ++start;
  std::optional<std::string> decoded = DecodeBase64(header.substr(start));
  return decoded && *decoded == user_ + ":" + password_;
}

bool UfmAccess::HoldsSecret(const HttpRequest& r, const std::string& prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  if (prefix == "/ufmRestV2") {
    std::string cookie = r.Header("cookie");
    bool ok = false;
    for (const auto& sid : sessions_)
      ok = ok || cookie.find("sessionid=" + sid) != std::string::npos;
    return ok;
  }
  std::string header = r.Header("authorization");
  return header.size() > 6 && AsciiLower(header.substr(0, 6)) == "basic " &&
         tokens_.count(header.substr(6)) > 0;
}

HttpResponse UfmAccess::Login(const HttpRequest& request) {
  auto form = ParseQueryString(request.body);
  if (form["httpd_username"] != user_ || form["httpd_password"] != password_) {
    return HttpResponse::Error(401, "bad user name or password");
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::string sid = NewSecret('s', 'x', ++next_secret_);
  sessions_.insert(sid);
  HttpResponse out = HttpResponse::Text(200, "<html><body>logged in</body></html>", "text/html");
  out.headers.emplace_back("Set-Cookie", "sessionid=" + sid + "; Path=/; HttpOnly");
  return out;
}

HttpResponse UfmAccess::IssueToken(const HttpRequest&) {
  // Reached only with basic auth on /ufmRest (checked in Admit).
  std::lock_guard<std::mutex> lock(mu_);
  std::string token = NewSecret('t', 'k', ++next_secret_);
  tokens_.insert(token);
  return HttpResponse::Json(200, Json{{"access_token", token}, {"revoked", false}});
}

HttpResponse UfmAccess::Echo(const HttpRequest& r, int status) {
  // As a web framework's debugging error page: the request, its credentials included.
  Json headers = Json::object();
  for (const auto& [k, v] : r.headers) headers[k] = v;
  return HttpResponse::Json(status, Json{{"error", status == 503   ? "Service Unavailable"
                                                   : status == 401 ? "Unauthorized"
                                                                   : "Bad Request"},
                                         {"method", r.method},
                                         {"path", r.target},
                                         {"body", r.body},
                                         {"headers", headers}});
}

HttpResponse UfmAccess::Misbehave(const HttpRequest& request) {
  static const std::set<std::string> kModes = {"html_error", "html_login",     "status_500",
                                               "status_401", "malformed_json", "slow",
                                               "echo_400",   "echo_401",       "echo_503"};
  Json b = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (b.is_discarded()) return HttpResponse::Error(400, "malformed JSON body");
  if (!b.is_object()) return HttpResponse::Error(400, "body must be a JSON object");
  std::string mode = b.value("mode", "");
  if (!kModes.count(mode)) {
    return HttpResponse::Error(400,
                               "mode must be one of html_error, html_login, status_500, "
                               "status_401, malformed_json, slow, echo_400, echo_401, echo_503");
  }
  int count = b.value("count", 1);
  int delay_ms = b.value("delay_ms", 0);
  if (count < 1 || count > 1000 || delay_ms < 0 || delay_ms > 120000) {
    return HttpResponse::Error(400, "count must be 1..1000 and delay_ms 0..120000");
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < count; ++i) misbehaviours_.push_back({mode, delay_ms});
  return HttpResponse::Json(200, Json{{"queued", misbehaviours_.size()}});
}

std::optional<HttpResponse> UfmAccess::NextMisbehaviour(const HttpRequest& r) {
  Misbehaviour m;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (misbehaviours_.empty()) return std::nullopt;
    m = misbehaviours_.front();
    misbehaviours_.pop_front();
  }
  if (m.mode == "slow") {
    std::this_thread::sleep_for(std::chrono::milliseconds(m.delay_ms));
    return std::nullopt;
  }
  if (m.mode == "html_error") {
    return HttpResponse::Text(502, "<html><body><h1>502 Bad Gateway</h1></body></html>",
                              "text/html");
  }
  if (m.mode == "html_login") {
    // An expired session on a real UFM: a login page where JSON was expected.
    return HttpResponse::Text(200, "<!DOCTYPE html><html><body><form action=\"/dologin\">",
                              "text/html");
  }
  if (m.mode.rfind("echo_", 0) == 0) return Echo(r, std::stoi(m.mode.substr(5)));
  if (m.mode == "status_500") return HttpResponse::Error(500, "internal server error");
  if (m.mode == "status_401") return HttpResponse::Error(401, "session expired");
  return HttpResponse::Text(200, "[{\"id\": 1, \"name\": ", "application/json");
}

}  // namespace ufmr::sim
