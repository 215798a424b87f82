#include "app/rules_commands.h"

#include <unistd.h>

#include <cstdio>
#include <iomanip>
#include <iostream>

#include "base/clock.h"
#include "offline/decision_writer.h"
#include "offline/replay.h"
#include "offline/rule_tests.h"
#include "rules/rule_loader.h"

namespace ufmr::app {

namespace {

bool JsonFormat(const CommandLine& cl, const char* command, int* exit_code) {
  std::string f = cl.One("format", "text");
  if (f != "text" && f != "json") {
    *exit_code = UsageError({"rules", command}, "--format must be text or json");
  }
  return f == "json";
}

}  // namespace

int RulesCheck(const CommandLine& cl) {
  int bad = 0;
  bool json = JsonFormat(cl, "check", &bad);
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
  bool json = JsonFormat(cl, "test", &bad);
  if (bad) return bad;
  if (cl.positional.empty()) return UsageError({"rules", "test"}, "PATH is required");
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

namespace {

constexpr int kMaxJobs = 64;

bool ParseJobs(const std::string& text, int* jobs) {
  if (text.empty() || text.size() > 2 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  *jobs = std::stoi(text);
  return *jobs >= 1 && *jobs <= kMaxJobs;
}

// "replay: 12,000,000 lines (2.6 GB of 4.4), 1.1 M lines/s, log at 2026-11-14T03:00:00Z": on a
// terminal one line rewritten in place, else a line each time.
void ShowProgress(const ReadProgress& p, bool tty) {
  char line[200];
  const double rate = p.seconds > 0 ? static_cast<double>(p.lines) / p.seconds : 0;
  std::snprintf(line, sizeof(line), "replay: %llu lines (%.1f GB of %.1f), %.2f M lines/s%s%s",
                static_cast<unsigned long long>(p.lines), static_cast<double>(p.bytes) / 1e9,
                static_cast<double>(p.total_bytes) / 1e9, rate / 1e6, p.log_time ? ", log at " : "",
                p.log_time ? FormatIsoTime(*p.log_time).c_str() : "");
  std::cerr << (tty ? "\r" : "") << line << (tty ? "\x1b[K" : "\n") << std::flush;
}

// Reads replay's options into *options; false (after one line on stderr) on a usage error.
bool ReplayOptionsOf(const CommandLine& cl, const std::vector<std::string>& rules_paths,
                     ReplayOptions* out) {
  ReplayOptions& options = *out;
  auto refuse = [](const std::string& message) {
    UsageError({"replay"}, message);
    return false;
  };
  options.event_log = cl.One("event-log");
  options.telemetry = cl.All("telemetry");
  options.ports_file = cl.One("ports");
  options.silences_file = cl.One("silences");
  if (rules_paths.empty()) return refuse("--rules PATH is required");
  if (options.event_log.empty() && options.telemetry.empty()) {
    return refuse("give --event-log FILE, --telemetry FILE_OR_DIR, or both");
  }
  if (!ParseJobs(cl.One("jobs", "1"), &options.jobs)) {
    return refuse("--jobs must be a number from 1 to " + std::to_string(kMaxJobs));
  }
  if (cl.options.count("progress") || isatty(STDERR_FILENO)) {
    options.progress = [tty = isatty(STDERR_FILENO) != 0](const ReadProgress& p) {
      ShowProgress(p, tty);
    };
  }
  if (!ParseUtcOffset(cl.One("utc-offset", "0"), &options.utc_offset_s)) {
    return refuse("--utc-offset must look like +02:00 or -05:30 (at most 14:00 from UTC)");
  }
  // As with a job scheduler configured: a host short of links is drained, not left alone.
  const std::string scheduler = cl.One("scheduler", "none");
  if (scheduler != "none" && scheduler != "slurm") {
    return refuse("--scheduler must be none or slurm");
  }
  options.policy.scheduler = scheduler == "slurm";
  if (cl.options.count("max-disabled")) {
    try {
      options.policy.max_disabled_ports = std::stoi(cl.One("max-disabled"));
    } catch (const std::exception&) {
      return refuse("--max-disabled must be a number");
    }
  }
  return true;
}

}  // namespace

int Replay(const CommandLine& cl) {
  std::string format = cl.One("format", "jsonl");
  if (format != "jsonl" && format != "text") {
    return UsageError({"replay"}, "--format must be jsonl or text");
  }
  const std::vector<std::string> rules_paths = cl.All("rules");
  ReplayOptions options;
  if (!ReplayOptionsOf(cl, rules_paths, &options)) return 2;
  auto rules = LoadRules(rules_paths);
  if (!rules.ok()) {
    std::cerr << RenderDiagnosticsText(rules.diagnostics);
    return 1;
  }
  ReplayStats stats;
  // With --jobs above 1, the lines are formatted and written on a thread of their own.
  DecisionWriter writer(
      std::cout,
      format == "jsonl" ? DecisionWriter::Format::kJsonLines : DecisionWriter::Format::kText,
      options.jobs > 1);
  Status s = RunReplay(
      rules.rules, options, [&](Decision&& d) { writer.Add(std::move(d)); }, &stats);
  writer.Finish();
  if (!std::cout) {
    std::cerr << "replay: cannot write the decisions to standard output\n";
    return 1;
  }
  if (options.progress && isatty(STDERR_FILENO)) std::cerr << "\n";
  if (!s.ok()) {
    std::cerr << "replay: " << s.message() << "\n";
    return 1;
  }
  if (!options.ports_file.empty()) {
    std::cerr << "replay: " << stats.listed_ports << " ports from " << options.ports_file << " in "
              << std::fixed << std::setprecision(3) << stats.ports_load_s << " s\n"
              << std::defaultfloat;
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
