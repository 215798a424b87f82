#include "core/ufm_client.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

namespace ufmr {

namespace {

HttpClientOptions RestOptions(const Config& c) {
  HttpClientOptions o;
  o.timeout = std::chrono::milliseconds(static_cast<long>(c.ufm.timeout_s * 1000));
  o.verify_tls = !c.ufm.insecure_tls;
  o.ca_bundle = c.ufm.ca_bundle;
  o.basic_user = c.ufm.user;
  o.basic_password = c.ufm.password;
  if (c.ufm.insecure_tls && c.ufm.url.rfind("https", 0) == 0) {
    spdlog::warn("ufm.insecure_tls is set: the UFM certificate is NOT verified");
  }
  return o;
}

HttpClientOptions TelemetryOptions(const Config& c) {
  HttpClientOptions o;
  o.timeout = std::chrono::milliseconds(static_cast<long>(c.ufm.timeout_s * 1000));
  o.verify_tls = !c.ufm.insecure_tls;
  o.ca_bundle = c.ufm.ca_bundle;
  return o;
}

}  // namespace

RestUfmClient::RestUfmClient(const Config& config)
    : rest_(config.ufm.url + "/ufmRest"),
      telemetry_url_(config.telemetry.url),
      http_(RestOptions(config)),
      telemetry_http_(TelemetryOptions(config)) {}

Result<HttpResult> RestUfmClient::Checked(Result<HttpResult> r, const std::string& what) {
  if (!r.ok()) return r.status();
  if (r->status == 401 || r->status == 403) {
    return Status::Unavailable(what + ": UFM refused the credentials (HTTP " +
                               std::to_string(r->status) + ")");
  }
  if (r->status == 404) return Status::NotFound(what + ": not found");
  if (r->status < 200 || r->status >= 300) {
    return Status::Unavailable(what + ": HTTP " + std::to_string(r->status) + ": " +
                               r->body.substr(0, 300));
  }
  return r;
}

Result<ParsedEvents> RestUfmClient::GetEvents() {
  auto r = Checked(http_.Get(rest_ + "/app/events"), "GET events");
  if (!r.ok()) return r.status();
  return ParseUfmEvents(r->body);
}

Result<std::vector<PortInfo>> RestUfmClient::GetPorts() {
  auto r = Checked(http_.Get(rest_ + "/resources/ports"), "GET ports");
  if (!r.ok()) return r.status();
  int skipped = 0;
  auto ports = ParsePorts(r->body, &skipped);
  if (skipped > 0) spdlog::warn("ports: skipped {} malformed entries", skipped);
  return ports;
}

Result<PortInfo> RestUfmClient::GetPort(const std::string& name) {
  auto r = Checked(http_.Get(rest_ + "/resources/ports/" + name), "GET port " + name);
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
  auto r = Checked(http_.Post(rest_ + "/actions", PortActionBody(action, port, description)),
                   "POST actions " + action + " " + port.name);
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
  auto r = Checked(http_.Get(rest_ + "/jobs/" + job_id), "GET job " + job_id);
  if (!r.ok()) return r.status();
  auto doc = nlohmann::json::parse(r->body, nullptr, false);
  if (doc.is_array() && !doc.empty()) doc = doc[0];
  if (!doc.is_object() || !doc.contains("Status") || !doc["Status"].is_string()) {
    return Status::Unavailable("job " + job_id + ": answer has no Status");
  }
  JobStatus s;
  s.status = doc["Status"].get<std::string>();
  if (doc.contains("Summary") && doc["Summary"].is_string()) s.summary = doc["Summary"];
  return s;
}

Result<std::string> RestUfmClient::GetTelemetryCsv() {
  if (telemetry_url_.empty()) return Status::NotFound("telemetry is not configured");
  auto r = Checked(telemetry_http_.Get(telemetry_url_), "GET telemetry");
  if (!r.ok()) return r.status();
  return std::move(r->body);
}

}  // namespace ufmr
