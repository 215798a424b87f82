#include "loop/telemetry_poller.h"

#include <spdlog/spdlog.h>

namespace ufmr {

TelemetryPoller::TelemetryPoller(const Parts& parts)
    : p_(parts),
      intake_(parts.config.telemetry, parts.ufm, parts.inventory),
      history_(parts.config.dashboard.counter_history_s,
               parts.config.dashboard.counter_sample_interval_s) {
  intake_.FollowRises(&lead_up_);
}

void TelemetryPoller::Poll(const std::set<std::string>& counters, const Emit& emit) {
  // Only counters some rule names become observations; the rest are tracked, not forwarded.
  intake_.SetInterest(counters);
  auto report = intake_.Poll(p_.clock.Now(), emit);
  Report(report);
  history_.MaybeRecord(p_.store, intake_.primary(), counters, p_.clock.Now(), &lead_up_);
}

void TelemetryPoller::Report(const TelemetryIntake::Report& report) {
  for (const auto& failure : report.fetch_failures) {
    spdlog::warn("telemetry poll failed: {}", failure);
    p_.metrics.Add("ufmr_ufm_errors_total{call=\"telemetry\"}");
  }
  if (report.primary_ok) {
    p_.inputs.Ok(
        "telemetry", p_.clock.Now(),
        std::to_string(report.rows) + " port samples last poll" +
            (report.fetch_failures.empty() ? ""
                                           : " (partly: " + report.fetch_failures.front() + ")"));
  } else {
    p_.inputs.Failed("telemetry", p_.clock.Now(),
                     report.fetch_failures.empty() ? "no snapshot" : report.fetch_failures.front());
  }
  for (const auto& err : report.input_errors) {
    spdlog::warn("telemetry: skipped {}", err);
    p_.metrics.Add("ufmr_parse_errors_total{source=\"telemetry\"}");
  }
  if (report.ber_without_rate > 0) {
    spdlog::debug("telemetry: {} ports with symbol errors have no known speed/width: no SymbolBER",
                  report.ber_without_rate);
  }
  p_.metrics.Add("ufmr_telemetry_samples_total", static_cast<double>(report.rows));
}

}  // namespace ufmr
