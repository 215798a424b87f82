#include "act/storm_ticket.h"

#include <spdlog/spdlog.h>

#include "base/duration.h"

namespace ufmr {

void OpenStormTicket(Store::Tx& tx, const Config::Remediation& remediation, Metrics& metrics,
                     int count, const nlohmann::json& evidence) {
  Ticket storm;
  storm.link_key = "storm";
  storm.port_a = "";
  storm.rule = "circuit_breaker";
  storm.state = ticket_state::kTicketOnly;
  storm.guard = "breaker";
  storm.severity = "critical";
  storm.reason = "circuit breaker tripped: " + std::to_string(count) +
                 " findings that would act within " + FormatDuration(remediation.breaker_window_s);
  storm.explanation =
      "A storm of findings: more than " + std::to_string(remediation.breaker_findings) +
      " links would have been cut within " + FormatDuration(remediation.breaker_window_s) +
      ". That is rarely a set of bad cables: a switch, a power feed or UFM itself is more "
      "likely. The service cuts nothing until a person re-arms the breaker (dashboard, or "
      "POST /api/breaker/rearm). The links it held back are listed below.";
  // An open storm ticket may be left from an earlier trip that was re-armed by hand in the
  // database: reuse it.
  auto open_storm = tx.OpenTicketForLink("storm");
  storm.id = open_storm ? open_storm->id : tx.InsertTicket(storm);
  tx.TripBreaker(storm.reason, storm.id);
  tx.AddEvent(storm.id, "opened", kServiceActor, storm.reason, evidence);
  metrics.Add("ufmr_breaker_trips_total");
  metrics.Set("ufmr_breaker_tripped", 1);
  spdlog::error("{}; ticket {}; no port is cut until a person re-arms the breaker", storm.reason,
                storm.id);
}

void RecordHeldBack(Store::Tx& tx, const Finding& f, const Decision& d,
                    const std::string& trigger) {
  auto storm = tx.OpenTicketForLink("storm");
  tx.AddDecision(d.ToJson(), storm ? std::optional<int64_t>(storm->id) : std::nullopt, trigger);
  if (!storm) return;
  tx.AddEvent(storm->id, "held_back", kServiceActor,
              "held back: rule " + f.rule + " on " + (d.title.empty() ? f.link_key : d.title) +
                  ": " + f.reason,
              {{"rule", f.rule}, {"link", f.link_key}, {"port", d.port}, {"peer", d.peer}});
}

}  // namespace ufmr
