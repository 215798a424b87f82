// Probe: a read-only first contact with a UFM, for `ufm-remediator probe`. It reads ports, links,
// recent events, unhealthy ports, jobs, a telemetry sample and, when configured, the event log
// and a few seconds of syslog, and reports what the service would understand of them, and what
// it would miss. The probe holds UfmReads (the reads, and nothing else), never a UfmClient, so it
// cannot act on UFM by construction. The report is JSON (the fields are documented in
// docs/PROBE.md); probe_command renders it as text for a person. Single-threaded.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "config/config.h"
#include "ufm/http_client.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"
#include "ufm/ufm_event.h"

namespace ufmr::app {

// Every call the probe may make to UFM: GETs only (a session login aside, which the client
// makes itself). Unset members are reported as unavailable.
struct UfmReads {
  std::function<Result<std::vector<PortInfo>>()> ports;
  std::function<Result<std::vector<LinkInfo>>()> links;
  std::function<Result<ParsedEvents>()> events;
  std::function<Result<std::vector<UnhealthyPort>>()> unhealthy_ports;
  std::function<Result<std::vector<JobInfo>>()> jobs;
  std::function<Result<HttpResult>(const std::string& url)> telemetry;
  // GET of a REST path under the auth method's prefix ("/app/users/admin").
  std::function<Result<HttpResult>(const std::string& path)> rest_get;
};

// The read methods of `client` (which must outlive the result), RestUfmClient::Read among them.
UfmReads ReadsOf(RestUfmClient& client);

struct ProbeOptions {
  double syslog_seconds = 5;  // how long to listen for syslog, when configured
  size_t first_errors = 5;    // how many of the lines it could not place to show, per input
  // When set, the syslog records heard are appended here as they came (probe --record).
  std::vector<std::string>* syslog_records = nullptr;
};

// The report (see docs/PROBE.md). "ok" is false when something the service needs is missing;
// "problems" says what, "warnings" what is worth a look.
nlohmann::ordered_json RunProbe(const Config& config, const UfmReads& ufm,
                                const ProbeOptions& options);

}  // namespace ufmr::app
