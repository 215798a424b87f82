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
#include "api/ticket_desk.h"
#include "base/json_writer.h"
#include "base/metrics.h"
#include "http/http_server.h"
#include "loop/loop_control.h"
#include "store/store.h"
#include "ufm/inventory.h"

namespace ufmr {

// The silence routes (GET/POST /api/silences, POST /api/silences/{id}/expire); Api::Register
// adds them behind `gate` (reads need a login, changes an engineer), and they need only the
// store and the clock, so tests can mount them alone. Without a gate (tests only) the routes are
// open and the body's "by" names the person.
void RegisterSilenceRoutes(HttpRouter& router, Store& store, const Clock& clock,
                           const AuthGate* gate = nullptr);

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
  nlohmann::json BreakerJson(const Store::BreakerState& b) const;
  // The ticket as JSON text (TicketJson parses it): one shape for the list and the ticket.
  void WriteTicket(JsonWriter& w, const Ticket& t, bool full) const;
  HttpResponse ListTickets(const HttpRequest& req);
  HttpResponse ExportTickets(const HttpRequest& req);
  HttpResponse GetTicket(const HttpRequest& req);
  HttpResponse TicketCounters(const HttpRequest& req);
  HttpResponse Inputs(const HttpRequest& req);
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
