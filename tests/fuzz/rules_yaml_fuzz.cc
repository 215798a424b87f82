// libFuzzer target: a rules file (any bytes) through LoadRulesText; a file that loads is then
// put in a rule engine and given a link-down event and a counter observation. Never a crash:
// rules or diagnostics.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/clock.h"
#include "ingest/observation.h"
#include "rules/finding.h"
#include "rules/rule_engine.h"
#include "rules/rule_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ufmr::RuleLoadResult loaded = ufmr::LoadRulesText(text, "fuzz.yaml");
  (void)loaded.Report();
  if (!loaded.ok()) return 0;
  ufmr::RuleEngine engine(loaded.rules, nullptr);
  std::vector<ufmr::Finding> findings;
  const ufmr::TimePoint t0 = ufmr::FromEpochSeconds(1.7e9);
  ufmr::Observation down;
  down.time = t0;
  down.source = "rest";
  down.event_id = 1;
  down.event_type = 328;
  down.name = "Link went down";
  down.severity = "Warning";
  down.object_type = "Link";
  down.description = "Link went down: 0002c90300000001_1 - 0002c90300000002_1";
  down.ports = {"0002c90300000001_1", "0002c90300000002_1"};
  engine.Observe(down, &findings);
  ufmr::Observation counter;
  counter.kind = ufmr::Observation::Kind::kCounter;
  counter.time = t0 + std::chrono::seconds(10);
  counter.source = "telemetry";
  counter.counter = "SymbolErrorCounterExtended";
  counter.delta = 1e6;
  counter.interval_s = 10;
  counter.value = 1e6;
  counter.ports = {"0002c90300000001_1"};
  engine.Observe(counter, &findings);
  engine.Tick(t0 + std::chrono::hours(1), &findings);
  return 0;
}
