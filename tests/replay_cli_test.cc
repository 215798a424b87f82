// Covers `ufm-remediator replay` as engineers run it, over the recorded fabric in
// tests/testdata/replay (see make_fixture.py there): three hours of a two-leaf fabric with a link
// that goes down, a flapping link, a symbol-error ramp, a host reboot, a switch reboot, a port a
// person isolated and a counter reset. The shipped rules must act on the first three and leave
// the rest alone; every line is one decision with the documented fields, in time order. --jobs N
// gives the same decisions as one thread; --progress reports lines, rate and the log's time on
// stderr; a bad --jobs is a usage error.
#include <gtest/gtest.h>
#include <re2/re2.h>
#include <sys/wait.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_env.h"

namespace ufmr {
namespace {

using nlohmann::json;
using std::chrono::seconds;

using CliRun = testing::CommandResult;

CliRun Replay(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {testing::BinaryDir() + "/ufm-remediator", "replay"};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::RunCommand(argv);
}

std::vector<std::string> RecordedFabric() {
  const std::string d = testing::SourceDir() + "/tests/testdata/replay";
  return {"--rules",     testing::SourceDir() + "/rules",
          "--event-log", d + "/event.log",
          "--telemetry", d + "/telemetry",
          "--ports",     d + "/ports.json",
          "--format",    "jsonl"};
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

constexpr const char* kLinkDown = "9c0591030090e000_5";   // went down and stayed down
constexpr const char* kFlapping = "9c0591030090e000_33";  // uplink, flapping
constexpr const char* kRamp = "9c0591030090f000_7";       // symbol-error ramp, host's only link
constexpr const char* kReboot = "9c0591030090e000_3";     // fsgb002's link, host reboot
constexpr const char* kManual = "9c0591030090e000_4";     // a person isolated it
constexpr const char* kReset = "9c0591030090e000_6";      // counter cleared

TEST(ReplayCliTest, ActsOnRealFaultsAndLeavesRebootsManualPortsAndResetsAlone) {
  CliRun r = Replay(RecordedFabric());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> lines = Lines(r.out);
  ASSERT_FALSE(lines.empty()) << r.err;

  std::map<std::string, int> acted;  // port -> disable/isolate decisions
  std::map<std::string, std::set<std::string>> by_port;
  for (const auto& d : lines) {
    std::string port = d.value("port", "");
    by_port[port].insert(d["decision"].get<std::string>());
    if (d["decision"] == "disable" || d["decision"] == "isolate") ++acted[port];
  }
  // Acted on exactly once each, and on nothing else.
  EXPECT_EQ(acted, (std::map<std::string, int>{{kLinkDown, 1}, {kFlapping, 1}})) << r.out;
  // fsgb005's only link has errors: ticketed and blocked, never cut; the host is to be drained.
  // (Later findings on it are suppressed: its ticket is open.)
  EXPECT_EQ(by_port[kRamp], (std::set<std::string>{"blocked", "suppressed"})) << r.out;
  int last_link = 0;
  for (const auto& d : lines) {
    if (d.value("port", "") != kRamp || d["decision"] != "blocked") continue;
    EXPECT_EQ(d["guard"], "last_link") << d.dump();
    EXPECT_NE(d["reason"].get<std::string>().find("drain the host first"), std::string::npos)
        << d.dump();
    last_link += d["rule"] == "symbol_errors";
  }
  EXPECT_EQ(last_link, 1) << r.out;
  // The switch side is cut, and the peer named.
  for (const auto& d : lines) {
    if (d["decision"] == "disable" && d["port"] == kLinkDown) {
      EXPECT_EQ(d["rule"], "link_down");
      EXPECT_EQ(d["peer"], "e41d2d0300a4f484_1");
      EXPECT_EQ(d["title"], "Link down: T3-E21-N-U47 1/3/1 <-> fsgb003 HCA-1 port 1");
    }
    if (d["decision"] == "disable" && d["port"] == kFlapping) {
      EXPECT_EQ(d["rule"], "link_flapping");
    }
  }
  // The host reboot: a node-level record, and its link's finding suppressed.
  EXPECT_EQ(by_port[kReboot], std::set<std::string>{"suppressed"});
  // The person's port: blocked, never cut.
  EXPECT_EQ(by_port[kManual], std::set<std::string>{"blocked"});
  // The cleared counter: nothing at all.
  EXPECT_EQ(by_port.count(kReset), 0u) << r.out;

  bool node = false, sw = false;
  for (const auto& d : lines) {
    node = node || (d["rule"] == "node_reboot" && d.value("node", "") == "fsgb002");
    sw = sw || (d["rule"] == "switch_reboot" && d.value("switch", "") == "T3-E22-N-U48" &&
                d["decision"] == "ticket");
  }
  EXPECT_TRUE(node) << r.out;
  EXPECT_TRUE(sw) << r.out;
  // The summary goes to stderr, not into the JSON lines.
  EXPECT_NE(r.err.find("37 telemetry snapshots"), std::string::npos) << r.err;
}

TEST(ReplayCliTest, EveryLineHasTheDocumentedFieldsInTimeOrder) {
  CliRun r = Replay(RecordedFabric());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::set<std::string> kinds = {"finding", "disable",    "isolate",
                                       "ticket",  "suppressed", "blocked"};
  std::string previous;
  for (const auto& d : Lines(r.out)) {
    ASSERT_TRUE(d.contains("time") && d.contains("rule") && d.contains("decision") &&
                d.contains("reason"))
        << d.dump();
    std::string time = d["time"];
    EXPECT_TRUE(RE2::FullMatch(time, R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")) << time;
    EXPECT_GE(time, previous) << "decisions out of time order";
    previous = time;
    EXPECT_TRUE(kinds.count(d["decision"])) << d.dump();
    EXPECT_FALSE(d["reason"].get<std::string>().empty());
    // Recorded timestamps are the clock: 2026-11-02, the day of the recording.
    EXPECT_EQ(time.substr(0, 10), "2026-11-02");
    bool port_scoped = d.contains("port");
    bool other = d.contains("switch") || d.contains("node");
    EXPECT_TRUE(port_scoped != other) << "one of port or switch/node: " << d.dump();
    if (port_scoped) {
      EXPECT_TRUE(RE2::FullMatch(d["port"].get<std::string>(), "[0-9a-f]{16}_\\d+"));
    }
  }
}

TEST(ReplayCliTest, UtcOffsetShiftsTheRecordedTimes) {
  std::vector<std::string> args = RecordedFabric();
  args.push_back("--utc-offset");
  args.push_back("+02:00");
  CliRun r = Replay(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The log says 00:10:00 local; two hours ahead of UTC, that is 22:10:00 the day before.
  EXPECT_NE(r.out.find("\"time\":\"2026-11-01T22:10:30.000Z\""), std::string::npos) << r.out;
}

TEST(ReplayCliTest, JobsGiveTheSameDecisionsAndProgressShowsTheLogsTime) {
  CliRun one = Replay(RecordedFabric());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  std::vector<std::string> args = RecordedFabric();
  for (const char* a : {"--jobs", "3", "--progress"}) args.push_back(a);
  CliRun three = Replay(args);
  ASSERT_EQ(three.exit_code, 0) << three.err;
  EXPECT_EQ(three.out, one.out);
  EXPECT_FALSE(one.out.empty());
  // Not a terminal: one line per report; the last one at the end of the log.
  EXPECT_TRUE(RE2::PartialMatch(three.err,
                                R"(replay: \d+ lines \(0\.0 GB of 0\.0\), [0-9.]+ M lines/s, )"
                                R"(log at 2026-11-0\dT\d\d:\d\d:\d\d\.\d{3}Z\n)"))
      << three.err;
  EXPECT_EQ(one.err.find(" M lines/s"), std::string::npos) << "no progress unless asked";
}

// A month's replay can fill a disk: decisions that cannot be written are an error, not a
// silent success, with one thread or with the writer's own.
TEST(ReplayCliTest, DecisionsThatCannotBeWrittenAreAnError) {
  for (const char* jobs : {"1", "2"}) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$0\" replay \"$@\" >/dev/full",
                                     testing::BinaryDir() + "/ufm-remediator"};
    for (const auto& a : RecordedFabric()) argv.push_back(a);
    argv.push_back("--jobs");
    argv.push_back(jobs);
    CliRun full = testing::RunCommand(argv);
    EXPECT_EQ(full.exit_code, 1) << jobs << ": " << full.err;
    EXPECT_NE(full.err.find("replay: cannot write the decisions to standard output"),
              std::string::npos)
        << jobs << ": " << full.err;
  }
}

TEST(ReplayCliTest, BadUseIsAnErrorWithAMessage) {
  CliRun none = Replay({});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("ufm-remediator replay: --rules PATH is required"), std::string::npos)
      << none.err;

  CliRun missing =
      Replay({"--rules", testing::SourceDir() + "/rules", "--event-log", "/nonexistent"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot read the event log"), std::string::npos) << missing.err;

  CliRun format =
      Replay({"--rules", testing::SourceDir() + "/rules", "--event-log", "x", "--format", "xml"});
  EXPECT_EQ(format.exit_code, 2);

  for (const char* jobs : {"0", "x", "65", "-1", ""}) {
    CliRun bad =
        Replay({"--rules", testing::SourceDir() + "/rules", "--event-log", "x", "--jobs", jobs});
    EXPECT_EQ(bad.exit_code, 2) << jobs;
    EXPECT_NE(bad.err.find("--jobs must be a number from 1 to 64"), std::string::npos)
        << jobs << ": " << bad.err;
  }

  CliRun broken =
      Replay({"--rules", testing::SourceDir() + "/tests/testdata/rules/broken.yaml", "--event-log",
              testing::SourceDir() + "/tests/testdata/replay/event.log"});
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_NE(broken.err.find("broken.yaml:5:27"), std::string::npos) << broken.err;
}

}  // namespace
}  // namespace ufmr
