#include "app/probe_command.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "app/cli.h"
#include "app/probe.h"
#include "app/site_recording.h"
#include "config/config.h"
#include "ufm/ufm_client.h"

namespace ufmr::app {

namespace {

using Json = nlohmann::ordered_json;

int Usage(const std::string& message) { return UsageError({"probe"}, message); }

std::string Text(const Json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

// "key value, key value" for the named fields that are present.
std::string Fields(const Json& section, std::initializer_list<const char*> keys) {
  std::string out;
  for (const char* k : keys) {
    if (!section.contains(k)) continue;
    out += (out.empty() ? "" : ", ") + std::string(k) + " " + Text(section[k]);
  }
  return out;
}

void Section(std::ostream& out, const char* title, const Json& s,
             std::initializer_list<const char*> keys) {
  out << title << ": ";
  if (s.contains("configured") && !s["configured"].get<bool>()) {
    out << "not configured\n";
    return;
  }
  if (!s.value("ok", false) && s.contains("error") && !s["error"].is_null()) {
    out << "FAILED: " << Text(s["error"]) << "\n";
    return;
  }
  out << Fields(s, keys) << "\n";
  if (s.contains("first_errors")) {
    for (const auto& e : s["first_errors"]) out << "    could not place: " << Text(e) << "\n";
  }
}

void RenderText(std::ostream& out, const Json& r) {
  out << "UFM " << Text(r["ufm"]["url"]) << " (auth " << Text(r["ufm"]["auth"]) << ")\n";
  Section(out, "ports", r["ports"],
          {"total", "switch_ports", "switch_ports_with_label", "host_ports", "up", "disabled"});
  Section(out, "links", r["links"], {"total", "both_ends_resolved"});
  Section(out, "events", r["events"], {"parsed", "errors", "event_ids"});
  Section(out, "unhealthy ports", r["unhealthy_ports"], {"total", "manual", "manual_ports"});
  if (r["unhealthy_ports"].contains("note")) {
    out << "    " << Text(r["unhealthy_ports"]["note"]) << "\n";
  }
  Section(out, "telemetry", r["telemetry"],
          {"url", "format", "rows", "columns_mapped", "columns_missing", "timestamp_unit"});
  if (r["telemetry"].contains("secondary")) {
    Section(out, "telemetry secondary", r["telemetry"]["secondary"], {"url", "rows", "columns"});
  }
  Section(out, "event log", r["event_log"], {"path", "entries", "errors"});
  Section(out, "syslog", r["syslog"], {"seconds", "records", "parsed", "errors"});
  const Json& c = r["credentials"];
  out << "credentials: auth " << Text(c["auth"]) << ", jobs readable "
      << (c["jobs_readable"].get<bool>() ? "yes" : "no") << ", may act: " << Text(c["may_act"])
      << " (" << Text(c["detail"]) << ")\n";
  if (r.contains("recording")) {
    const Json& rec = r["recording"];
    out << "recorded to " << Text(rec["dir"]) << ": " << rec["files"].size()
        << " files, anonymised ("
        << Fields(rec["anonymised"], {"guids", "names", "serials", "addresses"}) << ")";
    if (!rec["missing"].empty()) out << "; not recorded: " << rec["missing"].dump();
    out << "\n";
  }
  for (const auto& w : r["warnings"]) out << "warning: " << Text(w) << "\n";
  for (const auto& p : r["problems"]) out << "PROBLEM: " << Text(p) << "\n";
  out << (r["ok"].get<bool>() ? "ok: the service has what it needs\n"
                              : "not ready: the service lacks something it needs (above)\n");
}

}  // namespace

int ProbeCommand(const CommandLine& cl) {
  if (!cl.Has("config")) return Usage("--config FILE is required");
  const std::string format = cl.One("format", "text");
  if (format != "text" && format != "json") return Usage("--format must be text or json");
  ProbeOptions options;
  try {
    size_t used = 0;
    options.syslog_seconds = std::stod(cl.One("syslog-seconds", "5"), &used);
    if (used != cl.One("syslog-seconds", "5").size() || options.syslog_seconds < 0 ||
        options.syslog_seconds > 600) {
      throw std::invalid_argument("range");
    }
  } catch (const std::exception&) {
    return Usage("--syslog-seconds must be a number of seconds from 0 to 600");
  }
  LogWarningsToStderr();
  auto config = LoadConfigFile(cl.One("config"), cl.All("set"));
  if (!config.ok()) {
    std::cerr << "probe: " << config.status().message() << "\n";
    return 1;
  }
  RestUfmClient client(config.value());
  std::vector<std::string> syslog_records;
  if (cl.Has("record")) options.syslog_records = &syslog_records;
  const UfmReads reads = ReadsOf(client);
  Json report = RunProbe(config.value(), reads, options);
  if (cl.Has("record")) {
    auto recorded = RecordSite(config.value(), reads, syslog_records, cl.One("record"));
    if (!recorded.ok()) {
      std::cerr << "probe: " << recorded.status().message() << "\n";
      return 1;
    }
    report["recording"] = recorded.value();
  }
  if (format == "json") {
    std::cout << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    RenderText(std::cout, report);
  }
  return report["ok"].get<bool>() ? 0 : 1;
}

}  // namespace ufmr::app
