// Micro benchmarks (Google Benchmark) of the service's hot paths, one core each:
//   BM_EventLogParse     UFM event-log lines (realistic mix, as bench/event_log_bench.cc) through
//                        EventLogAssembler + ParseEventLogEntry (observe:0, the parsing the target
//                        names), and also ToObservation (observe:1, the whole intake); items =
//                        lines.
//   BM_EventJsonParse    a UFM REST GET /app/events answer (1,000 events, 6.17+ layout) through
//                        ParseUfmEvents + ToObservation, as the REST intake does; items = events.
//   BM_TelemetryIngest   one UFM Telemetry CSV snapshot (16 counters per port; 100,000 ports, or
//                        10,000 with --quick) parsed and folded into the counter tracking
//                        (TelemetryIntake, observations only for counters the shipped rules name,
//                        as the service runs per poll); time per snapshot; items = ports;
//                        counter state_mb = the counter state's size in MB (as telemetry_bench);
//                        lead_up_mb = what LeadUp holds of the rises of error counters.
//   BM_LeadUpStorm       error counters rising on 10,000 ports (LeadUp's fullest) and on
//                        100,000 (20,000 with --quick), 40 rounds: rises/s, and lead_up_mb,
//                        LeadUp's size (bounded).
//   BM_RuleEvaluation    UFM event observations through the RuleEngine with the shipped rules and
//                        a 64-leaf x 32-host inventory (as bench/rules_bench.cc), in two mixes:
//                        10 % link events (the rest no rule names) and a link-event storm (100 %);
//                        one engine across passes, in its steady state, as in the service.
//   BM_RulesReload       a 500-rule file loaded and swapped into a running engine (as
//                        bench/rules_bench.cc); time per reload.
//   BM_TicketStoreWrite  what the service writes to PostgreSQL for a finding that acts, in one
//                        transaction: the open-ticket lookup (FOR UPDATE), the ticket, the decision
//                        record, the "opened" timeline entry, the pending port action, the commit.
//                        Needs UFMR_BENCH_DB_URL (a migrated database; skipped without it); each
//                        run files its tickets under a fabric name of its own.
//   BM_NotifyStorm       (micro_notify.cc) 1,000 new tickets told: routed, grouped into one
//                        message and handed to a receiver by the Notifier; notifications/s. Needs
//                        UFMR_BENCH_DB_URL too.
// Build: cmake -S . -B build-micro -DCMAKE_BUILD_TYPE=Release && cmake --build build-micro
//        --target micro_bench (needs libbenchmark-dev).
// Run from the source tree (the shipped rules are read from ./rules, or --rules=DIR):
//   export UFMR_BENCH_DB_URL="$(scripts/pg-temp.sh start DIR)"   (optional; then migrate it:
//       ufm-remediator db migrate --config FILE, with database.url set to that URL)
//   build-micro/micro_bench --benchmark_min_time=0.2 --benchmark_out=micro.json
//       --benchmark_out_format=json   (one line), then: bench/micro_table.py micro.json
// Own flags (the rest are Google Benchmark's): --quick (smaller inputs), --rules=DIR.
// The inputs are bench/bench_inputs.h's, shared with the hand-timed benchmarks.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_inputs.h"
#include "decide/decision.h"
#include "ingest/event_log.h"
#include "ingest/rest_event.h"
#include "micro_notify.h"
#include "rules/finding.h"
#include "rules/rule_engine.h"
#include "rules/rule_loader.h"
#include "store/store.h"
#include "telemetry/lead_up.h"
#include "telemetry/telemetry.h"
#include "ufm/inventory.h"
#include "ufm/ufm_event.h"
#include "ufm/ufm_json.h"

namespace {

struct Options {
  bool quick = false;
  std::string rules_dir = "rules";
};
Options options;

using ufmr::bench::Hex16;
using ufmr::bench::RandomGuid;
using ufmr::bench::Rng;

// The shipped rules, loaded once; null when they do not load, and the benchmark is then skipped
// with the loader's report.
std::shared_ptr<const ufmr::RuleSet> ShippedRules(benchmark::State& state) {
  static ufmr::RuleLoadResult loaded = ufmr::LoadRulesDir(options.rules_dir);
  if (!loaded.ok()) {
    std::string report = loaded.Report();  // one line: it ends up in a table row
    for (char& c : report) c = c == '\n' || c == '\t' ? ' ' : c;
    while (!report.empty() && report.back() == ' ') report.pop_back();
    const std::string error =
        "rules in '" + options.rules_dir +
        "' do not load (run from the source tree or pass --rules=DIR): " + report;
    state.SkipWithError(error.c_str());
    return nullptr;
  }
  return loaded.rules;
}

// ---------------------------------------------------------------------------------------------
// Event log: the line mix bench/event_log_bench.cc parses too (bench_inputs.h: old and new link
// messages, peer-port, counter, site/grid events, a few three-line entries).

// range(1): 0 = the assembler and the parser (the figure the event-log target names, as
// bench/event_log_bench.cc's "assemble + parse"); 1 = also ToObservation, the whole intake.
void BM_EventLogParse(benchmark::State& state) {
  const bool observe = state.range(1) != 0;
  int64_t lines = 0, entries_made = 0;
  const std::string data = ufmr::bench::EventLogText(state.range(0), &lines, &entries_made);

  ufmr::RawLogEntry raw;
  ufmr::LogEntry entry;
  const ufmr::TimePoint received = ufmr::FromEpochSeconds(1.7e9);
  int64_t entries = 0, errors = 0, ports = 0;
  auto handle = [&] {
    ++entries;
    if (!ufmr::ParseEventLogEntry(raw, &entry).ok()) {
      ++errors;
      return;
    }
    ports += static_cast<int64_t>(observe ? ufmr::ToObservation(entry, received).ports.size()
                                          : entry.ports.size());
  };
  for (auto _ : state) {
    // A fresh assembler per pass, as a tailer starting on a file; its line buffer is reused.
    ufmr::EventLogAssembler assembler;
    const char* p = data.data();
    const char* const end = p + data.size();
    uint64_t offset = 0;
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (!nl) nl = end;
      if (assembler.Add(std::string_view(p, static_cast<size_t>(nl - p)), offset, &raw)) handle();
      offset += static_cast<uint64_t>(nl - p) + 1;
      p = nl + 1;
    }
    if (assembler.Flush(&raw)) handle();
  }
  const auto passes = static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations() * lines);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()));
  state.counters["entries"] = static_cast<double>(entries) / passes;
  state.counters["errors"] = static_cast<double>(errors) / passes;
  state.counters["ports"] = static_cast<double>(ports) / passes;
  state.SetLabel(observe ? "assembler, parser and ToObservation" : "assembler and parser");
}

// ---------------------------------------------------------------------------------------------
// Event JSON: a GET /app/events answer in the 6.17+ layout (event_type holds the event id), with
// the event kinds of the log mix above.

std::string EventsAnswer(int n) {
  Rng r;
  nlohmann::json events = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    const std::string a = RandomGuid(r), b = RandomGuid(r);
    const int pa = 1 + static_cast<int>(r.Below(64)), pb = 1 + static_cast<int>(r.Below(64));
    const std::string la = "1/" + std::to_string((pa + 1) / 2) + "/" + std::to_string(2 - pa % 2);
    const std::string lb = "1/" + std::to_string((pb + 1) / 2) + "/" + std::to_string(2 - pb % 2);
    const std::string sa = "ib-leaf-" + std::to_string(r.Below(64));
    const std::string sb = "ib-spine-" + std::to_string(r.Below(32));
    const std::string pa_name = a + "_" + std::to_string(pa),
                      pb_name = b + "_" + std::to_string(pb);
    char ts[32];
    std::snprintf(ts, sizeof(ts), "2026-11-29 18:%02d:%02d", (i / 60) % 60, i % 60);
    nlohmann::json e = {{"id", 100000 + i},
                        {"timestamp", ts},
                        {"counter", "N/A"},
                        {"write_to_syslog", true},
                        {"severity", "Info"},
                        {"type", "Site"},
                        {"category", "Fabric Notification"}};
    const unsigned kind = r.Below(100);
    if (kind < 50) {
      const bool down = kind < 35;
      e["name"] = down ? "Link is Down" : "Link is Up";
      e["event_type"] = down ? "329" : "328";
      e["severity"] = down ? "Warning" : "Info";
      e["type"] = "Link";
      e["category"] = "Fabric Topology";
      e["object_name"] = e["object_path"] = pa_name + ":" + pb_name;
      e["description"] = std::string(down ? "Link went down: " : "Link is up: ") + "(Switch:" + sa +
                         ":" + la + ")" + a + ":" + std::to_string(pa) + " - (Switch:" + sb + ":" +
                         lb + ")" + b + ":" + std::to_string(pb) + ", cable S/N: MT2330FT" +
                         std::to_string(10000 + r.Below(89999));
    } else if (kind < 65) {
      e["name"] = "Peer Port is unhealthy";
      e["event_type"] = "702";
      e["severity"] = "Warning";
      e["type"] = "Port";
      e["object_name"] = e["object_path"] = pa_name;
      e["description"] =
          "Peer Port " + sb + ":" + lb + " is considered by SM as unhealthy due to FLAPPING.";
    } else if (kind < 80) {
      e["name"] = "Symbol error counter rate";
      e["event_type"] = 110;  // as a number: the parser takes both
      e["severity"] = "Minor";
      e["type"] = "Port";
      e["counter"] = "SymbolErrorCounterExtended";
      e["object_name"] = e["object_path"] = pa_name;
      e["description"] = "Symbol error counter rate threshold crossed: " + pa_name +
                         ", value: " + std::to_string(r.Below(5000)) + ", threshold: 200";
    } else if (kind < 95) {
      e["name"] = kind < 90 ? "MCast Group Deleted" : "Network Added";
      e["event_type"] = kind < 90 ? "67" : "352";
      e["object_name"] = e["object_path"] = "default";
      e["description"] =
          kind < 90 ? "MCast group with MGID ff12:401b:ffff::1 is deleted" : "Network Added";
    } else {
      e["name"] = "Module status FAULT";
      e["event_type"] = "394";
      e["severity"] = "Critical";
      e["type"] = "Switch";
      e["category"] = "Hardware";
      e["object_name"] = e["object_path"] = a;
      e["description"] = "Module status FAULT: PSU 1: failed, FAN 3: speed 0 rpm";
    }
    events.push_back(std::move(e));
  }
  return events.dump(-1);
}

void BM_EventJsonParse(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::string body = EventsAnswer(n);
  const ufmr::TimePoint received = ufmr::FromEpochSeconds(1.7e9);
  size_t ports = 0;
  for (auto _ : state) {
    auto parsed = ufmr::ParseUfmEvents(body);
    if (!parsed.ok() || parsed->events.size() != static_cast<size_t>(n)) {
      state.SkipWithError(parsed.ok() ? "not every event parsed"
                                      : parsed.status().message().c_str());
      break;
    }
    for (const auto& e : parsed->events) {
      ufmr::Observation o = ufmr::ToObservation(e, received);
      ports += o.ports.size();
      benchmark::DoNotOptimize(o);
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(body.size()));
  state.counters["ports"] =
      static_cast<double>(ports) / static_cast<double>(std::max<int64_t>(1, state.iterations()));
}

// ---------------------------------------------------------------------------------------------
// Telemetry: the snapshot of bench/telemetry_bench.cc (bench_inputs.h: 16 counters; data
// counters grow fast, error counters stay small; one port in a thousand has symbol errors).

// Snapshots 10 s apart (a 10 s poll interval) and no counter resets, where telemetry_bench.cc's
// are 60 s apart with a few resets.
constexpr ufmr::bench::SnapshotShape kSnapshotShape{.interval_s = 10, .resets = false};

void BM_TelemetryIngest(benchmark::State& state) {
  const int64_t ports = state.range(0);
  auto rules = ShippedRules(state);
  if (!rules) return;
  ufmr::TelemetryIntake intake(ufmr::Config::Telemetry{}, nullptr);
  ufmr::LeadUp lead_up;  // as the service: rises of error counters are noted for tickets' charts
  intake.FollowRises(&lead_up);
  intake.SetInterest(rules->counters);
  // Snapshot 0 is the baseline (a port's first sample makes no deltas).
  int64_t s = 0;
  {
    auto parsed = ufmr::ParseTelemetryCsv(ufmr::bench::TelemetryCsv(ports, s, kSnapshotShape));
    if (!parsed.ok()) {
      state.SkipWithError(parsed.status().message().c_str());
      return;
    }
    intake.Ingest(parsed.value(), false, ufmr::FromEpochSeconds(1.7e9), [](const auto&) {});
  }
  size_t observations = 0, bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();  // the next snapshot's text, as the HTTP fetch would hand it over
    ++s;
    const std::string text = ufmr::bench::TelemetryCsv(ports, s, kSnapshotShape);
    bytes = text.size();
    const auto now = ufmr::FromEpochSeconds(1.7e9 + static_cast<double>(s) * 10);
    state.ResumeTiming();
    auto parsed = ufmr::ParseTelemetryCsv(text);
    if (!parsed.ok()) {
      state.SkipWithError(parsed.status().message().c_str());
      break;
    }
    observations += intake.Ingest(parsed.value(), false, now, [](const ufmr::Observation& o) {
      benchmark::DoNotOptimize(o.value);
    });
  }
  state.SetItemsProcessed(state.iterations() * ports);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
  state.counters["observations"] = static_cast<double>(observations) /
                                   static_cast<double>(std::max<int64_t>(1, state.iterations()));
  state.counters["state_mb"] = static_cast<double>(intake.primary().state_bytes()) / 1e6;
  state.counters["lead_up_mb"] = static_cast<double>(lead_up.bytes()) / 1e6;
}

// The lead-up when range(0) ports each see an error counter rise every round, 40 rounds. LeadUp
// keeps the 10,000 ports that rose last: with 100,000 ports (every port of the fabric) it churns,
// each port forgotten before it rises again; with 10,000, every port fills its 32 points, its
// largest size. Items = rises; counter lead_up_mb = what it holds at the end.
void BM_LeadUpStorm(benchmark::State& state) {
  const int64_t ports = state.range(0);
  std::vector<std::string> names;
  for (int64_t p = 0; p < ports; ++p) {
    names.push_back(ufmr::bench::Hex16(0x0c42a10300000000ULL + static_cast<uint64_t>(p)) + "_1");
  }
  size_t bytes = 0;
  for (auto _ : state) {
    ufmr::LeadUp lead_up;
    for (int round = 0; round < 40; ++round) {
      const auto prev = ufmr::FromEpochSeconds(1.7e9 + round * 60.0);
      const auto at = ufmr::FromEpochSeconds(1.7e9 + round * 60.0 + 60);
      for (const auto& name : names) {
        const auto before = static_cast<uint64_t>(round) * 100;
        lead_up.Rose(name, "SymbolErrorCounterExtended", prev, before, at, before + 100);
      }
    }
    bytes = lead_up.bytes();
  }
  state.SetItemsProcessed(state.iterations() * ports * 40);
  state.counters["lead_up_mb"] = static_cast<double>(bytes) / 1e6;
}

// ---------------------------------------------------------------------------------------------
// Rules: the fabric, event stream and 500-rule file of bench/rules_bench.cc (bench_inputs.h).

// range(0): events per pass; range(1): percent of link events. As bench/rules_bench.cc, in
// shorter streams: the passes run the stream through one engine, each pass 50 s of UFM time after
// the last (a fresh engine per pass measured mostly its first minute: every link resolved and
// every window made anew). Findings go to the decision stage, which here only counts them.
void BM_RuleEvaluation(benchmark::State& state) {
  auto rules = ShippedRules(state);
  if (!rules) return;
  ufmr::Inventory inventory;
  const auto links = ufmr::bench::Fabric(64, 32, &inventory);
  std::vector<ufmr::Observation> stream = ufmr::bench::EventStream(
      links, static_cast<size_t>(state.range(0)), static_cast<int>(state.range(1)));
  // 1,000 events a second of UFM time: windows and holds move as they would.
  const ufmr::TimePoint t0 = ufmr::FromEpochSeconds(1.7e9);
  for (size_t i = 0; i < stream.size(); ++i) {
    stream[i].time = t0 + std::chrono::milliseconds(static_cast<int64_t>(i));
  }
  std::vector<ufmr::Finding> findings;
  size_t total_findings = 0;
  // One engine for every run, as the service keeps one: each run replays the stream later in
  // UFM time (and with later event ids), so windows, holds and caches are in their steady state
  // rather than filling from empty in every run.
  ufmr::RuleEngine engine(rules, &inventory);
  const auto span = std::chrono::milliseconds(static_cast<int64_t>(stream.size()) + 1000);
  bool first = true;
  for (auto _ : state) {
    if (!first) {
      state.PauseTiming();
      for (auto& o : stream) {
        o.time += span;
        o.event_id += static_cast<int64_t>(stream.size());
      }
      state.ResumeTiming();
    }
    first = false;
    for (size_t i = 0; i < stream.size(); ++i) {
      engine.Observe(stream[i], &findings);
      if (i % 1000 == 999) engine.Tick(stream[i].time, &findings);
      if (findings.size() > 4096) {
        total_findings += findings.size();
        findings.clear();
      }
    }
  }
  total_findings += findings.size();
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["findings"] = static_cast<double>(total_findings) /
                               static_cast<double>(std::max<int64_t>(1, state.iterations()));
  state.SetLabel(state.range(1) == 100 ? "link-event storm"
                                       : std::to_string(state.range(1)) + "% link events");
}

// As bench/rules_bench.cc's reload: a 500-rule file loaded (parse, collect, compile, index) and
// swapped into a running engine (the new engine adopts the old one's state); time per reload.
void BM_RulesReload(benchmark::State& state) {
  auto rules = ShippedRules(state);
  if (!rules) return;
  ufmr::Inventory inventory;
  ufmr::bench::Fabric(64, 32, &inventory);
  const std::string text = ufmr::bench::BigRulesFile(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto loaded = ufmr::LoadRulesText(text, "big.yaml");
    if (!loaded.ok()) {
      state.SkipWithError(loaded.Report().c_str());
      break;
    }
    ufmr::RuleEngine old(rules, &inventory);
    ufmr::RuleEngine next(loaded.rules, &inventory);
    next.AdoptState(std::move(old));
    benchmark::DoNotOptimize(next);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}

// ---------------------------------------------------------------------------------------------
// Ticket store: one finding's writes, as Remediator::ApplyFinding makes them for a finding that
// acts (decider reads aside).

void BM_TicketStoreWrite(benchmark::State& state) {
  const char* url = std::getenv("UFMR_BENCH_DB_URL");
  if (!url || !*url) {
    state.SkipWithError("UFMR_BENCH_DB_URL is not set");
    return;
  }
  // A fabric of this run's own: its tickets never meet an earlier run's open ones.
  const std::string fabric =
      "micro-bench-" + std::to_string(::getpid()) + "-" +
      std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
  auto opened = ufmr::Store::Open(url, fabric);
  if (!opened.ok()) {
    state.SkipWithError(opened.status().message().c_str());
    return;
  }
  ufmr::Store& store = *opened.value();
  const auto now = ufmr::FromEpochSeconds(1.7e9);
  int64_t next = 0;
  std::string failure;
  for (auto _ : state) {
    // A distinct link per finding: the schema allows one open ticket per link and fabric.
    const int64_t n = next++;
    const uint64_t leaf_guid = 0xfc6a1c0300000000ULL + static_cast<uint64_t>(n / 32);
    const uint64_t host_guid = 0xe41d2d0300000000ULL + static_cast<uint64_t>(n);
    const std::string leaf = "ib-leaf-" + std::to_string(n / 32 + 1);
    const std::string host = "gpu-node-" + std::to_string(n + 1);
    const std::string label =
        "1/" + std::to_string(n % 32 / 2 + 1) + "/" + std::to_string(n % 2 + 1);
    const std::string serial = "MT2118FT" + std::to_string(10000 + n % 90000);
    const int64_t port_number = n % 32 + 1;
    const std::string sw_port = Hex16(leaf_guid) + "_" + std::to_string(port_number);
    const std::string host_port = Hex16(host_guid) + "_1";

    ufmr::Ticket t;
    t.link_key = ufmr::LinkKey({sw_port, host_port});
    t.port_a = sw_port;
    t.port_b = host_port;
    t.rule = "link_down";
    t.severity = "major";
    t.reason = "link down for 30s (event 329)";
    t.action_port = sw_port;
    t.method = "disable";
    t.state = ufmr::ticket_state::kOpen;
    t.explanation = "The link " + leaf + " " + label + " <-> " + host + " HCA-1 went down at " +
                    "18:46:32 and stayed down for 30 s; the service disables the switch port " +
                    label + " so the fabric routes around it.";
    t.switch_name = leaf;
    t.rack = "rack-" + std::to_string(n / 32 / 4 + 1);
    t.host_name = host;
    // Both ends as TicketPlacer fills them from the inventory, and the search text.
    const std::string host_node = host + " HCA-1";
    t.ends = nlohmann::json::array({{{"name", sw_port},
                                     {"guid", Hex16(leaf_guid)},
                                     {"system_guid", Hex16(leaf_guid)},
                                     {"system_name", leaf},
                                     {"node_description", leaf + ":" + label},
                                     {"label", label},
                                     {"number", port_number},
                                     {"cable_serial", serial},
                                     {"is_switch", true}},
                                    {{"name", host_port},
                                     {"guid", Hex16(host_guid)},
                                     {"system_guid", Hex16(host_guid - 1)},
                                     {"system_name", host},
                                     {"node_description", host_node},
                                     {"label", ""},
                                     {"number", 1},
                                     {"cable_serial", serial},
                                     {"is_switch", false}}});
    t.search_text = ufmr::AsciiLower(t.link_key + " " + Hex16(leaf_guid) + " " + Hex16(leaf_guid) +
                                     " " + leaf + " " + leaf + ":" + label + " " + label + " " +
                                     serial + " " + Hex16(host_guid) + " " + Hex16(host_guid - 1) +
                                     " " + host + " " + host_node + " " + serial + " " + t.rack);

    ufmr::Decision d;
    d.time = now;
    d.rule = t.rule;
    d.kind = ufmr::DecisionKind::kDisable;
    d.port = sw_port;
    d.peer = host_port;
    d.entity = t.link_key;
    d.reason = t.reason + "; disable " + sw_port;
    d.note = "disable " + sw_port;
    d.rules_hash = "3f9a1c0e5b7d2a4f";
    d.mode = "enforce";
    d.severity = t.severity;
    d.title = leaf + " " + label + " <-> " + host + " HCA-1";
    d.repair_hint = "reseat or replace the cable " + serial;
    nlohmann::json evidence = {
        {"rule", t.rule},
        {"rules_hash", d.rules_hash},
        {"observations",
         {{{"event_id", 100000 + n},
           {"event_type", 329},
           {"time", "2026-11-29T18:46:32Z"},
           {"description", "Link went down: (Switch:" + leaf + ":" + label + ")" +
                               Hex16(leaf_guid) + " - (Computer:" + host + " HCA-1)" +
                               Hex16(host_guid) + ":1, cable S/N: " + serial}}}},
        {"held_for_s", 30}};
    evidence["decision"] = d.ToJson();
    evidence["explanation"] = t.explanation;

    try {
      auto txr = store.Begin();
      if (!txr.ok()) {
        failure = txr.status().message();
        break;
      }
      ufmr::Store::Tx& tx = *txr.value();
      if (tx.OpenTicketForLink(t.link_key)) {
        failure = "link " + t.link_key + " already has an open ticket";
        break;
      }
      t.id = tx.InsertTicket(t);
      tx.AddDecision(d.ToJson(), t.id);
      tx.AddEvent(t.id, "opened", "service", "rule " + t.rule + ": " + t.reason, evidence);
      ufmr::PortAction a;
      a.ticket_id = t.id;
      a.port = sw_port;
      a.system_guid = Hex16(leaf_guid);
      a.action = "disable";
      a.state = ufmr::action_state::kPending;
      a.reason = "rule " + t.rule + ": " + t.reason;
      benchmark::DoNotOptimize(tx.InsertAction(a));
      tx.Commit();
    } catch (const std::exception& e) {
      failure = e.what();
      break;
    }
  }
  if (!failure.empty()) state.SkipWithError(failure.c_str());
  state.SetItemsProcessed(state.iterations());
}

void RegisterAll() {
  const bool quick = options.quick;
  benchmark::RegisterBenchmark("BM_EventLogParse", BM_EventLogParse)
      ->ArgNames({"lines", "observe"})
      ->Args({quick ? 20'000 : 100'000, 0})
      ->Args({quick ? 20'000 : 100'000, 1})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_EventJsonParse", BM_EventJsonParse)
      ->ArgName("events")
      ->Arg(1'000)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_TelemetryIngest", BM_TelemetryIngest)
      ->ArgName("ports")
      ->Arg(quick ? 10'000 : 100'000)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_LeadUpStorm", BM_LeadUpStorm)
      ->ArgName("ports")
      ->Arg(10'000)
      ->Arg(quick ? 20'000 : 100'000)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_RuleEvaluation", BM_RuleEvaluation)
      ->ArgNames({"events", "link_pct"})
      ->Args({50'000, 10})
      ->Args({50'000, 100})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_RulesReload", BM_RulesReload)
      ->ArgName("rules")
      ->Arg(500)
      ->Unit(benchmark::kMillisecond);
  // Wall time: most of a transaction is waiting for PostgreSQL, not this thread's CPU.
  benchmark::RegisterBenchmark("BM_TicketStoreWrite", BM_TicketStoreWrite)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  ufmr::bench::RegisterNotifyBenchmarks();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string_view a(argv[i]);
    if (i > 0 && a == "--quick") {
      options.quick = true;
    } else if (i > 0 && a.rfind("--rules=", 0) == 0) {
      options.rules_dir = std::string(a.substr(8));
    } else {
      if (i > 0 && a == "--help") {
        std::printf(
            "micro_bench: Google Benchmark micro benchmarks of UFM Remediator's hot paths.\n"
            "  --quick       smaller inputs (telemetry: 10,000 ports)\n"
            "  --rules=DIR   the rules directory (default: rules)\n"
            "  env UFMR_BENCH_DB_URL: a migrated PostgreSQL for BM_TicketStoreWrite and "
            "BM_NotifyStorm\n\n");
      }
      rest.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(rest.size());
  rest.push_back(nullptr);
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
  RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
