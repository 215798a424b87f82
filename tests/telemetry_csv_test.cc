// Covers src/telemetry/telemetry_csv.h (and the column naming of telemetry_snapshot.h): the UFM
// Telemetry CSV on the documented fixtures in tests/testdata/telemetry/ (primary, reordered with
// missing and unknown columns, secondary with speed/width, CRLF, a truncated body, non-UTF-8
// bytes), bad rows reported by line, header errors, counter value forms, GUID forms, quoting.
#include "telemetry/telemetry_csv.h"

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

bool AllPrintable(const std::vector<std::string>& lines) {
  for (const auto& l : lines) {
    for (unsigned char c : l) {
      if (c < 0x20 || c >= 0x7f) return false;
    }
  }
  return true;
}

constexpr int64_t kT0us = 1'700'000'000'000'000;
const std::string kSw5 = "fc6a1c0300686f68_5";
const std::string kSw6 = "fc6a1c0300686f68_6";
const std::string kHca = "e41d2d0300a4f482_1";

TEST(ParseTelemetryCsvTest, PrimaryFixture) {
  auto s = ParseTelemetryCsv(Fixture("primary.csv"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->errors.empty());
  EXPECT_FALSE(s->truncated);
  EXPECT_EQ(PortNames(s.value()), (std::vector<std::string>{kSw5, kSw6, kHca}));
  EXPECT_EQ(s->time_us, (std::vector<int64_t>{kT0us, kT0us, kT0us}));
  // The six identifier columns are not counters; the ten documented counters are, in order.
  EXPECT_EQ(s->counters, (std::vector<std::string>{
                             "PortXmitDataExtended", "PortRcvDataExtended", "PortXmitPktsExtended",
                             "PortRcvPktsExtended", "SymbolErrorCounterExtended",
                             "LinkErrorRecoveryCounterExtended", "LinkDownedCounterExtended",
                             "PortRcvErrorsExtended", "PortRcvRemotePhysicalErrorsExtended",
                             "PortRcvSwitchRelayErrorsExtended"}));
  EXPECT_EQ(s->values.size(), 3u * 10u);
  EXPECT_TRUE(s->links.empty());
}

struct CellCase {
  std::string fixture;
  std::string port;
  std::string counter;
  std::optional<uint64_t> value;
};

class CsvFixtureCellTest : public ::testing::TestWithParam<CellCase> {};

TEST_P(CsvFixtureCellTest, Value) {
  const CellCase& c = GetParam();
  auto s = ParseTelemetryCsv(Fixture(c.fixture));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(ValueOf(s.value(), c.port, c.counter), c.value)
      << c.fixture << " " << c.port << " " << c.counter;
}

INSTANTIATE_TEST_SUITE_P(
    Cells, CsvFixtureCellTest,
    ::testing::Values(CellCase{"primary.csv", kSw5, "PortXmitDataExtended", 8555412824},
                      CellCase{"primary.csv", kSw5, "SymbolErrorCounterExtended", 12},
                      CellCase{"primary.csv", kSw5, "LinkDownedCounterExtended", 2},
                      CellCase{"primary.csv", kSw6, "PortRcvPktsExtended", 40},
                      CellCase{"primary.csv", kHca, "PortRcvErrorsExtended", 3},
                      CellCase{"primary.csv", kHca, "Port_Number", std::nullopt},
                      CellCase{"primary.csv", kHca, "Node_GUID", std::nullopt},
                      CellCase{"primary.csv", kHca, "timestamp", std::nullopt},
                      // The same ports with the columns in another order: the same values.
                      CellCase{"primary_reordered.csv", kSw5, "SymbolErrorCounterExtended", 12},
                      CellCase{"primary_reordered.csv", kSw5, "LinkDownedCounterExtended", 2},
                      CellCase{"primary_reordered.csv", kHca, "PortRcvErrorsExtended", 3},
                      CellCase{"primary_reordered.csv", kHca, "LinkDownedCounterExtended", 1},
                      // Missing counter columns are simply absent.
                      CellCase{"primary_reordered.csv", kSw5, "PortXmitDataExtended", std::nullopt},
                      // An unknown column is a counter, but a non-numeric one has no values.
                      CellCase{"primary_reordered.csv", kSw5, "Vendor_Specific_Thing",
                               std::nullopt},
                      CellCase{"primary_reordered.csv", kSw5, "port_label", std::nullopt},
                      CellCase{"crlf.csv", "e41d2d0300a4f482_1", "SymbolErrorCounterExtended", 5},
                      CellCase{"crlf.csv", "e41d2d0300a4f482_2", "LinkDownedCounterExtended", 1},
                      CellCase{"secondary.csv", kSw5, "Symbol_Errors", 7},
                      CellCase{"secondary.csv", kSw5, "Link_Down_IB", 2},
                      // Gauges and ratios are not counters.
                      CellCase{"secondary.csv", kSw5, "Module_Temperature", std::nullopt},
                      CellCase{"secondary.csv", kSw5, "Symbol_BER", std::nullopt},
                      CellCase{"secondary.csv", kSw5, "link_partner_port_num", std::nullopt}));

TEST(ParseTelemetryCsvTest, ReorderedFixtureHasTheSamePortsAndTimes) {
  auto s = ParseTelemetryCsv(Fixture("primary_reordered.csv"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->errors.empty());
  EXPECT_EQ(PortNames(s.value()), (std::vector<std::string>{kSw5, kSw6, kHca}));
  EXPECT_EQ(s->time_us, (std::vector<int64_t>{kT0us, kT0us, kT0us}));
  EXPECT_EQ(s->Column("port_label"), -1);
  EXPECT_EQ(s->Column("source_id"), -1);
  EXPECT_EQ(s->Column("tag"), -1);
}

TEST(ParseTelemetryCsvTest, SecondaryFixtureCarriesLinkSpeedAndWidth) {
  auto s = ParseTelemetryCsv(Fixture("secondary.csv"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->errors.empty());
  ASSERT_EQ(s->rows(), 3u);
  ASSERT_EQ(s->links.size(), 3u);
  EXPECT_FLOAT_EQ(s->links[0].lane_gbps, 100);  // NDR
  EXPECT_EQ(s->links[0].lanes, 4);
  EXPECT_FLOAT_EQ(s->links[1].lane_gbps, 50);  // HDR
  EXPECT_EQ(s->links[1].lanes, 2);
  EXPECT_FLOAT_EQ(s->links[2].lane_gbps, 200);  // XDR, "4X"
  EXPECT_EQ(s->links[2].lanes, 4);
}

TEST(ParseTelemetryCsvTest, TruncatedLastRowIsSkippedAndReported) {
  auto s = ParseTelemetryCsv(Fixture("truncated.csv"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->truncated);
  EXPECT_EQ(PortNames(s.value()), std::vector<std::string>{"e41d2d0300a4f482_1"});
  ASSERT_EQ(s->errors.size(), 1u);
  EXPECT_EQ(s->errors[0].rfind("line 3: truncated", 0), 0u) << s->errors[0];
}

TEST(ParseTelemetryCsvTest, NonUtf8BytesDoNotCrashAndErrorsStayPrintable) {
  auto s = ParseTelemetryCsv(Fixture("non_utf8.csv"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(PortNames(s.value()),
            (std::vector<std::string>{"e41d2d0300a4f482_1", "e41d2d0300a4f482_2"}));
  EXPECT_EQ(ValueOf(s.value(), "e41d2d0300a4f482_1", "SymbolErrorCounterExtended"), 5u);
  EXPECT_EQ(ValueOf(s.value(), "e41d2d0300a4f482_2", "SymbolErrorCounterExtended"), std::nullopt);
  EXPECT_EQ(ValueOf(s.value(), "e41d2d0300a4f482_2", "LinkDownedCounterExtended"), 1u);
  ASSERT_EQ(s->errors.size(), 1u);  // the row whose GUID holds 0xFF
  EXPECT_EQ(s->errors[0].rfind("line 4:", 0), 0u) << s->errors[0];
  EXPECT_TRUE(AllPrintable(s->errors));
}

TEST(ParseTelemetryCsvTest, NonPrintableHeaderNameIsIgnoredAndReportedPrintably) {
  auto s =
      ParseTelemetryCsv("port_guid,Port_Number,Sym\xff\xfe,LinkDownedCounterExtended\n0x1,1,5,6\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->counters, std::vector<std::string>{"LinkDownedCounterExtended"});
  ASSERT_EQ(s->errors.size(), 1u);
  EXPECT_NE(s->errors[0].find("\\xff\\xfe"), std::string::npos) << s->errors[0];
  EXPECT_TRUE(AllPrintable(s->errors));
}

constexpr const char* kHeader =
    "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,SymbolErrorCounterExtended,"
    "LinkDownedCounterExtended\n";

struct BadRowCase {
  std::string label;
  std::string row;
};

class CsvBadRowTest : public ::testing::TestWithParam<BadRowCase> {};

TEST_P(CsvBadRowTest, RowIsSkippedWithLineNumberAndTheRestParse) {
  const std::string csv = std::string(kHeader) + "1,s,,0x1,0xe41d2d0300a4f482,1,5,0\n" +
                          GetParam().row + "\n" + "1,s,,0x1,0xe41d2d0300a4f482,2,6,0\n";
  auto s = ParseTelemetryCsv(csv);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(PortNames(s.value()),
            (std::vector<std::string>{"e41d2d0300a4f482_1", "e41d2d0300a4f482_2"}));
  EXPECT_EQ(ValueOf(s.value(), "e41d2d0300a4f482_2", "SymbolErrorCounterExtended"), 6u);
  ASSERT_EQ(s->errors.size(), 1u);
  EXPECT_EQ(s->errors[0].rfind("line 3:", 0), 0u) << s->errors[0];
  EXPECT_FALSE(s->truncated);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, CsvBadRowTest,
    ::testing::Values(BadRowCase{"TooFewCells", "1,s,,0x1,0xe41d2d0300a4f482,3,5"},
                      BadRowCase{"TooManyCells", "1,s,,0x1,0xe41d2d0300a4f482,3,5,0,9"},
                      BadRowCase{"TrailingComma", "1,s,,0x1,0xe41d2d0300a4f482,3,5,0,"},
                      BadRowCase{"GuidNotHex", "1,s,,0x1,0xnothexnothexnoth,3,5,0"},
                      BadRowCase{"GuidTooLong", "1,s,,0x1,0xe41d2d0300a4f48200,3,5,0"},
                      BadRowCase{"PortNumberNotNumber", "1,s,,0x1,0xe41d2d0300a4f482,x,5,0"},
                      BadRowCase{"PortNumberEmpty", "1,s,,0x1,0xe41d2d0300a4f482,,5,0"},
                      BadRowCase{"PortNumberNegative", "1,s,,0x1,0xe41d2d0300a4f482,-1,5,0"},
                      BadRowCase{"PortNumberFraction", "1,s,,0x1,0xe41d2d0300a4f482,1.5,5,0"},
                      BadRowCase{"PortNumberTooBig", "1,s,,0x1,0xe41d2d0300a4f482,5000,5,0"},
                      BadRowCase{"GuidEmpty", "1,s,,0x1,,3,5,0"},
                      BadRowCase{"GuidOnlyPrefix", "1,s,,0x1,0x,3,5,0"},
                      BadRowCase{"UnbalancedQuote", "1,\"s,,0x1,0xe41d2d0300a4f482,3,5,0"},
                      BadRowCase{"OnlySpaces", "   "}),
    [](const ::testing::TestParamInfo<BadRowCase>& param) { return param.param.label; });

struct ValueCase {
  std::string label;
  std::string cell;
  std::optional<uint64_t> value;
};

class CsvCounterValueTest : public ::testing::TestWithParam<ValueCase> {};

TEST_P(CsvCounterValueTest, Cell) {
  auto s = ParseTelemetryCsv("port_guid,Port_Number,c\n0x1,1," + GetParam().cell + "\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->errors.empty());
  ASSERT_EQ(s->rows(), 1u);
  EXPECT_EQ(ValueOf(s.value(), "0000000000000001_1", "c"), GetParam().value);
}

INSTANTIATE_TEST_SUITE_P(
    Values, CsvCounterValueTest,
    ::testing::Values(ValueCase{"Digits", "42", 42}, ValueCase{"Zero", "0", 0},
                      ValueCase{"Empty", "", std::nullopt}, ValueCase{"NA", "N/A", std::nullopt},
                      ValueCase{"Negative", "-1", std::nullopt},
                      ValueCase{"Fraction", "1.5", std::nullopt},
                      ValueCase{"Exponent", "1e3", 1000}, ValueCase{"Plus", "+3", 3},
                      ValueCase{"Spaces", " 7 ", 7}, ValueCase{"Quoted", "\"9\"", 9},
                      ValueCase{"NaN", "NaN", std::nullopt},
                      ValueCase{"TwentyDigits", "18446744073709551614", 18446744073709551614ULL},
                      ValueCase{"MaxIsAbsent", "18446744073709551615", std::nullopt},
                      ValueCase{"Overflow", "18446744073709551616", std::nullopt},
                      ValueCase{"Hex", "0x10", std::nullopt}),
    [](const ::testing::TestParamInfo<ValueCase>& param) { return param.param.label; });

struct GuidCase {
  std::string label;
  std::string guid;
  std::string port;
};

class CsvGuidTest : public ::testing::TestWithParam<GuidCase> {};

TEST_P(CsvGuidTest, PortName) {
  auto s = ParseTelemetryCsv("port_guid,Port_Number\n" + GetParam().guid + ",7\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->rows(), 1u) << (s->errors.empty() ? "" : s->errors[0]);
  EXPECT_EQ(PortName(s->ports[0]), GetParam().port);
}

INSTANTIATE_TEST_SUITE_P(
    Guids, CsvGuidTest,
    ::testing::Values(GuidCase{"Short", "0xabc", "0000000000000abc_7"},
                      GuidCase{"Upper", "0xE41D2D0300A4F482", "e41d2d0300a4f482_7"},
                      GuidCase{"UpperPrefix", "0XE41D2D0300A4F482", "e41d2d0300a4f482_7"},
                      GuidCase{"NoPrefix", "2c90300f172a2", "0002c90300f172a2_7"}),
    [](const ::testing::TestParamInfo<GuidCase>& param) { return param.param.label; });

TEST(ParseTelemetryCsvTest, LineNumbersCountBlankLines) {
  const std::string csv =
      std::string(kHeader) + "\n1,s,,0x1,0xe41d2d0300a4f482,1,5,0\n\n1,s,,0x1,bad!,1,5,0\n";
  auto s = ParseTelemetryCsv(csv);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->rows(), 1u);
  ASSERT_EQ(s->errors.size(), 1u);
  EXPECT_EQ(s->errors[0].rfind("line 5:", 0), 0u) << s->errors[0];
}

TEST(ParseTelemetryCsvTest, QuotedCellWithCommaAndQuotes) {
  const std::string csv =
      "timestamp,node_description,port_guid,Port_Number,SymbolErrorCounterExtended\n"
      "1,\"T3-E21-N-U47, \"\"rack\"\" 3\",0xe41d2d0300a4f482,1,4\n";
  auto s = ParseTelemetryCsv(csv);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->errors.empty());
  EXPECT_EQ(ValueOf(s.value(), kHca, "SymbolErrorCounterExtended"), 4u);
}

TEST(ParseTelemetryCsvTest, AliasesAndMissingTimestampColumn) {
  auto s = ParseTelemetryCsv("guid,port_num,SymbolErrorCounterExtended\n0x2,4,1\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(PortNames(s.value()), std::vector<std::string>{"0000000000000002_4"});
  EXPECT_EQ(s->time_us, std::vector<int64_t>{0});
  EXPECT_EQ(s->counters, std::vector<std::string>{"SymbolErrorCounterExtended"});
}

TEST(ParseTelemetryCsvTest, PortGuidWinsOverGuid) {
  auto s = ParseTelemetryCsv("guid,port_guid,Port_Number\n0x2,0x3,4\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(PortNames(s.value()), std::vector<std::string>{"0000000000000003_4"});
}

TEST(ParseTelemetryCsvTest, RepeatedCounterColumnKeepsTheFirst) {
  auto s = ParseTelemetryCsv("port_guid,Port_Number,c,c\n0x1,1,5,6\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(ValueOf(s.value(), "0000000000000001_1", "c"), 5u);
  ASSERT_EQ(s->errors.size(), 1u);
  EXPECT_NE(s->errors[0].find("repeats"), std::string::npos);
}

TEST(ParseTelemetryCsvTest, ByteOrderMarkAndLeadingBlankLines) {
  auto s = ParseTelemetryCsv("\xEF\xBB\xBF\n\nport_guid,Port_Number,c\n0x1,1,5\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(ValueOf(s.value(), "0000000000000001_1", "c"), 5u);
}

TEST(ParseTelemetryCsvTest, HeaderOnly) {
  auto s = ParseTelemetryCsv(kHeader);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->rows(), 0u);
  EXPECT_TRUE(s->errors.empty());
}

class CsvHeaderErrorTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CsvHeaderErrorTest, IsAnError) {
  auto s = ParseTelemetryCsv(GetParam());
  ASSERT_FALSE(s.ok()) << GetParam();
  EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(
    MissingColumnsOrEmpty, CsvHeaderErrorTest,
    // (Node_GUID with Port_Number and no port_guid is read: TelemetryKeysTest.)
    ::testing::Values("timestamp,source_id,tag,Node_GUID,port_guid,SymbolErrorCounterExtended\n"
                      "1,s,,0x1,0x2,0\n",
                      "a,b,c\n1,2,3\n", "", "\n", "\r\n\r\n"));

TEST(ParseTelemetryCsvTest, EmptyTextSaysEmpty) {
  auto s = ParseTelemetryCsv("");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("empty"), std::string::npos);
}

struct RoleCase {
  std::string name;
  ColumnRole role;
};

class ClassifyColumnTest : public ::testing::TestWithParam<RoleCase> {};

TEST_P(ClassifyColumnTest, Role) {
  EXPECT_EQ(ClassifyColumn(GetParam().name), GetParam().role) << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    Names, ClassifyColumnTest,
    ::testing::Values(
        RoleCase{"timestamp", ColumnRole::kTimestamp}, RoleCase{"port_guid", ColumnRole::kPortGuid},
        RoleCase{"Port_GUID", ColumnRole::kPortGuid}, RoleCase{"guid", ColumnRole::kGuid},
        RoleCase{"Port_Number", ColumnRole::kPortNumber},
        RoleCase{"port_num", ColumnRole::kPortNumber}, RoleCase{"port", ColumnRole::kPortNumber},
        RoleCase{"Link_speed_active", ColumnRole::kLinkSpeed},
        RoleCase{"active_width", ColumnRole::kLinkWidth},
        RoleCase{"source_id", ColumnRole::kAttribute}, RoleCase{"tag", ColumnRole::kAttribute},
        RoleCase{"Node_GUID", ColumnRole::kNodeGuid}, RoleCase{"node_guid", ColumnRole::kNodeGuid},
        RoleCase{"port_type", ColumnRole::kPortType},
        RoleCase{"node_description", ColumnRole::kAttribute},
        RoleCase{"device_name", ColumnRole::kAttribute},
        RoleCase{"link_partner_port_num", ColumnRole::kAttribute},
        RoleCase{"Total_Raw_BER", ColumnRole::kGauge}, RoleCase{"Symbol_BER", ColumnRole::kGauge},
        RoleCase{"Module_Temperature", ColumnRole::kGauge},
        RoleCase{"SymbolErrorCounterExtended", ColumnRole::kCounter},
        RoleCase{"Symbol_Errors", ColumnRole::kCounter},
        RoleCase{"Link_Down_IB", ColumnRole::kCounter}));

}  // namespace
}  // namespace ufmr

namespace ufmr {
namespace {

// Each endpoint keys its rows in its own spelling: the primary as NVIDIA's manual lists its
// fields (node_guid, port_guid, port_num), the secondary as NVIDIA's PDR plugin reads
// low_freq_debug (Node_GUID, port_guid, Port_Number). port_guid names the port either way.
TEST(TelemetryKeysTest, PrimaryAndSecondaryKeysNameThePortByPortGuid) {
  auto primary = ParseTelemetryCsv(
      "timestamp,source_id,tag,node_guid,port_guid,port_num,SymbolErrorCounterExtended\n"
      "1712228785304112,s,t,0x9c0591030090e000,0x9c0591030090e000,33,5\n"
      "1712228785304112,s,t,0xe41d2d0300a4f480,0xe41d2d0300a4f482,1,0\n");
  ASSERT_TRUE(primary.ok()) << primary.status().ToString();
  EXPECT_EQ(PortNames(primary.value()),
            (std::vector<std::string>{"9c0591030090e000_33", "e41d2d0300a4f482_1"}));
  EXPECT_EQ(primary->keyed_by, "port_guid + port number");
  EXPECT_TRUE(TelemetryNotRead(primary.value()).empty());
  auto secondary = ParseTelemetryCsv(
      "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,Symbol_Errors\n"
      "1712228785304112,s,t,0xe41d2d0300a4f480,0xe41d2d0300a4f482,1,7\n");
  ASSERT_TRUE(secondary.ok()) << secondary.status().ToString();
  EXPECT_EQ(PortNames(secondary.value()), (std::vector<std::string>{"e41d2d0300a4f482_1"}))
      << "the host's port, not its adapter's node GUID";
}

// Without port_guid, Node_GUID names the port (as NVIDIA's PDR plugin takes it): right for a
// switch, and said plainly, since a host's row then names its adapter's node.
TEST(TelemetryKeysTest, WithoutPortGuidNodeGuidKeysTheRowsAndSaysSo) {
  auto s = ParseTelemetryCsv(
      "timestamp,Node_GUID,Port_Number,Symbol_Errors\n"
      "1712228785304112,0x9c0591030090e000,33,5\n");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(PortNames(s.value()), (std::vector<std::string>{"9c0591030090e000_33"}));
  EXPECT_EQ(s->keyed_by.rfind("Node_GUID + port number", 0), 0u) << s->keyed_by;
  ASSERT_EQ(TelemetryNotRead(s.value()).size(), 1u);
  EXPECT_NE(TelemetryNotRead(s.value())[0].find("host"), std::string::npos);
  EXPECT_TRUE(s->errors.empty()) << "a keying, not an error";
}

// XDR rows (NVIDIA's fluentd telemetry plugin: port_type 1 legacy, 2 plane, 4 aggregated, an
// aggregated port keyed by sys_image_guid and aport): the aggregated rows are counted, not read,
// and not errors; the others are read by their port_guid.
TEST(TelemetryKeysTest, XdrAggregatedRowsAreCountedNotRead) {
  auto s = ParseTelemetryCsv(
      "timestamp,sys_image_guid,aport,port_type,node_guid,port_guid,port_num,"
      "SymbolErrorCounterExtended\n"
      "1712228785304112,0xfc6a1c0300244e00,1,4,,,,9\n"
      "1712228785304112,0xfc6a1c0300244e00,1,2,0xfc6a1c0300244e00,0xfc6a1c0300244e00,1,4\n"
      "1712228785304112,0xfc6a1c0300244e00,1,2,0xfc6a1c0300244e00,0xfc6a1c0300244e00,2,5\n"
      "1712228785304112,,,1,0x9c0591030090e000,0x9c0591030090e000,3,6\n");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(
      PortNames(s.value()),
      (std::vector<std::string>{"fc6a1c0300244e00_1", "fc6a1c0300244e00_2", "9c0591030090e000_3"}));
  EXPECT_EQ(s->aggregated_rows, 1u);
  EXPECT_TRUE(s->errors.empty()) << s->errors.front();
  ASSERT_EQ(TelemetryNotRead(s.value()).size(), 1u);
  EXPECT_NE(TelemetryNotRead(s.value())[0].find("1 rows of XDR aggregated ports"),
            std::string::npos);
  // A sample of aggregated ports alone has no port key at all: the error says why.
  auto only =
      ParseTelemetryCsv("timestamp,sys_image_guid,aport,port_type,Symbol_Errors\n1,0x1,1,4,0\n");
  ASSERT_FALSE(only.ok());
  EXPECT_NE(only.status().message().find("XDR aggregated ports"), std::string::npos);
}

}  // namespace
}  // namespace ufmr
