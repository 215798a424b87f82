// Api: the service's HTTP surface: the dashboard page, the JSON API for tickets (list, detail
// with timeline and port actions, repaired, acknowledge), alerts and silences (list, create, end
// early), /healthz and /metrics. Handlers run on the HTTP server's threads; everything they touch
// is thread-safe.
#pragma once

#include "core/http_server.h"
#include "core/inventory.h"
#include "core/metrics.h"
#include "core/remediator.h"
#include "core/store.h"

namespace ufmr {

// The silence routes (GET/POST /api/silences, POST /api/silences/{id}/expire); Api::Register
// adds them, and they need only the store and the clock, so tests can mount them alone.
void RegisterSilenceRoutes(HttpRouter& router, Store& store, const Clock& clock);

class Api {
 public:
  Api(Store& store, Inventory& inventory, Metrics& metrics, Remediator& remediator,
      const Clock& clock);
  void Register(HttpRouter& router);

  nlohmann::json TicketJson(const Ticket& t) const;
  // Earlier tickets on a link (remediation.repeat_offender_window_s) that flag it a repeat
  // offender on the dashboard.
  void set_repeat_offender_tickets(int n) { repeat_threshold_ = n; }

 private:
  nlohmann::json BreakerJson(const Store::BreakerState& b) const;
  HttpResponse ListTickets(const HttpRequest& req);
  HttpResponse GetTicket(const HttpRequest& req);
  HttpResponse Repaired(const HttpRequest& req);
  HttpResponse Acknowledge(const HttpRequest& req);

  Store& store_;
  Inventory& inventory_;
  Metrics& metrics_;
  Remediator& remediator_;
  const Clock& clock_;
  int repeat_threshold_ = 1;
};

}  // namespace ufmr
