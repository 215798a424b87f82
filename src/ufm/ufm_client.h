// UfmClient: everything the service asks of UFM, behind one interface so tests can inject
// faults. RestUfmClient speaks UFM's REST API (basic auth on /ufmRest) and the telemetry CSV
// endpoint. A client instance is used by one thread at a time.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/metrics.h"
#include "base/status.h"
#include "config/config.h"
#include "ufm/http_client.h"
#include "ufm/inventory.h"
#include "ufm/ufm_event.h"

namespace ufmr {

// A job's status as GET /jobs/<id> reports it. Every status but "Running" is final: "Completed",
// "Completed With Errors", "Completed With Warnings", "Aborted" (a person may abort a job).
struct JobStatus {
  std::string status;
  std::string summary;
  bool done() const { return !status.empty() && status != "Running"; }
  bool ok() const { return status == "Completed" || status == "Completed With Warnings"; }
};

// One job from GET /jobs: enough to find the job a port action made (by its description).
struct JobInfo {
  std::string id;
  std::string status;
  std::string description;
};

// One entry of GET /app/unhealthy_ports: a port the SM isolates (routes around).
struct UnhealthyPort {
  std::string port;       // port name <UnhealthyGUID>_<UnhealthyPortNumber>, lower-case hex
  std::string node;       // UnhealthyNode: a node name or description, for people
  std::string peer_port;  // PeerPort: a display path ("switch-ec4034/6"), for people
  std::string condition;  // Condition, a list joined with ",": "MANUAL" (set through UFM's API
                          // or GUI, by a person or by this service), "FLAPPING", ...
  std::string status_time;
  // Condition holds MANUAL: an isolation made through UFM's API or GUI, not by the SM's health
  // policy. Whether this service made it is for its own records to say.
  bool manual() const;
};

// Parses GET /app/unhealthy_ports (a list, or {"data": [...]}, or one object as GET
// /app/unhealthy_ports/<port> answers from 6.19). A port is named by UnhealthyGUID and
// UnhealthyPortNumber; UnhealthyPort is a display path ("r-dmz-ufm135/HCA-1/1") or a bare
// number, read as a port name only when it is one (<16 hex>_<n>). Condition may be a string or
// a list. Elements that name no port are skipped and counted.
Result<std::vector<UnhealthyPort>> ParseUnhealthyPorts(const std::string& body, int* skipped);

// A warning when ufm.url is plain http:// to a host other than this one (localhost, 127.0.0.0/8,
// ::1): UFM's credentials and answers then cross the network unencrypted. Empty otherwise.
std::string CleartextUfmWarning(const Config& c);

class UfmClient {
 public:
  virtual ~UfmClient() = default;
  virtual Result<ParsedEvents> GetEvents() = 0;
  virtual Result<PortTable> GetPorts() = 0;
  // The links, to fill in peers that the ports list leaves out. Optional: NotFound by default.
  virtual Result<std::vector<LinkInfo>> GetLinks() { return Status::NotFound("no links"); }
  virtual Result<PortInfo> GetPort(const std::string& name) = 0;
  // action: "disable" or "enable". Returns the job id from the Location header.
  virtual Result<std::string> SubmitPortAction(const std::string& action, const PortInfo& port,
                                               const std::string& description) = 0;
  // NotFound when UFM does not know the job (it answers an empty list).
  virtual Result<JobStatus> GetJob(const std::string& job_id) = 0;
  // Every job UFM holds (to find, after a crash, the job an action may have made).
  virtual Result<std::vector<JobInfo>> GetJobs() { return Status::NotFound("no jobs list"); }
  // Isolation: PUT /app/unhealthy_ports with policy UNHEALTHY (isolate) or HEALTHY (undo).
  virtual Status SetPortHealth(const std::string& port, bool isolate, const std::string& why) {
    (void)port, (void)isolate, (void)why;
    return Status::NotFound("isolation is not supported by this client");
  }
  virtual Result<std::vector<UnhealthyPort>> GetUnhealthyPorts() {
    return Status::NotFound("no unhealthy ports list");
  }
  // POST /app/events/external_event: a line in UFM's own event log saying who acted.
  virtual Status PostExternalEvent(int event_id, const std::string& name,
                                   const std::string& description) {
    (void)event_id, (void)name, (void)description;
    return Status::NotFound("external events are not supported by this client");
  }
  virtual Result<std::string> GetTelemetryCsv() = 0;
  // GET one telemetry URL (primary, secondary, or a shard of either): the body and headers
  // (Content-Type tells the format). The default serves GetTelemetryCsv() whatever the URL, for
  // clients that know a single endpoint.
  virtual Result<HttpResult> GetTelemetry(const std::string& url) {
    (void)url;
    auto body = GetTelemetryCsv();
    if (!body.ok()) return body.status();
    HttpResult r;
    r.status = 200;
    r.body = std::move(body.value());
    return r;
  }
};

// How a RestUfmClient waits between attempts; tests replace it to run without sleeping.
using Sleeper = std::function<void(double seconds)>;

class RestUfmClient final : public UfmClient {
 public:
  explicit RestUfmClient(const Config& config, Sleeper sleeper = nullptr);

  Result<ParsedEvents> GetEvents() override;
  Result<PortTable> GetPorts() override;
  Result<std::vector<LinkInfo>> GetLinks() override;
  Result<PortInfo> GetPort(const std::string& name) override;
  Result<std::string> SubmitPortAction(const std::string& action, const PortInfo& port,
                                       const std::string& description) override;
  Result<JobStatus> GetJob(const std::string& job_id) override;
  Result<std::vector<JobInfo>> GetJobs() override;
  Status SetPortHealth(const std::string& port, bool isolate, const std::string& why) override;
  Result<std::vector<UnhealthyPort>> GetUnhealthyPorts() override;
  Status PostExternalEvent(int event_id, const std::string& name,
                           const std::string& description) override;
  Result<std::string> GetTelemetryCsv() override;
  Result<HttpResult> GetTelemetry(const std::string& url) override;

  // A GET of any REST path under the auth method's prefix ("/app/users/admin"), with this
  // client's authentication, retries and answer checks: for read-only tools (`probe`).
  Result<HttpResult> Read(const std::string& path) { return Call("GET", path, "", true, true); }

  // Counts and times every HTTP request from here on, each retry apart
  // (ufmr_ufm_requests_total, ufmr_ufm_request_duration_seconds); null stops it.
  void set_metrics(Metrics* metrics) { metrics_ = metrics; }

  // The body of POST /actions for a port action: the one place that knows its shape.
  static std::string PortActionBody(const std::string& action, const PortInfo& port,
                                    const std::string& description);
  // The body of PUT /app/unhealthy_ports (isolate, or make healthy again).
  static std::string UnhealthyPortsBody(const std::string& port, bool isolate);

 private:
  // One REST call with authentication, retries and answer checks. Reads (idempotent) are
  // retried on transport errors, 5xx and 429, with exponential backoff and full jitter; other
  // calls only when the connection was refused before anything was sent. JSON answers are
  // checked to be JSON, so an HTML error or login page is an error that says so.
  // Answers 4xx other than 401/403/404/429 as InvalidArgument (UFM rejected the request: a
  // permanent failure); transport errors, 5xx and 429 as Unavailable (transient).
  Result<HttpResult> Call(const std::string& method, const std::string& path,
                          const std::string& body, bool idempotent, bool want_json);
  Status Login();
  double Backoff(int attempt);
  // One HTTP request, counted and timed under `endpoint` (a fixed name, never a URL).
  Result<HttpResult> Send(const char* endpoint, const std::function<Result<HttpResult>()>& request);
  // A plain status check, for endpoints without auth or retries (telemetry).
  Result<HttpResult> Checked(Result<HttpResult> r, const std::string& what);

  const Config::Ufm ufm_;
  std::string rest_;  // base URL + the auth method's prefix
  bool logged_in_ = false;
  Sleeper sleeper_;
  std::mt19937_64 rng_;
  std::string telemetry_url_;
  HttpClient http_;
  HttpClient telemetry_http_;
  Metrics* metrics_ = nullptr;
};

}  // namespace ufmr
