// Covers src/core/rule_engine.h with rules from LoadRulesText and hand-made Observations at
// explicit TimePoints (no real time): immediate event rules and the link key, hold and clear
// events, count within a window, message patterns, counter rate thresholds, Matching(), Forget(),
// the LinkResolver, and the evidence JSON of a Finding. Also LinkKey from finding.h.
#include "core/rule_engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/inventory.h"

namespace ufmr {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using Names = std::vector<std::string>;

const TimePoint kT0 = TimePoint(seconds(1'800'000'000));
const std::string kSwitchPort = "9c0591030090e000_33";
const std::string kHostPort = "fc6a1c0300244e00_8";
const std::string kLink = kSwitchPort + "|" + kHostPort;  // sorted
const std::string kOtherPort = "e41d2d0300a4f482_1";

constexpr const char* kRules = R"y(rules:
  - name: link_down
    description: Link went down and stayed down
    when:
      event_type: [329]
      message: "Link went down"
    hold: 30s
    clear_event_type: [328]
    action: disable
  - name: link_flapping
    when:
      event_type: [329]
    count: 3
    window: 10m
    action: disable
  - name: symbol_errors
    description: Symbol errors above threshold
    when:
      counter: SymbolErrorCounterExtended
      rate_above: 100
      per: 1m
    action: disable
  - name: width
    when:
      event_type: [130]
    action: ticket_only
)y";

std::shared_ptr<const RuleSet> Load(const std::string& text) {
  auto r = LoadRulesText(text, "test.yaml");
  EXPECT_TRUE(r.ok()) << r.Report();
  if (!r.ok()) return std::make_shared<RuleSet>();
  return std::shared_ptr<const RuleSet>(std::move(r.rules));
}

// Only the named rules of kRules, so that each test sees exactly the rules it is about.
std::shared_ptr<const RuleSet> Only(const Names& names) {
  auto all = Load(kRules);
  auto subset = std::make_shared<RuleSet>(*all);
  subset->rules.clear();
  for (const auto& r : all->rules) {
    if (std::find(names.begin(), names.end(), r.name) != names.end()) subset->rules.push_back(r);
  }
  return subset;
}

Observation Event(int type, TimePoint t, Names ports, std::string description = "",
                  int64_t id = 1) {
  Observation o;
  o.kind = Observation::Kind::kEvent;
  o.time = t;
  o.source = "rest";
  o.event_id = id;
  o.event_type = type;
  o.name = type == 329 ? "Link went down" : type == 328 ? "Link went up" : "Event";
  o.description = description.empty() && type == 329 ? "Link went down: x" : description;
  o.ports = std::move(ports);
  return o;
}

Observation Counter(const std::string& name, double delta, double interval_s, TimePoint t,
                    Names ports = {kSwitchPort}) {
  Observation o;
  o.kind = Observation::Kind::kCounter;
  o.time = t;
  o.source = "telemetry";
  o.counter = name;
  o.delta = delta;
  o.interval_s = interval_s;
  o.value = 1000 + delta;
  o.ports = std::move(ports);
  return o;
}

TEST(LinkKeyTest, SortedUniqueJoinedByBar) {
  EXPECT_EQ(LinkKey({"b_1", "a_2"}), "a_2|b_1");
  EXPECT_EQ(LinkKey({"a_2", "b_1"}), "a_2|b_1");
  EXPECT_EQ(LinkKey({"a_1"}), "a_1");
  EXPECT_EQ(LinkKey({"a_1", "a_1"}), "a_1");
  EXPECT_EQ(LinkKey({}), "");
}

TEST(RuleEngineTest, EventRuleWithoutHoldFiresAtOnceWithSortedLinkKey) {
  RuleEngine engine(Only({"width"}), nullptr);
  auto findings = engine.Observe(Event(130, kT0, {kHostPort, kSwitchPort}, "narrow"));
  ASSERT_EQ(findings.size(), 1u);
  const Finding& f = findings[0];
  EXPECT_EQ(f.rule, "width");
  EXPECT_EQ(f.action, RuleAction::kTicketOnly);
  EXPECT_EQ(f.link_key, kLink);
  EXPECT_EQ(f.time, kT0);
  EXPECT_EQ(f.ports.size(), 2u);
  EXPECT_EQ(engine.pending(), 0u);
  // Each matching event fires again: the rule keeps no state between findings.
  EXPECT_EQ(engine.Observe(Event(130, kT0 + seconds(1), {kSwitchPort, kHostPort})).size(), 1u);
}

TEST(RuleEngineTest, NonMatchingEventTypeDoesNothing) {
  RuleEngine engine(Only({"width"}), nullptr);
  EXPECT_TRUE(engine.Observe(Event(131, kT0, {kHostPort, kSwitchPort})).empty());
}

TEST(RuleEngineTest, ObservationWithoutPortsDoesNothing) {
  RuleEngine engine(Only({"width"}), nullptr);
  EXPECT_TRUE(engine.Observe(Event(130, kT0, {})).empty());
  EXPECT_TRUE(engine.Matching(Event(130, kT0, {})).empty());
}

TEST(RuleEngineTest, HoldFiresOnlyFromTickAfterTheHold) {
  RuleEngine engine(Only({"link_down"}), nullptr);
  EXPECT_TRUE(engine.Observe(Event(329, kT0, {kSwitchPort, kHostPort})).empty());
  EXPECT_EQ(engine.pending(), 1u);
  EXPECT_TRUE(engine.Tick(kT0).empty());
  EXPECT_TRUE(engine.Tick(kT0 + seconds(29) + milliseconds(999)).empty());
  auto findings = engine.Tick(kT0 + seconds(30));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "link_down");
  EXPECT_EQ(findings[0].link_key, kLink);
  EXPECT_EQ(findings[0].time, kT0 + seconds(30));
  EXPECT_NE(findings[0].reason.find("30s"), std::string::npos) << findings[0].reason;
  EXPECT_EQ(engine.pending(), 0u);
  EXPECT_TRUE(engine.Tick(kT0 + minutes(5)).empty());
}

TEST(RuleEngineTest, RepeatedEventWhileHeldDoesNotRestartTheHold) {
  RuleEngine engine(Only({"link_down"}), nullptr);
  engine.Observe(Event(329, kT0, {kSwitchPort, kHostPort}));
  EXPECT_TRUE(engine.Observe(Event(329, kT0 + seconds(20), {kHostPort, kSwitchPort})).empty());
  EXPECT_EQ(engine.pending(), 1u);
  EXPECT_EQ(engine.Tick(kT0 + seconds(30)).size(), 1u);
}

TEST(RuleEngineTest, ClearEventForTheSameLinkBeforeTheHoldCancels) {
  RuleEngine engine(Only({"link_down"}), nullptr);
  engine.Observe(Event(329, kT0, {kSwitchPort, kHostPort}));
  ASSERT_EQ(engine.pending(), 1u);
  // The "link went up" names the ends the other way round: same link.
  EXPECT_TRUE(engine.Observe(Event(328, kT0 + seconds(10), {kHostPort, kSwitchPort})).empty());
  EXPECT_EQ(engine.pending(), 0u);
  EXPECT_TRUE(engine.Tick(kT0 + minutes(1)).empty());
}

TEST(RuleEngineTest, ClearEventForAnotherLinkDoesNotCancel) {
  RuleEngine engine(Only({"link_down"}), nullptr);
  engine.Observe(Event(329, kT0, {kSwitchPort, kHostPort}));
  engine.Observe(Event(328, kT0 + seconds(10), {kOtherPort, kHostPort}));
  EXPECT_EQ(engine.pending(), 1u);
  EXPECT_EQ(engine.Tick(kT0 + seconds(30)).size(), 1u);
}

TEST(RuleEngineTest, ClearEventAfterTheHoldIsTooLate) {
  RuleEngine engine(Only({"link_down"}), nullptr);
  engine.Observe(Event(329, kT0, {kSwitchPort, kHostPort}));
  ASSERT_EQ(engine.Tick(kT0 + seconds(31)).size(), 1u);
  EXPECT_TRUE(engine.Observe(Event(328, kT0 + seconds(32), {kSwitchPort, kHostPort})).empty());
  EXPECT_EQ(engine.pending(), 0u);
}

TEST(RuleEngineTest, CountWithinWindowFiresOnTheThird) {
  RuleEngine engine(Only({"link_flapping"}), nullptr);
  EXPECT_TRUE(engine.Observe(Event(329, kT0, {kSwitchPort, kHostPort}, "", 1)).empty());
  EXPECT_TRUE(
      engine.Observe(Event(329, kT0 + minutes(1), {kSwitchPort, kHostPort}, "", 2)).empty());
  auto findings = engine.Observe(Event(329, kT0 + minutes(2), {kHostPort, kSwitchPort}, "", 3));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "link_flapping");
  EXPECT_EQ(findings[0].link_key, kLink);
  EXPECT_EQ(findings[0].time, kT0 + minutes(2));
  EXPECT_NE(findings[0].reason.find("3 matching events within 10m"), std::string::npos)
      << findings[0].reason;
  const auto& obs = findings[0].evidence["observations"];
  ASSERT_EQ(obs.size(), 3u);
  EXPECT_EQ(obs[0]["event_id"], 1);
  EXPECT_EQ(obs[2]["event_id"], 3);
}

TEST(RuleEngineTest, CountStartsOverAfterFiring) {
  RuleEngine engine(Only({"link_flapping"}), nullptr);
  for (int i = 0; i < 3; ++i) engine.Observe(Event(329, kT0 + seconds(i), {kSwitchPort}));
  EXPECT_TRUE(engine.Observe(Event(329, kT0 + seconds(3), {kSwitchPort})).empty());
  EXPECT_TRUE(engine.Observe(Event(329, kT0 + seconds(4), {kSwitchPort})).empty());
  EXPECT_EQ(engine.Observe(Event(329, kT0 + seconds(5), {kSwitchPort})).size(), 1u);
}

TEST(RuleEngineTest, EventsSpreadWiderThanTheWindowDoNotFire) {
  RuleEngine engine(Only({"link_flapping"}), nullptr);
  const Names link{kSwitchPort, kHostPort};
  EXPECT_TRUE(engine.Observe(Event(329, kT0, link)).empty());
  EXPECT_TRUE(engine.Observe(Event(329, kT0 + minutes(6), link)).empty());
  EXPECT_TRUE(engine.Observe(Event(329, kT0 + minutes(12), link)).empty());
  // The 6m, 12m and 13m events are within 10m of each other.
  EXPECT_EQ(engine.Observe(Event(329, kT0 + minutes(13), link)).size(), 1u);
}

TEST(RuleEngineTest, EventsExactlyAWindowApartCount) {
  RuleEngine engine(Only({"link_flapping"}), nullptr);
  engine.Observe(Event(329, kT0, {kSwitchPort}));
  engine.Observe(Event(329, kT0 + minutes(5), {kSwitchPort}));
  EXPECT_EQ(engine.Observe(Event(329, kT0 + minutes(10), {kSwitchPort})).size(), 1u);
}

TEST(RuleEngineTest, CountsArePerLink) {
  RuleEngine engine(Only({"link_flapping"}), nullptr);
  engine.Observe(Event(329, kT0, {kSwitchPort, kHostPort}));
  engine.Observe(Event(329, kT0 + seconds(1), {kOtherPort}));
  EXPECT_TRUE(engine.Observe(Event(329, kT0 + seconds(2), {kSwitchPort, kHostPort})).empty());
  EXPECT_EQ(engine.Observe(Event(329, kT0 + seconds(3), {kHostPort, kSwitchPort})).size(), 1u);
}

TEST(RuleEngineTest, MessagePatternFilters) {
  RuleEngine engine(Only({"link_down"}), nullptr);
  const Observation other = Event(329, kT0, {kSwitchPort, kHostPort}, "Link is flaky");
  EXPECT_TRUE(engine.Observe(other).empty());
  EXPECT_EQ(engine.pending(), 0u);
  EXPECT_TRUE(engine.Matching(other).empty());
  const Observation down = Event(329, kT0, {kSwitchPort, kHostPort},
                                 "Link went down: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33");
  engine.Observe(down);
  EXPECT_EQ(engine.pending(), 1u);
}

struct RateCase {
  std::string label;
  double delta;
  double interval_s;
  bool fires;
};

class CounterRuleTest : public ::testing::TestWithParam<RateCase> {};

TEST_P(CounterRuleTest, FiresOnlyAboveTheRate) {
  const RateCase& c = GetParam();
  RuleEngine engine(Only({"symbol_errors"}), nullptr);
  auto findings = engine.Observe(Counter("SymbolErrorCounterExtended", c.delta, c.interval_s, kT0));
  EXPECT_EQ(findings.size(), c.fires ? 1u : 0u);
  EXPECT_EQ(
      engine.Matching(Counter("SymbolErrorCounterExtended", c.delta, c.interval_s, kT0)).size(),
      c.fires ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Rates, CounterRuleTest,
    ::testing::Values(RateCase{"JustAbove", 101, 60, true}, RateCase{"AtThreshold", 100, 60, false},
                      RateCase{"Below", 50, 60, false},
                      RateCase{"ShortIntervalHighRate", 10, 5, true},    // 120/min
                      RateCase{"LongIntervalLowRate", 150, 120, false},  // 75/min
                      RateCase{"LongIntervalAtRate", 200, 120, false},   // 100/min
                      RateCase{"ZeroInterval", 1000, 0, false}),
    [](const ::testing::TestParamInfo<RateCase>& param) { return param.param.label; });

TEST(RuleEngineTest, CounterRuleIgnoresOtherCountersAndEvents) {
  RuleEngine engine(Only({"symbol_errors"}), nullptr);
  EXPECT_TRUE(engine.Observe(Counter("LinkDownedCounterExtended", 1e6, 60, kT0)).empty());
  EXPECT_TRUE(engine.Observe(Event(329, kT0, {kSwitchPort})).empty());
}

TEST(RuleEngineTest, CounterFindingReasonAndEvidence) {
  auto rules = Only({"symbol_errors"});
  RuleEngine engine(rules, nullptr);
  auto findings = engine.Observe(Counter("SymbolErrorCounterExtended", 101, 60, kT0));
  ASSERT_EQ(findings.size(), 1u);
  const Finding& f = findings[0];
  EXPECT_EQ(f.rule, "symbol_errors");
  EXPECT_EQ(f.action, RuleAction::kDisable);
  EXPECT_EQ(f.link_key, kSwitchPort);
  EXPECT_NE(f.reason.find("SymbolErrorCounterExtended at 101 per 1m, threshold 100"),
            std::string::npos)
      << f.reason;
  EXPECT_NE(f.reason.find("Symbol errors above threshold"), std::string::npos) << f.reason;
  const auto& e = f.evidence;
  ASSERT_TRUE(e.contains("observations"));
  ASSERT_EQ(e["observations"].size(), 1u);
  EXPECT_EQ(e["observations"][0]["counter"], "SymbolErrorCounterExtended");
  EXPECT_EQ(e["observations"][0]["delta"], 101);
  EXPECT_EQ(e["observations"][0]["interval_s"], 60);
  EXPECT_EQ(e["observations"][0]["source"], "telemetry");
  EXPECT_EQ(e["observations"][0]["ports"], nlohmann::json(Names{kSwitchPort}));
  EXPECT_EQ(e["rule"]["name"], "symbol_errors");
  EXPECT_EQ(e["rule"]["file"], "test.yaml");
  EXPECT_EQ(e["rule"]["line"], 16);
  EXPECT_EQ(e["rules_hash"], rules->hash);
  EXPECT_EQ(e["threshold"]["counter"], "SymbolErrorCounterExtended");
  EXPECT_EQ(e["threshold"]["rate_above"], 100);
  EXPECT_EQ(e["threshold"]["per_s"], 60);
}

TEST(RuleEngineTest, EventFindingEvidence) {
  auto rules = Only({"link_down"});
  RuleEngine engine(rules, nullptr);
  engine.Observe(Event(329, kT0, {kSwitchPort, kHostPort}, "Link went down: x", 14599));
  auto findings = engine.Tick(kT0 + seconds(30));
  ASSERT_EQ(findings.size(), 1u);
  const auto& e = findings[0].evidence;
  ASSERT_EQ(e["observations"].size(), 1u);
  const auto& o = e["observations"][0];
  EXPECT_EQ(o["event_id"], 14599);
  EXPECT_EQ(o["event_type"], 329);
  EXPECT_EQ(o["name"], "Link went down");
  EXPECT_EQ(o["description"], "Link went down: x");
  EXPECT_EQ(o["time"], FormatIsoTime(kT0));
  EXPECT_EQ(e["rule"]["name"], "link_down");
  EXPECT_EQ(e["rule"]["file"], "test.yaml");
  EXPECT_EQ(e["rule"]["line"], 2);
  EXPECT_EQ(e["rules_hash"], rules->hash);
  EXPECT_FALSE(rules->hash.empty());
  EXPECT_EQ(e["threshold"]["count"], 1);
  EXPECT_EQ(e["threshold"]["window_s"], 0);
  EXPECT_EQ(e["threshold"]["hold_s"], 30);
}

TEST(RuleEngineTest, MatchingIgnoresCountAndHoldAndKeepsNoState) {
  RuleEngine engine(Load(kRules), nullptr);
  const Observation down = Event(329, kT0, {kSwitchPort, kHostPort});
  auto matching = engine.Matching(down);
  ASSERT_EQ(matching.size(), 2u);
  EXPECT_EQ(matching[0]->name, "link_down");
  EXPECT_EQ(matching[1]->name, "link_flapping");
  EXPECT_EQ(engine.pending(), 0u);
  // Matching() twice more did not count towards link_flapping's three.
  engine.Matching(down);
  engine.Matching(down);
  EXPECT_TRUE(engine.Observe(down).empty());

  auto counter = engine.Matching(Counter("SymbolErrorCounterExtended", 1000, 60, kT0));
  ASSERT_EQ(counter.size(), 1u);
  EXPECT_EQ(counter[0]->name, "symbol_errors");
  EXPECT_TRUE(engine.Matching(Event(328, kT0, {kSwitchPort})).empty());
}

TEST(RuleEngineTest, ForgetDropsPendingHold) {
  RuleEngine engine(Only({"link_down"}), nullptr);
  engine.Observe(Event(329, kT0, {kSwitchPort, kHostPort}));
  ASSERT_EQ(engine.pending(), 1u);
  engine.Forget(kOtherPort);
  EXPECT_EQ(engine.pending(), 1u);
  engine.Forget(kLink);
  EXPECT_EQ(engine.pending(), 0u);
  EXPECT_TRUE(engine.Tick(kT0 + minutes(1)).empty());
}

TEST(RuleEngineTest, ForgetDropsWindowCounts) {
  RuleEngine engine(Only({"link_flapping"}), nullptr);
  const Names link{kSwitchPort, kHostPort};
  engine.Observe(Event(329, kT0, link));
  engine.Observe(Event(329, kT0 + seconds(1), link));
  engine.Forget(kLink);
  EXPECT_TRUE(engine.Observe(Event(329, kT0 + seconds(2), link)).empty());
  EXPECT_TRUE(engine.Observe(Event(329, kT0 + seconds(3), link)).empty());
  EXPECT_EQ(engine.Observe(Event(329, kT0 + seconds(4), link)).size(), 1u);
}

TEST(RuleEngineTest, ResolverAddsThePeerForACounterObservation) {
  std::vector<Names> calls;
  LinkResolver resolver = [&](const Names& ports) {
    calls.push_back(ports);
    Names ends = ports;
    if (ports == Names{kSwitchPort}) ends.push_back(kHostPort);
    return ends;
  };
  RuleEngine engine(Only({"symbol_errors"}), resolver);
  auto findings = engine.Observe(Counter("SymbolErrorCounterExtended", 500, 60, kT0));
  ASSERT_EQ(findings.size(), 1u);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], Names{kSwitchPort});
  EXPECT_EQ(findings[0].link_key, kLink);
  EXPECT_EQ(findings[0].ports, (Names{kSwitchPort, kHostPort}));
}

TEST(RuleEngineTest, InventoryLinkEndsAsResolver) {
  Inventory inventory;
  PortInfo sw;
  sw.name = kSwitchPort;
  sw.peer = kHostPort;
  inventory.Upsert(sw);
  RuleEngine engine(Only({"symbol_errors", "link_down"}),
                    [&](const Names& p) { return inventory.LinkEnds(p); });
  auto findings = engine.Observe(Counter("SymbolErrorCounterExtended", 500, 60, kT0));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].link_key, kLink);
  // A held event on the host end alone and a clear on the switch end alone are the same link.
  engine.Observe(Event(329, kT0, {kSwitchPort}));
  ASSERT_EQ(engine.pending(), 1u);
  engine.Observe(Event(328, kT0 + seconds(5), {kSwitchPort}));
  EXPECT_EQ(engine.pending(), 0u);
}

TEST(RuleEngineTest, ResolverReturningNothingFallsBackToTheObservedPorts) {
  RuleEngine engine(Only({"symbol_errors"}), [](const Names&) { return Names{}; });
  auto findings = engine.Observe(Counter("SymbolErrorCounterExtended", 500, 60, kT0));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].link_key, kSwitchPort);
  EXPECT_EQ(findings[0].ports, Names{kSwitchPort});
}

TEST(RuleEngineTest, SeveralRulesCanFireOnOneObservation) {
  RuleEngine engine(Load(kRules), nullptr);
  const Names link{kSwitchPort, kHostPort};
  EXPECT_TRUE(engine.Observe(Event(329, kT0, link)).empty());  // link_down held
  EXPECT_TRUE(engine.Observe(Event(329, kT0 + seconds(1), link)).empty());
  auto findings = engine.Observe(Event(329, kT0 + seconds(2), link));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "link_flapping");
  EXPECT_EQ(engine.pending(), 1u);
  auto held = engine.Tick(kT0 + seconds(30));
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].rule, "link_down");
}

TEST(ObservationToJsonTest, EventAndCounterFields) {
  auto e = ObservationToJson(Event(329, kT0, {kSwitchPort}, "d", 7));
  EXPECT_EQ(e["event_id"], 7);
  EXPECT_EQ(e["source"], "rest");
  EXPECT_FALSE(e.contains("counter"));
  auto c = ObservationToJson(Counter("X", 3, 60, kT0));
  EXPECT_EQ(c["counter"], "X");
  EXPECT_EQ(c["delta"], 3);
  EXPECT_EQ(c["value"], 1003);
  EXPECT_FALSE(c.contains("event_id"));
}

TEST(RuleEngineTest, ValueAboveComparesALevelNotARate) {
  RuleEngine engine(Load(R"y(rules:
  - name: high_ber
    description: Symbol BER too high
    when:
      counter: SymbolBER
      value_above: 1e-12
    action: ticket_only
)y"),
                    nullptr);
  Observation o = Counter("SymbolBER", /*delta=*/1e-30, /*interval_s=*/60, kT0);
  o.value = 5e-13;  // below: the tiny delta is irrelevant
  EXPECT_TRUE(engine.Observe(o).empty());
  o.value = 2.5e-11;
  auto findings = engine.Observe(o);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].reason.find("SymbolBER at 2.5e-11, threshold 1e-12"), std::string::npos)
      << findings[0].reason;
  EXPECT_DOUBLE_EQ(findings[0].evidence["threshold"]["value_above"].get<double>(), 1e-12);
  EXPECT_EQ(findings[0].action, RuleAction::kTicketOnly);
}

TEST(RuleEngineTest, ValueAboveTakesNoRateOrPer) {
  for (const char* extra : {"      rate_above: 1\n", "      per: 1m\n"}) {
    auto r = LoadRulesText(std::string("rules:\n  - name: x\n    when:\n      counter: SymbolBER\n"
                                       "      value_above: 1e-12\n") +
                               extra + "    action: disable\n",
                           "f.yaml");
    ASSERT_FALSE(r.ok()) << extra;
    EXPECT_EQ(r.diagnostics[0].code, "ambiguous-threshold");
  }
}

}  // namespace
}  // namespace ufmr
