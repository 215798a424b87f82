// Covers src/telemetry/telemetry_ber.h: IB speed names and numbers to per-lane Gb/s, widths to
// lanes, the BER arithmetic (hand-computed cases), and that a SymbolBER observation made by the
// TelemetryIntake is compared as a ratio by an unchanged counter rule (default `per`), never as a
// count. Also the inventory fields the rate comes from (PortInfo.active_speed/active_width).
#include "telemetry/telemetry_ber.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "rules/rule_engine.h"
#include "rules/rule_loader.h"
#include "rules/rules.h"
#include "telemetry/telemetry.h"
#include "ufm/inventory.h"

namespace ufmr {
namespace {

struct SpeedCase {
  std::string text;
  double gbps;
};

class LaneRateTest : public ::testing::TestWithParam<SpeedCase> {};

TEST_P(LaneRateTest, Gbps) {
  EXPECT_DOUBLE_EQ(ParseLaneRateGbps(GetParam().text), GetParam().gbps);
}

INSTANTIATE_TEST_SUITE_P(
    Speeds, LaneRateTest,
    ::testing::Values(SpeedCase{"SDR", 2.5}, SpeedCase{"DDR", 5}, SpeedCase{"QDR", 10},
                      SpeedCase{"FDR10", 10}, SpeedCase{"FDR", 14}, SpeedCase{"EDR", 25},
                      SpeedCase{"HDR", 50}, SpeedCase{"NDR", 100}, SpeedCase{"XDR", 200},
                      SpeedCase{"ndr", 100}, SpeedCase{" HDR ", 50}, SpeedCase{"100", 100},
                      SpeedCase{"50G", 50}, SpeedCase{"100 Gb/s", 100}, SpeedCase{"25Gbps", 25},
                      SpeedCase{"400", 0},  // a whole-link figure, not per lane: unknown
                      SpeedCase{"", 0}, SpeedCase{"N/A", 0}, SpeedCase{"fast", 0},
                      SpeedCase{"100 furlongs", 0}, SpeedCase{"\xff\xfe", 0}));

struct WidthCase {
  std::string text;
  int lanes;
};

class LaneCountTest : public ::testing::TestWithParam<WidthCase> {};

TEST_P(LaneCountTest, Lanes) { EXPECT_EQ(ParseLaneCount(GetParam().text), GetParam().lanes); }

INSTANTIATE_TEST_SUITE_P(Widths, LaneCountTest,
                         ::testing::Values(WidthCase{"4x", 4}, WidthCase{"4X", 4},
                                           WidthCase{"4", 4}, WidthCase{"1x", 1},
                                           WidthCase{"2x", 2}, WidthCase{"8x", 8},
                                           WidthCase{"12x", 12}, WidthCase{"3x", 0},
                                           WidthCase{"x", 0}, WidthCase{"", 0},
                                           WidthCase{"wide", 0}));

struct BerCase {
  std::string label;
  std::string speed;
  std::string width;
  double errors;
  double interval_s;
  double ber;
};

class SymbolBerTest : public ::testing::TestWithParam<BerCase> {};

TEST_P(SymbolBerTest, ErrorsOverBitsMoved) {
  const BerCase& c = GetParam();
  LinkRate rate = ParseLinkRate(c.speed, c.width);
  EXPECT_DOUBLE_EQ(SymbolBer(c.errors, c.interval_s, rate), c.ber);
}

// Bits moved = lanes x per-lane Gb/s x 1e9 x seconds, worked by hand:
INSTANTIATE_TEST_SUITE_P(
    HandComputed, SymbolBerTest,
    ::testing::Values(
        // NDR 4x: 4 x 100e9 = 4e11 b/s; 60 s -> 2.4e13 bits; 24 errors -> 1e-12.
        BerCase{"Ndr4x", "NDR", "4x", 24, 60, 1e-12},
        // HDR 4x: 2e11 b/s; 60 s -> 1.2e13 bits; 12 errors -> 1e-12.
        BerCase{"Hdr4x", "HDR", "4x", 12, 60, 1e-12},
        // XDR 4x: 8e11 b/s; 60 s -> 4.8e13 bits; 48 errors -> 1e-12.
        BerCase{"Xdr4x", "XDR", "4x", 48, 60, 1e-12},
        // EDR 4x: 1e11 b/s; 60 s -> 6e12 bits; 6 errors -> 1e-12.
        BerCase{"Edr4x", "EDR", "4x", 6, 60, 1e-12},
        // HDR 2x (HDR100): 1e11 b/s; 30 s -> 3e12 bits; 3 errors -> 1e-12.
        BerCase{"Hdr2x", "HDR", "2x", 3, 30, 1e-12},
        // NDR 1x: 1e11 b/s; 1 s -> 1e11 bits; 500 errors -> 5e-9.
        BerCase{"Ndr1x", "NDR", "1x", 500, 1, 5e-9}, BerCase{"UnknownSpeed", "", "4x", 24, 60, 0},
        BerCase{"UnknownWidth", "NDR", "", 24, 60, 0},
        BerCase{"NoInterval", "NDR", "4x", 24, 0, 0}),
    [](const ::testing::TestParamInfo<BerCase>& param) { return param.param.label; });

TEST(LinkRateTest, BitsPerSecond) {
  LinkRate r = ParseLinkRate("NDR", "4x");
  ASSERT_TRUE(r.known());
  EXPECT_DOUBLE_EQ(r.bits_per_second(), 4e11);
  EXPECT_FALSE(ParseLinkRate("NDR", "").known());
}

TEST(SymbolBerTest, DerivedFromTheSymbolErrorCounters) {
  EXPECT_TRUE(IsSymbolErrorCounter("SymbolErrorCounterExtended"));
  EXPECT_TRUE(IsSymbolErrorCounter("SymbolErrorCounter"));
  EXPECT_FALSE(IsSymbolErrorCounter("Symbol_BER"));
  EXPECT_EQ(kSymbolBerCounter, "SymbolBER");
}

// The convention that lets a rate rule compare a ratio: the default `per` of a rate condition.
TEST(SymbolBerTest, ScaleIsTheRulesDefaultPer) {
  CounterCondition c;
  EXPECT_DOUBLE_EQ(c.per_s, kSymbolBerPerS);
}

constexpr int64_t kT0us = 1'700'000'000'000'000;

TelemetrySnapshot OnePort(int64_t ts_us, uint64_t symbol_errors) {
  TelemetrySnapshot s;
  s.counters = {"SymbolErrorCounterExtended"};
  s.ports = {PortKey{0xfc6a1c0300686f68ULL, 5}};
  s.time_us = {ts_us};
  s.values = {symbol_errors};
  return s;
}

struct RuleCase {
  std::string label;
  uint64_t errors_in_60s;  // on NDR 4x: 24 errors in 60 s is a BER of 1e-12
  bool fires;
};

class SymbolBerRuleTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(SymbolBerRuleTest, BerRuleComparesTheRatio) {
  auto loaded = LoadRulesText(R"(rules:
  - name: ber
    counter: SymbolBER
    ber: {above: 1e-12}
    action: ticket_only
)",
                              "ber.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.Report();
  std::shared_ptr<const RuleSet> rules(std::move(loaded.rules));
  RuleEngine engine(rules, nullptr);

  TelemetryIntake intake(
      Config::Telemetry{}, nullptr,
      [](const std::string&) -> std::optional<LinkRate> { return ParseLinkRate("NDR", "4x"); });
  intake.SetInterest(rules->counters);
  const TimePoint now = TimePoint(std::chrono::seconds(1'700'000'100));
  std::vector<Observation> obs;
  auto sink = [&](const Observation& o) { obs.push_back(o); };
  intake.Ingest(OnePort(kT0us, 1000), false, now, sink);
  intake.Ingest(OnePort(kT0us + 60'000'000, 1000 + GetParam().errors_in_60s), false, now, sink);
  ASSERT_EQ(obs.size(), 1u);  // SymbolBER only: no rule names the raw counter
  const Observation& o = obs[0];
  EXPECT_EQ(o.counter, "SymbolBER");
  EXPECT_EQ(o.ports, std::vector<std::string>{"fc6a1c0300686f68_5"});
  EXPECT_DOUBLE_EQ(o.interval_s, 60);
  EXPECT_NEAR(o.value, GetParam().errors_in_60s / 2.4e13, 1e-24);  // the ratio itself
  std::vector<Finding> findings;
  engine.Observe(o, &findings);
  EXPECT_EQ(findings.size(), GetParam().fires ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Thresholds, SymbolBerRuleTest,
    ::testing::Values(RuleCase{"HalfThreshold", 12, false}, RuleCase{"JustBelow", 23, false},
                      RuleCase{"JustAbove", 25, true}, RuleCase{"TwiceThreshold", 48, true},
                      // A count of 20 errors is far above 1e-12 as a count, but not as a BER.
                      RuleCase{"CountIsNotCompared", 20, false}),
    [](const ::testing::TestParamInfo<RuleCase>& param) { return param.param.label; });

TEST(InventoryLinkRateTest, PortInfoReadsActiveSpeedAndWidth) {
  auto p = ParsePortInfo(nlohmann::json{
      {"name", "fc6a1c0300686f68_5"}, {"active_speed", "NDR"}, {"active_width", "4x"}});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->active_speed, "NDR");
  EXPECT_EQ(p->active_width, "4x");
  EXPECT_DOUBLE_EQ(ParseLinkRate(p->active_speed, p->active_width).bits_per_second(), 4e11);
  auto bare = ParsePortInfo(nlohmann::json{{"name", "fc6a1c0300686f68_6"}});
  ASSERT_TRUE(bare.ok());
  EXPECT_FALSE(ParseLinkRate(bare->active_speed, bare->active_width).known());
}

}  // namespace
}  // namespace ufmr
