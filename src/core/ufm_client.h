// UfmClient: everything the service asks of UFM, behind one interface so tests can inject
// faults. RestUfmClient speaks UFM's REST API (basic auth on /ufmRest) and the telemetry CSV
// endpoint. A client instance is used by one thread at a time.
#pragma once

#include <memory>
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
  virtual Result<PortInfo> GetPort(const std::string& name) = 0;
  // action: "disable" or "enable". Returns the job id from the Location header.
  virtual Result<std::string> SubmitPortAction(const std::string& action, const PortInfo& port,
                                               const std::string& description) = 0;
  virtual Result<JobStatus> GetJob(const std::string& job_id) = 0;
  virtual Result<std::string> GetTelemetryCsv() = 0;
};

class RestUfmClient final : public UfmClient {
 public:
  explicit RestUfmClient(const Config& config);

  Result<ParsedEvents> GetEvents() override;
  Result<std::vector<PortInfo>> GetPorts() override;
  Result<PortInfo> GetPort(const std::string& name) override;
  Result<std::string> SubmitPortAction(const std::string& action, const PortInfo& port,
                                       const std::string& description) override;
  Result<JobStatus> GetJob(const std::string& job_id) override;
  Result<std::string> GetTelemetryCsv() override;

  // The body of POST /actions for a port action: the one place that knows its shape.
  static std::string PortActionBody(const std::string& action, const PortInfo& port,
                                    const std::string& description);

 private:
  Result<HttpResult> Checked(Result<HttpResult> r, const std::string& what);
  std::string rest_;  // base URL + "/ufmRest"
  std::string telemetry_url_;
  HttpClient http_;
  HttpClient telemetry_http_;
};

}  // namespace ufmr
