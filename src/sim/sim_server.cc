#include "sim/sim_server.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <cstdio>
#include <set>
#include <thread>

namespace ufmr::sim {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Field order matters to people reading the output, so UFM-shaped bodies keep insertion order.
HttpResponse Ordered(int status, const OrderedJson& body) {
  return HttpResponse::Text(status, body.dump(-1, ' ', false, Json::error_handler_t::replace),
                            "application/json");
}

Result<Json> ParseBody(const HttpRequest& request) {
  Json body = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return Status::InvalidArgument("malformed JSON body");
  if (!body.is_object()) return Status::InvalidArgument("body must be a JSON object");
  return body;
}

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<int64_t> ParseId(const std::string& s) {
  if (s.empty() || s.size() > 15) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

OrderedJson LinkEnds(const Topology& topology, int link) {
  const Link& l = topology.links()[link];
  return OrderedJson::array({topology.ports()[l.a].name, topology.ports()[l.b].name});
}

OrderedJson FaultJson(const Topology& topology, const Fault& f) {
  OrderedJson j;
  j["id"] = f.id;
  j["kind"] = FaultKindName(f.kind);
  if (IsReboot(f.kind)) {
    const Node& node = topology.nodes()[f.node];
    j[f.kind == FaultKind::kSwitchReboot ? "switch" : "node"] = node.name;
    j["system_guid"] = node.system_guid;
    j["down_s"] = f.down_s;
    j["ends"] = FormatIsoTime(f.ends);
    OrderedJson links = OrderedJson::array();
    for (int link : f.links) links.push_back(LinkEnds(topology, link));
    j["links"] = std::move(links);
    j["created"] = FormatIsoTime(f.created);
    return j;
  }
  j["link"] = LinkEnds(topology, f.link);
  if (f.kind == FaultKind::kFlap) {
    j["interval_s"] = f.interval_s;
    j["flap_down"] = f.flap_down;
  }
  if (f.kind == FaultKind::kSymbolErrors) {
    j["rate"] = f.rate;
    j["rcv_errors_rate"] = f.rcv_errors_rate;
  }
  j["created"] = FormatIsoTime(f.created);
  return j;
}

std::string Hex0x(const std::string& guid) { return "0x" + guid; }

// A CSV field, quoted (RFC 4180) when it holds a comma, a quote or a line break.
std::string CsvField(const std::string& v) {
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
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

SimServer::SimServer(SimState& state, const Clock& clock, SimServerOptions options)
    : state_(state),
      clock_(clock),
      options_(std::move(options)),
      shapes_(options_.ufm_version, options_.disabled_state) {
  AddRestRoutes();
  AddTelemetryRoutes();
}

SimServer::~SimServer() { Stop(); }

void SimServer::AddRestRoutes() {
  auto bind = [this](HttpResponse (SimServer::*method)(const HttpRequest&)) {
    return [this, method](const HttpRequest& r) { return (this->*method)(r); };
  };
  HttpRouter& r = rest_router_;
  r.Add("GET", "/ufmRest/app/events", bind(&SimServer::GetEvents));
  r.Add("GET", "/ufmRest/app/events/{id}", bind(&SimServer::GetEvent));
  r.Add("GET", "/ufmRest/resources/ports", bind(&SimServer::GetPorts));
  r.Add("GET", "/ufmRest/resources/ports/{name}", bind(&SimServer::GetPort));
  r.Add("GET", "/ufmRest/resources/links", bind(&SimServer::GetLinks));
  r.Add("POST", "/ufmRest/actions", bind(&SimServer::PostAction));
  r.Add("GET", "/ufmRest/jobs/{id}", bind(&SimServer::GetJob));
  r.Add("GET", "/ufmRest/jobs", bind(&SimServer::GetJobs));
  r.Add("POST", "/ufmRest/app/events/external_event", bind(&SimServer::PostExternalEvent));
  r.Add("GET", "/ufmRest/app/unhealthy_ports", bind(&SimServer::GetUnhealthyPorts));
  r.Add("PUT", "/ufmRest/app/unhealthy_ports", bind(&SimServer::PutUnhealthyPorts));
  r.Add("GET", "/ufmRest/app/unhealthy_ports/{name}", bind(&SimServer::GetUnhealthyPort));
  r.Add("POST", "/ufmRest/app/tokens", bind(&SimServer::IssueToken));
  r.Add("POST", "/sim/faults", bind(&SimServer::PostFault));
  r.Add("POST", "/sim/misbehave", bind(&SimServer::PostMisbehave));
  r.Add("POST", "/sim/events/reset_ids", [this](const HttpRequest&) {
    state_.ResetEventIds();
    return HttpResponse::Json(200, Json{{"reset", true}});
  });
  r.Add("POST", "/sim/events/skip", [this](const HttpRequest& req) {
    Result<Json> body = ParseBody(req);
    if (!body.ok()) return HttpResponse::FromStatus(body.status());
    if (!body.value().contains("count") || !body.value()["count"].is_number_integer() ||
        body.value()["count"].get<int64_t>() < 1) {
      return HttpResponse::Error(400, "\"count\" must be a positive integer");
    }
    state_.SkipEventIds(body.value()["count"].get<int64_t>());
    return HttpResponse::Json(200, Json{{"skipped", body.value()["count"]}});
  });
  r.Add("GET", "/sim/faults", bind(&SimServer::GetFaults));
  r.Add("POST", "/sim/repair", bind(&SimServer::PostRepair));
  r.Add("GET", "/sim/actions", bind(&SimServer::GetActions));
  r.Add("GET", "/sim/links", bind(&SimServer::GetSimLinks));
  r.Add("POST", "/sim/operator", bind(&SimServer::PostOperator));
  r.Add("GET", "/sim/operator", bind(&SimServer::GetOperator));
  r.Add("GET", "/sim/external_events", bind(&SimServer::GetExternalEvents));
  r.Add("POST", "/sim/node_description", bind(&SimServer::PostNodeDescription));
}

void SimServer::AddTelemetryRoutes() {
  telemetry_router_.Add("GET", "/csv/metrics",
                        [this](const HttpRequest&) { return GetMetricsCsv(false); });
  telemetry_router_.Add("GET", "/labels/csv/metrics",
                        [this](const HttpRequest&) { return GetMetricsCsv(true); });
}

Status SimServer::Start() {
  rest_server_ = std::make_unique<HttpServer>(
      options_.address, options_.port, [this](const HttpRequest& r) { return HandleRest(r); },
      options_.threads);
  if (Status s = rest_server_->Start(); !s.ok()) {
    rest_server_.reset();
    return s;
  }
  telemetry_server_ = std::make_unique<HttpServer>(
      options_.address, options_.telemetry_port,
      [this](const HttpRequest& r) { return HandleTelemetry(r); }, options_.threads);
  if (Status s = telemetry_server_->Start(); !s.ok()) {
    telemetry_server_.reset();
    rest_server_->Stop();
    rest_server_.reset();
    return s;
  }
  return Status::Ok();
}

void SimServer::Stop() {
  if (rest_server_) rest_server_->Stop();
  if (telemetry_server_) telemetry_server_->Stop();
}

uint16_t SimServer::port() const { return rest_server_ ? rest_server_->port() : 0; }

uint16_t SimServer::telemetry_port() const {
  return telemetry_server_ ? telemetry_server_->port() : 0;
}

bool SimServer::Authorized(const HttpRequest& request) const {
  const std::string header = request.Header("authorization");
  if (header.size() < 6 || Lower(header.substr(0, 6)) != "basic ") return false;
  size_t start = 6;
  while (start < header.size() && header[start] == ' ') ++start;
  std::optional<std::string> decoded = DecodeBase64(header.substr(start));
  return decoded && *decoded == options_.user + ":" + options_.password;
}

HttpResponse SimServer::HandleRest(const HttpRequest& request) {
  HttpRequest r = request;
  spdlog::debug("rest {} {}", r.method, r.target);
  if (r.method == "POST" && r.path == "/dologin") return Login(r);
  // UFM's four ways in: basic auth on /ufmRest, a session cookie on /ufmRestV2, a token on
  // /ufmRestV3, and X-Remote-User with no prefix on the UFM host itself. All reach one router.
  std::string prefix;
  for (const char* p : {"/ufmRestV2", "/ufmRestV3", "/ufmRest"}) {
    std::string ps(p);
    if (r.path == ps || r.path.rfind(ps + "/", 0) == 0) {
      prefix = ps;
      break;
    }
  }
  bool local = prefix.empty() &&
               (r.path.rfind("/app/", 0) == 0 || r.path.rfind("/resources/", 0) == 0 ||
                r.path == "/actions" || r.path == "/jobs" || r.path.rfind("/jobs/", 0) == 0);
  if (!prefix.empty() || local) {
    bool ok = false;
    if (prefix == "/ufmRest") {
      ok = Authorized(r);
    } else if (local) {
      ok = r.Header("x-remote-user") == "ufmsystem";
    } else {
      std::lock_guard<std::mutex> lock(auth_mu_);
      if (prefix == "/ufmRestV2") {
        std::string cookie = r.Header("cookie");
        for (const auto& sid : sessions_)
          ok = ok || cookie.find("sessionid=" + sid) != std::string::npos;
      } else {
        std::string header = r.Header("authorization");
        ok = header.size() > 6 && Lower(header.substr(0, 6)) == "basic " &&
             tokens_.count(header.substr(6)) > 0;
      }
    }
    if (!ok) {
      HttpResponse out = HttpResponse::Error(401, "authentication required");
      if (prefix == "/ufmRest") out.headers.emplace_back("WWW-Authenticate", "Basic realm=\"UFM\"");
      return out;
    }
    if (auto bad = NextMisbehaviour()) return *bad;
    if (prefix != "/ufmRest") {
      r.path = "/ufmRest" + r.path.substr(prefix.size());
      r.target = "/ufmRest" + r.target.substr(prefix.size());
    }
  }
  state_.Advance(clock_.Now());
  return rest_router_.Dispatch(r);
}

HttpResponse SimServer::Login(const HttpRequest& request) {
  auto form = ParseQueryString(request.body);
  if (form["httpd_username"] != options_.user || form["httpd_password"] != options_.password) {
    return HttpResponse::Error(401, "bad user name or password");
  }
  std::lock_guard<std::mutex> lock(auth_mu_);
  std::string sid = "s" + std::to_string(++next_secret_) + "x" +
                    std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  sessions_.insert(sid);
  HttpResponse out = HttpResponse::Text(200, "<html><body>logged in</body></html>", "text/html");
  out.headers.emplace_back("Set-Cookie", "sessionid=" + sid + "; Path=/; HttpOnly");
  return out;
}

HttpResponse SimServer::IssueToken(const HttpRequest&) {
  // Reached only with basic auth on /ufmRest (checked in HandleRest).
  std::lock_guard<std::mutex> lock(auth_mu_);
  std::string token = "t" + std::to_string(++next_secret_) + "k" +
                      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  tokens_.insert(token);
  return HttpResponse::Json(200, Json{{"access_token", token}, {"revoked", false}});
}

HttpResponse SimServer::PostMisbehave(const HttpRequest& request) {
  static const std::set<std::string> kModes = {"html_error", "html_login",     "status_500",
                                               "status_401", "malformed_json", "slow"};
  Result<Json> body = ParseBody(request);
  if (!body.ok()) return HttpResponse::FromStatus(body.status());
  const Json& b = body.value();
  std::string mode = b.value("mode", "");
  if (!kModes.count(mode)) {
    return HttpResponse::Error(400,
                               "mode must be one of html_error, html_login, status_500, "
                               "status_401, malformed_json, slow");
  }
  int count = b.value("count", 1);
  int delay_ms = b.value("delay_ms", 0);
  if (count < 1 || count > 1000 || delay_ms < 0 || delay_ms > 120000) {
    return HttpResponse::Error(400, "count must be 1..1000 and delay_ms 0..120000");
  }
  std::lock_guard<std::mutex> lock(auth_mu_);
  for (int i = 0; i < count; ++i) misbehaviours_.push_back({mode, delay_ms});
  return HttpResponse::Json(200, Json{{"queued", misbehaviours_.size()}});
}

std::optional<HttpResponse> SimServer::NextMisbehaviour() {
  Misbehaviour m;
  {
    std::lock_guard<std::mutex> lock(auth_mu_);
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
  if (m.mode == "status_500") return HttpResponse::Error(500, "internal server error");
  if (m.mode == "status_401") return HttpResponse::Error(401, "session expired");
  return HttpResponse::Text(200, "[{\"id\": 1, \"name\": ", "application/json");
}

HttpResponse SimServer::HandleTelemetry(const HttpRequest& request) {
  HttpRequest r = request;
  state_.Advance(clock_.Now());
  return telemetry_router_.Dispatch(r);
}

HttpResponse SimServer::GetEvents(const HttpRequest& request) {
  // Documented UFM filters; exact, case-insensitive matches.
  std::vector<std::pair<std::string, std::string>> filters;
  for (const char* key : {"type", "event_type", "severity", "object_name", "category"}) {
    auto it = request.query.find(key);
    if (it != request.query.end()) filters.emplace_back(key, Lower(it->second));
  }
  OrderedJson out = OrderedJson::array();
  for (const Event& e : state_.Events()) {
    bool keep = true;
    for (const auto& [key, want] : filters) {
      const std::string& have = key == "type"         ? e.type
                                : key == "event_type" ? e.event_type
                                : key == "severity"   ? e.severity
                                : key == "category"   ? e.category
                                                      : e.object_name;
      if (Lower(have) != want) keep = false;
    }
    if (keep) out.push_back(shapes_.Event(e));
  }
  return Ordered(200, out);
}

HttpResponse SimServer::GetEvent(const HttpRequest& request) {
  std::optional<int64_t> id = ParseId(request.params.at("id"));
  if (id) {
    for (const Event& e : state_.Events()) {
      if (e.id == *id) return Ordered(200, shapes_.Event(e));
    }
  }
  return HttpResponse::Error(404, "no event with id '" + request.params.at("id") + "'");
}

HttpResponse SimServer::GetPorts(const HttpRequest& request) {
  const std::string system = Lower(request.Query("system"));
  const std::string active = Lower(request.Query("active"));
  const std::string show_disabled = Lower(request.Query("show_disabled"));
  for (const std::string* flag : {&active, &show_disabled}) {
    if (!flag->empty() && *flag != "true" && *flag != "false") {
      return HttpResponse::Error(400, "active and show_disabled must be true or false");
    }
  }
  const Topology& topology = state_.topology();
  OrderedJson out = OrderedJson::array();
  const std::vector<PortStatus> ports = state_.Ports();
  for (const PortStatus& s : ports) {
    const Port& p = topology.ports()[s.port];
    if (!system.empty() && p.system_guid != system) continue;
    if (active == "true" && (s.disabled || !s.link_up)) continue;
    // What UFM leaves out by default is undocumented; NVIDIA's port scripts ask for disabled
    // ports explicitly. The simulator leaves them out unless asked, so a client that forgets is
    // caught by the tests.
    if (s.disabled && show_disabled != "true") continue;
    out.push_back(shapes_.Port(topology, s, ports[p.peer]));
  }
  return Ordered(200, out);
}

HttpResponse SimServer::GetPort(const HttpRequest& request) {
  const std::string& name = request.params.at("name");
  std::optional<int> port = state_.topology().FindPort(name);
  if (!port) return HttpResponse::Error(404, "port '" + name + "' not found");
  std::optional<PortStatus> s = state_.PortState(*port);
  std::optional<PortStatus> peer = state_.PortState(state_.topology().ports()[*port].peer);
  // As the list does: a disabled port only when asked for (what UFM does is undocumented).
  if (s->disabled && Lower(request.Query("show_disabled")) != "true") {
    return Ordered(200, OrderedJson::array());
  }
  return Ordered(200, OrderedJson::array({shapes_.Port(state_.topology(), *s, *peer)}));
}

HttpResponse SimServer::GetLinks(const HttpRequest& request) {
  const Topology& topology = state_.topology();
  const std::vector<PortStatus> ports = state_.Ports();
  const bool cable_info = Lower(request.Query("cable_info")) == "true";
  OrderedJson data = OrderedJson::array();
  for (size_t i = 0; i < topology.links().size(); ++i) {
    data.push_back(shapes_.Link(topology, static_cast<int>(i), ports, cable_info));
  }
  // Paged (NVIDIA's REST client asks for page 1 of a huge page), UFM wraps them in {"data": []}.
  if (request.query.count("page_number") || request.query.count("rpp")) {
    std::optional<int64_t> page = ParseId(request.Query("page_number", "1"));
    std::optional<int64_t> rpp = ParseId(request.Query("rpp", "100"));
    if (!page || !rpp || *page < 1 || *rpp < 1) {
      return HttpResponse::Error(400, "page_number and rpp must be positive integers");
    }
    OrderedJson slice = OrderedJson::array();
    const size_t begin = static_cast<size_t>((*page - 1) * *rpp);
    for (size_t i = begin; i < data.size() && i < begin + static_cast<size_t>(*rpp); ++i) {
      slice.push_back(data[i]);
    }
    OrderedJson out;
    out["data"] = std::move(slice);
    return Ordered(200, out);
  }
  return Ordered(200, data);
}

HttpResponse SimServer::PostAction(const HttpRequest& request) {
  Result<Json> body = ParseBody(request);
  if (!body.ok()) return HttpResponse::FromStatus(body.status());
  Result<Job> job = state_.SubmitAction(body.value(), clock_.Now());
  if (!job.ok()) {
    spdlog::warn("rejected action: {}", job.status().message());
    return HttpResponse::FromStatus(job.status());
  }
  HttpResponse out = HttpResponse::Text(202, "{}", "application/json");
  out.headers.emplace_back("Location", "/ufmRest/jobs/" + std::to_string(job->id));
  return out;
}

HttpResponse SimServer::GetJob(const HttpRequest& request) {
  std::optional<int64_t> id = ParseId(request.params.at("id"));
  std::optional<Job> job;
  if (id) job = state_.FindJob(*id);
  // UFM answers a job it does not know with an empty list.
  if (!job) return Ordered(200, OrderedJson::array());
  return Ordered(200, shapes_.Job(state_.topology(), *job));
}

HttpResponse SimServer::GetJobs(const HttpRequest&) {
  OrderedJson out = OrderedJson::array();
  for (const Job& job : state_.Jobs()) out.push_back(shapes_.Job(state_.topology(), job));
  return Ordered(200, out);
}

HttpResponse SimServer::PostExternalEvent(const HttpRequest& request) {
  Result<Json> body = ParseBody(request);
  if (!body.ok()) return HttpResponse::FromStatus(body.status());
  Result<Event> event = state_.AddExternalEvent(body.value(), clock_.Now());
  if (!event.ok()) {
    spdlog::warn("rejected external event: {}", event.status().message());
    return HttpResponse::FromStatus(event.status());
  }
  OrderedJson out;
  out["id"] = event->id;
  out["event_type"] = event->event_type;
  return Ordered(200, out);
}

HttpResponse SimServer::GetUnhealthyPorts(const HttpRequest&) {
  const Topology& topology = state_.topology();
  OrderedJson out = OrderedJson::array();
  for (const Isolation& i : state_.UnhealthyPorts()) {
    out.push_back(shapes_.UnhealthyEntry(topology, i));
  }
  return Ordered(200, out);
}

HttpResponse SimServer::GetUnhealthyPort(const HttpRequest& request) {
  if (!shapes_.serves_single_unhealthy_port()) return HttpResponse::Error(404, "Not Found");
  const std::string& name = request.params.at("name");
  std::optional<int> port = state_.topology().FindPort(name);
  if (!port) return HttpResponse::Error(404, "port '" + name + "' not found");
  for (const Isolation& i : state_.UnhealthyPorts()) {
    if (i.port != *port) continue;
    std::optional<PortStatus> s = state_.PortState(i.port);
    return Ordered(200, shapes_.UnhealthyPort(state_.topology(), i, *s));
  }
  return HttpResponse::Error(404, "port '" + name + "' is not unhealthy");
}

HttpResponse SimServer::PutUnhealthyPorts(const HttpRequest& request) {
  Json body = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return HttpResponse::Error(400, "malformed JSON body");
  Result<HealthChange> change = state_.SetPortsHealth(body, clock_.Now());
  if (!change.ok()) {
    spdlog::warn("rejected unhealthy_ports: {}", change.status().message());
    return HttpResponse::FromStatus(change.status());
  }
  OrderedJson out;
  out["ports_policy"] = change->policy;
  out["ports"] = change->ports;
  out["changed"] = change->changed;
  return Ordered(200, out);
}

HttpResponse SimServer::PostOperator(const HttpRequest& request) {
  Json body = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return HttpResponse::Error(400, "malformed JSON body");
  Result<OperatorRecord> record = state_.OperatorAction(body, clock_.Now());
  if (!record.ok()) return HttpResponse::FromStatus(record.status());
  OrderedJson out;
  out["action"] = record->action;
  out["port"] = record->port;
  out["changed"] = record->changed;
  return Ordered(200, out);
}

HttpResponse SimServer::GetOperator(const HttpRequest&) {
  OrderedJson out = OrderedJson::array();
  for (const OperatorRecord& r : state_.OperatorActions()) {
    OrderedJson j;
    j["time"] = FormatIsoTime(r.time);
    j["action"] = r.action;
    j["port"] = r.port;
    j["changed"] = r.changed;
    out.push_back(std::move(j));
  }
  return Ordered(200, out);
}

HttpResponse SimServer::GetExternalEvents(const HttpRequest&) {
  OrderedJson out = OrderedJson::array();
  for (const ExternalEventRecord& r : state_.ExternalEvents()) {
    OrderedJson j;
    j["time"] = FormatIsoTime(r.time);
    j["id"] = r.event_id;
    j["body"] = OrderedJson::parse(r.body.dump());
    out.push_back(std::move(j));
  }
  return Ordered(200, out);
}

HttpResponse SimServer::PostFault(const HttpRequest& request) {
  Result<Json> body = ParseBody(request);
  if (!body.ok()) return HttpResponse::FromStatus(body.status());
  Result<Fault> fault = state_.AddFault(body.value(), clock_.Now());
  if (!fault.ok()) return HttpResponse::FromStatus(fault.status());
  if (IsReboot(fault->kind)) return Ordered(201, FaultJson(state_.topology(), fault.value()));
  OrderedJson out;
  out["id"] = fault->id;
  out["kind"] = FaultKindName(fault->kind);
  out["link"] = LinkEnds(state_.topology(), fault->link);
  out["created"] = FormatIsoTime(fault->created);  // when UFM shows its event
  return Ordered(201, out);
}

HttpResponse SimServer::GetFaults(const HttpRequest&) {
  OrderedJson out = OrderedJson::array();
  for (const Fault& f : state_.Faults()) out.push_back(FaultJson(state_.topology(), f));
  return Ordered(200, out);
}

HttpResponse SimServer::PostRepair(const HttpRequest& request) {
  Result<Json> body = ParseBody(request);
  if (!body.ok()) return HttpResponse::FromStatus(body.status());
  const Json& b = body.value();
  for (const auto& [key, value] : b.items()) {
    if (key != "port") return HttpResponse::Error(400, "unknown field '" + key + "'");
  }
  auto port = b.find("port");
  if (port == b.end() || !port->is_string()) {
    return HttpResponse::Error(400, "field 'port' (a port name) is required");
  }
  Result<int> link = state_.Repair(port->get<std::string>(), clock_.Now());
  if (!link.ok()) return HttpResponse::FromStatus(link.status());
  OrderedJson out;
  out["repaired"] = LinkEnds(state_.topology(), link.value());
  return Ordered(200, out);
}

HttpResponse SimServer::PostNodeDescription(const HttpRequest& request) {
  Result<Json> body = ParseBody(request);
  if (!body.ok()) return HttpResponse::FromStatus(body.status());
  const Json& b = body.value();
  for (const auto& [key, value] : b.items()) {
    if (key != "port" && key != "description") {
      return HttpResponse::Error(400, "unknown field '" + key + "'");
    }
  }
  auto port = b.find("port");
  if (port == b.end() || !port->is_string()) {
    return HttpResponse::Error(400, "field 'port' (a port name) is required");
  }
  auto description = b.find("description");
  if (description == b.end() || !description->is_string()) {
    return HttpResponse::Error(400, "field 'description' (a string; \"\" restores it) is required");
  }
  if (description->get<std::string>().size() > 256) {
    return HttpResponse::Error(400, "field 'description' is longer than 256 bytes");
  }
  Result<int> index =
      state_.SetNodeDescription(port->get<std::string>(), description->get<std::string>());
  if (!index.ok()) return HttpResponse::FromStatus(index.status());
  std::optional<PortStatus> s = state_.PortState(index.value());
  OrderedJson out;
  out["port"] = state_.topology().ports()[index.value()].name;
  out["node_description"] = s->node_description;
  return Ordered(200, out);
}

HttpResponse SimServer::GetActions(const HttpRequest&) {
  OrderedJson out = OrderedJson::array();
  for (const ActionRecord& a : state_.Actions()) {
    OrderedJson j;
    j["time"] = FormatIsoTime(a.time);
    j["action"] = a.action;
    j["port"] = a.port;
    j["status"] = a.status;
    j["job_id"] = std::to_string(a.job_id);
    out.push_back(std::move(j));
  }
  return Ordered(200, out);
}

HttpResponse SimServer::GetSimLinks(const HttpRequest&) {
  const Topology& topology = state_.topology();
  const std::vector<PortStatus> ports = state_.Ports();
  std::map<int, std::vector<int64_t>> faults_by_link;
  for (const Fault& f : state_.Faults()) {
    if (IsReboot(f.kind)) {
      for (int link : f.links) faults_by_link[link].push_back(f.id);
    } else {
      faults_by_link[f.link].push_back(f.id);
    }
  }
  auto end = [&](int index) {
    const Port& p = topology.ports()[index];
    OrderedJson j;
    j["port"] = p.name;
    j["system_name"] = p.system_name;
    j["node_description"] = ports[index].node_description;
    j["label"] = p.label;
    j["logical_state"] = ports[index].logical_state;
    j["physical_state"] = ports[index].physical_state;
    return j;
  };
  OrderedJson out = OrderedJson::array();
  for (size_t i = 0; i < topology.links().size(); ++i) {
    const Link& l = topology.links()[i];
    OrderedJson j;
    j["a"] = end(l.a);
    j["b"] = end(l.b);
    j["up"] = ports[l.a].link_up;
    j["cable_serial"] = l.cable_serial;
    j["faults"] = faults_by_link[static_cast<int>(i)];
    out.push_back(std::move(j));
  }
  return Ordered(200, out);
}

namespace {

// The port number a telemetry row carries. A switch port: UFM's number. A host (HCA) port: the
// HCA's place on its host (HCA-k: k), while UFM numbers every HCA port 1. NVIDIA's own plugins
// warn that a host's port_num in the telemetry is not UFM's and match host rows by port_guid
// alone; the simulator makes the two differ (from HCA-2 on) so that only port_guid names a host
// row right. Node_GUID is the host's system GUID, not the port GUID, so it cannot stand in either.
int TelemetryPortNumber(const Topology& topology, const Port& p) {
  if (p.is_switch || p.node < 0) return p.number;
  const std::vector<int>& hcas = topology.nodes()[static_cast<size_t>(p.node)].ports;
  for (size_t k = 0; k < hcas.size(); ++k) {
    if (&topology.ports()[static_cast<size_t>(hcas[k])] == &p) return static_cast<int>(k) + 1;
  }
  return p.number;
}

}  // namespace

HttpResponse SimServer::GetMetricsCsv(bool with_labels) {
  const Topology& topology = state_.topology();
  const std::vector<PortStatus> ports = state_.Ports();
  const long long micros =
      std::chrono::duration_cast<std::chrono::microseconds>(state_.now().time_since_epoch())
          .count();
  const std::string source = options_.address;
  std::string csv = "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,";
  if (with_labels) csv += "node_description,port_label,";
  csv +=
      "PortXmitDataExtended,PortRcvDataExtended,PortXmitPktsExtended,PortRcvPktsExtended,"
      "SymbolErrorCounterExtended,LinkErrorRecoveryCounterExtended,LinkDownedCounterExtended,"
      "PortRcvErrorsExtended,PortRcvRemotePhysicalErrorsExtended,"
      "PortRcvSwitchRelayErrorsExtended\n";
  csv.reserve(csv.size() + ports.size() * 200);
  for (const PortStatus& s : ports) {
    const Port& p = topology.ports()[s.port];
    const PortCounters& c = s.counters;
    csv += std::to_string(micros) + "," + source + ",," + Hex0x(p.system_guid) + "," +
           Hex0x(p.guid) + "," + std::to_string(TelemetryPortNumber(topology, p)) + ",";
    if (with_labels) csv += CsvField(s.node_description) + "," + p.label + ",";
    for (uint64_t v : {c.port_xmit_data, c.port_rcv_data, c.port_xmit_pkts, c.port_rcv_pkts,
                       c.symbol_errors, c.link_error_recovery, c.link_downed, c.port_rcv_errors,
                       c.port_rcv_remote_physical_errors}) {
      csv += std::to_string(v) + ",";
    }
    csv += std::to_string(c.port_rcv_switch_relay_errors) + "\n";
  }
  return HttpResponse::Text(200, std::move(csv), "text/csv");
}

}  // namespace ufmr::sim
