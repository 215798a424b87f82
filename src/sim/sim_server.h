// SimServer: the HTTP face of ufm-sim over a SimState. Two listeners:
//  - the UFM REST port: /ufmRest/... (basic auth: events, external events, ports, links,
//    actions, jobs, unhealthy ports) and the simulator's own control API /sim/... (no auth:
//    faults, repair, actions received, a person's actions in UFM's GUI, external events
//    received, links, a node's description);
//  - the telemetry port: /csv/metrics and /labels/csv/metrics (plain HTTP, no auth).
// Every request first advances the state to the clock's now. Handlers run on the servers' worker
// threads; SimState does the locking. Start/Stop are for one owner thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "http/http_server.h"
#include "sim/sim_state.h"
#include "sim/ufm_access.h"  // also DecodeBase64
#include "sim/ufm_shapes.h"

namespace ufmr::sim {

struct SimServerOptions {
  std::string address = "127.0.0.1";
  uint16_t port = 0;            // 0 picks a free port
  uint16_t telemetry_port = 0;  // 0 picks a free port
  std::string user = "admin";
  std::string password = "123456";
  int threads = 2;  // per listener
  // Which UFM the REST API answers as (major * 100 + minor: 622 is 6.22). Before 6.17 an event's
  // "type" holds its id and its timestamp has milliseconds; from 6.19 GET
  // /app/unhealthy_ports/<port> answers one port, its Condition a list.
  int ufm_version = 622;
  // How GET /resources/ports shows a disabled port: "physical" (physical_state "Disabled",
  // logical_state "Down"), "logical" (logical_state "Disabled"), or "ambiguous" (logical_state
  // "Down", physical_state "Link Down": as a broken link of an enabled port may read).
  std::string disabled_state = "physical";
};

class SimServer {
 public:
  // `state` and `clock` must outlive the server.
  SimServer(SimState& state, const Clock& clock, SimServerOptions options);
  ~SimServer();
  SimServer(const SimServer&) = delete;
  SimServer& operator=(const SimServer&) = delete;

  // Starts both listeners; on failure neither is left running.
  Status Start();
  void Stop();
  uint16_t port() const;
  uint16_t telemetry_port() const;

  // The request handlers, callable without sockets.
  HttpResponse HandleRest(const HttpRequest& request);
  HttpResponse HandleTelemetry(const HttpRequest& request);

 private:
  void AddRestRoutes();
  void AddTelemetryRoutes();

  HttpResponse GetEvents(const HttpRequest& request);
  HttpResponse GetEvent(const HttpRequest& request);
  HttpResponse GetPorts(const HttpRequest& request);
  HttpResponse GetPort(const HttpRequest& request);
  HttpResponse GetLinks(const HttpRequest& request);
  HttpResponse PostAction(const HttpRequest& request);
  HttpResponse GetJob(const HttpRequest& request);
  HttpResponse GetJobs(const HttpRequest& request);
  HttpResponse PostExternalEvent(const HttpRequest& request);
  HttpResponse GetUnhealthyPorts(const HttpRequest& request);
  HttpResponse GetUnhealthyPort(const HttpRequest& request);
  HttpResponse PutUnhealthyPorts(const HttpRequest& request);
  HttpResponse PostOperator(const HttpRequest& request);
  HttpResponse GetOperator(const HttpRequest& request);
  HttpResponse GetExternalEvents(const HttpRequest& request);
  HttpResponse PostFault(const HttpRequest& request);
  HttpResponse GetFaults(const HttpRequest& request);
  HttpResponse PostRepair(const HttpRequest& request);
  HttpResponse GetActions(const HttpRequest& request);
  HttpResponse GetSimLinks(const HttpRequest& request);
  HttpResponse PostNodeDescription(const HttpRequest& request);
  HttpResponse GetMetricsCsv(bool with_labels);

  SimState& state_;
  const Clock& clock_;
  SimServerOptions options_;
  UfmShapes shapes_;  // UFM's objects in the configured version's shapes
  UfmAccess access_;  // who may reach the REST API; scripted misbehaviours
  HttpRouter rest_router_;
  HttpRouter telemetry_router_;

  std::unique_ptr<HttpServer> rest_server_;
  std::unique_ptr<HttpServer> telemetry_server_;
};

}  // namespace ufmr::sim
