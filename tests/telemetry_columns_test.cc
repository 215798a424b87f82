// Covers src/config/telemetry_columns.h (TelemetryColumns, the known column names) and its use by
// the CSV and Prometheus parsers: a column map from the configuration turns a collector's names
// (NVIDIA's fluentd sample: Infiniband_SymbolErrors_u_Errors) into ours; names match without
// regard to case (headers spelled NODE_GUID, PORT_GUID, PORT_NUM; counters in any case); bad maps
// are clear errors.
#include "config/telemetry_columns.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "support/snapshot_values.h"
#include "support/test_env.h"
#include "telemetry/telemetry_csv.h"
#include "telemetry/telemetry_prometheus.h"
#include "telemetry/telemetry_source.h"

namespace ufmr {
namespace {

using testing::PortNames;
using testing::ValueOf;

const std::string kSw5 = "fc6a1c0300686f68_5";
const std::string kSw6 = "fc6a1c0300686f68_6";
const std::string kHca = "e41d2d0300a4f482_1";

std::string Fixture(const std::string& name) { return testing::ReadFixture("telemetry/" + name); }

TelemetryColumns Map(const std::map<std::string, std::string>& m) {
  auto c = TelemetryColumns::Make(m);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? c.value() : TelemetryColumns();
}

// The error counters of NVIDIA's fluentd sample, onto ours.
const std::map<std::string, std::string> kFluentd = {
    {"SymbolErrorCounterExtended", "Infiniband_SymbolErrors_u_Errors"},
    {"LinkErrorRecoveryCounterExtended", "Infiniband_LinkRecovers_u_Errors"},
    {"LinkDownedCounterExtended", "Infiniband_LinkDowned_u_Errors"},
    {"PortRcvErrorsExtended", "Infiniband_RcvErrors_u_Errors"}};

struct RenameCase {
  std::string label;
  std::string name;
  std::string expect;
};

class RenameTest : public ::testing::TestWithParam<RenameCase> {};

TEST_P(RenameTest, Name) {
  const TelemetryColumns columns = Map({{"SymbolErrorCounterExtended", "Sym_Err"},
                                        {"port_num", "PortNo"},
                                        {"timestamp", "sample_time_us"}});
  EXPECT_EQ(columns.Rename(GetParam().name), GetParam().expect);
}

INSTANTIATE_TEST_SUITE_P(
    Names, RenameTest,
    ::testing::Values(RenameCase{"Mapped", "Sym_Err", "SymbolErrorCounterExtended"},
                      RenameCase{"MappedAnyCase", "SYM_ERR", "SymbolErrorCounterExtended"},
                      RenameCase{"MappedIdentifier", "portno", "port_num"},
                      RenameCase{"MappedTimestamp", "Sample_Time_US", "timestamp"},
                      RenameCase{"KnownCounterInAnotherCase", "linkdownedcounterextended",
                                 "LinkDownedCounterExtended"},
                      RenameCase{"KnownIdentifierInAnotherCase", "PORT_GUID", "port_guid"},
                      RenameCase{"UnknownKeptAsIs", "Infiniband_MBOut_u_Gb",
                                 "Infiniband_MBOut_u_Gb"},
                      RenameCase{"PortNumberAliasKept", "Port_Number", "Port_Number"},
                      RenameCase{"Empty", "", ""}),
    [](const ::testing::TestParamInfo<RenameCase>& p) { return p.param.label; });

struct BadMapCase {
  std::string label;
  std::map<std::string, std::string> map;
  std::string expect;
};

class BadMapTest : public ::testing::TestWithParam<BadMapCase> {};

TEST_P(BadMapTest, IsAClearError) {
  auto c = TelemetryColumns::Make(GetParam().map);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find(GetParam().expect), std::string::npos)
      << c.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Maps, BadMapTest,
    ::testing::Values(
        BadMapCase{
            "UnknownCounter", {{"SymbolErrors", "x"}}, "unknown counter name 'SymbolErrors'"},
        BadMapCase{"EmptyColumn", {{"SymbolErrorCounterExtended", ""}}, "empty column name"},
        BadMapCase{"BlankColumn", {{"SymbolErrorCounterExtended", "  "}}, "empty column name"},
        BadMapCase{"OneColumnTwoNames",
                   {{"SymbolErrorCounterExtended", "errs"}, {"PortRcvErrorsExtended", "ERRS"}},
                   "is given for both PortRcvErrorsExtended and SymbolErrorCounterExtended"},
        BadMapCase{"SameNameTwiceInTwoCases",
                   {{"SymbolErrorCounterExtended", "a"}, {"symbolerrorcounterextended", "b"}},
                   "SymbolErrorCounterExtended is mapped twice"}),
    [](const ::testing::TestParamInfo<BadMapCase>& p) { return p.param.label; });

TEST(TelemetryColumnsTest, KnownNamesAreUniqueAndCanonical) {
  std::map<std::string, int> lower;
  for (std::string_view name : KnownTelemetryColumns()) {
    std::string l(name);
    for (char& ch : l) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    EXPECT_EQ(++lower[l], 1) << name;
    EXPECT_EQ(CanonicalTelemetryColumn(l), name);
  }
  EXPECT_TRUE(CanonicalTelemetryColumn("Infiniband_SymbolErrors_u_Errors").empty());
}

TEST(TelemetryColumnsTest, FluentdNamesMapOntoOurCounters) {
  auto s = ParseTelemetryCsv(Fixture("fluentd_names.csv"), Map(kFluentd));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->errors.empty());
  EXPECT_EQ(PortNames(s.value()), (std::vector<std::string>{kSw5, kSw6, kHca}));
  EXPECT_EQ(s->counters,
            (std::vector<std::string>{"Infiniband_MBOut_u_Gb", "SymbolErrorCounterExtended",
                                      "LinkErrorRecoveryCounterExtended",
                                      "LinkDownedCounterExtended", "PortRcvErrorsExtended"}));
  EXPECT_EQ(ValueOf(s.value(), kSw5, "SymbolErrorCounterExtended"), 12u);
  EXPECT_EQ(ValueOf(s.value(), kSw5, "LinkDownedCounterExtended"), 2u);
  EXPECT_EQ(ValueOf(s.value(), kHca, "PortRcvErrorsExtended"), 3u);
  EXPECT_EQ(s->time_us[0], 1'700'000'000'000'000);
}

TEST(TelemetryColumnsTest, WithoutAMapFluentdNamesStayTheirOwn) {
  auto s = ParseTelemetryCsv(Fixture("fluentd_names.csv"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(PortNames(s.value()), (std::vector<std::string>{kSw5, kSw6, kHca}));
  EXPECT_LT(s->Column("SymbolErrorCounterExtended"), 0);
  EXPECT_EQ(ValueOf(s.value(), kSw5, "Infiniband_SymbolErrors_u_Errors"), 12u);
}

TEST(TelemetryColumnsTest, HeadersMatchWithoutRegardToCase) {
  auto s = ParseTelemetryCsv(Fixture("upper_case_headers.csv"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->errors.empty());
  EXPECT_EQ(PortNames(s.value()), (std::vector<std::string>{kSw5, kSw6, kHca}));
  EXPECT_EQ(s->time_us[2], 1'700'000'000'000'000);
  // Counters take the service's spelling, so rules naming them match.
  EXPECT_EQ(s->counters,
            (std::vector<std::string>{"SymbolErrorCounterExtended", "LinkDownedCounterExtended"}));
  EXPECT_EQ(ValueOf(s.value(), kSw5, "SymbolErrorCounterExtended"), 12u);
  EXPECT_EQ(ValueOf(s.value(), kHca, "LinkDownedCounterExtended"), 1u);
}

TEST(TelemetryColumnsTest, MappedAndOwnNameBothPresentKeepsTheFirst) {
  const std::string csv =
      "port_guid,port_num,errs,SymbolErrorCounterExtended\n0xfc6a1c0300686f68,5,7,9\n";
  auto s = ParseTelemetryCsv(csv, Map({{"SymbolErrorCounterExtended", "errs"}}));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(ValueOf(s.value(), kSw5, "SymbolErrorCounterExtended"), 7u);
  ASSERT_EQ(s->errors.size(), 1u);
  EXPECT_NE(s->errors[0].find("repeats SymbolErrorCounterExtended"), std::string::npos)
      << s->errors[0];
}

TEST(TelemetryColumnsTest, PrometheusMetricAndLabelNamesAreMapped) {
  const std::string prom =
      "# TYPE Infiniband_SymbolErrors_u_Errors counter\n"
      "Infiniband_SymbolErrors_u_Errors{GUID_OF_PORT=\"0xfc6a1c0300686f68\",portno=\"5\"} 12 "
      "1700000000000\n"
      "INFINIBAND_LINKDOWNED_U_ERRORS{GUID_OF_PORT=\"0xfc6a1c0300686f68\",portno=\"5\"} 2 "
      "1700000000000\n";
  std::map<std::string, std::string> m = kFluentd;
  m["port_guid"] = "guid_of_port";
  m["port_num"] = "PortNo";
  auto s = ParseTelemetryPrometheus(prom, Map(m));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(PortNames(s.value()), std::vector<std::string>{kSw5});
  EXPECT_EQ(ValueOf(s.value(), kSw5, "SymbolErrorCounterExtended"), 12u);
  EXPECT_EQ(ValueOf(s.value(), kSw5, "LinkDownedCounterExtended"), 2u);
  EXPECT_EQ(s->time_us[0], 1'700'000'000'000'000);
}

TEST(TelemetryColumnsTest, ParseTelemetryPassesTheMapToEitherFormat) {
  auto csv = ParseTelemetry(Fixture("fluentd_names.csv"), TelemetryFormat::kAuto, "text/csv",
                            Map(kFluentd));
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  EXPECT_EQ(ValueOf(csv.value(), kSw5, "SymbolErrorCounterExtended"), 12u);
  auto prom = ParseTelemetry(
      "Infiniband_SymbolErrors_u_Errors{port_guid=\"0xfc6a1c0300686f68\",port_num=\"5\"} 4\n",
      TelemetryFormat::kAuto, "", Map(kFluentd));
  ASSERT_TRUE(prom.ok()) << prom.status().message();
  EXPECT_EQ(ValueOf(prom.value(), kSw5, "SymbolErrorCounterExtended"), 4u);
}

}  // namespace
}  // namespace ufmr
