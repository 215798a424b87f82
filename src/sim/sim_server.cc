#include "sim/sim_server.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/text.h"
#include "sim/telemetry_csv.h"

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

}  // namespace

SimServer::SimServer(SimState& state, const Clock& clock, SimServerOptions options)
    : state_(state),
      clock_(clock),
      options_(std::move(options)),
      shapes_(options_.ufm_version, options_.disabled_state),
      access_(options_.user, options_.password) {
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
  // REST guide, UFM Version REST API: {"ufm_release_version": "..."}.
  r.Add("GET", "/ufmRest/app/ufm_version", [this](const HttpRequest&) {
    return Ordered(200, OrderedJson{{"ufm_release_version",
                                     std::to_string(options_.ufm_version / 100) + "." +
                                         std::to_string(options_.ufm_version % 100) + ".0"}});
  });
  r.Add("GET", "/ufmRest/app/unhealthy_ports", bind(&SimServer::GetUnhealthyPorts));
  r.Add("PUT", "/ufmRest/app/unhealthy_ports", bind(&SimServer::PutUnhealthyPorts));
  r.Add("GET", "/ufmRest/app/unhealthy_ports/{name}", bind(&SimServer::GetUnhealthyPort));
  r.Add("POST", "/ufmRest/app/tokens",
        [this](const HttpRequest& req) { return access_.IssueToken(req); });
  r.Add("POST", "/sim/faults", bind(&SimServer::PostFault));
  r.Add("POST", "/sim/misbehave",
        [this](const HttpRequest& req) { return access_.Misbehave(req); });
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

HttpResponse SimServer::HandleRest(const HttpRequest& request) {
  HttpRequest r = request;
  spdlog::debug("rest {} {}", r.method, r.target);
  if (r.method == "POST" && r.path == "/dologin") return access_.Login(r);
  if (std::optional<HttpResponse> refused = access_.Admit(r)) return *refused;
  state_.Advance(clock_.Now());
  return rest_router_.Dispatch(r);
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
    if (it != request.query.end()) filters.emplace_back(key, AsciiLower(it->second));
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
      if (AsciiLower(have) != want) keep = false;
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
  const std::string system = AsciiLower(request.Query("system"));
  const std::string active = AsciiLower(request.Query("active"));
  const std::string show_disabled = AsciiLower(request.Query("show_disabled"));
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
  if (s->disabled && AsciiLower(request.Query("show_disabled")) != "true") {
    return Ordered(200, OrderedJson::array());
  }
  return Ordered(200, OrderedJson::array({shapes_.Port(state_.topology(), *s, *peer)}));
}

HttpResponse SimServer::GetLinks(const HttpRequest& request) {
  const Topology& topology = state_.topology();
  const std::vector<PortStatus> ports = state_.Ports();
  const bool cable_info = AsciiLower(request.Query("cable_info")) == "true";
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
    j["is_switch"] = p.is_switch;
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

HttpResponse SimServer::GetMetricsCsv(bool with_labels) {
  const std::vector<PortStatus> ports = state_.Ports();
  std::string csv =
      TelemetryCsv(state_.topology(), ports, state_.now(), options_.address, with_labels);
  return HttpResponse::Text(200, std::move(csv), "text/csv");
}

}  // namespace ufmr::sim
