// Covers src/telemetry/telemetry_tracker.h (CounterTracker) and the port identity it keys on
// (telemetry_port.h): first sample a baseline; deltas, intervals and rates from row timestamps;
// a decrease is a reset or wrap (delta = the new value); a rise from 0 counts; the same sample
// twice; a clock going back; columns appearing, missing and reordered between snapshots; ports
// tracked separately; the reporting filter (deltas still tracked); link rates; state growth;
// LastSample (unknown ports, the newest sample's time and values, absent counters left out).
#include "telemetry/telemetry_tracker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace ufmr {
namespace {

using std::chrono::microseconds;

constexpr int64_t kT0us = 1'800'000'000'000'000;  // microseconds since the epoch
const TimePoint kNow = TimePoint(std::chrono::seconds(1'900'000'000));
const PortKey kPort{0xe41d2d0300a4f482ULL, 1};
const std::string kPortName = "e41d2d0300a4f482_1";

// A one-row snapshot; kNoValue marks an absent cell.
TelemetrySnapshot Snap(int64_t ts_us, std::vector<std::pair<std::string, uint64_t>> counters,
                       PortKey port = kPort) {
  TelemetrySnapshot s;
  s.ports.push_back(port);
  s.time_us.push_back(ts_us);
  for (auto& [name, v] : counters) {
    s.counters.push_back(name);
    s.values.push_back(v);
  }
  return s;
}

TEST(CounterTrackerTest, FirstSampleIsOnlyABaseline) {
  CounterTracker tracker;
  EXPECT_TRUE(tracker.UpdateObservations(Snap(kT0us, {{"SymbolErrorCounterExtended", 1000}}), kNow)
                  .empty());
  EXPECT_EQ(tracker.tracked_ports(), 1u);
  EXPECT_EQ(tracker.tracked_counters(), 1u);
}

TEST(CounterTrackerTest, NextSampleYieldsDeltaWithIntervalFromRowTimestamps) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(kT0us, {{"SymbolErrorCounterExtended", 10}, {"LinkDowned", 1}}),
                             kNow);
  auto obs = tracker.UpdateObservations(
      Snap(kT0us + 30'000'000, {{"SymbolErrorCounterExtended", 25}, {"LinkDowned", 1}}), kNow);
  ASSERT_EQ(obs.size(), 1u);
  const Observation& o = obs[0];
  EXPECT_EQ(o.kind, Observation::Kind::kCounter);
  EXPECT_EQ(o.source, "telemetry");
  EXPECT_EQ(o.ports, std::vector<std::string>{kPortName});
  EXPECT_EQ(o.counter, "SymbolErrorCounterExtended");
  EXPECT_DOUBLE_EQ(o.delta, 15);
  EXPECT_DOUBLE_EQ(o.value, 25);
  EXPECT_DOUBLE_EQ(o.interval_s, 30);
  EXPECT_EQ(o.time, TimePoint(microseconds(kT0us + 30'000'000)));  // the row's time, not `now`
}

TEST(CounterTrackerTest, DeltaCarriesRowColumnAndRate) {
  CounterTracker tracker;
  tracker.Update(Snap(kT0us, {{"a", 1}, {"b", 100}}), kNow, [](const CounterDelta&) {});
  std::vector<CounterDelta> got;
  auto stats = tracker.Update(Snap(kT0us + 4'000'000, {{"a", 1}, {"b", 300}}), kNow,
                              [&](const CounterDelta& d) { got.push_back(d); });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].row, 0u);
  EXPECT_EQ(got[0].column, 1u);
  EXPECT_EQ(got[0].delta, 200u);
  EXPECT_DOUBLE_EQ(got[0].rate_per_s(), 50);
  EXPECT_EQ(stats.rows, 1u);
  EXPECT_EQ(stats.moved, 1u);
  EXPECT_EQ(stats.reported, 1u);
}

// The value and time before the move (the lead-up of a ticket's chart draws both), after a reset
// too: there the value before is the old, higher one, not the new value less the delta.
TEST(CounterTrackerTest, DeltaCarriesTheValueAndTimeBefore) {
  CounterTracker tracker;
  tracker.Update(Snap(kT0us, {{"a", 100}}), kNow, [](const CounterDelta&) {});
  std::vector<CounterDelta> got;
  auto keep = [&](const CounterDelta& d) { got.push_back(d); };
  tracker.Update(Snap(kT0us + 4'000'000, {{"a", 130}}), kNow, keep);
  tracker.Update(Snap(kT0us + 9'000'000, {{"a", 7}}), kNow, keep);  // reset
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].previous, 100u);
  EXPECT_EQ(got[0].previous_time, TimePoint(microseconds(kT0us)));
  EXPECT_EQ(got[0].time, TimePoint(microseconds(kT0us + 4'000'000)));
  EXPECT_EQ(got[1].previous, 130u);
  EXPECT_EQ(got[1].delta, 7u);
  EXPECT_EQ(got[1].previous_time, TimePoint(microseconds(kT0us + 4'000'000)));
}

TEST(CounterTrackerTest, SubSecondIntervalFromMicroseconds) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(kT0us, {{"c", 0}}), kNow);
  auto obs = tracker.UpdateObservations(Snap(kT0us + 250'000, {{"c", 1}}), kNow);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_DOUBLE_EQ(obs[0].interval_s, 0.25);
}

struct StepCase {
  std::string label;
  uint64_t before;
  uint64_t after;
  uint64_t delta;  // 0: no observation
  size_t resets;
};

class CounterTrackerStepTest : public ::testing::TestWithParam<StepCase> {};

TEST_P(CounterTrackerStepTest, Delta) {
  const StepCase& c = GetParam();
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(kT0us, {{"c", c.before}}), kNow);
  std::vector<CounterDelta> got;
  auto stats = tracker.Update(Snap(kT0us + 60'000'000, {{"c", c.after}}), kNow,
                              [&](const CounterDelta& d) { got.push_back(d); });
  EXPECT_EQ(stats.resets, c.resets);
  if (c.delta == 0) {
    EXPECT_TRUE(got.empty());
  } else {
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].delta, c.delta);
    EXPECT_EQ(got[0].value, c.after);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Steps, CounterTrackerStepTest,
    ::testing::Values(StepCase{"Increase", 100, 130, 30, 0},
                      StepCase{"DecreaseIsResetDeltaIsNewValue", 100, 5, 5, 1},
                      StepCase{"StepUpFromZeroIsRealIncrease", 0, 7, 7, 0},
                      StepCase{"Unchanged", 42, 42, 0, 0}, StepCase{"ResetToZero", 42, 0, 0, 1},
                      // A 64-bit counter wrapping past 2^64: a decrease, so the new value.
                      StepCase{"WrapIsNewValue", 18446744073709551600ULL, 9, 9, 1},
                      StepCase{"LargeExactDelta", 1ULL << 60, (1ULL << 60) + 3, 3, 0},
                      StepCase{"ThirtyTwoBitWrap", 4294967290ULL, 4, 4, 1}),
    [](const ::testing::TestParamInfo<StepCase>& param) { return param.param.label; });

// A sequence of samples of one counter and the deltas expected after each.
struct SequenceCase {
  std::string label;
  std::vector<uint64_t> values;  // kNoValue: the cell is absent
  std::vector<uint64_t> deltas;  // 0: nothing reported for that sample
};

class CounterTrackerSequenceTest : public ::testing::TestWithParam<SequenceCase> {};

TEST_P(CounterTrackerSequenceTest, Deltas) {
  const SequenceCase& c = GetParam();
  ASSERT_EQ(c.values.size(), c.deltas.size());
  CounterTracker tracker;
  for (size_t i = 0; i < c.values.size(); ++i) {
    uint64_t delta = 0;
    tracker.Update(Snap(kT0us + static_cast<int64_t>(i) * 60'000'000, {{"c", c.values[i]}}), kNow,
                   [&](const CounterDelta& d) { delta = d.delta; });
    EXPECT_EQ(delta, c.deltas[i]) << "sample " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sequences, CounterTrackerSequenceTest,
    ::testing::Values(
        SequenceCase{"BaselineThenRises", {10, 15, 15, 40}, {0, 5, 0, 25}},
        SequenceCase{"ResetThenCountsFromNewValue", {100, 110, 3, 8}, {0, 10, 3, 5}},
        SequenceCase{"ZeroBaselineThenRise", {0, 0, 4}, {0, 0, 4}},
        // An absent cell drops the baseline: the next value is a new baseline, not a jump.
        SequenceCase{"AbsentCellRebaselines", {10, kNoValue, 50, 55}, {0, 0, 0, 5}}),
    [](const ::testing::TestParamInfo<SequenceCase>& param) { return param.param.label; });

TEST(CounterTrackerTest, SameTimestampTwiceYieldsNothingAndKeepsTheBaseline) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(kT0us, {{"c", 1}}), kNow);
  auto stats = tracker.Update(Snap(kT0us, {{"c", 50}}), kNow, [](const CounterDelta&) {});
  EXPECT_EQ(stats.repeats, 1u);
  auto obs = tracker.UpdateObservations(Snap(kT0us + 10'000'000, {{"c", 11}}), kNow);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_DOUBLE_EQ(obs[0].delta, 10);
  EXPECT_DOUBLE_EQ(obs[0].interval_s, 10);
}

TEST(CounterTrackerTest, ClockGoingBackRebaselines) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(kT0us, {{"c", 1}}), kNow);
  auto stats = tracker.Update(Snap(kT0us - 60'000'000, {{"c", 9}}), kNow, [](const CounterDelta&) {
    FAIL() << "no delta across a clock jump";
  });
  EXPECT_EQ(stats.baselines, 1u);
  auto obs = tracker.UpdateObservations(Snap(kT0us, {{"c", 12}}), kNow);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_DOUBLE_EQ(obs[0].delta, 3);
  EXPECT_DOUBLE_EQ(obs[0].interval_s, 60);
}

TEST(CounterTrackerTest, OnlyMovedCountersAreReported) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(kT0us, {{"a", 1}, {"b", 2}, {"c", 3}}), kNow);
  auto obs =
      tracker.UpdateObservations(Snap(kT0us + 60'000'000, {{"a", 2}, {"b", 2}, {"c", 9}}), kNow);
  ASSERT_EQ(obs.size(), 2u);
  EXPECT_EQ(obs[0].counter, "a");
  EXPECT_EQ(obs[1].counter, "c");
  EXPECT_DOUBLE_EQ(obs[1].delta, 6);
}

TEST(CounterTrackerTest, ReorderedColumnsAreMatchedByName) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(kT0us, {{"a", 1}, {"b", 100}}), kNow);
  auto obs = tracker.UpdateObservations(Snap(kT0us + 60'000'000, {{"b", 130}, {"a", 4}}), kNow);
  std::map<std::string, double> deltas;
  for (const auto& o : obs) deltas[o.counter] = o.delta;
  EXPECT_EQ(deltas, (std::map<std::string, double>{{"a", 3}, {"b", 30}}));
}

TEST(CounterTrackerTest, NewColumnIsBaselinedAndMissingColumnLosesItsBaseline) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(kT0us, {{"a", 1}, {"b", 10}}), kNow);
  // b is missing, c is new: neither reports.
  EXPECT_TRUE(
      tracker.UpdateObservations(Snap(kT0us + 60'000'000, {{"a", 1}, {"c", 500}}), kNow).empty());
  // b is back (a baseline again, not a delta over two intervals); c moves.
  auto obs = tracker.UpdateObservations(
      Snap(kT0us + 120'000'000, {{"a", 1}, {"b", 90}, {"c", 510}}), kNow);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].counter, "c");
  EXPECT_DOUBLE_EQ(obs[0].delta, 10);
}

TEST(CounterTrackerTest, ManyCountersGrowTheLayoutWithoutLosingState) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(kT0us, {{"first", 1}}), kNow);
  tracker.UpdateObservations(Snap(kT0us, {{"first", 1}}, PortKey{2, 1}), kNow);
  std::vector<std::pair<std::string, uint64_t>> wide{{"first", 5}};
  for (int i = 0; i < 40; ++i) wide.emplace_back("extra" + std::to_string(i), i);
  tracker.UpdateObservations(Snap(kT0us + 1'000'000, wide), kNow);
  EXPECT_EQ(tracker.tracked_counters(), 41u);
  auto obs =
      tracker.UpdateObservations(Snap(kT0us + 1'000'000, {{"first", 8}}, PortKey{2, 1}), kNow);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_DOUBLE_EQ(obs[0].delta, 7);
}

TEST(CounterTrackerTest, PortsAreTrackedSeparately) {
  CounterTracker tracker;
  const PortKey a{0xaaaaaaaaaaaaaaaaULL, 1}, b{0xbbbbbbbbbbbbbbbbULL, 1};
  tracker.UpdateObservations(Snap(kT0us, {{"c", 1}}, a), kNow);
  EXPECT_TRUE(tracker.UpdateObservations(Snap(kT0us + 60'000'000, {{"c", 99}}, b), kNow).empty());
  EXPECT_EQ(tracker.tracked_ports(), 2u);
  auto obs = tracker.UpdateObservations(Snap(kT0us + 60'000'000, {{"c", 4}}, a), kNow);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].ports, std::vector<std::string>{"aaaaaaaaaaaaaaaa_1"});
  EXPECT_DOUBLE_EQ(obs[0].delta, 3);
}

TEST(CounterTrackerTest, SamePortNumberOnAnotherGuidIsAnotherPort) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(kT0us, {{"c", 1}}, PortKey{1, 7}), kNow);
  tracker.UpdateObservations(Snap(kT0us, {{"c", 1}}, PortKey{7, 1}), kNow);
  EXPECT_EQ(tracker.tracked_ports(), 2u);
}

TEST(CounterTrackerTest, WithoutRowTimestampUsesNow) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(0, {{"c", 1}}), kNow);
  auto obs = tracker.UpdateObservations(Snap(0, {{"c", 3}}), kNow + std::chrono::seconds(20));
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_DOUBLE_EQ(obs[0].interval_s, 20);
  EXPECT_EQ(obs[0].time, kNow + std::chrono::seconds(20));
}

TEST(CounterTrackerTest, ReportOnlyStillTracksEveryCounter) {
  CounterTracker tracker;
  tracker.ReportOnly({"SymbolErrorCounterExtended"});
  tracker.UpdateObservations(
      Snap(kT0us, {{"PortXmitDataExtended", 1000}, {"SymbolErrorCounterExtended", 1}}), kNow);
  std::vector<CounterDelta> got;
  auto stats = tracker.Update(
      Snap(kT0us + 60'000'000, {{"PortXmitDataExtended", 5000}, {"SymbolErrorCounterExtended", 3}}),
      kNow, [&](const CounterDelta& d) { got.push_back(d); });
  EXPECT_EQ(stats.moved, 2u);
  EXPECT_EQ(stats.reported, 1u);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].column, 1u);
  // Reporting everything again: the data counter's baseline was kept up to date meanwhile.
  tracker.ReportAll();
  auto obs = tracker.UpdateObservations(
      Snap(kT0us + 120'000'000,
           {{"PortXmitDataExtended", 5500}, {"SymbolErrorCounterExtended", 3}}),
      kNow);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].counter, "PortXmitDataExtended");
  EXPECT_DOUBLE_EQ(obs[0].delta, 500);
}

TEST(CounterTrackerTest, KeepsTheLatestKnownLinkRate) {
  CounterTracker tracker;
  TelemetrySnapshot s = Snap(kT0us, {{"c", 1}});
  s.links.push_back(LinkRate{100, 4});
  tracker.UpdateObservations(s, kNow);
  ASSERT_TRUE(tracker.Link(kPort).has_value());
  EXPECT_EQ(tracker.Link(kPort)->lanes, 4);
  // A later row with an unknown rate does not erase it; another port has none.
  TelemetrySnapshot later = Snap(kT0us + 1, {{"c", 1}});
  later.links.push_back(LinkRate{});
  tracker.UpdateObservations(later, kNow);
  EXPECT_TRUE(tracker.Link(kPort).has_value());
  tracker.UpdateObservations(Snap(kT0us, {{"c", 1}}, PortKey{9, 9}), kNow);
  EXPECT_FALSE(tracker.Link(PortKey{9, 9}).has_value());
}

TEST(CounterTrackerTest, StateIsFlatAndSmall) {
  CounterTracker tracker;
  TelemetrySnapshot s;
  for (int c = 0; c < 16; ++c) s.counters.push_back("c" + std::to_string(c));
  for (uint32_t p = 0; p < 10000; ++p) {
    s.ports.push_back(PortKey{0xfc6a1c0300000000ULL + p / 64, p % 64 + 1});
    s.time_us.push_back(kT0us);
    for (int c = 0; c < 16; ++c) s.values.push_back(p);
  }
  tracker.UpdateObservations(s, kNow);
  EXPECT_EQ(tracker.tracked_ports(), 10000u);
  // 16 values of 8 bytes, a time and an index entry per port: well under 300 bytes a port.
  EXPECT_LT(tracker.state_bytes(), 10000u * 300u);
}

// Port identity.

TEST(CounterTrackerLastSampleTest, FalseForAPortNeverSeen) {
  CounterTracker tracker;
  TimePoint at = kNow;
  std::map<std::string, uint64_t> values{{"untouched", 1}};
  EXPECT_FALSE(tracker.LastSample(kPort, &at, &values));
  tracker.UpdateObservations(Snap(kT0us, {{"a", 1}}), kNow);
  EXPECT_FALSE(tracker.LastSample(PortKey{0xe41d2d0300a4f482ULL, 2}, &at, &values));
  EXPECT_FALSE(tracker.LastSample(PortKey{0x1ULL, 1}, &at, &values));
  EXPECT_EQ(at, kNow) << "left alone";
  EXPECT_EQ(values, (std::map<std::string, uint64_t>{{"untouched", 1}}));
}

TEST(CounterTrackerLastSampleTest, TheNewestSamplesTimeAndValues) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(kT0us, {{"SymbolErrorCounterExtended", 10}, {"LinkDowned", 1}}),
                             kNow);
  TimePoint at;
  std::map<std::string, uint64_t> values{{"stale", 7}};
  ASSERT_TRUE(tracker.LastSample(kPort, &at, &values));
  EXPECT_EQ(at, TimePoint(microseconds(kT0us)));
  EXPECT_EQ(values, (std::map<std::string, uint64_t>{{"SymbolErrorCounterExtended", 10},
                                                     {"LinkDowned", 1}}))
      << "replaces what the map held";

  tracker.UpdateObservations(
      Snap(kT0us + 30'000'000, {{"SymbolErrorCounterExtended", 25}, {"LinkDowned", 0}}), kNow);
  ASSERT_TRUE(tracker.LastSample(kPort, &at, &values));
  EXPECT_EQ(at, TimePoint(microseconds(kT0us + 30'000'000)));
  EXPECT_EQ(values, (std::map<std::string, uint64_t>{{"SymbolErrorCounterExtended", 25},
                                                     {"LinkDowned", 0}}))
      << "a reset counter's value as read, not its delta";
}

TEST(CounterTrackerLastSampleTest, WithoutRowTimestampTheTimeIsNow) {
  CounterTracker tracker;
  tracker.UpdateObservations(Snap(0, {{"a", 3}}), kNow);
  TimePoint at;
  std::map<std::string, uint64_t> values;
  ASSERT_TRUE(tracker.LastSample(kPort, &at, &values));
  EXPECT_EQ(at, kNow);
  EXPECT_EQ(values, (std::map<std::string, uint64_t>{{"a", 3}}));
}

TEST(CounterTrackerLastSampleTest, AnAbsentCounterIsLeftOut) {
  CounterTracker tracker;
  const PortKey other{0xbbbbbbbbbbbbbbbbULL, 1};
  // "b" is an absent cell for kPort; "c" is a counter only the other port carries.
  TelemetrySnapshot s = Snap(kT0us, {{"a", 1}, {"b", kNoValue}});
  tracker.UpdateObservations(s, kNow);
  tracker.UpdateObservations(Snap(kT0us, {{"c", 5}}, other), kNow);
  TimePoint at;
  std::map<std::string, uint64_t> values;
  ASSERT_TRUE(tracker.LastSample(kPort, &at, &values));
  EXPECT_EQ(values, (std::map<std::string, uint64_t>{{"a", 1}}));

  // A later sample without "a" (a missing column) drops it; "b" is there now.
  tracker.UpdateObservations(Snap(kT0us + 1'000'000, {{"b", 9}}), kNow);
  ASSERT_TRUE(tracker.LastSample(kPort, &at, &values));
  EXPECT_EQ(values, (std::map<std::string, uint64_t>{{"b", 9}}));

  ASSERT_TRUE(tracker.LastSample(other, &at, &values));
  EXPECT_EQ(values, (std::map<std::string, uint64_t>{{"c", 5}}));
}

TEST(PortKeyTest, NameRoundTrip) {
  PortKey k{0x0002c90300f172a2ULL, 33};
  EXPECT_EQ(PortName(k), "0002c90300f172a2_33");
  PortKey back;
  ASSERT_TRUE(ParsePortName("0002c90300f172a2_33", &back));
  EXPECT_EQ(back, k);
  EXPECT_FALSE(ParsePortName("2c90300f172a2_33", &back));
  EXPECT_FALSE(ParsePortName("0002c90300f172a2-33", &back));
}

TEST(PortIndexTest, DenseSlotsInInsertionOrderThroughGrowth) {
  PortIndex index;
  for (uint32_t i = 0; i < 5000; ++i) {
    auto [slot, added] = index.Insert(PortKey{i * 0x10001ULL, i % 7});
    ASSERT_TRUE(added);
    ASSERT_EQ(slot, i);
  }
  EXPECT_EQ(index.size(), 5000u);
  for (uint32_t i = 0; i < 5000; ++i) {
    ASSERT_EQ(index.Find(PortKey{i * 0x10001ULL, i % 7}), i);
    auto [slot, added] = index.Insert(PortKey{i * 0x10001ULL, i % 7});
    ASSERT_FALSE(added);
    ASSERT_EQ(slot, i);
  }
  EXPECT_EQ(index.Find(PortKey{1, 99}), PortIndex::kNone);
}

}  // namespace
}  // namespace ufmr
