// Covers src/core/telemetry.h: ParseTelemetryCsv on the UFM Telemetry /csv/metrics shape (header,
// 0x GUIDs to "<16 hex>_<n>" port names, CRLF, skipped rows reported by line, header and empty
// errors) and CounterTracker (baseline, deltas and intervals from row timestamps, resets, steps
// up from 0, repeated samples, unchanged counters).
#include "core/telemetry.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace ufmr {
namespace {

using std::chrono::microseconds;

constexpr const char* kHeader =
    "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,SymbolErrorCounterExtended,"
    "LinkDownedCounterExtended\n";

constexpr int64_t kT0us = 1'800'000'000'000'000;  // microseconds since the epoch

TEST(ParseTelemetryCsvTest, ParsesRowsIntoPortNamesAndCounters) {
  const std::string csv = std::string(kHeader) +
                          "1800000000000000,10.0.0.1:9001,,0xe41d2d0300a4f400,0xE41D2D0300A4F482,"
                          "1,5,2\n"
                          "1800000000000000,10.0.0.1:9001,,0x9c0591030090e000,0x9c0591030090e000,"
                          "33,0,0\n";
  auto parsed = ParseTelemetryCsv(csv);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->errors.empty());
  ASSERT_EQ(parsed->samples.size(), 2u);
  const CounterSample& a = parsed->samples[0];
  EXPECT_EQ(a.port, "e41d2d0300a4f482_1");
  EXPECT_EQ(a.timestamp_us, kT0us);
  EXPECT_EQ(a.counters.at("SymbolErrorCounterExtended"), 5);
  EXPECT_EQ(a.counters.at("LinkDownedCounterExtended"), 2);
  EXPECT_EQ(a.counters.count("port_guid"), 0u);
  EXPECT_EQ(a.counters.count("Port_Number"), 0u);
  EXPECT_EQ(a.counters.count("timestamp"), 0u);
  EXPECT_EQ(a.counters.count("source_id"), 0u);  // not a number
  EXPECT_EQ(parsed->samples[1].port, "9c0591030090e000_33");
}

TEST(ParseTelemetryCsvTest, ShortGuidIsZeroPaddedToSixteenDigits) {
  auto parsed = ParseTelemetryCsv(std::string(kHeader) + "1,s,,0x1,0xabc,7,0,0\n");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->samples.size(), 1u);
  EXPECT_EQ(parsed->samples[0].port, "0000000000000abc_7");
}

TEST(ParseTelemetryCsvTest, CrlfLineEndings) {
  const std::string csv =
      "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,SymbolErrorCounterExtended\r\n"
      "100,s,,0x1,0xe41d2d0300a4f482,1,5\r\n"
      "100,s,,0x1,0xe41d2d0300a4f482,2,6\r\n";
  auto parsed = ParseTelemetryCsv(csv);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->errors.empty());
  ASSERT_EQ(parsed->samples.size(), 2u);
  EXPECT_EQ(parsed->samples[0].port, "e41d2d0300a4f482_1");
  EXPECT_EQ(parsed->samples[0].counters.at("SymbolErrorCounterExtended"), 5);
  EXPECT_EQ(parsed->samples[1].counters.at("SymbolErrorCounterExtended"), 6);
}

TEST(ParseTelemetryCsvTest, HeaderOnlyHasNoSamples) {
  auto parsed = ParseTelemetryCsv(kHeader);
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->samples.empty());
  EXPECT_TRUE(parsed->errors.empty());
}

struct BadRowCase {
  std::string label;
  std::string row;
};

class ParseTelemetryBadRowTest : public ::testing::TestWithParam<BadRowCase> {};

TEST_P(ParseTelemetryBadRowTest, RowIsSkippedWithLineNumberAndTheRestParse) {
  const std::string csv = std::string(kHeader) + "1,s,,0x1,0xe41d2d0300a4f482,1,5,0\n" +
                          GetParam().row + "\n" + "1,s,,0x1,0xe41d2d0300a4f482,2,6,0\n";
  auto parsed = ParseTelemetryCsv(csv);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->samples.size(), 2u);
  EXPECT_EQ(parsed->samples[0].port, "e41d2d0300a4f482_1");
  EXPECT_EQ(parsed->samples[1].port, "e41d2d0300a4f482_2");
  ASSERT_EQ(parsed->errors.size(), 1u);
  EXPECT_EQ(parsed->errors[0].rfind("line 3:", 0), 0u) << parsed->errors[0];
}

INSTANTIATE_TEST_SUITE_P(
    Rows, ParseTelemetryBadRowTest,
    ::testing::Values(BadRowCase{"TooFewCells", "1,s,,0x1,0xe41d2d0300a4f482,3,5"},
                      BadRowCase{"TooManyCells", "1,s,,0x1,0xe41d2d0300a4f482,3,5,0,9"},
                      BadRowCase{"GuidNotHex", "1,s,,0x1,0xnothexnothexnoth,3,5,0"},
                      BadRowCase{"GuidTooLong", "1,s,,0x1,0xe41d2d0300a4f48200,3,5,0"},
                      BadRowCase{"PortNumberNotNumber", "1,s,,0x1,0xe41d2d0300a4f482,x,5,0"},
                      BadRowCase{"PortNumberEmpty", "1,s,,0x1,0xe41d2d0300a4f482,,5,0"},
                      BadRowCase{"PortNumberNegative", "1,s,,0x1,0xe41d2d0300a4f482,-1,5,0"},
                      BadRowCase{"PortNumberFraction", "1,s,,0x1,0xe41d2d0300a4f482,1.5,5,0"},
                      BadRowCase{"GuidEmpty", "1,s,,0x1,,3,5,0"},
                      BadRowCase{"GuidOnlyPrefix", "1,s,,0x1,0x,3,5,0"}),
    [](const ::testing::TestParamInfo<BadRowCase>& param) { return param.param.label; });

TEST(ParseTelemetryCsvTest, LineNumbersCountBlankLines) {
  const std::string csv =
      std::string(kHeader) + "\n1,s,,0x1,0xe41d2d0300a4f482,1,5,0\n\n1,s,,0x1,bad!,1,5,0\n";
  auto parsed = ParseTelemetryCsv(csv);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->samples.size(), 1u);
  ASSERT_EQ(parsed->errors.size(), 1u);
  EXPECT_EQ(parsed->errors[0].rfind("line 5:", 0), 0u) << parsed->errors[0];
}

TEST(ParseTelemetryCsvTest, QuotedCellWithComma) {
  const std::string csv =
      "timestamp,node_description,port_guid,Port_Number,SymbolErrorCounterExtended\n"
      "1,\"T3-E21-N-U47, rack 3\",0xe41d2d0300a4f482,1,4\n";
  auto parsed = ParseTelemetryCsv(csv);
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->errors.empty());
  ASSERT_EQ(parsed->samples.size(), 1u);
  EXPECT_EQ(parsed->samples[0].counters.at("SymbolErrorCounterExtended"), 4);
}

TEST(ParseTelemetryCsvTest, PortNumAliasAndMissingTimestampColumn) {
  auto parsed = ParseTelemetryCsv("port_guid,port_num,SymbolErrorCounterExtended\n0x2,4,1\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->samples.size(), 1u);
  EXPECT_EQ(parsed->samples[0].port, "0000000000000002_4");
  EXPECT_EQ(parsed->samples[0].timestamp_us, 0);
}

class ParseTelemetryHeaderTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ParseTelemetryHeaderTest, IsAnError) {
  auto parsed = ParseTelemetryCsv(GetParam());
  ASSERT_FALSE(parsed.ok()) << GetParam();
  EXPECT_EQ(parsed.status().code(), Status::Code::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(
    MissingColumnsOrEmpty, ParseTelemetryHeaderTest,
    ::testing::Values("timestamp,source_id,tag,Node_GUID,Port_Number,SymbolErrorCounterExtended\n"
                      "1,s,,0x1,1,0\n",
                      "timestamp,source_id,tag,Node_GUID,port_guid,SymbolErrorCounterExtended\n"
                      "1,s,,0x1,0x2,0\n",
                      "a,b,c\n1,2,3\n", "", "\n", "\r\n\r\n"));

TEST(ParseTelemetryCsvTest, EmptyTextSaysEmpty) {
  auto parsed = ParseTelemetryCsv("");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("empty"), std::string::npos);
}

// CounterTracker.

const std::string kPort = "e41d2d0300a4f482_1";
const TimePoint kNow = TimePoint(std::chrono::seconds(1'900'000'000));

CounterSample Sample(int64_t ts_us, std::map<std::string, double> counters,
                     const std::string& port = kPort) {
  CounterSample s;
  s.port = port;
  s.timestamp_us = ts_us;
  s.counters = std::move(counters);
  return s;
}

TEST(CounterTrackerTest, FirstSampleIsOnlyABaseline) {
  CounterTracker tracker;
  EXPECT_TRUE(tracker.Update(Sample(kT0us, {{"SymbolErrorCounterExtended", 1000}}), kNow).empty());
  EXPECT_EQ(tracker.tracked_ports(), 1u);
}

TEST(CounterTrackerTest, NextSampleYieldsDeltaWithIntervalFromRowTimestamps) {
  CounterTracker tracker;
  tracker.Update(Sample(kT0us, {{"SymbolErrorCounterExtended", 10}, {"LinkDowned", 1}}), kNow);
  auto obs = tracker.Update(
      Sample(kT0us + 30'000'000, {{"SymbolErrorCounterExtended", 25}, {"LinkDowned", 1}}), kNow);
  ASSERT_EQ(obs.size(), 1u);
  const Observation& o = obs[0];
  EXPECT_EQ(o.kind, Observation::Kind::kCounter);
  EXPECT_EQ(o.source, "telemetry");
  EXPECT_EQ(o.ports, std::vector<std::string>{kPort});
  EXPECT_EQ(o.counter, "SymbolErrorCounterExtended");
  EXPECT_DOUBLE_EQ(o.delta, 15);
  EXPECT_DOUBLE_EQ(o.value, 25);
  EXPECT_DOUBLE_EQ(o.interval_s, 30);
  EXPECT_EQ(o.time, TimePoint(microseconds(kT0us + 30'000'000)));  // the row's time, not `now`
}

TEST(CounterTrackerTest, SubSecondIntervalFromMicroseconds) {
  CounterTracker tracker;
  tracker.Update(Sample(kT0us, {{"c", 0}}), kNow);
  auto obs = tracker.Update(Sample(kT0us + 250'000, {{"c", 1}}), kNow);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_DOUBLE_EQ(obs[0].interval_s, 0.25);
}

struct StepCase {
  std::string label;
  double before;
  double after;
  double delta;  // 0: no observation
};

class CounterTrackerStepTest : public ::testing::TestWithParam<StepCase> {};

TEST_P(CounterTrackerStepTest, Delta) {
  const StepCase& c = GetParam();
  CounterTracker tracker;
  tracker.Update(Sample(kT0us, {{"c", c.before}}), kNow);
  auto obs = tracker.Update(Sample(kT0us + 60'000'000, {{"c", c.after}}), kNow);
  if (c.delta == 0) {
    EXPECT_TRUE(obs.empty());
  } else {
    ASSERT_EQ(obs.size(), 1u);
    EXPECT_DOUBLE_EQ(obs[0].delta, c.delta);
    EXPECT_DOUBLE_EQ(obs[0].value, c.after);
  }
}

INSTANTIATE_TEST_SUITE_P(Steps, CounterTrackerStepTest,
                         ::testing::Values(StepCase{"Increase", 100, 130, 30},
                                           StepCase{"DecreaseIsResetDeltaIsNewValue", 100, 5, 5},
                                           StepCase{"StepUpFromZeroIsRealIncrease", 0, 7, 7},
                                           StepCase{"Unchanged", 42, 42, 0},
                                           StepCase{"ResetToZero", 42, 0, 0}),
                         [](const ::testing::TestParamInfo<StepCase>& param) {
                           return param.param.label;
                         });

TEST(CounterTrackerTest, SameTimestampTwiceYieldsNothing) {
  CounterTracker tracker;
  tracker.Update(Sample(kT0us, {{"c", 1}}), kNow);
  EXPECT_TRUE(tracker.Update(Sample(kT0us, {{"c", 50}}), kNow).empty());
  // The repeated sample did not replace the baseline: the next one is measured from the first.
  auto obs = tracker.Update(Sample(kT0us + 10'000'000, {{"c", 11}}), kNow);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_DOUBLE_EQ(obs[0].delta, 10);
  EXPECT_DOUBLE_EQ(obs[0].interval_s, 10);
}

TEST(CounterTrackerTest, UnchangedCountersYieldNoObservation) {
  CounterTracker tracker;
  std::map<std::string, double> counters{{"a", 1}, {"b", 2}, {"c", 3}};
  tracker.Update(Sample(kT0us, counters), kNow);
  EXPECT_TRUE(tracker.Update(Sample(kT0us + 60'000'000, counters), kNow).empty());
  EXPECT_TRUE(tracker.Update(Sample(kT0us + 120'000'000, counters), kNow).empty());
}

TEST(CounterTrackerTest, OnlyMovedCountersAreReported) {
  CounterTracker tracker;
  tracker.Update(Sample(kT0us, {{"a", 1}, {"b", 2}, {"c", 3}}), kNow);
  auto obs = tracker.Update(Sample(kT0us + 60'000'000, {{"a", 2}, {"b", 2}, {"c", 9}}), kNow);
  ASSERT_EQ(obs.size(), 2u);
  EXPECT_EQ(obs[0].counter, "a");
  EXPECT_EQ(obs[1].counter, "c");
  EXPECT_DOUBLE_EQ(obs[1].delta, 6);
}

TEST(CounterTrackerTest, NewColumnIsBaselinedNotReported) {
  CounterTracker tracker;
  tracker.Update(Sample(kT0us, {{"a", 1}}), kNow);
  EXPECT_TRUE(tracker.Update(Sample(kT0us + 60'000'000, {{"a", 1}, {"b", 500}}), kNow).empty());
  auto obs = tracker.Update(Sample(kT0us + 120'000'000, {{"a", 1}, {"b", 510}}), kNow);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].counter, "b");
  EXPECT_DOUBLE_EQ(obs[0].delta, 10);
}

TEST(CounterTrackerTest, PortsAreTrackedSeparately) {
  CounterTracker tracker;
  tracker.Update(Sample(kT0us, {{"c", 1}}, "aaaaaaaaaaaaaaaa_1"), kNow);
  // Another port's first sample is its own baseline.
  EXPECT_TRUE(
      tracker.Update(Sample(kT0us + 60'000'000, {{"c", 99}}, "bbbbbbbbbbbbbbbb_1"), kNow).empty());
  EXPECT_EQ(tracker.tracked_ports(), 2u);
  auto obs = tracker.Update(Sample(kT0us + 60'000'000, {{"c", 4}}, "aaaaaaaaaaaaaaaa_1"), kNow);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].ports, std::vector<std::string>{"aaaaaaaaaaaaaaaa_1"});
  EXPECT_DOUBLE_EQ(obs[0].delta, 3);
}

TEST(CounterTrackerTest, WithoutRowTimestampUsesNow) {
  CounterTracker tracker;
  tracker.Update(Sample(0, {{"c", 1}}), kNow);
  auto obs = tracker.Update(Sample(0, {{"c", 3}}), kNow + std::chrono::seconds(20));
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_DOUBLE_EQ(obs[0].interval_s, 20);
  EXPECT_EQ(obs[0].time, kNow + std::chrono::seconds(20));
}

TEST(CounterTrackerTest, ParsedCsvThroughTracker) {
  CounterTracker tracker;
  const std::string first =
      std::string(kHeader) + "1800000000000000,s,,0x1,0xe41d2d0300a4f482,1,100,0\n";
  const std::string second =
      std::string(kHeader) + "1800000060000000,s,,0x1,0xe41d2d0300a4f482,1,160,1\n";
  auto parsed_first = ParseTelemetryCsv(first);
  auto parsed_second = ParseTelemetryCsv(second);
  ASSERT_TRUE(parsed_first.ok());
  ASSERT_TRUE(parsed_second.ok());
  for (const auto& s : parsed_first->samples) {
    EXPECT_TRUE(tracker.Update(s, kNow).empty());
  }
  std::vector<Observation> obs;
  for (const auto& s : parsed_second->samples) {
    auto o = tracker.Update(s, kNow);
    obs.insert(obs.end(), o.begin(), o.end());
  }
  ASSERT_EQ(obs.size(), 2u);
  EXPECT_EQ(obs[0].counter, "LinkDownedCounterExtended");
  EXPECT_DOUBLE_EQ(obs[0].delta, 1);
  EXPECT_EQ(obs[1].counter, "SymbolErrorCounterExtended");
  EXPECT_DOUBLE_EQ(obs[1].delta, 60);
  EXPECT_DOUBLE_EQ(obs[1].interval_s, 60);
}

}  // namespace
}  // namespace ufmr
