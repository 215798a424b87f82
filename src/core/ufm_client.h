// UfmClient: everything the service asks of UFM, behind one interface so tests can inject
// faults. RestUfmClient speaks UFM's REST API (basic auth on /ufmRest) and the telemetry CSV
// endpoint. A client instance is used by one thread at a time.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/http_client.h"
#include "core/inventory.h"
#include "core/status.h"
#include "core/ufm_event.h"

namespace ufmr {

struct JobStatus {
  std::string status;  // "Running", "Completed", "Completed With Errors", ...
  std::string summary;
  bool done() const { return status.rfind("Completed", 0) == 0; }
  bool ok() const { return status == "Completed" || status == "Completed With Warnings"; }
};

class UfmClient {
 public:
  virtual ~UfmClient() = default;
  virtual Result<ParsedEvents> GetEvents() = 0;
  virtual Result<std::vector<PortInfo>> GetPorts() = 0;
  // The links, to fill in peers that the ports list leaves out. Optional: NotFound by default.
  virtual Result<std::vector<LinkInfo>> GetLinks() { return Status::NotFound("no links"); }
  virtual Result<PortInfo> GetPort(const std::string& name) = 0;
  // action: "disable" or "enable". Returns the job id from the Location header.
  virtual Result<std::string> SubmitPortAction(const std::string& action, const PortInfo& port,
                                               const std::string& description) = 0;
  virtual Result<JobStatus> GetJob(const std::string& job_id) = 0;
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
  Result<std::vector<PortInfo>> GetPorts() override;
  Result<std::vector<LinkInfo>> GetLinks() override;
  Result<PortInfo> GetPort(const std::string& name) override;
  Result<std::string> SubmitPortAction(const std::string& action, const PortInfo& port,
                                       const std::string& description) override;
  Result<JobStatus> GetJob(const std::string& job_id) override;
  Result<std::string> GetTelemetryCsv() override;
  Result<HttpResult> GetTelemetry(const std::string& url) override;

  // The body of POST /actions for a port action: the one place that knows its shape.
  static std::string PortActionBody(const std::string& action, const PortInfo& port,
                                    const std::string& description);

 private:
  // One REST call with authentication, retries and answer checks. Reads (idempotent) are
  // retried on transport errors, 5xx and 429, with exponential backoff and full jitter; other
  // calls only when the connection was refused before anything was sent. JSON answers are
  // checked to be JSON, so an HTML error or login page is an error that says so.
  Result<HttpResult> Call(const std::string& method, const std::string& path,
                          const std::string& body, bool idempotent, bool want_json);
  Status Login();
  double Backoff(int attempt);
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
};

}  // namespace ufmr
