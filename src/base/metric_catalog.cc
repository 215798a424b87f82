#include "base/metric_catalog.h"

#include <utility>

namespace ufmr {

namespace {

const std::vector<double> kUfmBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                         0.5,   1,    2.5,   5,    10,  30};
const std::vector<double> kDbBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                        0.05,   0.1,   0.25,   0.5,   1,    5};
const std::vector<double> kLagBuckets = {0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600};
const std::vector<double> kPassBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

MetricInfo M(const char* name, const char* type, const char* labels, const char* help,
             std::vector<double> buckets = {}) {
  return MetricInfo{name, type, labels, help, std::move(buckets)};
}

// The service.
std::vector<MetricInfo> ServiceMetrics() {
  return {
      M("ufmr_info", "gauge", "fabric,version",
        "Always 1; the labels name the fabric and version."),
      M("ufmr_leader", "gauge", "",
        "1 while this instance holds its fabric's leader lock and acts; 0 on a standby."),
      M("ufmr_last_pass_timestamp_seconds", "gauge", "",
        "When the loop last finished a pass (epoch seconds)."),
      M("ufmr_pass_duration_seconds", "histogram", "", "How long each pass of the loop took.",
        kPassBuckets),
      M("ufmr_pass_failures_total", "counter", "", "Passes of the loop that failed part-way."),
      M("ufmr_ufm_shared", "gauge", "",
        "1 while this fabric's leader does not act because another fabric's live leader, which "
        "claimed it first, acts on the same UFM (alert ufm_shared)."),
      M("ufmr_http_connections_open", "gauge", "",
        "Connections to the dashboard and API open now (idle keep-alive ones included)."),
      M("ufmr_http_connections_refused_total", "counter", "",
        "Connections answered 503 and closed because http.max_connections were open."),
  };
}

// Inputs.
std::vector<MetricInfo> InputMetrics() {
  return {
      M("ufmr_input_reads_total", "counter", "input,result",
        "Reads of each input (ufm_events, inventory, telemetry, event_log, syslog) by result: ok "
        "or error."),
      M("ufmr_parse_errors_total", "counter", "source",
        "Input records that could not be parsed and were skipped, by source (rest_events, "
        "event_log, syslog, telemetry)."),
      M("ufmr_events_total", "counter", "source",
        "Events taken in (first sightings), by source (rest, event_log, syslog)."),
      M("ufmr_duplicate_events_total", "counter", "source",
        "Events seen again (the same event from a second source or a re-read), by source."),
      M("ufmr_events_on_held_links_total", "counter", "source",
        "Events about a link this service holds disabled (its own cut reads as \"Link went "
        "down\"), kept from the rules, by source."),
      M("ufmr_events_after_hand_disable_total", "counter", "source",
        "Events about a link within a minute after UFM said someone else disabled one of its "
        "ports (event 336): that disable's doing, kept from the rules, by source."),
      M("ufmr_event_lag_seconds", "histogram", "source",
        "From an event's UFM timestamp to its intake, by source (UFM stamps whole seconds; "
        "ufm.utc_offset gives UFM's zone).",
        kLagBuckets),
      M("ufmr_event_id_gaps_total", "counter", "",
        "Jumps in UFM's event ids larger than the events read (UFM's event list overflowed)."),
      M("ufmr_events_lost_total", "counter", "", "Event ids skipped over by those gaps."),
      M("ufmr_event_id_regressions_total", "counter", "",
        "Times UFM's newest event id went backwards (UFM restarted or was restored)."),
      M("ufmr_telemetry_samples_total", "counter", "", "Port samples read from UFM Telemetry."),
      M("ufmr_syslog_received", "gauge", "", "Syslog records received since start."),
      M("ufmr_syslog_dropped", "gauge", "", "Syslog records dropped (queue full) since start."),
      M("ufmr_inventory_ports", "gauge", "", "Ports in the inventory last read from UFM."),
      M("ufmr_inventory_links_unresolved", "gauge", "",
        "Links in UFM's last links answer whose ends name no port UFM lists: not used (UFM "
        "before 6.20 gives a host end by its system's GUID; see docs/UFM.md)."),
      M("ufmr_inventory_peer_changes_total", "counter", "",
        "Ports whose peer changed between inventory reads (a cable moved)."),
  };
}

// UFM.
std::vector<MetricInfo> UfmMetrics() {
  return {
      M("ufmr_ufm_requests_total", "counter", "endpoint,code",
        "HTTP requests to UFM by endpoint and answer: 2xx, 3xx, 4xx, 5xx, or error when no answer "
        "came (refused, timeout, TLS). Each retry counts."),
      M("ufmr_ufm_request_duration_seconds", "histogram", "endpoint",
        "Time of each HTTP request to UFM, by endpoint (each retry apart).", kUfmBuckets),
      M("ufmr_ufm_errors_total", "counter", "call", "UFM calls that failed after their retries."),
  };
}

// Rules and decisions.
std::vector<MetricInfo> DecisionMetrics() {
  return {
      M("ufmr_rules_loaded", "gauge", "", "Rules in force."),
      M("ufmr_rules_reloads_total", "counter", "result", "Rules reloads by result: ok or error."),
      M("ufmr_rules_last_reload_success", "gauge", "", "1 if the last rules reload succeeded."),
      M("ufmr_rules_reload_duration_seconds", "gauge", "",
        "How long the last rules load took, successful or not."),
      M("ufmr_findings_total", "counter", "rule", "Rule matches (findings), by rule."),
      M("ufmr_findings_decided_already_total", "counter", "",
        "Findings made again from events read again after a restart or a change of leader, "
        "and not decided again: the leader that first read those events judged them "
        "(SAFETY.md)."),
      M("ufmr_decisions_total", "counter", "decision",
        "Decisions on findings, by kind: finding, disable, isolate, ticket, suppressed, blocked."),
      M("ufmr_guard_vetoes_total", "counter", "guard",
        "Findings a safety guard kept from acting, by guard."),
      M("ufmr_pending_holds", "gauge", "",
        "Findings waiting for their hold time before they count."),
  };
}

// Actions on the fabric.
std::vector<MetricInfo> ActionMetrics() {
  return {
      M("ufmr_port_actions_total", "counter", "action,result",
        "Port actions finished, by action (disable, enable, isolate, unisolate) and result: "
        "confirmed, done_by_hand or failed."),
      M("ufmr_port_actions_open", "gauge", "", "Port actions recorded and not finished."),
      M("ufmr_action_retries_total", "counter", "", "Port action attempts retried."),
      M("ufmr_external_events_total", "counter", "result",
        "UFM external events (who acted) by result: posted, retry or rejected."),
      M("ufmr_drift_total", "counter", "",
        "Ports this service held out that someone brought back by hand (left as they are)."),
      M("ufmr_ports_isolated_by_people", "gauge", "",
        "Ports a person isolated in UFM (left alone by this service)."),
      M("ufmr_reconcile_last_success_timestamp_seconds", "gauge", "",
        "When the service last compared its actions with UFM (epoch seconds)."),
      M("ufmr_breaker_tripped", "gauge", "",
        "1 while the circuit breaker is tripped (no actions until a person re-arms it)."),
      M("ufmr_breaker_trips_total", "counter", "", "Times the circuit breaker tripped."),
      M("ufmr_drains_total", "counter", "result",
        "Hosts' nodes drained and resumed in the job scheduler, by result: sent (a drain "
        "sent, or the service's own found in place and adopted), person (a person's drain "
        "found in place and waited for), drained, resumed or failed."),
      M("ufmr_nodes_drained", "gauge", "",
        "Nodes the service holds drained (or draining) in the job scheduler; a person's drains "
        "it waits for are not counted."),
      M("ufmr_scheduler_requests_total", "counter", "result",
        "Requests to the job scheduler that did not get an answer (result unavailable): the step "
        "is retried."),
  };
}

// Tickets.
std::vector<MetricInfo> TicketMetrics() {
  return {
      M("ufmr_tickets", "gauge", "state",
        "This fabric's tickets by state, as the database last said (read about every 15 s)."),
      M("ufmr_tickets_opened_total", "counter", "", "Tickets filed."),
      M("ufmr_tickets_closed_total", "counter", "", "Tickets closed after a clean soak."),
      M("ufmr_tickets_escalated_total", "counter", "",
        "Tickets escalated after failed repairs, or when a host's jobs outlast the drain "
        "deadline."),
      M("ufmr_soak_failures_total", "counter", "", "Repaired links that failed their soak."),
      M("ufmr_repairs_reported_total", "counter", "kind",
        "Repairs reported by staff, by the kind of repair they named."),
  };
}

// Notifications (docs/NOTIFY.md).
std::vector<MetricInfo> NotifyMetrics() {
  return {
      M("ufmr_notify_events_total", "counter", "kind",
        "Things people are told of, by kind (ticket_opened, soak_failed, breaker_tripped, "
        "input_failing, ...), as routed; silenced ones too."),
      M("ufmr_notify_silenced_total", "counter", "",
        "Notifications a silence covered: told to nobody."),
      M("ufmr_notify_messages_total", "counter", "",
        "Messages written for receivers (a group's news, or a reminder of what is unresolved)."),
      M("ufmr_notify_deliveries_total", "counter", "receiver,result",
        "Tries to send a message, by receiver and result: delivered, failed (tried again), "
        "refused (the receiver will not take it) or expired (given up)."),
      M("ufmr_notify_deliveries_failing", "gauge", "receiver",
        "Messages to the receiver still pending after a failed try (shown on the dashboard)."),
      M("ufmr_notify_deliveries_pending", "gauge", "receiver",
        "Messages to the receiver not yet delivered (failing or not)."),
      M("ufmr_notify_deliveries_undelivered", "gauge", "receiver",
        "Messages the receiver refused or that expired (kept, never delivered)."),
  };
}

// The database.
std::vector<MetricInfo> DatabaseMetrics() {
  return {
      M("ufmr_db_query_duration_seconds", "histogram", "op",
        "Time of each store operation outside the loop's transactions (the API's reads and "
        "writes, silences, ticket counts, pings, auth), by operation.",
        kDbBuckets),
      M("ufmr_db_transaction_duration_seconds", "histogram", "result",
        "Time of each store transaction (the loop's work, and the reads that need one), from "
        "begin to its end (result: commit or rollback).",
        kDbBuckets),
      M("ufmr_store_errors_total", "counter", "",
        "Database errors met by the loop (the pass is retried; nothing acts without its intent "
        "recorded)."),
  };
}

std::vector<MetricInfo> Build() {
  std::vector<MetricInfo> all;
  for (auto area : {ServiceMetrics, InputMetrics, UfmMetrics, DecisionMetrics, ActionMetrics,
                    TicketMetrics, NotifyMetrics, DatabaseMetrics}) {
    for (MetricInfo& m : area()) all.push_back(std::move(m));
  }
  return all;
}

}  // namespace

const std::vector<MetricInfo>& MetricCatalog() {
  static const std::vector<MetricInfo> catalog = Build();
  return catalog;
}

}  // namespace ufmr
