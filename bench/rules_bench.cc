// Rules benchmark: (1) rule evaluation with the shipped rules over a stream of UFM events on one
// core, for two mixes (a realistic stream where most events are ones no rule cares about, and a
// storm of link-down/up events only); (2) a reload of a 500-rule file: the whole load (parse,
// collect, compile, index) and the swap into a running engine. Prints figures; run by
// bench/run.sh. The fabric, event streams and rules file are bench_inputs.h's (micro_bench.cc
// measures the same). Usage: rules_bench [EVENTS] [RULES_DIR]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_inputs.h"
#include "rules/rule_engine.h"
#include "rules/rule_loader.h"
#include "ufm/inventory.h"

namespace {

using ufmr::Observation;

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

void Evaluate(const char* label, std::shared_ptr<const ufmr::RuleSet> rules,
              const ufmr::Inventory& inventory, std::vector<Observation> stream) {
  ufmr::RuleEngine engine(std::move(rules), &inventory);
  std::vector<ufmr::Finding> findings;
  size_t total_findings = 0;
  // 1,000 events a second of UFM time: windows and holds move as they would.
  const ufmr::TimePoint t0 = ufmr::FromEpochSeconds(1.7e9);
  for (size_t i = 0; i < stream.size(); ++i) {
    stream[i].time = t0 + std::chrono::milliseconds(i);
  }
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < stream.size(); ++i) {
    engine.Observe(stream[i], &findings);
    if (i % 1000 == 999) engine.Tick(stream[i].time, &findings);
    if (findings.size() > 4096) {  // the decision stage takes them
      total_findings += findings.size();
      findings.clear();
    }
  }
  double s = Seconds(std::chrono::steady_clock::now() - start);
  total_findings += findings.size();
  std::printf(
      "rule evaluation, %s: %zu events in %.3f s: %.2f M events/s (target >= 2.00), "
      "%zu findings\n",
      label, stream.size(), s, stream.size() / s / 1e6, total_findings);
}

}  // namespace

int main(int argc, char** argv) {
  const size_t events = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
  auto loaded = ufmr::LoadRules({argc > 2 ? argv[2] : "rules"});
  if (!loaded.ok()) {
    std::fprintf(stderr, "%s", loaded.Report().c_str());
    return 1;
  }
  ufmr::Inventory inventory;
  const auto links = ufmr::bench::Fabric(64, 32, &inventory);
  std::printf("shipped rules: %zu; fabric: %zu host links\n", loaded.rules->rules.size(),
              links.size());
  const std::string only = argc > 3 ? argv[3] : "";  // "mix" or "storm": one figure (profiling)
  if (only != "storm") {
    Evaluate("stream with 10% link events", loaded.rules, inventory,
             ufmr::bench::EventStream(links, events, 10));
  }
  if (only != "mix") {
    Evaluate("link events only (a storm)", loaded.rules, inventory,
             ufmr::bench::EventStream(links, events, 100));
  }
  if (!only.empty()) return 0;

  const std::string big = ufmr::bench::BigRulesFile(500);
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    auto start = std::chrono::steady_clock::now();
    auto result = ufmr::LoadRulesText(big, "big.yaml");
    if (!result.ok()) {
      std::fprintf(stderr, "%s", result.Report().c_str());
      return 1;
    }
    ufmr::RuleEngine old(loaded.rules, &inventory);
    ufmr::RuleEngine next(result.rules, &inventory);
    next.AdoptState(std::move(old));
    best = std::min(best, Seconds(std::chrono::steady_clock::now() - start));
  }
  std::printf("reload of a 500-rule file (%.0f KB): %.1f ms best of 5 (target <= 200 ms)\n",
              big.size() / 1024.0, best * 1000);
  return 0;
}
