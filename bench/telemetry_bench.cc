// Telemetry benchmark: the cost of one UFM Telemetry snapshot at fabric scale. Builds CSV
// snapshots of N ports (default 100,000) with 16 counters, then times, per snapshot, parsing and
// turning it into deltas (CounterTracker via TelemetryIntake, observations only for counters the
// rules name, as the service runs); then the same for Prometheus text; and prints the counter
// state's size and the process's peak RSS. Targets (one core): <= 150 ms per 100k-port CSV
// snapshot; <= 64 MB of counter state for 100k ports. Prints figures; asserts nothing.
// The snapshots are bench_inputs.h's (micro_bench.cc measures the same).
// Usage: telemetry_bench [PORTS] [SNAPSHOTS] [RULES_DIR] [all|csv|prom]
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_inputs.h"
#include "rules/rule_loader.h"
#include "telemetry/telemetry.h"

namespace {

using ufmr::bench::kNumCounters;

double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

long PeakRssKiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// Wall time and this thread's CPU time: on a shared machine the CPU time is the steadier figure.
struct Stamp {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu_ms = ThreadCpuMs();
  static double ThreadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
  }
};

struct Timing {
  double parse_cpu = 0, delta_cpu = 0, cpu = 0, cpu_worst = 0, wall = 0, wall_worst = 0;
  int n = 0;
  void Add(const Stamp& t0, const Stamp& t1, const Stamp& t2) {
    parse_cpu += t1.cpu_ms - t0.cpu_ms;
    delta_cpu += t2.cpu_ms - t1.cpu_ms;
    cpu += t2.cpu_ms - t0.cpu_ms;
    cpu_worst = std::max(cpu_worst, t2.cpu_ms - t0.cpu_ms);
    wall += Ms(t2.wall - t0.wall);
    wall_worst = std::max(wall_worst, Ms(t2.wall - t0.wall));
    ++n;
  }
  void Print(const char* what, double mb) const {
    std::printf(
        "%s (%.1f MB per snapshot), per snapshot over %d: CPU parse %.1f ms + deltas %.1f ms = "
        "mean %.1f ms, worst %.1f ms; wall mean %.1f ms, worst %.1f ms (target <= 150 ms)\n",
        what, mb, n, parse_cpu / n, delta_cpu / n, cpu / n, cpu_worst, wall / n, wall_worst);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int ports = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int snapshots = argc > 2 ? std::atoi(argv[2]) : 10;
  auto loaded = ufmr::LoadRulesDir(argc > 3 ? argv[3] : "rules");
  if (!loaded.ok()) {
    std::fprintf(stderr, "%s", loaded.Report().c_str());
    return 1;
  }
  const std::set<std::string> interest = loaded.rules->counters;
  std::printf("telemetry snapshot: %d ports x %d counters; observations for:", ports, kNumCounters);
  for (const auto& c : interest) std::printf(" %s", c.c_str());
  std::printf("\n");

  const std::string mode = argc > 4 ? argv[4] : "all";

  // CSV: snapshot 0 is the baseline, then `snapshots` timed ones.
  long rss_before = PeakRssKiB();
  ufmr::TelemetryIntake intake(ufmr::Config::Telemetry{}, nullptr);
  intake.SetInterest(interest);
  Timing csv;
  const int csv_snapshots = mode == "prom" ? -1 : snapshots;
  size_t observations = 0, rows = 0;
  size_t bytes = 0;
  for (int s = 0; s <= csv_snapshots; ++s) {
    const std::string text = ufmr::bench::TelemetryCsv(ports, s);
    bytes = text.size();
    const auto now = ufmr::FromEpochSeconds(1700000000.0 + s * 60);
    Stamp t0;
    auto parsed = ufmr::ParseTelemetryCsv(text);
    Stamp t1;
    if (!parsed.ok()) {
      std::fprintf(stderr, "parse failed: %s\n", parsed.status().message().c_str());
      return 1;
    }
    observations += intake.Ingest(parsed.value(), false, now, [](const ufmr::Observation&) {});
    Stamp t2;
    rows += parsed->rows();
    if (s > 0) csv.Add(t0, t1, t2);
  }
  const ufmr::CounterTracker& tracker = intake.primary();
  if (csv.n > 0) {
    csv.Print("CSV", bytes / 1e6);
    std::printf("  %zu rows, %zu observations made (counters a rule names and SymbolBER)\n", rows,
                observations);
    std::printf(
        "counter state: %zu ports x %zu counters = %.1f MB (target <= 64 MB); peak RSS %.1f MB "
        "(%.1f MB before the CSV runs; includes the CSV text and parsed snapshot)\n",
        tracker.tracked_ports(), tracker.tracked_counters(), tracker.state_bytes() / 1e6,
        PeakRssKiB() / 1024.0, rss_before / 1024.0);
  }
  if (mode == "csv") return 0;

  // Every counter as an Observation (no interest filter): the cost the filter saves.
  if (mode == "all") {
    ufmr::TelemetryIntake all(ufmr::Config::Telemetry{}, nullptr);
    size_t made = 0;
    double worst = 0, total = 0;
    const int runs = std::min(snapshots, 3);
    for (int s = 0; s <= runs; ++s) {
      const std::string text = ufmr::bench::TelemetryCsv(ports, s);
      Stamp t0;
      auto parsed = ufmr::ParseTelemetryCsv(text);
      made += all.Ingest(parsed.value(), false, ufmr::FromEpochSeconds(1700000000.0 + s * 60),
                         [](const ufmr::Observation&) {});
      double ms = Stamp().cpu_ms - t0.cpu_ms;
      if (s > 0) {
        total += ms;
        worst = std::max(worst, ms);
      }
    }
    std::printf(
        "CSV without the interest filter (every moved counter an Observation): CPU mean %.1f ms, "
        "worst %.1f ms (%zu observations)\n",
        total / runs, worst, made);
  }

  // Prometheus text: bigger (a line per port per counter); fewer snapshots.
  {
    ufmr::TelemetryIntake prom(ufmr::Config::Telemetry{}, nullptr);
    prom.SetInterest(interest);
    Timing t;
    const int runs = std::min(snapshots, 3);
    size_t prom_bytes = 0;
    for (int s = 0; s <= runs; ++s) {
      const std::string text = ufmr::bench::TelemetryPrometheus(ports, s);
      prom_bytes = text.size();
      Stamp t0;
      auto parsed = ufmr::ParseTelemetryPrometheus(text);
      Stamp t1;
      if (!parsed.ok()) {
        std::fprintf(stderr, "parse failed: %s\n", parsed.status().message().c_str());
        return 1;
      }
      prom.Ingest(parsed.value(), false, ufmr::FromEpochSeconds(1700000000.0 + s * 60),
                  [](const ufmr::Observation&) {});
      Stamp t2;
      if (s > 0) t.Add(t0, t1, t2);
    }
    t.Print("Prometheus", prom_bytes / 1e6);
  }
  std::printf("peak RSS at exit: %.1f MB\n", PeakRssKiB() / 1024.0);
  return 0;
}
