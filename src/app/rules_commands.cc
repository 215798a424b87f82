#include "app/rules_commands.h"

#include <iostream>

#include "base/clock.h"
#include "offline/replay.h"
#include "offline/rule_tests.h"
#include "rules/rule_loader.h"

namespace ufmr::app {

namespace {

bool JsonFormat(const CommandLine& cl, int* exit_code) {
  std::string f = cl.One("format", "text");
  if (f != "text" && f != "json") {
    std::cerr << "--format must be text or json\n";
    *exit_code = 2;
  }
  return f == "json";
}

}  // namespace

int RulesCheck(const CommandLine& cl) {
  int bad = 0;
  bool json = JsonFormat(cl, &bad);
  if (bad) return bad;
  std::vector<std::string> paths = cl.positional;
  if (paths.empty()) paths.push_back("rules");
  auto result = LoadRules(paths);
  if (json) {
    auto j = RenderDiagnosticsJson(result.diagnostics);
    if (result.ok()) {
      j["rules"] = result.rules->rules.size();
      j["hash"] = result.rules->hash;
      j["files"] = result.rules->files;
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << RenderDiagnosticsText(result.diagnostics);
    if (result.ok()) {
      std::cout << result.rules->rules.size() << " rules in " << result.rules->files.size()
                << " files OK (hash " << result.rules->hash << ")\n";
    }
  }
  return result.ok() ? 0 : 1;
}

int RulesTest(const CommandLine& cl) {
  int bad = 0;
  bool json = JsonFormat(cl, &bad);
  if (bad) return bad;
  if (cl.positional.empty()) {
    std::cerr << "usage: ufm-remediator rules test PATH...\n";
    return 2;
  }
  auto report = RunRuleTests(cl.positional);
  if (json) {
    auto j = RenderDiagnosticsJson(report.diagnostics);
    j["ok"] = report.ok();
    j["files"] = report.files;
    j["tests"] = report.tests;
    j["failed"] = report.failed;
    j["output"] = report.text;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << RenderDiagnosticsText(report.diagnostics) << report.text;
    std::cout << report.tests << " tests in " << report.files << " files, " << report.failed
              << " failed\n";
    if (report.tests == 0) std::cout << "no tests found\n";
  }
  return report.ok() ? 0 : 1;
}

int Replay(const CommandLine& cl) {
  std::string format = cl.One("format", "jsonl");
  if (format != "jsonl" && format != "text") {
    std::cerr << "--format must be jsonl or text\n";
    return 2;
  }
  auto rules_paths =
      cl.options.count("rules") ? cl.options.at("rules") : std::vector<std::string>{};
  ReplayOptions options;
  options.event_log = cl.One("event-log");
  if (cl.options.count("telemetry")) options.telemetry = cl.options.at("telemetry");
  options.ports_file = cl.One("ports");
  options.silences_file = cl.One("silences");
  if (rules_paths.empty() || (options.event_log.empty() && options.telemetry.empty())) {
    std::cerr << "usage: ufm-remediator replay --rules PATH --event-log FILE "
                 "[--telemetry FILE_OR_DIR ...] [--ports FILE]\n"
                 "         [--silences FILE] [--utc-offset +HH:MM] [--max-disabled N] "
                 "[--format jsonl|text]\n";
    return 2;
  }
  if (!ParseUtcOffset(cl.One("utc-offset", "0"), &options.utc_offset_s)) {
    std::cerr << "--utc-offset must look like +02:00 or -05:30 (at most 14:00 from UTC)\n";
    return 2;
  }
  if (cl.options.count("max-disabled")) {
    try {
      options.policy.max_disabled_ports = std::stoi(cl.One("max-disabled"));
    } catch (const std::exception&) {
      std::cerr << "--max-disabled must be a number\n";
      return 2;
    }
  }
  auto rules = LoadRules(rules_paths);
  if (!rules.ok()) {
    std::cerr << RenderDiagnosticsText(rules.diagnostics);
    return 1;
  }
  ReplayStats stats;
  Status s = RunReplay(
      rules.rules, options,
      [&](const Decision& d) {
        if (format == "jsonl") {
          std::cout << d.ToJson().dump() << "\n";
        } else {
          std::cout << FormatIsoTime(d.time) << " " << DecisionKindName(d.kind) << " " << d.rule
                    << " " << (d.port.empty() ? d.entity : d.port) << ": " << d.reason << "\n";
        }
      },
      &stats);
  std::cout.flush();
  if (!s.ok()) {
    std::cerr << "replay: " << s.message() << "\n";
    return 1;
  }
  std::cerr << "replay: " << stats.events << " events (" << stats.bad_entries << " unreadable), "
            << stats.telemetry_files << " telemetry snapshots (" << stats.telemetry_samples
            << " port samples), " << stats.findings << " findings;";
  for (const auto& [kind, n] : stats.decisions) std::cerr << " " << kind << " " << n;
  std::cerr << "; rules " << rules.rules->hash << "\n";
  for (const auto& e : stats.errors) std::cerr << "replay: skipped: " << e << "\n";
  return 0;
}

}  // namespace ufmr::app
