// Api: the service's HTTP surface: the dashboard pages, the JSON API (schema/openapi.yaml) for
// tickets (list with filters, search, sort and paging; CSV export; detail with evidence, what to
// do, timeline and counter history; acknowledge, assign, comment, report repair, reopen, close as
// won't fix), alerts, silences, the circuit breaker, decisions, rules and the health of each
// input; /healthz and /metrics. Reads and mutations pass the AuthGate (roles, CSRF, audit).
// Handlers run on the HTTP server's threads; everything they touch is thread-safe.
#pragma once

#include <mutex>
#include <string>

#include "api/auth_gate.h"
#include "api/silence_routes.h"  // RegisterSilenceRoutes, which Register mounts
#include "api/ticket_desk.h"
#include "api/ticket_json.h"
#include "base/json_writer.h"
#include "base/metrics.h"
#include "http/http_server.h"
#include "loop/loop_control.h"
#include "store/store.h"
#include "ufm/inventory.h"

namespace ufmr {

class Api {
 public:
  Api(Store& store, Inventory& inventory, Metrics& metrics, LoopControl& remediator,
      const Clock& clock, const AuthGate& gate);
  void Register(HttpRouter& router);

  // `full` false: a list item (without the explanation, which the ticket page shows).
  nlohmann::json TicketJson(const Ticket& t, bool full = true) const;
  // Earlier tickets on a link (remediation.repeat_offender_window_s) that flag it a repeat
  // offender on the dashboard.
  void set_repeat_offender_tickets(int n) { repeat_threshold_ = n; }

 private:
  using ReadMethod = HttpResponse (Api::*)(const HttpRequest&);
  using MutateMethod = HttpResponse (Api::*)(const HttpRequest&, const Principal&);
  // A handler behind the gate: a read (a login, unless anonymous reads are allowed), and a change
  // that needs `role` and is audited as `action`.
  HttpHandler Read(ReadMethod fn);
  HttpHandler Mutate(Role role, const char* action, MutateMethod fn);

  // The route groups Register adds, besides the pages, the gate's own routes and the silences.
  void RegisterTicketReads(HttpRouter& router);     // the list, CSV, a ticket, its counters
  void RegisterStaffActions(HttpRouter& router);    // acknowledge, assign, comment, repaired, ...
  void RegisterInputRoutes(HttpRouter& router);     // the health of each input, intake alerts
  void RegisterBreakerRoutes(HttpRouter& router);   // the circuit breaker, and its re-arming
  void RegisterDecisionRoutes(HttpRouter& router);  // recent decisions, the rules' hash
  void RegisterProbeRoutes(HttpRouter& router);     // /healthz, /readyz, /metrics (no login)

  // The ticket JSON of the list and the ticket page.
  TicketJsonWriter TicketWriter() const;
  nlohmann::json BreakerJson(const Store::BreakerState& b) const;
  HttpResponse ListTickets(const HttpRequest& req);
  HttpResponse ExportTickets(const HttpRequest& req);
  HttpResponse GetTicket(const HttpRequest& req);
  HttpResponse TicketCounters(const HttpRequest& req);
  HttpResponse Inputs(const HttpRequest& req);
  HttpResponse Alerts(const HttpRequest& req);
  // Messages to receivers that are failing (notify/outbox.h): pending after a failed try, or
  // refused or given up in the last day.
  HttpResponse NotifyFailing(const HttpRequest& req);
  HttpResponse ClearAlert(const HttpRequest& req, const Principal& who);
  HttpResponse Breaker(const HttpRequest& req);
  HttpResponse RearmBreaker(const HttpRequest& req, const Principal& who);
  HttpResponse Decisions(const HttpRequest& req);
  HttpResponse RulesHash(const HttpRequest& req);
  HttpResponse Healthz(const HttpRequest& req);
  HttpResponse Readyz(const HttpRequest& req);
  HttpResponse Repaired(const HttpRequest& req, const Principal& who);
  HttpResponse Acknowledge(const HttpRequest& req, const Principal& who);
  HttpResponse Assign(const HttpRequest& req, const Principal& who);
  HttpResponse Comment(const HttpRequest& req, const Principal& who);
  HttpResponse Reopen(const HttpRequest& req, const Principal& who);
  HttpResponse WontFix(const HttpRequest& req, const Principal& who);

  // Pings the database and keeps the outcome for /healthz, which must not wait on it.
  Status PingDatabase();
  std::string LastDatabaseState() const;  // "ok", "unknown" before a ping, else "unavailable"

  Store& store_;
  Inventory& inventory_;
  Metrics& metrics_;
  mutable std::mutex db_mu_;
  std::string db_state_ = "unknown";  // "unknown", "ok" or "unavailable"
  std::string db_error_;              // the last ping's error, logged when it changes
  LoopControl& remediator_;
  const Clock& clock_;
  const AuthGate& gate_;
  TicketDesk desk_;
  int repeat_threshold_ = 1;
};

}  // namespace ufmr
