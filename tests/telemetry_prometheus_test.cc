// Covers src/telemetry/telemetry_prometheus.h: UFM Telemetry's Prometheus text on the documented
// fixture (labels in any order and naming, GUIDs with or without 0x, timestamps on some lines,
// a metric without port labels), grouping lines into port rows, timestamps in milliseconds,
// value forms, link speed/width metrics, malformed lines reported by line, a truncated body,
// non-UTF-8 bytes, CRLF, and the bodies that are errors.
#include "telemetry/telemetry_prometheus.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "support/snapshot_values.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

using testing::PortNames;
using testing::ValueOf;

std::string Fixture(const std::string& name) { return testing::ReadFixture("telemetry/" + name); }

constexpr int64_t kT0us = 1'700'000'000'000'000;
const std::string kSw5 = "fc6a1c0300686f68_5";
const std::string kSw6 = "fc6a1c0300686f68_6";
const std::string kHca = "e41d2d0300a4f482_1";

TEST(ParseTelemetryPrometheusTest, FixtureGroupsLinesIntoPortRows) {
  auto s = ParseTelemetryPrometheus(Fixture("primary.prom"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->errors.empty()) << s->errors[0];
  EXPECT_FALSE(s->truncated);
  EXPECT_EQ(PortNames(s.value()), (std::vector<std::string>{kSw5, kSw6, kHca}));
  // Milliseconds to microseconds; a line without a timestamp takes its port's other lines' time.
  EXPECT_EQ(s->time_us, (std::vector<int64_t>{kT0us, kT0us, kT0us}));
  EXPECT_EQ(s->counters,
            (std::vector<std::string>{"PortXmitDataExtended", "SymbolErrorCounterExtended",
                                      "LinkDownedCounterExtended", "PortRcvErrorsExtended"}));
}

struct CellCase {
  std::string port;
  std::string counter;
  std::optional<uint64_t> value;
};

class PrometheusFixtureCellTest : public ::testing::TestWithParam<CellCase> {};

TEST_P(PrometheusFixtureCellTest, SameValuesAsTheCsvFixture) {
  auto s = ParseTelemetryPrometheus(Fixture("primary.prom"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(ValueOf(s.value(), GetParam().port, GetParam().counter), GetParam().value);
}

INSTANTIATE_TEST_SUITE_P(
    Cells, PrometheusFixtureCellTest,
    ::testing::Values(CellCase{kSw5, "PortXmitDataExtended", 8555412824},
                      CellCase{kSw6, "PortXmitDataExtended", 1000},
                      CellCase{kHca, "PortXmitDataExtended", 8555412000},  // GUIDs without 0x
                      CellCase{kSw5, "SymbolErrorCounterExtended", 12},
                      CellCase{kHca, "SymbolErrorCounterExtended", 0},
                      CellCase{kSw5, "LinkDownedCounterExtended", 2},  // Port_Number, upper case
                      CellCase{kHca, "LinkDownedCounterExtended", 1},
                      CellCase{kHca, "PortRcvErrorsExtended", 3},
                      CellCase{kSw5, "PortRcvErrorsExtended", std::nullopt},  // no such line
                      CellCase{kSw5, "telemetry_scrape_duration_seconds", std::nullopt}));

TEST(ParseTelemetryPrometheusTest, WithoutTimestampsTheTimeIsUnknown) {
  auto s = ParseTelemetryPrometheus(
      "SymbolErrorCounterExtended{port_guid=\"0x1\",port_num=\"1\"} 5\n"
      "LinkDownedCounterExtended{port_guid=\"0x1\",port_num=\"1\"} 6\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->time_us, std::vector<int64_t>{0});
  EXPECT_EQ(ValueOf(s.value(), "0000000000000001_1", "LinkDownedCounterExtended"), 6u);
}

TEST(ParseTelemetryPrometheusTest, LatestTimestampOfAPortsLinesWins) {
  auto s = ParseTelemetryPrometheus(
      "a{port_guid=\"0x1\",port_num=\"1\"} 5 1700000000000\n"
      "b{port_guid=\"0x1\",port_num=\"1\"} 6 1700000000500\n"
      "c{port_guid=\"0x1\",port_num=\"1\"} 7 1699999999000\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->time_us, std::vector<int64_t>{1'700'000'000'500'000});
}

struct LabelCase {
  std::string label;
  std::string line;
  std::string port;
};

class PrometheusLabelsTest : public ::testing::TestWithParam<LabelCase> {};

TEST_P(PrometheusLabelsTest, IdentifiesThePort) {
  auto s = ParseTelemetryPrometheus(GetParam().line + "\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->errors.empty()) << s->errors[0];
  EXPECT_EQ(PortNames(s.value()), std::vector<std::string>{GetParam().port});
  EXPECT_EQ(ValueOf(s.value(), GetParam().port, "SymbolErrorCounterExtended"), 3u);
}

INSTANTIATE_TEST_SUITE_P(
    Labels, PrometheusLabelsTest,
    ::testing::Values(
        LabelCase{
            "Documented",
            R"(SymbolErrorCounterExtended{device_name="leaf",node_guid="0x2",port_guid="0xe41d2d0300a4f482",port_num="1"} 3 1700000000000)",
            kHca},
        LabelCase{
            "Reversed",
            R"(SymbolErrorCounterExtended{port_num="1",port_guid="0xe41d2d0300a4f482",node_guid="0x2"} 3)",
            kHca},
        LabelCase{
            "UfmCsvNames",
            R"(SymbolErrorCounterExtended{Node_GUID="0x2",Port_Number="1",Port_GUID="0xE41D2D0300A4F482"} 3)",
            kHca},
        LabelCase{"FsetIndexes",
                  R"(SymbolErrorCounterExtended{lid="12",guid="e41d2d0300a4f482",port="1"} 3)",
                  kHca},
        LabelCase{
            "NoPrefixShortGuid",
            R"(SymbolErrorCounterExtended{source="0x0002c90300f172a0",node_guid="2c90300f172a0",port_guid="2c90300f172a2",port_num="2"} 3 1628683905941)",
            "0002c90300f172a2_2"},
        LabelCase{
            "SpacesAndTrailingComma",
            R"(SymbolErrorCounterExtended{ port_guid = "0xe41d2d0300a4f482" , port_num="1", } 3)",
            kHca},
        LabelCase{
            "EscapedQuoteInAnotherLabel",
            R"(SymbolErrorCounterExtended{device_name="rack \"7\", left",port_guid="0xe41d2d0300a4f482",port_num="1"} 3)",
            kHca},
        LabelCase{"TabSeparatedValue",
                  "SymbolErrorCounterExtended{port_guid=\"0xe41d2d0300a4f482\",port_num=\"1\"}\t3",
                  kHca}),
    [](const ::testing::TestParamInfo<LabelCase>& param) { return param.param.label; });

struct ValueCase {
  std::string label;
  std::string value;
  std::optional<uint64_t> expected;
};

class PrometheusValueTest : public ::testing::TestWithParam<ValueCase> {};

TEST_P(PrometheusValueTest, Value) {
  auto s = ParseTelemetryPrometheus("c{port_guid=\"0x1\",port_num=\"1\"} " + GetParam().value +
                                    " 1700000000000\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->errors.empty());
  EXPECT_EQ(ValueOf(s.value(), "0000000000000001_1", "c"), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Values, PrometheusValueTest,
    ::testing::Values(ValueCase{"Integer", "85554128244", 85554128244ULL},
                      ValueCase{"Float", "1.5e+03", 1500}, ValueCase{"FloatInteger", "42.0", 42},
                      ValueCase{"Fraction", "0.042", std::nullopt},
                      ValueCase{"NaN", "NaN", std::nullopt}, ValueCase{"Inf", "+Inf", std::nullopt},
                      ValueCase{"Negative", "-3", std::nullopt},
                      ValueCase{"Big", "18446744073709551614", 18446744073709551614ULL}),
    [](const ::testing::TestParamInfo<ValueCase>& param) { return param.param.label; });

struct BadLineCase {
  std::string label;
  std::string line;
};

class PrometheusBadLineTest : public ::testing::TestWithParam<BadLineCase> {};

TEST_P(PrometheusBadLineTest, LineIsSkippedWithLineNumberAndTheRestParse) {
  const std::string text =
      "# TYPE c counter\n"
      "c{port_guid=\"0x1\",port_num=\"1\"} 5\n" +
      GetParam().line + "\n" + "c{port_guid=\"0x1\",port_num=\"2\"} 6\n";
  auto s = ParseTelemetryPrometheus(text);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(PortNames(s.value()),
            (std::vector<std::string>{"0000000000000001_1", "0000000000000001_2"}));
  ASSERT_EQ(s->errors.size(), 1u);
  EXPECT_EQ(s->errors[0].rfind("line 3:", 0), 0u) << s->errors[0];
}

INSTANTIATE_TEST_SUITE_P(
    Lines, PrometheusBadLineTest,
    ::testing::Values(BadLineCase{"NoValue", "c{port_guid=\"0x1\",port_num=\"3\"}"},
                      BadLineCase{"ExtraToken", "c{port_guid=\"0x1\",port_num=\"3\"} 1 2 3"},
                      BadLineCase{"BadTimestamp", "c{port_guid=\"0x1\",port_num=\"3\"} 1 soon"},
                      BadLineCase{"UnterminatedLabels", "c{port_guid=\"0x1\",port_num=\"3\" 1"},
                      BadLineCase{"UnquotedLabel", "c{port_guid=0x1,port_num=\"3\"} 1"},
                      BadLineCase{"NoName", "{port_guid=\"0x1\",port_num=\"3\"} 1"},
                      BadLineCase{"BadGuid", "c{port_guid=\"0xzz\",port_num=\"3\"} 1"},
                      BadLineCase{"GuidButNoPort", "c{port_guid=\"0x1\"} 1"},
                      BadLineCase{"PortNumberFraction", "c{port_guid=\"0x1\",port_num=\"3.5\"} 1"}),
    [](const ::testing::TestParamInfo<BadLineCase>& param) { return param.param.label; });

TEST(ParseTelemetryPrometheusTest, TruncatedLastLineIsSkippedAndReported) {
  auto s = ParseTelemetryPrometheus(Fixture("truncated.prom"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->truncated);
  EXPECT_EQ(PortNames(s.value()), std::vector<std::string>{kHca});
  ASSERT_EQ(s->errors.size(), 1u);
  EXPECT_EQ(s->errors[0].rfind("line 3: truncated", 0), 0u) << s->errors[0];
}

TEST(ParseTelemetryPrometheusTest, CrlfLineEndings) {
  auto s = ParseTelemetryPrometheus(
      "# TYPE c counter\r\nc{port_guid=\"0x1\",port_num=\"1\"} 5 1700000000000\r\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->errors.empty());
  EXPECT_EQ(ValueOf(s.value(), "0000000000000001_1", "c"), 5u);
  EXPECT_EQ(s->time_us, std::vector<int64_t>{kT0us});
}

TEST(ParseTelemetryPrometheusTest, NonUtf8BytesDoNotCrash) {
  const std::string text =
      "c{device_name=\"caf\xe9\",port_guid=\"0x1\",port_num=\"1\"} 5\n"
      "c{port_guid=\"0x1\xff\",port_num=\"2\"} 5\n"
      "\xff\xfe garbage\n"
      "c{port_guid=\"0x1\",port_num=\"3\"} \xff\n";
  auto s = ParseTelemetryPrometheus(text);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(ValueOf(s.value(), "0000000000000001_1", "c"), 5u);
  EXPECT_EQ(ValueOf(s.value(), "0000000000000001_3", "c"), std::nullopt);
  EXPECT_EQ(s->errors.size(), 2u);
  for (const auto& e : s->errors) {
    for (unsigned char ch : e) EXPECT_TRUE(ch >= 0x20 && ch < 0x7f) << e;
  }
}

TEST(ParseTelemetryPrometheusTest, LinkSpeedAndWidthMetricsAndGauges) {
  auto s = ParseTelemetryPrometheus(
      "Link_speed_active{port_guid=\"0x1\",port_num=\"1\"} 100\n"
      "Link_width_active{port_guid=\"0x1\",port_num=\"1\"} 4\n"
      "Module_Temperature{port_guid=\"0x1\",port_num=\"1\"} 45\n"
      "Symbol_Errors{port_guid=\"0x1\",port_num=\"1\"} 7\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->counters, std::vector<std::string>{"Symbol_Errors"});
  ASSERT_EQ(s->links.size(), 1u);
  EXPECT_FLOAT_EQ(s->links[0].lane_gbps, 100);
  EXPECT_EQ(s->links[0].lanes, 4);
}

TEST(ParseTelemetryPrometheusTest, ConsecutiveLinesOfOnePortShareTheRow) {
  auto s = ParseTelemetryPrometheus(
      "a{port_guid=\"0x1\",port_num=\"1\"} 1\n"
      "b{port_guid=\"0x1\",port_num=\"1\"} 2\n"
      "a{port_guid=\"0x1\",port_num=\"2\"} 3\n"
      "b{port_guid=\"0x1\",port_num=\"2\"} 4\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->rows(), 2u);
  EXPECT_EQ(ValueOf(s.value(), "0000000000000001_1", "b"), 2u);
  EXPECT_EQ(ValueOf(s.value(), "0000000000000001_2", "a"), 3u);
}

class PrometheusBodyErrorTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PrometheusBodyErrorTest, IsAnError) {
  auto s = ParseTelemetryPrometheus(GetParam());
  ASSERT_FALSE(s.ok()) << GetParam();
  EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Bodies, PrometheusBodyErrorTest,
                         ::testing::Values("", "\n\n", "# HELP x y\n# TYPE x counter\n",
                                           "up 1\nscrape_duration_seconds 0.1\n"));

}  // namespace
}  // namespace ufmr
