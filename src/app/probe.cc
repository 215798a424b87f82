#include "app/probe.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include "base/text.h"
#include "config/telemetry_columns.h"
#include "ingest/event_log.h"
#include "ingest/syslog_receiver.h"
#include "ingest/syslog_record.h"
#include "rules/rule_loader.h"
#include "telemetry/telemetry.h"
#include "telemetry/telemetry_snapshot.h"
#include "telemetry/telemetry_source.h"
#include "ufm/ufm_json.h"

namespace ufmr::app {

namespace {

using Json = nlohmann::ordered_json;

// What the probe found, as it goes: the sections, and what stops or worries the service.
struct Findings {
  Json report = Json::object();
  std::vector<std::string> problems;
  std::vector<std::string> warnings;
};

template <typename T>
void Keep(std::vector<T>* list, T item, size_t max) {
  if (list->size() < max) list->push_back(std::move(item));
}

Json ProbePorts(const UfmReads& ufm, std::set<std::string>* names, Findings* f) {
  Json j{{"ok", false}, {"error", nullptr}};
  auto ports = ufm.ports ? ufm.ports() : Result<std::vector<PortInfo>>(Status::NotFound("no"));
  if (!ports.ok()) {
    j["error"] = ports.status().message();
    f->problems.push_back("ports: " + ports.status().message());
    return j;
  }
  size_t switch_ports = 0, labelled = 0, disabled = 0, up = 0;
  for (const auto& p : ports.value()) {
    names->insert(p.name);
    if (p.is_switch()) ++switch_ports;
    if (p.is_switch() && !p.label.empty()) ++labelled;  // dname, else the node description's
    if (p.disabled()) ++disabled;
    if (p.link_up()) ++up;
  }
  j["ok"] = !ports->empty();
  j["total"] = ports->size();
  j["switch_ports"] = switch_ports;
  j["switch_ports_with_label"] = labelled;
  j["host_ports"] = ports->size() - switch_ports;
  j["up"] = up;
  j["disabled"] = disabled;
  if (ports->empty()) f->problems.push_back("ports: UFM lists no ports");
  if (switch_ports > 0 && labelled == 0) {
    f->warnings.push_back(
        "ports: no switch port has a label (dname or node description): events that name "
        "ports as <switch>:<label> cannot be resolved");
  }
  return j;
}

Json ProbeLinks(const UfmReads& ufm, const std::set<std::string>& ports, Findings* f) {
  Json j{{"ok", false}, {"error", nullptr}};
  auto links = ufm.links ? ufm.links() : Result<std::vector<LinkInfo>>(Status::NotFound("no"));
  if (!links.ok()) {
    j["error"] = links.status().message();
    f->warnings.push_back("links: " + links.status().message() +
                          " (peers then come from the ports answer alone)");
    return j;
  }
  std::vector<LinkInfo>& all = links.value();
  const int unresolved_count =
      ResolveLinks(&all, [&](const std::string& n) { return ports.count(n) > 0; });
  std::vector<std::string> unresolved;
  for (const auto& l : all) {
    if (!l.resolved) Keep(&unresolved, l.a + " - " + l.b, 5);
  }
  j["ok"] = unresolved_count == 0;
  j["total"] = all.size();
  j["both_ends_resolved"] = all.size() - static_cast<size_t>(unresolved_count);
  j["first_unresolved"] = unresolved;
  if (unresolved_count > 0) {
    // The service would not know these links' ends: peers, the last-link guard and tickets
    // would be wrong about them.
    f->problems.push_back("links: " + std::to_string(unresolved_count) + " of " +
                          std::to_string(all.size()) +
                          " name a port UFM's ports answer does not list (e.g. " +
                          unresolved.front() + "); they are not used");
  }
  return j;
}

Json ProbeEvents(const UfmReads& ufm, const ProbeOptions& o, Findings* f) {
  Json j{{"ok", false}, {"error", nullptr}};
  auto events = ufm.events ? ufm.events() : Result<ParsedEvents>(Status::NotFound("no"));
  if (!events.ok()) {
    j["error"] = events.status().message();
    f->problems.push_back("events: " + events.status().message());
    return j;
  }
  std::set<int> types;
  for (const auto& e : events->events) types.insert(e.event_type);
  std::vector<std::string> first(
      events->errors.begin(),
      events->errors.begin() + static_cast<long>(std::min(o.first_errors, events->errors.size())));
  j["ok"] = true;
  j["parsed"] = events->events.size();
  j["errors"] = events->errors.size();
  j["first_errors"] = first;
  j["event_ids"] = types;
  if (events->events.empty() && !events->errors.empty()) {
    f->problems.push_back("events: none of " + std::to_string(events->errors.size()) +
                          " could be read");
  } else if (!events->errors.empty()) {
    f->warnings.push_back("events: " + std::to_string(events->errors.size()) +
                          " could not be read");
  }
  return j;
}

Json ProbeUnhealthy(const UfmReads& ufm, Findings* f) {
  Json j{{"ok", false}, {"error", nullptr}};
  auto list = ufm.unhealthy_ports
                  ? ufm.unhealthy_ports()
                  : Result<std::vector<UnhealthyPort>>(Status::NotFound("no unhealthy ports list"));
  if (!list.ok()) {
    j["error"] = list.status().message();
    f->warnings.push_back("unhealthy ports: " + list.status().message());
    return j;
  }
  std::vector<std::string> manual;
  size_t manual_count = 0;
  for (const auto& u : list.value()) {
    if (!u.manual()) continue;  // Condition "MANUAL", or ["MANUAL", ...] from 6.19
    ++manual_count;
    Keep(&manual, u.port, 20);
  }
  j["ok"] = true;
  j["total"] = list->size();
  j["manual"] = manual_count;
  j["manual_ports"] = manual;
  j["note"] =
      "ports isolated with Condition MANUAL are taken for a person's, unless the service's "
      "database records the isolation as its own (the probe does not read the database)";
  return j;
}

// The raw timestamp of the first data row of a CSV body (the "timestamp" column), or of the
// first Prometheus sample that carries one; 0 when there is none.
int64_t FirstTimestamp(std::string_view body) {
  auto next_line = [&body]() {
    size_t nl = body.find('\n');
    std::string_view line = body.substr(0, nl);
    body = nl == std::string_view::npos ? std::string_view() : body.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  };
  auto number = [](std::string_view s) -> int64_t {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != s.npos) return 0;
    return std::stoll(std::string(s));
  };
  std::string_view header = next_line();
  if (header.find(',') != std::string_view::npos && header.find('{') == std::string_view::npos) {
    int column = 0;
    for (std::string_view h = header;; ++column) {
      size_t comma = h.find(',');
      if (AsciiLower(std::string(h.substr(0, comma))) == "timestamp") break;
      if (comma == std::string_view::npos) return 0;
      h.remove_prefix(comma + 1);
    }
    std::string_view row = next_line();
    for (int c = 0; c < column; ++c) {
      size_t comma = row.find(',');
      if (comma == std::string_view::npos) return 0;
      row.remove_prefix(comma + 1);
    }
    return number(row.substr(0, row.find(',')));
  }
  for (std::string_view line = header; !line.empty() || !body.empty(); line = next_line()) {
    if (line.empty() || line[0] == '#') continue;
    size_t space = line.rfind(' ');
    size_t before = line.find_last_not_of(' ', space);
    // "metric{labels} value timestamp": a timestamp is a third field after the labels.
    if (space != std::string_view::npos && before != std::string_view::npos &&
        line.rfind(' ', before) != std::string_view::npos &&
        line.rfind(' ', before) > line.rfind('}')) {
      return number(line.substr(space + 1));
    }
  }
  return 0;
}

// The counters the service's rules read (from rules.dir), or the documented primary counters
// when the rules cannot be loaded.
std::set<std::string> CountersNeeded(const Config& c, Findings* f) {
  auto rules = LoadRulesDir(c.rules.dir);
  if (rules.ok()) {
    auto needed = rules.rules->counters;
    // SymbolBER is derived, from SymbolErrorCounterExtended and the link's rate.
    if (needed.erase("SymbolBER")) needed.insert("SymbolErrorCounterExtended");
    if (!needed.empty()) return needed;
  } else {
    f->warnings.push_back("rules in " + c.rules.dir +
                          " could not be loaded: telemetry checked against the primary counters");
  }
  return {"SymbolErrorCounterExtended", "LinkDownedCounterExtended", "PortRcvErrorsExtended",
          "LinkErrorRecoveryCounterExtended"};
}

Json ProbeTelemetryEndpoint(const UfmReads& ufm, const std::string& url, const std::string& format,
                            const std::map<std::string, std::string>& column_map,
                            const std::set<std::string>& needed, const ProbeOptions& o) {
  Json j{{"url", url}, {"ok", false}, {"error", nullptr}};
  auto r = ufm.telemetry ? ufm.telemetry(url) : Result<HttpResult>(Status::NotFound("no"));
  if (r.ok() && (r->status < 200 || r->status > 299)) {
    r = Status::Unavailable("HTTP " + std::to_string(r->status));
  }
  if (!r.ok()) {
    j["error"] = r.status().message();
    return j;
  }
  auto fmt = ParseTelemetryFormat(format);
  // The configured column names, as the service reads this endpoint (the config's check
  // already refused a bad map).
  auto columns = TelemetryColumns::Make(column_map);
  auto snapshot = ParseTelemetry(r->body, fmt.ok() ? fmt.value() : TelemetryFormat::kAuto,
                                 r->Header("content-type"),
                                 columns.ok() ? columns.value() : TelemetryColumns());
  if (!snapshot.ok()) {
    j["error"] = snapshot.status().message();
    return j;
  }
  std::vector<std::string> mapped, missing, errors;
  Json nearest = Json::object();  // a missing counter -> the live column nearest its name
  for (const auto& c : needed) {
    (snapshot->Column(c) >= 0 ? mapped : missing).push_back(c);
    if (snapshot->Column(c) >= 0 || snapshot->counters.empty()) continue;
    std::string best;
    size_t best_d = 0;
    for (const auto& col : snapshot->counters) {
      const size_t d = EditDistance(AsciiLower(c), AsciiLower(col));
      if (best.empty() || d < best_d) {
        best = col;
        best_d = d;
      }
    }
    nearest[c] = best;
  }
  for (const auto& e : snapshot->errors) Keep(&errors, e, o.first_errors);
  const int64_t ts = FirstTimestamp(r->body);
  j["ok"] = snapshot->rows() > 0;
  if (snapshot->rows() == 0) j["error"] = "the sample has no port rows";
  j["format"] = TelemetryFormatName(DetectTelemetryFormat(r->Header("content-type"), r->body));
  j["rows"] = snapshot->rows();
  j["keyed_by"] = snapshot->keyed_by;
  j["not_read"] = TelemetryNotRead(snapshot.value());
  j["columns"] = snapshot->counters.size();
  j["columns_mapped"] = mapped;
  j["columns_missing"] = missing;
  j["columns_missing_nearest"] = nearest;
  j["timestamp"] = ts;
  j["timestamp_unit"] = TimestampUnit(ts);
  j["errors"] = snapshot->errors.size();
  j["first_errors"] = errors;
  return j;
}

Json ProbeTelemetry(const Config& c, const UfmReads& ufm, const ProbeOptions& o, Findings* f) {
  if (c.telemetry.url.empty()) {
    f->warnings.push_back("telemetry: not configured (counter rules will not run)");
    return Json{{"configured", false}};
  }
  const std::set<std::string> needed = CountersNeeded(c, f);
  Json j{{"configured", true}};
  j.update(ProbeTelemetryEndpoint(ufm, c.telemetry.url, c.telemetry.format, c.telemetry.columns,
                                  needed, o));
  if (!j["ok"].get<bool>()) {
    f->problems.push_back("telemetry: " + j["error"].get<std::string>());
  } else if (j["columns_mapped"].empty() && !j["columns_missing"].empty()) {
    f->problems.push_back("telemetry: none of the counters the rules read is there: " +
                          j["columns_missing"].dump());
  } else if (!j["columns_missing"].empty()) {
    f->warnings.push_back(
        "telemetry: columns the rules read are missing: " + j["columns_missing"].dump() +
        " (nearest live columns: " + j["columns_missing_nearest"].dump() + ")");
  }
  if (j.contains("not_read")) {
    for (const auto& note : j["not_read"]) {
      f->warnings.push_back("telemetry: " + note.get<std::string>());
    }
  }
  if (j.value("timestamp_unit", "") == "none") {
    f->warnings.push_back("telemetry: the sample has no timestamp (the poll's time is used)");
  }
  if (!c.telemetry.secondary_url.empty()) {
    Json s = ProbeTelemetryEndpoint(ufm, c.telemetry.secondary_url, c.telemetry.format,
                                    c.telemetry.secondary_columns, {}, o);
    if (!s["ok"].get<bool>()) {
      f->warnings.push_back("telemetry secondary: " + s["error"].get<std::string>());
    }
    j["secondary"] = std::move(s);
  }
  return j;
}

// The last `max` bytes of a file, from a line start.
// The head is counted for its lines in chunks, never held: an event log can be gigabytes.
bool ReadTail(const std::string& path, size_t max, std::string* out, size_t* skipped_lines) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  const auto size = static_cast<size_t>(std::max<std::streamoff>(in.tellg(), 0));
  in.seekg(0);
  *skipped_lines = 0;
  size_t head = size > max ? size - max : 0;
  std::string chunk(std::min(head, size_t{1} << 20), '\0');
  while (head > 0 && in) {
    const size_t n = std::min(head, chunk.size());
    in.read(chunk.data(), static_cast<std::streamsize>(n));
    *skipped_lines += static_cast<size_t>(std::count(chunk.begin(), chunk.begin() + n, '\n'));
    head -= n;
  }
  std::ostringstream tail;
  tail << in.rdbuf();
  *out = tail.str();
  if (size > max) {  // from the first whole line
    size_t cut = out->find('\n');
    cut = cut == std::string::npos ? out->size() : cut + 1;
    *skipped_lines += static_cast<size_t>(std::count(out->begin(), out->begin() + cut, '\n'));
    out->erase(0, cut);
  }
  return !in.bad();
}

Json ProbeEventLog(const Config& c, const ProbeOptions& o, Findings* f) {
  if (c.event_log.path.empty()) return Json{{"configured", false}};
  Json j{{"configured", true}, {"path", c.event_log.path}, {"ok", false}, {"error", nullptr}};
  std::string text;
  size_t skipped = 0;
  if (!ReadTail(c.event_log.path, size_t{4} << 20, &text, &skipped)) {
    j["error"] = "cannot read " + c.event_log.path;
    f->problems.push_back("event log: cannot read " + c.event_log.path);
    return j;
  }
  EventLogAssembler assembler;
  RawLogEntry raw;
  LogEntry entry;
  size_t entries = 0, errors = 0, line = skipped;
  Json first = Json::array();
  auto handle = [&] {
    Status s = ParseEventLogEntry(raw, &entry);
    if (s.ok()) return void(++entries);
    if (++errors <= o.first_errors) first.push_back({{"line", raw.offset}, {"error", s.message()}});
  };
  for (std::string_view rest = text; !rest.empty();) {
    size_t nl = rest.find('\n');
    if (assembler.Add(rest.substr(0, nl), ++line, &raw)) handle();
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  if (assembler.Flush(&raw)) handle();
  j["ok"] = true;
  j["read_from_line"] = skipped + 1;
  j["entries"] = entries;
  j["errors"] = errors;
  j["first_errors"] = std::move(first);
  if (entries == 0 && errors > 0) {
    f->problems.push_back("event log: none of its entries could be read");
  } else if (entries == 0) {
    f->warnings.push_back("event log: no entry could be read (yet)");
  }
  return j;
}

Json ProbeSyslog(const Config& c, const ProbeOptions& o, Findings* f) {
  if (c.syslog.udp_port < 0 && c.syslog.tcp_port < 0) return Json{{"configured", false}};
  Json j{{"configured", true}, {"listen", c.syslog.listen}, {"ok", false}, {"error", nullptr}};
  SyslogReceiver receiver(c.syslog.listen, c.syslog.udp_port, c.syslog.tcp_port);
  if (Status s = receiver.Start(); !s.ok()) {
    j["error"] = s.message();
    f->problems.push_back("syslog: cannot listen: " + s.message());
    return j;
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(o.syslog_seconds));
  std::vector<SyslogMessage> messages = receiver.Drain();
  receiver.Stop();
  if (o.syslog_records) {
    for (const auto& m : messages) o.syslog_records->push_back(m.text);
  }
  size_t parsed = 0, errors = 0;
  Json first = Json::array();
  LogEntry entry;
  for (const auto& m : messages) {
    Observation obs;
    Status s = ParseSyslogRecord(m.text, m.received, &entry, &obs);
    if (s.ok()) {
      ++parsed;
    } else if (++errors <= o.first_errors) {
      first.push_back({{"from", m.peer}, {"error", s.message()}});
    }
  }
  j["ok"] = true;
  j["seconds"] = o.syslog_seconds;
  j["records"] = messages.size();
  j["parsed"] = parsed;
  j["errors"] = errors;
  j["first_errors"] = std::move(first);
  if (messages.empty()) {
    f->warnings.push_back("syslog: nothing arrived in " + Json(o.syslog_seconds).dump() +
                          " s (is UFM forwarding? PUT /app/syslog)");
  }
  return j;
}

// UFM's user groups (the UFM Enterprise user manual, "User Management Tab"): System Admin does
// everything; Fabric Admin manages unhealthy ports (isolation); Fabric Operator enables and
// disables ports; Monitoring Only and Tenant do neither.
std::string MayActFor(const std::string& group, std::string* detail) {
  std::string g = AsciiLower(group);
  if (g == "system_admin" || g == "fabric_admin") {
    *detail = "UFM group " + group + " may disable, enable and isolate ports";
    return "likely";
  }
  if (g == "fabric_operator") {
    *detail = "UFM group " + group + " may disable and enable ports, not manage unhealthy ports";
    return "likely";
  }
  if (g == "monitoring_only" || g == "tenant") {
    *detail = "UFM group " + group + " may not act on ports";
    return "no";
  }
  *detail = "UFM group '" + group + "' is not one the probe knows";
  return "unknown";
}

// Whether the credentials may act, from what UFM says read-only. UFM has no dry run. The REST
// API guide documents GET /ufmRest/app/users/<name> answering {"name", "group", "id"} (Users REST
// API, 6.12 and later); a UFM that does not answer it leaves the question open.
Json ProbeCredentials(const Config& c, const UfmReads& ufm, Findings* f) {
  Json j{{"auth", c.ufm.auth}, {"user", c.ufm.auth == "token" ? "" : c.ufm.user}};
  auto jobs = ufm.jobs ? ufm.jobs() : Result<std::vector<JobInfo>>(Status::NotFound("no"));
  j["jobs_readable"] = jobs.ok();
  if (!jobs.ok()) {
    j["jobs_error"] = jobs.status().message();
    f->warnings.push_back("jobs: " + jobs.status().message() +
                          " (the service follows its port actions' jobs there)");
  }
  j["group"] = nullptr;
  std::string detail = "unknown: UFM offers no read-only check";
  std::string may_act = "unknown";
  // Basic and session logins name a user; a token and the UFM host's own access do not.
  if (ufm.rest_get && (c.ufm.auth == "basic" || c.ufm.auth == "session")) {
    auto r = ufm.rest_get("/app/users/" + c.ufm.user);
    nlohmann::json body =
        r.ok() ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
    if (body.is_object() && body.contains("group") && body["group"].is_string()) {
      j["group"] = body["group"];
      may_act = MayActFor(body["group"].get<std::string>(), &detail);
    } else {
      detail += " (GET /app/users/" + c.ufm.user + " did not tell the user's group)";
    }
  }
  j["may_act"] = may_act;
  j["detail"] = detail;
  if (may_act == "no") f->problems.push_back("credentials: " + detail);
  return j;
}

}  // namespace

UfmReads ReadsOf(RestUfmClient& client) {
  UfmReads r;
  r.ports = [&client]() -> Result<std::vector<PortInfo>> {
    auto ports = client.GetPorts();
    if (!ports.ok()) return ports.status();
    return ports->ToVector();
  };
  r.links = [&client] { return client.GetLinks(); };
  r.events = [&client] { return client.GetEvents(); };
  r.unhealthy_ports = [&client] { return client.GetUnhealthyPorts(); };
  r.jobs = [&client] { return client.GetJobs(); };
  r.telemetry = [&client](const std::string& url) { return client.GetTelemetry(url); };
  r.rest_get = [&client](const std::string& path) { return client.Read(path); };
  return r;
}

nlohmann::ordered_json RunProbe(const Config& config, const UfmReads& ufm,
                                const ProbeOptions& options) {
  Findings f;
  std::set<std::string> port_names;
  Json& r = f.report;
  r["ufm"] = {{"url", config.ufm.url}, {"auth", config.ufm.auth}};
  r["ok"] = true;
  r["problems"] = Json::array();
  r["warnings"] = Json::array();
  r["ports"] = ProbePorts(ufm, &port_names, &f);
  r["links"] = ProbeLinks(ufm, port_names, &f);
  r["events"] = ProbeEvents(ufm, options, &f);
  r["unhealthy_ports"] = ProbeUnhealthy(ufm, &f);
  r["telemetry"] = ProbeTelemetry(config, ufm, options, &f);
  r["event_log"] = ProbeEventLog(config, options, &f);
  r["syslog"] = ProbeSyslog(config, options, &f);
  r["credentials"] = ProbeCredentials(config, ufm, &f);
  r["ok"] = f.problems.empty();
  r["problems"] = f.problems;
  r["warnings"] = f.warnings;
  return r;
}

}  // namespace ufmr::app
