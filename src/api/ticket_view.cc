#include "api/ticket_view.h"

#include <algorithm>
#include <cstdio>

#include "base/clock.h"
#include "ufm/ufm_json.h"

namespace ufmr {

namespace {

// The rule's repair hint, which the explanation carries after "What to do: ".
std::string RepairHint(const Ticket& t) {
  const std::string marker = "What to do: ";
  size_t at = t.explanation.rfind(marker);
  return at == std::string::npos ? "" : t.explanation.substr(at + marker.size());
}

// "port e41d..._3 (leaf-01 port 1/3)" from the ticket's ends.
std::string PortWords(const Ticket& t, const std::string& port) {
  for (const auto& e : t.ends) {
    if (!e.is_object() || JsonText(e, "name") != port) continue;
    std::string sys = JsonText(e, "system_name");
    std::string label = JsonText(e, "label");
    if (sys.empty() && label.empty()) break;
    std::string where = sys;
    if (!label.empty()) where += (sys.empty() ? "port " : " port ") + label;
    return port + " (" + where + ")";
  }
  return port;
}

std::string Time(const std::optional<double>& t) {
  return t ? FormatIsoTime(FromEpochSeconds(*t)) : "";
}

}  // namespace

// While the host drains, or once it is drained: the cut is the service's next step.
std::string WhileTheHostDrains(const Ticket& t) {
  const std::string host = t.host_name.empty() ? std::string("the host") : t.host_name;
  if (t.state == ticket_state::kDrained) {
    return host + " is drained in the job scheduler and the service is taking " +
           PortWords(t, t.action_port) +
           " out of service now: wait until the ticket says port_disabled before touching the "
           "cable.";
  }
  return "The service is draining " + host +
         " in the job scheduler: its jobs finish first, then the link is cut. Do not touch the "
         "cable yet; the link still carries traffic." +
         (t.state == ticket_state::kEscalated
              ? " The jobs have outlasted the drain deadline: ask their owners to end or move "
                "them (the host's jobs are listed on the ticket), or report the repair if the "
                "link is fixed another way."
              : std::string());
}

std::string WhatToDo(const Ticket& t, bool host_draining) {
  std::string hint = RepairHint(t);
  std::string then = hint.empty() ? "" : " " + hint;
  const std::string& s = t.state;
  if (s == ticket_state::kDraining || s == ticket_state::kDrained ||
      (s == ticket_state::kEscalated && host_draining)) {
    return WhileTheHostDrains(t);
  }
  if (t.link_key == "storm") {
    return "Many links failed at once: look for a common cause (a switch, a power feed, UFM "
           "itself) before any cable. Then re-arm the circuit breaker; the links it held back are "
           "listed in the timeline.";
  }
  if (s == ticket_state::kClosed) {
    if (t.resolution == resolution::kWontFix) return "Nothing: closed as won't fix.";
    return "Nothing: the link is repaired and verified.";
  }
  if (s == ticket_state::kEscalated) {
    return std::to_string(t.attempts) +
           " repairs did not hold: replace the switch module or the host's HCA, not the cable "
           "again. Then report the repair." +
           (t.disabled_by_us ? " The port stays disabled until then." : "");
  }
  if (s == ticket_state::kRepairReported) {
    return "Nothing now: the repair is reported and the service is bringing the port back.";
  }
  if (s == ticket_state::kVerifying) {
    return "Nothing now: the link is back in service and watched" +
           (t.soak_until ? " until " + Time(t.soak_until) : std::string()) +
           ". If it fails again the service takes it out and reopens the work.";
  }
  if (t.guard == "drain_failed") {
    return "The job scheduler could not drain " +
           (t.host_name.empty() ? std::string("the host") : t.host_name) +
           " (see the timeline), so the service left its last link up: drain the host by hand "
           "before touching the cable." +
           then + " Then report the repair.";
  }
  if (t.guard == "last_link") {
    return "This is the last working link of its host or switch, so the service left it up: "
           "drain the host (move its jobs) before touching the cable." +
           then + " Then report the repair.";
  }
  if (t.disabled_by_us && t.guard == "uncertain") {
    return "The service asked UFM to disable " + PortWords(t, t.action_port) +
           " and UFM took the request, but UFM's port state does not say whether the port is "
           "disabled. Check the port in UFM before touching the cable; the service counts it "
           "as its own until then." +
           then + " Then report the repair: the service brings the port back and watches it.";
  }
  if (t.disabled_by_us || (s == ticket_state::kOpen && !t.action_port.empty())) {
    std::string verb = t.method == "isolate" ? "isolated" : "disabled";
    std::string port = PortWords(t, t.action_port);
    return "The service has " + verb + " " + port +
           (s == ticket_state::kOpen ? " (or is about to)" : "") +
           ", so the link carries no traffic and is safe to work on." + then +
           " Then report the repair: the service brings the port back and watches it.";
  }
  return "The link is still in service (the service did not take it out" +
         (t.guard.empty() ? std::string() : ": " + t.guard) +
         "). Plan the work with the host's owner." + then + " Then report the repair.";
}

std::string CsvCell(const std::string& value) {
  std::string v = value;
  if (!v.empty() &&
      (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@' || v[0] == '\t' || v[0] == '\r')) {
    v = "'" + v;
  }
  bool quote = v.find_first_of(",\"\r\n") != std::string::npos;
  if (!quote) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string TicketCsvHeader() {
  return "id,fabric,state,priority,severity,rule,reason,rack,switch,host,port_a,port_a_label,"
         "port_b,port_b_label,cable_serial,action_port,assigned_to,acknowledged_by,repair_kind,"
         "resolution,created_at,updated_at,closed_at,age_seconds\r\n";
}

std::string TicketCsvRow(const Ticket& t, double now_epoch_s) {
  auto end = [&](const std::string& port, const char* key) -> std::string {
    for (const auto& e : t.ends) {
      if (e.is_object() && JsonText(e, "name") == port) {
        auto it = e.find(key);
        return it != e.end() && it->is_string() ? it->get<std::string>() : "";
      }
    }
    return "";
  };
  std::string cable = end(t.port_a, "cable_serial");
  if (cable.empty()) cable = end(t.port_b, "cable_serial");
  double age = std::max(0.0, (t.closed_at ? *t.closed_at : now_epoch_s) - t.created_at);
  char age_text[32];
  std::snprintf(age_text, sizeof(age_text), "%.0f", age);
  std::vector<std::string> cells = {std::to_string(t.id),
                                    t.fabric,
                                    t.state,
                                    std::to_string(t.priority),
                                    t.severity,
                                    t.rule,
                                    t.reason,
                                    t.rack,
                                    t.switch_name,
                                    t.host_name,
                                    t.port_a,
                                    end(t.port_a, "label"),
                                    t.port_b,
                                    end(t.port_b, "label"),
                                    cable,
                                    t.action_port,
                                    t.assigned_to,
                                    t.acknowledged_by,
                                    t.repair_kind,
                                    t.resolution,
                                    FormatIsoTime(FromEpochSeconds(t.created_at)),
                                    FormatIsoTime(FromEpochSeconds(t.updated_at)),
                                    Time(t.closed_at),
                                    age_text};
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + CsvCell(cells[i]);
  return line + "\r\n";
}

}  // namespace ufmr
