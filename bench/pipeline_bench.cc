// Pipeline benchmark: the per-poll cost of the hot path at fabric scale. Builds a telemetry CSV
// for N ports (10,000 links ~ 20,000 ports), then times parse + counter deltas + rule matching
// per poll (observations only for counters a rule names, as the service does), and parsing of a
// UFM events response. Prints figures; asserts nothing. bench/telemetry_bench.cc goes deeper.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ingest/rest_event.h"
#include "rules/rule_engine.h"
#include "rules/rule_loader.h"
#include "telemetry/telemetry.h"
#include "ufm/ufm_event.h"

namespace {

std::string Csv(int ports, int poll) {
  std::string out =
      "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,PortXmitDataExtended,"
      "PortRcvDataExtended,PortXmitPktsExtended,PortRcvPktsExtended,SymbolErrorCounterExtended,"
      "LinkErrorRecoveryCounterExtended,LinkDownedCounterExtended,PortRcvErrorsExtended,"
      "PortRcvRemotePhysicalErrorsExtended,PortRcvSwitchRelayErrorsExtended\n";
  long long ts = 1700000000000000LL + poll * 60000000LL;
  char row[512];
  for (int i = 0; i < ports; ++i) {
    long long data = 1000000LL * poll * (i % 7 + 1);
    int sym = (i % 1000 == 0) ? poll * 500 : 0;  // one port in a thousand is bad
    std::snprintf(row, sizeof(row),
                  "%lld,10.0.0.1,,0x%016x,0x%016x,%d,%lld,%lld,%lld,%lld,%d,0,0,0,0,0\n", ts,
                  0xfc6a0000 + i / 64, 0xfc6a0000 + i / 64, i % 64 + 1, data, data, data / 4,
                  data / 4, sym);
    out += row;
  }
  return out;
}

double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

}  // namespace

int main(int argc, char** argv) {
  int ports = argc > 1 ? std::atoi(argv[1]) : 20000;
  int polls = argc > 2 ? std::atoi(argv[2]) : 10;
  auto loaded = ufmr::LoadRulesDir(argc > 3 ? argv[3] : "rules");
  if (!loaded.ok()) {
    std::fprintf(stderr, "%s", loaded.Report().c_str());
    return 1;
  }
  std::shared_ptr<const ufmr::RuleSet> rules(std::move(loaded.rules));
  ufmr::RuleEngine engine(rules, nullptr);
  // As the service wires it: only counters a rule names become observations.
  ufmr::TelemetryIntake intake(ufmr::Config::Telemetry{}, nullptr);
  intake.SetInterest(rules->counters);
  std::vector<std::string> csvs;
  for (int p = 0; p <= polls; ++p) csvs.push_back(Csv(ports, p));

  double total_ms = 0, worst_ms = 0;
  size_t observations = 0, matched = 0, findings = 0;
  for (int p = 0; p <= polls; ++p) {
    auto start = std::chrono::steady_clock::now();
    auto parsed = ufmr::ParseTelemetryCsv(csvs[p]);
    auto now = ufmr::FromEpochSeconds(1700000000.0 + p * 60);
    std::vector<ufmr::Finding> out;
    intake.Ingest(parsed.value(), false, now, [&](const ufmr::Observation& o) {
      ++observations;
      if (!engine.BreaksSoak(o)) return;
      ++matched;
      engine.Observe(o, &out);
    });
    findings += out.size();
    double ms = Ms(std::chrono::steady_clock::now() - start);
    if (p > 0) {  // poll 0 is the baseline
      total_ms += ms;
      worst_ms = std::max(worst_ms, ms);
    }
  }
  std::printf("telemetry poll, %d ports (%.1f MB CSV): mean %.1f ms, worst %.1f ms per poll\n",
              ports, csvs.back().size() / 1e6, total_ms / polls, worst_ms);
  std::printf("  %zu counter observations, %zu matched a rule, %zu findings\n", observations,
              matched, findings);

  std::string events = "[";
  int n_events = 10000;
  for (int i = 0; i < n_events; ++i) {
    if (i) events += ",";
    events +=
        R"({"id": )" + std::to_string(i + 1) +
        R"(, "name": "Link went down", "type": "Link", "event_type": "329", "severity": "Warning", "timestamp": "2026-11-29 18:46:32", "counter": "N/A", "category": "Fabric Topology", "object_name": "fc6a1c0300686f68_5:fc6a1c0300fc6738_1", "object_path": "fc6a1c0300686f68_5:fc6a1c0300fc6738_1", "write_to_syslog": true, "description": "Link went down: (Switch:ib-leaf-01:1/3/1)fc6a1c0300686f68:5 - (Switch:ib-spine-01:1/1/1)fc6a1c0300fc6738:1, cable S/N: MT2123FT48195"})";
  }
  events += "]";
  auto start = std::chrono::steady_clock::now();
  auto parsed = ufmr::ParseUfmEvents(events);
  size_t ports_found = 0;
  for (const auto& e : parsed->events) {
    ports_found += ufmr::ToObservation(e, ufmr::TimePoint()).ports.size();
  }
  double ms = Ms(std::chrono::steady_clock::now() - start);
  std::printf("events response, %d events (%.1f MB): %.1f ms to parse and normalize (%zu ports)\n",
              n_events, events.size() / 1e6, ms, ports_found);
  return 0;
}
