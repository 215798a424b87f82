// Inputs shared by the benchmarks (bench/micro_bench.cc and the hand-timed event_log_bench.cc,
// telemetry_bench.cc and rules_bench.cc), generated in one place so that every benchmark of a
// stage measures the same data:
//   - UFM event-log lines: a realistic mix of old and new link messages, peer-port, counter,
//     site/grid events and a few three-line entries (Rng, RandomGuid, AppendEventLogEntry,
//     EventLogText);
//   - UFM Telemetry snapshots: 16 counters per port as CSV or Prometheus text (kCounters,
//     CounterValue, TelemetryCsv, TelemetryPrometheus);
//   - rules inputs: a fat tree's leaf-to-host links with the inventory UFM would serve for them
//     (Fabric), a stream of UFM event observations on them (EventStream), and a rules file of
//     many rules of every kind (BigRulesFile).
// Everything is deterministic: the same arguments give the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ingest/observation.h"
#include "ufm/inventory.h"

namespace ufmr::bench {

// xorshift64: cheap, deterministic, the same sequence on every platform.
struct Rng {
  uint64_t s = 0x9e3779b97f4a7c15ULL;
  uint64_t Next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  unsigned Below(unsigned n) { return static_cast<unsigned>(Next() % n); }
};

// `v` as 16 lower-case hex digits.
std::string Hex16(uint64_t v);

// A random GUID of a Mellanox switch (fc6a1c03 prefix).
std::string RandomGuid(Rng& r);

// ---------------------------------------------------------------------------------------------
// Event log

// Appends one event-log entry (entry number `index`, which also sets its timestamp); returns how
// many lines it has (1, or 3 for a module-status entry).
int AppendEventLogEntry(std::string* out, Rng& r, int64_t index);

// At least `target_lines` lines of entries from a fresh Rng; sets *lines and *entries.
std::string EventLogText(int64_t target_lines, int64_t* lines, int64_t* entries);

// ---------------------------------------------------------------------------------------------
// Telemetry

inline constexpr int kNumCounters = 16;
extern const char* const kCounters[kNumCounters];

// Counter k of port i at snapshot s: data counters grow fast (about 2^40 after a while), error
// counters stay small; one port in a thousand has symbol errors; with `resets`, one port in
// 5,000 has its error counters reset at snapshot 5.
uint64_t CounterValue(int64_t i, int k, int64_t s, bool resets);

struct SnapshotShape {
  int64_t interval_s = 60;  // seconds between snapshots (the rows' timestamps)
  bool resets = true;       // see CounterValue
};

// Snapshot `s` of `ports` ports (64 per switch) as UFM Telemetry CSV.
std::string TelemetryCsv(int64_t ports, int64_t s, SnapshotShape shape = {});

// The same snapshot as Prometheus text (a line per port and counter; milliseconds timestamps).
std::string TelemetryPrometheus(int64_t ports, int64_t s, SnapshotShape shape = {});

// ---------------------------------------------------------------------------------------------
// Rules

struct Link {
  std::string sw_port, host_port, description_down, description_up;
};

// A fat tree's leaf-to-host links (leaves x hosts_per_leaf), with the inventory UFM would serve
// for them put into *inventory.
std::vector<Link> Fabric(int leaves, int hosts_per_leaf, Inventory* inventory);

// `n` UFM event observations (mt19937_64, seed 42): `link_percent` % are link-downs and link-ups
// on random links; the rest are events no shipped rule names (multicast groups, network added,
// module status, ...). Times are left unset.
std::vector<Observation> EventStream(const std::vector<Link>& links, size_t n, int link_percent);

// A rules file of `n` rules of every kind, with patterns, lists and macros.
std::string BigRulesFile(int n);

}  // namespace ufmr::bench
