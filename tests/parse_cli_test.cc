// Covers `ufm-remediator parse` as rule authors run it, over the fixtures in tests/testdata/parse
// (documented UFM lines; see the README there): each source, lines it cannot place with their
// line numbers, resolution through a saved ports answer, and the exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_env.h"

namespace ufmr {
namespace {

using nlohmann::json;

testing::CommandResult Parse(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {testing::BinaryDir() + "/ufm-remediator", "parse"};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::RunCommand(argv);
}

std::string Fixture(const std::string& name) {
  return testing::SourceDir() + "/tests/testdata/parse/" + name;
}

std::vector<json> Lines(const std::string& out) {
  std::vector<json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);
    EXPECT_TRUE(j.is_object()) << "not a JSON object: " << line;
    if (j.is_object()) lines.push_back(std::move(j));
  }
  return lines;
}

// Every observation has exactly the documented fields.
void ExpectObservationShape(const json& j) {
  for (const char* key :
       {"time", "source", "event_id", "severity", "ports", "switch", "host", "labels", "message"}) {
    EXPECT_TRUE(j.contains(key)) << key << " missing in " << j.dump();
  }
  EXPECT_EQ(j.size(), 9u) << j.dump();
  EXPECT_TRUE(j["ports"].is_array());
  EXPECT_TRUE(j["labels"].is_array());
  EXPECT_TRUE(j["switch"].is_null() || j["switch"].is_string());
  EXPECT_TRUE(j["host"].is_null() || j["host"].is_string());
}

TEST(ParseCliTest, EventLogEntriesAndErrorsWithTheirFirstLine) {
  auto r = Parse({"--event-log", Fixture("event.log")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 7u) << r.out;
  EXPECT_EQ(lines[0]["line"], 1) << r.out;
  EXPECT_TRUE(lines[0]["error"].is_string());
  EXPECT_EQ(lines[6]["line"], 8) << r.out;
  for (size_t i = 1; i < 6; ++i) ExpectObservationShape(lines[i]);

  const json& old_link = lines[2];  // IBM CAST's link-down
  EXPECT_EQ(old_link["source"], "event_log");
  EXPECT_EQ(old_link["event_id"], 329);
  EXPECT_EQ(old_link["severity"], "WARNING");
  EXPECT_EQ(old_link["time"], "2023-12-20T07:46:24.442Z");
  EXPECT_EQ(old_link["ports"], json({"f4521403008817f0_12", "e41d2d0300a4f482_1"}));
  EXPECT_EQ(old_link["switch"], "mellanox-SX6036");
  EXPECT_EQ(old_link["host"], "fsgb001 HCA-1");

  const json& labelled = lines[3];
  EXPECT_EQ(labelled["ports"], json({"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
  EXPECT_EQ(labelled["labels"], json({"1/17/1", "1/4/2"}));
  EXPECT_EQ(labelled["switch"], "T3-E21-N-U47");
  EXPECT_TRUE(labelled["host"].is_null());

  EXPECT_EQ(lines[1]["event_id"], 112);
  EXPECT_EQ(lines[1]["switch"], "c931ibsw-leaf01");  // the IBPort object names it
  // The switch's port: <dev_id>_<number> from the IBPort object, not the peer host's.
  EXPECT_EQ(lines[1]["ports"], json({"248a0703006d40f0_16"})) << lines[1].dump();
  EXPECT_EQ(lines[4]["event_id"], 702);
  EXPECT_EQ(lines[4]["ports"], json::array());  // "<node>:<label>" needs the inventory

  const json& multiline = lines[5];
  EXPECT_EQ(multiline["event_id"], 907);
  EXPECT_EQ(multiline["severity"], "CRITICAL");
  EXPECT_EQ(multiline["message"], "Switch is down\ncontinued on a second line");
  EXPECT_EQ(multiline["switch"], "T3-E21-N-U47");
  EXPECT_NE(r.err.find("parsed 5 observations, 2 errors"), std::string::npos) << r.err;
}

TEST(ParseCliTest, UtcOffsetShiftsUfmLocalTime) {
  auto r = Parse({"--event-log", Fixture("event.log"), "--utc-offset", "+02:00"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = Lines(r.out);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[2]["time"], "2023-12-20T05:46:24.442Z");
}

TEST(ParseCliTest, PortsFileResolvesNodeLabelReferencesAndPlacesPorts) {
  auto r = Parse({"--event-log", Fixture("event.log"), "--ports", Fixture("ports.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 7u) << r.out;
  // 702: "Peer Port T2-E63-L-U37:1/19/2" is the port whose node description that is.
  EXPECT_EQ(lines[4]["ports"], json({"0c42a10300e1f2b0_38"})) << lines[4].dump();
  EXPECT_EQ(lines[4]["switch"], "T2-E63-L-U37");
  // The host as the inventory names it (its system name).
  EXPECT_EQ(lines[2]["host"], "fsgb001");
}

TEST(ParseCliTest, SyslogRecordsOneALine) {
  auto r = Parse({"--syslog", Fixture("syslog.log")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;  // the blank line 3 is no record
  ExpectObservationShape(lines[1]);
  EXPECT_EQ(lines[1]["source"], "syslog");
  EXPECT_EQ(lines[1]["event_id"], 329);
  EXPECT_EQ(lines[1]["ports"], json({"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
  EXPECT_EQ(lines[2]["line"], 4);
  EXPECT_TRUE(lines[2]["error"].is_string());
}

// The forwarded record as IBM CAST's collectors received it: "WARNING - " before the event-log
// line: the header and that prefix come off, and the IBPort object gives the port.
TEST(ParseCliTest, SyslogRecordWithSeverityPrefix) {
  auto r = Parse({"--syslog", Fixture("syslog.log")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = Lines(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0]["event_id"], 112) << lines[0].dump();
  EXPECT_EQ(lines[0]["severity"], "WARNING");
  EXPECT_EQ(lines[0]["switch"], "c931ibsw-leaf01");
  EXPECT_EQ(lines[0]["ports"], json({"248a0703006d40f0_16"})) << lines[0].dump();
}

TEST(ParseCliTest, RestEventsBothLayoutsAndBadElementsByLine) {
  auto r = Parse({"--rest-events", Fixture("events.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  ExpectObservationShape(lines[0]);
  EXPECT_EQ(lines[0]["source"], "rest");
  EXPECT_EQ(lines[0]["event_id"], 352);  // 6.16: "type" holds the id
  EXPECT_EQ(lines[0]["severity"], "Info");
  EXPECT_EQ(lines[0]["time"], "2017-09-19T10:49:03.018Z");
  EXPECT_EQ(lines[1]["event_id"], 67);  // 6.17: "event_type" does
  EXPECT_EQ(lines[2]["line"], 4);
  EXPECT_TRUE(lines[2]["error"].is_string());
  EXPECT_EQ(lines[3]["event_id"], 329);
  EXPECT_EQ(lines[3]["ports"], json({"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
  EXPECT_EQ(lines[3]["labels"], json({"1/17/1", "1/4/2"}));
  EXPECT_EQ(lines[3]["switch"], "T3-E21-N-U47");
  EXPECT_NE(r.err.find("parsed 3 observations, 1 errors"), std::string::npos) << r.err;
}

TEST(ParseCliTest, TelemetryRowsAsCounterValues) {
  auto r = Parse({"--telemetry", Fixture("telemetry.csv"), "--ports", Fixture("ports.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  ExpectObservationShape(lines[0]);
  EXPECT_EQ(lines[0]["source"], "telemetry");
  EXPECT_TRUE(lines[0]["event_id"].is_null());
  EXPECT_EQ(lines[0]["time"], "2024-05-28T08:03:05.000Z");
  EXPECT_EQ(lines[0]["ports"], json({"9c0591030090e000_33"}));
  EXPECT_EQ(lines[0]["switch"], "T3-E21-N-U47");
  EXPECT_EQ(lines[0]["message"], json({{"SymbolErrorCounterExtended", 12},
                                       {"LinkDownedCounterExtended", 2},
                                       {"PortRcvErrorsExtended", 0}}));
  EXPECT_EQ(lines[1]["host"], "fsgb001");
  EXPECT_FALSE(lines[1]["message"].contains("LinkDownedCounterExtended"));  // an empty cell
  EXPECT_EQ(lines[2]["line"], 3);
}

TEST(ParseCliTest, UsageErrorsExit2WithOneLine) {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"--event-log", Fixture("event.log"), "--syslog", Fixture("syslog.log")},
      {"--event-log"},
      {"--bogus", "x"},
      {"--event-log", Fixture("event.log"), "--utc-offset", "+25:00"},
      {"stray", "--event-log", Fixture("event.log")},
  };
  for (const auto& args : bad) {
    auto r = Parse(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  auto help = Parse({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--rest-events"), std::string::npos);
}

TEST(ParseCliTest, UnreadableFileExits1) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--event-log", Fixture("no-such-file.log")},
           {"--telemetry", Fixture("")},  // a folder
           {"--rest-events", Fixture("events.json"), "--ports", Fixture("no-such-ports.json")}}) {
    auto r = Parse(args);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("cannot read"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace ufmr

namespace ufmr {
namespace {

// A recording (tests/testdata/recorded/, as probe --record writes one) reads with parse as the
// service reads UFM: every telemetry row is placed on a port of the recorded ports (a host's rows
// by port_guid, though their port numbers are the adapter's place), on its machine; every event
// reads, in its layout.
TEST(ParseCliTest, EachRecordingReadsWholly) {
  for (const char* shape : {"6.10-6.16", "6.17-6.19", "6.20-6.22"}) {
    SCOPED_TRACE(shape);
    const std::string dir = testing::SourceDir() + "/tests/testdata/recorded/" + shape;
    auto r = Parse({"--telemetry", dir + "/telemetry.csv", "--ports", dir + "/ports.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto lines = Lines(r.out);
    ASSERT_EQ(lines.size(), 12u) << r.out;  // one per port (7 switch, 5 host), no error
    std::set<std::string> hosts;
    for (const auto& l : lines) {
      ASSERT_FALSE(l.contains("error")) << l.dump();
      EXPECT_TRUE(l["switch"].is_string() || l["host"].is_string()) << l.dump();
      if (l["host"].is_string()) hosts.insert(l["host"]);
    }
    EXPECT_EQ(hosts, (std::set<std::string>{"node-01", "node-02", "node-03"}));
    r = Parse({"--rest-events", dir + "/events.json", "--ports", dir + "/ports.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    lines = Lines(r.out);
    ASSERT_EQ(lines.size(), 1u) << r.out;
    EXPECT_FALSE(lines[0].contains("error")) << lines[0].dump();
  }
}

}  // namespace
}  // namespace ufmr
