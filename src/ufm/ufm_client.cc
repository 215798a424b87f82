#include "ufm/ufm_client.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "config/secret_mask.h"
#include "ufm/ports_answer.h"
#include "ufm/ufm_json.h"

namespace ufmr {

namespace {

// Ports, disabled ones included (NVIDIA's port scripts pass show_disabled).
constexpr std::string_view kPortsPath = "/resources/ports?show_disabled=true";
// Links with their cables, in one page: the paging parameters NVIDIA's REST client passes to
// work around a UFM bug (utils/ufm_rest_client.py in Mellanox/ufm_sdk_3.0), which then answers
// {"data": [...]}. ParseUfmList reads both that and a bare list.
constexpr std::string_view kLinksPath =
    "/resources/links?cable_info=true&page_number=1&rpp=1000000000";

HttpClientOptions RestOptions(const Config& c) {
  HttpClientOptions o;
  o.timeout = std::chrono::milliseconds(static_cast<long>(c.ufm.timeout_s * 1000));
  o.verify_tls = !c.ufm.insecure_tls;
  o.ca_bundle = c.ufm.ca_bundle;
  if (c.ufm.auth == "basic") {
    o.basic_user = c.ufm.user;
    o.basic_password = c.ufm.password;
  } else if (c.ufm.auth == "token") {
    o.headers["Authorization"] = "Basic " + c.ufm.token;  // the raw token: no base64, no Bearer
  } else if (c.ufm.auth == "local") {
    o.headers["X-Remote-User"] = "ufmsystem";
  }
  if (c.ufm.insecure_tls && c.ufm.url.rfind("https", 0) == 0) {
    spdlog::warn("ufm.insecure_tls is set: the UFM certificate is NOT verified");
  }
  if (std::string w = CleartextUfmWarning(c); !w.empty()) spdlog::warn("{}", w);
  return o;
}

HttpClientOptions TelemetryOptions(const Config& c) {
  HttpClientOptions o;
  o.timeout = std::chrono::milliseconds(static_cast<long>(c.ufm.timeout_s * 1000));
  o.verify_tls = !c.ufm.insecure_tls;
  o.ca_bundle = c.ufm.ca_bundle;
  return o;
}

std::string Prefix(const std::string& auth) {
  if (auth == "session") return "/ufmRestV2";
  if (auth == "token") return "/ufmRestV3";
  if (auth == "local") return "";
  return "/ufmRest";
}

std::string FormEncode(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

// A field UFM sends as a string or an integer (ids, port numbers); "" for anything else.
std::string IdOrText(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  return "";
}

bool LooksLikeHtml(const HttpResult& r) {
  if (r.Header("content-type").find("html") != std::string::npos) return true;
  size_t i = r.body.find_first_not_of(" \t\r\n");
  return i != std::string::npos && r.body[i] == '<';
}

// The metric label for a REST path: its shape, never an id or a port name.
const char* EndpointOf(const std::string& path) {
  static const std::pair<const char*, const char*> kExact[] = {
      {"/app/events", "events"},
      {"/resources/ports", "ports"},
      {"/resources/links", "links"},
      {"/actions", "actions"},
      {"/jobs", "jobs"},
      {"/app/unhealthy_ports", "unhealthy_ports"},
      {"/app/events/external_event", "external_event"}};
  const std::string bare = path.substr(0, path.find('?'));
  for (const auto& [p, name] : kExact) {
    if (bare == p) return name;
  }
  if (path.rfind("/resources/ports/", 0) == 0) return "port";
  if (path.rfind("/jobs/", 0) == 0) return "job";
  return "other";
}

}  // namespace

std::string CleartextUfmWarning(const Config& c) {
  const std::string scheme = "http://";
  if (AsciiLower(c.ufm.url.substr(0, scheme.size())) != scheme) return "";
  std::string host = c.ufm.url.substr(scheme.size());
  host = host.substr(0, host.find_first_of("/?#"));
  if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  if (!host.empty() && host[0] == '[') {  // [v6 address]:port
    auto end = host.find(']');
    host = host.substr(1, end == std::string::npos ? std::string::npos : end - 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  host = AsciiLower(host);
  const bool v4_loopback =
      host.rfind("127.", 0) == 0 && host.find_first_not_of("0123456789.") == std::string::npos;
  if (host == "localhost" || v4_loopback || host == "::1") return "";
  // auth local sends no secret: the requests themselves, port actions too, are what is exposed.
  std::string what = c.ufm.auth == "local" ? "UFM's requests, port actions included, and answers"
                                           : "UFM's credentials and answers";
  return "ufm.url is plain http:// to " + host + ": " + what +
         " cross the network unencrypted (use https://)";
}

RestUfmClient::RestUfmClient(const Config& config, Sleeper sleeper)
    : ufm_(config.ufm),
      rest_(config.ufm.url + Prefix(config.ufm.auth)),
      sleeper_(std::move(sleeper)),
      rng_(std::random_device{}()),
      telemetry_url_(config.telemetry.url),
      http_(RestOptions(config)),
      telemetry_http_(TelemetryOptions(config)) {
  if (!sleeper_) {
    sleeper_ = [](double s) {
      std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long>(s * 1000)));
    };
  }
}

double RestUfmClient::Backoff(int attempt) {
  double cap = std::min(ufm_.retry_max_s, ufm_.retry_base_s * std::pow(2.0, attempt));
  return std::uniform_real_distribution<double>(0, std::max(cap, 0.0))(rng_);  // full jitter
}

Result<HttpResult> RestUfmClient::Send(const char* endpoint,
                                       const std::function<Result<HttpResult>()>& request) {
  if (!metrics_) return request();
  const auto start = std::chrono::steady_clock::now();
  auto r = request();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long code = r.ok() ? r->status : 0;
  const std::string answer =
      !r.ok() || code < 100 || code > 599 ? "error" : std::to_string(code / 100) + "xx";
  metrics_->Add(MetricName("ufmr_ufm_requests_total", {{"endpoint", endpoint}, {"code", answer}}));
  metrics_->Observe(MetricName("ufmr_ufm_request_duration_seconds", {{"endpoint", endpoint}}),
                    seconds);
  return r;
}

Status RestUfmClient::Login() {
  auto r = Send("login", [&] {
    return http_.PostForm(
        ufm_.url + "/dologin",
        "httpd_username=" + FormEncode(ufm_.user) + "&httpd_password=" + FormEncode(ufm_.password));
  });
  if (!r.ok()) return r.status();
  if (r->status == 401 || r->status == 403) {
    return Status::InvalidArgument("UFM refused the login of user '" + ufm_.user + "' (HTTP " +
                                   std::to_string(r->status) + ")");
  }
  if (r->status >= 400) return Status::Unavailable("UFM login: HTTP " + std::to_string(r->status));
  logged_in_ = true;
  spdlog::info("logged in to UFM as '{}' (session)", ufm_.user);
  return Status::Ok();
}

Result<HttpResult> RestUfmClient::Call(const std::string& method, const std::string& path,
                                       const std::string& body, bool idempotent, bool want_json) {
  const std::string what = method + " " + path;
  Status last = Status::Unavailable(what + ": not attempted");
  bool relogged = false;
  for (int attempt = 0; attempt <= ufm_.retries; ++attempt) {
    if (attempt > 0) sleeper_(Backoff(attempt - 1));
    if (ufm_.auth == "session" && !logged_in_) {
      Status s = Login();
      if (s.code() == Status::Code::kInvalidArgument) return s;  // wrong credentials
      if (!s.ok()) {
        last = s;
        continue;
      }
    }
    auto r = Send(EndpointOf(path), [&] {
      return method == "GET"   ? http_.Get(rest_ + path)
             : method == "PUT" ? http_.Put(rest_ + path, body)
                               : http_.Post(rest_ + path, body);
    });
    if (!r.ok()) {
      last = r.status();
      if (idempotent || http_.last_failure_before_send()) continue;
      return last;  // it may have reached UFM: never send an action twice blindly
    }
    const long code = r->status;
    bool session_lost = ufm_.auth == "session" &&
                        (code == 401 || code == 403 || (want_json && LooksLikeHtml(r.value())));
    if (session_lost && !relogged) {
      // Sessions expire: log in again once, then repeat the call.
      logged_in_ = false;
      relogged = true;
      --attempt;
      continue;
    }
    if (code == 401 || code == 403) {
      return Status::Unavailable(what + ": UFM refused the credentials (HTTP " +
                                 std::to_string(code) + ", auth " + ufm_.auth + ")");
    }
    if (code == 404) return Status::NotFound(what + ": not found");
    if (code >= 500 || code == 429) {
      last = Status::Unavailable(what + ": HTTP " + std::to_string(code) + ": " +
                                 SecretMask::Global().Excerpt(r->body, 200));
      if (idempotent) continue;
      return last;
    }
    if (code >= 400) {
      return Status::InvalidArgument(what + ": UFM rejected the request: HTTP " +
                                     std::to_string(code) + ": " +
                                     SecretMask::Global().Excerpt(r->body, 200));
    }
    if (code < 200 || code >= 300) {
      return Status::Unavailable(what + ": HTTP " + std::to_string(code) + ": " +
                                 SecretMask::Global().Excerpt(r->body, 200));
    }
    if (want_json && LooksLikeHtml(r.value())) {
      return Status::Unavailable(what +
                                 ": UFM answered an HTML page where JSON was expected (HTTP " +
                                 std::to_string(code) + ")");
    }
    return r;
  }
  return Status::Unavailable(last.message() + " (after " + std::to_string(ufm_.retries + 1) +
                             " attempts)");
}

Result<HttpResult> RestUfmClient::Checked(Result<HttpResult> r, const std::string& what) {
  if (!r.ok()) return r.status();
  if (r->status == 401 || r->status == 403) {
    return Status::Unavailable(what + ": UFM refused the credentials (HTTP " +
                               std::to_string(r->status) + ")");
  }
  if (r->status == 404) return Status::NotFound(what + ": not found");
  if (r->status < 200 || r->status >= 300) {
    return Status::Unavailable(what + ": HTTP " + std::to_string(r->status) + ": " +
                               SecretMask::Global().Excerpt(r->body, 300));
  }
  return r;
}

Result<ParsedEvents> RestUfmClient::GetEvents() {
  auto r = Call("GET", "/app/events", "", true, true);
  if (!r.ok()) return r.status();
  return ParseUfmEvents(r->body);
}

Result<PortTable> RestUfmClient::GetPorts() {
  // What UFM leaves out by default is undocumented: NVIDIA's own port scripts ask for disabled
  // ports explicitly, and a disabled port is exactly what this service must see.
  auto r = Call("GET", std::string(kPortsPath), "", true, true);
  if (!r.ok()) return r.status();
  int skipped = 0;
  auto ports = ParsePortTable(r->body, &skipped);
  if (skipped > 0) spdlog::warn("ports: skipped {} malformed entries", skipped);
  return ports;
}

Result<std::vector<LinkInfo>> RestUfmClient::GetLinks() {
  auto r = Call("GET", std::string(kLinksPath), "", true, true);
  if (!r.ok()) return r.status();
  int skipped = 0;
  auto links = ParseLinks(r->body, &skipped);
  if (skipped > 0) spdlog::warn("links: skipped {} malformed entries", skipped);
  return links;
}

Result<PortInfo> RestUfmClient::GetPort(const std::string& name) {
  // Disabled ports asked for here too: every check of an action reads its port this way.
  auto r = Call("GET", "/resources/ports/" + name + "?show_disabled=true", "", true, true);
  if (!r.ok()) return r.status();
  int skipped = 0;
  auto ports = ParsePorts(r->body, &skipped);
  if (!ports.ok()) {
    // Some versions answer a single object rather than a one-element list.
    auto doc = nlohmann::json::parse(r->body, nullptr, false);
    if (doc.is_object()) return ParsePortInfo(doc);
    return ports.status();
  }
  for (auto& p : ports.value()) {
    if (p.name == name) return p;
  }
  return Status::NotFound("port " + name + " not in UFM's answer");
}

std::string RestUfmClient::PortActionBody(const std::string& action, const PortInfo& port,
                                          const std::string& description) {
  nlohmann::json body{{"action", action},
                      {"object_type", "System"},
                      {"object_ids", {port.system_guid}},
                      {"params", {{"port_id", port.name}}},
                      {"description", description},
                      {"identifier", "id"}};
  return body.dump();
}

Result<std::string> RestUfmClient::SubmitPortAction(const std::string& action, const PortInfo& port,
                                                    const std::string& description) {
  auto r = Call("POST", "/actions", PortActionBody(action, port, description), false, false);
  if (!r.ok()) return r.status();
  std::string location = r->Header("location");
  size_t slash = location.find_last_of('/');
  if (location.empty() || slash == std::string::npos || slash + 1 >= location.size()) {
    return Status::Unavailable("UFM accepted " + action + " of " + port.name +
                               " but sent no job Location (HTTP " + std::to_string(r->status) +
                               ")");
  }
  return location.substr(slash + 1);
}

Result<JobStatus> RestUfmClient::GetJob(const std::string& job_id) {
  auto r = Call("GET", "/jobs/" + job_id, "", true, true);
  if (!r.ok()) return r.status();
  auto doc = nlohmann::json::parse(r->body, nullptr, false);
  if (doc.is_array() && doc.empty()) return Status::NotFound("UFM does not know job " + job_id);
  if (doc.is_array()) doc = doc[0];
  if (!doc.is_object() || !doc.contains("Status") || !doc["Status"].is_string()) {
    return Status::Unavailable("job " + job_id + ": answer has no Status");
  }
  JobStatus s;
  s.status = doc["Status"].get<std::string>();
  if (doc.contains("Summary") && doc["Summary"].is_string()) s.summary = doc["Summary"];
  return s;
}

Result<std::vector<JobInfo>> RestUfmClient::GetJobs() {
  auto r = Call("GET", "/jobs", "", true, true);
  if (!r.ok()) return r.status();
  auto doc = ParseUfmList(r->body, "jobs");
  if (!doc.ok()) return Status::Unavailable(doc.status().message());
  std::vector<JobInfo> out;
  for (const auto& j : doc.value()) {
    if (!j.is_object()) continue;
    JobInfo job{IdOrText(j, "ID"), IdOrText(j, "Status"), IdOrText(j, "Description")};
    if (job.id.empty()) job.id = IdOrText(j, "id");
    if (!job.id.empty()) out.push_back(std::move(job));
  }
  return out;
}

std::string RestUfmClient::UnhealthyPortsBody(const std::string& port, bool isolate) {
  nlohmann::json body{{"ports", {port}}, {"ports_policy", isolate ? "UNHEALTHY" : "HEALTHY"}};
  if (isolate) body["action"] = "isolate";
  return body.dump();
}

Status RestUfmClient::SetPortHealth(const std::string& port, bool isolate, const std::string&) {
  // A PUT that sets a state: the same again is harmless, but it is still sent once.
  auto r = Call("PUT", "/app/unhealthy_ports", UnhealthyPortsBody(port, isolate), false, false);
  return r.ok() ? Status::Ok() : r.status();
}

Result<std::vector<UnhealthyPort>> RestUfmClient::GetUnhealthyPorts() {
  auto r = Call("GET", "/app/unhealthy_ports", "", true, true);
  if (!r.ok()) return r.status();
  int skipped = 0;
  auto out = ParseUnhealthyPorts(r->body, &skipped);
  if (skipped > 0) spdlog::warn("unhealthy ports: skipped {} malformed entries", skipped);
  return out;
}

Status RestUfmClient::PostExternalEvent(int event_id, const std::string& name,
                                        const std::string& description) {
  nlohmann::json body{{"event_id", event_id},
                      {"description", description},
                      {"external_event_name", name},
                      {"external_event_type", "Port"},
                      {"external_event_source", "ufm-remediator"}};
  auto r = Call("POST", "/app/events/external_event", body.dump(), false, false);
  return r.ok() ? Status::Ok() : r.status();
}

bool UnhealthyPort::manual() const {
  size_t at = 0;
  while (at <= condition.size()) {
    size_t comma = std::min(condition.find(',', at), condition.size());
    if (AsciiLower(condition.substr(at, comma - at)) == "manual") return true;
    at = comma + 1;
  }
  return false;
}

namespace {

bool IsHexGuid(const std::string& g) {
  return g.size() == 16 && g.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// "0x248A..." or "248a...": lower-case, without the prefix.
std::string BareGuid(std::string g) {
  if (g.rfind("0x", 0) == 0 || g.rfind("0X", 0) == 0) g = g.substr(2);
  return AsciiLower(std::move(g));
}

// The port an unhealthy-ports element names: <UnhealthyGUID>_<UnhealthyPortNumber>; else
// UnhealthyPort when it is itself a port name; else "".
std::string UnhealthyPortName(const nlohmann::json& j) {
  const std::string guid = BareGuid(IdOrText(j, "UnhealthyGUID"));
  const std::string number = IdOrText(j, "UnhealthyPortNumber");
  if (IsHexGuid(guid) && !number.empty() &&
      number.find_first_not_of("0123456789") == std::string::npos) {
    return guid + "_" + number;
  }
  const std::string named = BareGuid(IdOrText(j, "UnhealthyPort"));
  const size_t underscore = named.find('_');
  if (underscore == 16 && IsHexGuid(named.substr(0, 16)) && named.size() > 17 &&
      named.find_first_not_of("0123456789", 17) == std::string::npos) {
    return named;
  }
  return "";
}

// Condition: "MANUAL" up to 6.18, ["MANUAL"] from 6.19 (a port may have several).
std::string ConditionText(const nlohmann::json& j) {
  auto it = j.find("Condition");
  if (it == j.end() || !it->is_array()) return IdOrText(j, "Condition");
  std::string out;
  for (const auto& c : *it) {
    if (!c.is_string()) continue;
    if (!out.empty()) out += ",";
    out += c.get<std::string>();
  }
  return out;
}

}  // namespace

Result<std::vector<UnhealthyPort>> ParseUnhealthyPorts(const std::string& body, int* skipped) {
  // GET /app/unhealthy_ports/<port> answers one object: read it as a list of one.
  auto single = nlohmann::json::parse(body, nullptr, false);
  const bool one =
      single.is_object() && (single.contains("UnhealthyGUID") || single.contains("UnhealthyPort"));
  auto doc = one ? Result<nlohmann::json>(nlohmann::json::array({std::move(single)}))
                 : ParseUfmList(body, "unhealthy ports");
  // A garbled answer is worth another try, not a verdict on the action.
  if (!doc.ok()) return Status::Unavailable(doc.status().message());
  std::vector<UnhealthyPort> out;
  for (const auto& j : doc.value()) {
    UnhealthyPort u;
    if (j.is_object()) {
      u.port = UnhealthyPortName(j);
      u.node = IdOrText(j, "UnhealthyNode");
      u.peer_port = IdOrText(j, "PeerPort");
      u.condition = ConditionText(j);
      u.status_time = IdOrText(j, "StatusTime");
    }
    if (u.port.empty()) {
      ++*skipped;
      continue;
    }
    out.push_back(std::move(u));
  }
  return out;
}

Result<std::string> RestUfmClient::GetTelemetryCsv() {
  if (telemetry_url_.empty()) return Status::NotFound("telemetry is not configured");
  auto r = GetTelemetry(telemetry_url_);
  if (!r.ok()) return r.status();
  return std::move(r->body);
}

Result<HttpResult> RestUfmClient::GetTelemetry(const std::string& url) {
  return Checked(Send("telemetry", [&] { return telemetry_http_.Get(url); }),
                 "GET telemetry " + url);
}

}  // namespace ufmr
