// Covers src/offline/replay.h: RunReplay over a recorded UFM event log, a folder of telemetry CSV
// snapshots and a saved /resources/ports response, all written to a temporary folder: a link that
// went down is disabled once; a flapping link is acted on once; a symbol-error ramp in the
// snapshots is disabled; a host reboot, a switch reboot, a port a person marked unhealthy (702
// MANUAL), a person's disable (336) and a counter reset disable nothing; decisions come out in time
// order with the recorded timestamps; bad log lines are counted and skipped; ports missing from the
// ports file are learned from the events' text; files that cannot be read stop the replay.
#include "offline/replay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ingest/event_subjects.h"
#include "rules/rule_loader.h"
#include "support/test_env.h"
#include "ufm/inventory.h"

namespace ufmr {
namespace {

const TimePoint kT0 = TimePoint(std::chrono::seconds(1'767'225'600));  // 2026-01-01T00:00:00Z

TimePoint At(double s) {
  return kT0 + std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(s));
}

// The rules under replay: the shipped rules' shape, fixed here so the test does not move with
// rules/ edits.
const char* kRules = R"(lists:
  link_rules: [link_down, link_flapping, symbol_errors]
rules:
  - name: link_down
    description: Link went down and stayed down
    match: {event_id: 329}
    for: 30s
    clear: {event_id: 328}
    action: disable_port
  - name: link_flapping
    flapping: {downs: 3, within: 10m}
    action: disable_port
  - name: symbol_errors
    counter: SymbolErrorCounterExtended
    rate: {above: 100, per: 1m}
    clear: {below: 10}
    action: disable_port
  - name: switch_reboot
    match: {event_id: 907}
    clear: {event_id: 908}
    scope: switch
    inhibits: {rules: "@link_rules", for: 15m}
    action: ticket_only
  - name: node_reboot
    match: {event_id: 331}
    clear: {event_id: 332}
    scope: node
    inhibits: {rules: "@link_rules", for: 15m}
    action: log_only
)";

// One leaf (T3-E21-N-U47) with uplinks to two spines (T4-E45-L-U51 through 1/17/1, and
// T4-E46-L-U51) and two hosts of one link each; the first spine also faces a second leaf
// (T3-E22-N-U47), so cutting the first uplink leaves both switches another.
const char* kPortsJson = R"([
  {"name": "9c0591030090e000_35", "systemID": "9c0591030090e000", "system_name": "T3-E21-N-U47",
   "node_description": "T3-E21-N-U47:1/18/1", "description": "Switch IB Port", "label": "1/18/1",
   "number": 35, "peer": "fc6a1c0300255e00_8", "logical_state": "Active",
   "physical_state": "Link Up"},
  {"name": "fc6a1c0300255e00_8", "systemID": "fc6a1c0300255e00", "system_name": "T4-E46-L-U51",
   "node_description": "T4-E46-L-U51:1/4/2", "description": "Switch IB Port", "label": "1/4/2",
   "number": 8, "peer": "9c0591030090e000_35", "logical_state": "Active",
   "physical_state": "Link Up"},
  {"name": "fc6a1c0300244e00_9", "systemID": "fc6a1c0300244e00", "system_name": "T4-E45-L-U51",
   "node_description": "T4-E45-L-U51:1/5/1", "description": "Switch IB Port", "label": "1/5/1",
   "number": 9, "peer": "9c0591030090f000_33", "logical_state": "Active",
   "physical_state": "Link Up"},
  {"name": "9c0591030090f000_33", "systemID": "9c0591030090f000", "system_name": "T3-E22-N-U47",
   "node_description": "T3-E22-N-U47:1/17/1", "description": "Switch IB Port", "label": "1/17/1",
   "number": 33, "peer": "fc6a1c0300244e00_9", "logical_state": "Active",
   "physical_state": "Link Up"},
  {"name": "9c0591030090e000_33", "systemID": "9c0591030090e000", "system_name": "T3-E21-N-U47",
   "node_description": "T3-E21-N-U47:1/17/1", "description": "Switch IB Port", "label": "1/17/1",
   "number": 33, "peer": "fc6a1c0300244e00_8", "logical_state": "Active",
   "physical_state": "Link Up", "active_speed": "NDR", "active_width": "4x"},
  {"name": "fc6a1c0300244e00_8", "systemID": "fc6a1c0300244e00", "system_name": "T4-E45-L-U51",
   "node_description": "T4-E45-L-U51:1/4/2", "description": "Switch IB Port", "label": "1/4/2",
   "number": 8, "peer": "9c0591030090e000_33", "logical_state": "Active",
   "physical_state": "Link Up", "active_speed": "NDR", "active_width": "4x"},
  {"name": "9c0591030090e000_3", "systemID": "9c0591030090e000", "system_name": "T3-E21-N-U47",
   "node_description": "T3-E21-N-U47:1/2/1", "description": "Switch IB Port", "label": "1/2/1",
   "number": 3, "peer": "e41d2d0300b00001_1", "logical_state": "Active",
   "physical_state": "Link Up"},
  {"name": "e41d2d0300b00001_1", "systemID": "e41d2d0300b00000", "system_name": "fsgb002",
   "node_description": "fsgb002 HCA-1", "description": "Computer IB Port", "number": 1,
   "peer": "9c0591030090e000_3", "logical_state": "Active", "physical_state": "Link Up"},
  {"name": "9c0591030090e000_1", "systemID": "9c0591030090e000", "system_name": "T3-E21-N-U47",
   "node_description": "T3-E21-N-U47:1/1/1", "description": "Switch IB Port", "label": "1/1/1",
   "number": 1, "peer": "e41d2d0300a4f482_1", "logical_state": "Active",
   "physical_state": "Link Up"},
  {"name": "e41d2d0300a4f482_1", "systemID": "e41d2d0300a4f480", "system_name": "fsgb001",
   "node_description": "fsgb001 HCA-1", "description": "Computer IB Port", "number": 1,
   "peer": "9c0591030090e000_1", "logical_state": "Active", "physical_state": "Link Up"}
])";

const std::string kUp33 = "9c0591030090e000_33";
const std::string kSpine8 = "fc6a1c0300244e00_8";
const std::string kLeaf3 = "9c0591030090e000_3";
const std::string kHost3 = "e41d2d0300b00001_1";

// "YYYY-MM-DD HH:MM:SS.mmm" for `at` seconds after 2026-01-01 00:00 (the log's zone is UTC here).
std::string Stamp(double at) {
  std::string iso = FormatIsoTime(At(at));  // 2026-01-01T00:00:30.000Z
  return iso.substr(0, 10) + " " + iso.substr(11, 12);
}

// Event-log entries, after the timestamp and index.
const std::string kUplinkDown =
    "[329] WARNING Site [default] [Fabric_Topology] Link [Source 9c0591030090e000_33  TO Dest: "
    "fc6a1c0300244e00_8]: Link went down: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - "
    "(Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8, cable S/N: MT2330FT09118";
const std::string kUplinkUp =
    "[328] INFO Site [default] [Fabric_Topology] Link [Source 9c0591030090e000_33  TO Dest: "
    "fc6a1c0300244e00_8]: Link is up: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - "
    "(Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8, cable S/N: MT2330FT09118";
const std::string kHostLinkDown =
    "[329] WARNING [Fabric_Topology] Link [Source 9c0591030090e000_3  TO Dest: "
    "e41d2d0300b00001_1]: Link went down: 9c0591030090e000 (Switch: T3-E21-N-U47) : 3 - "
    "e41d2d0300b00001 (Computer: fsgb002 HCA-1) : 1";

struct Entry {
  double at;
  std::string text;  // after "<stamp> [<index>] "
};

std::string Log(const std::vector<Entry>& entries) {
  std::string out;
  int index = 100;
  for (const auto& e : entries)
    out += Stamp(e.at) + " [" + std::to_string(index++) + "] " + e.text + "\n";
  return out;
}

// One telemetry snapshot: rows of (port GUID, port number, SymbolErrorCounterExtended).
struct Row {
  std::string guid;
  int port;
  long long symbol_errors;
};
std::string Csv(double at, const std::vector<Row>& rows) {
  long long us =
      std::chrono::duration_cast<std::chrono::microseconds>(At(at).time_since_epoch()).count();
  std::string out =
      "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,"
      "SymbolErrorCounterExtended\n";
  for (const auto& r : rows) {
    out += std::to_string(us) + ",10.209.36.11:9001,,0x" + r.guid + ",0x" + r.guid + "," +
           std::to_string(r.port) + "," + std::to_string(r.symbol_errors) + "\n";
  }
  return out;
}

// A symbol-error counter series on one port, one snapshot a minute from `start`.
std::vector<std::string> Series(double start, const std::string& guid, int port,
                                const std::vector<long long>& values) {
  std::vector<std::string> snaps;
  for (size_t i = 0; i < values.size(); ++i) {
    snaps.push_back(Csv(start + 60.0 * i, {{guid, port, values[i]}}));
  }
  return snaps;
}

struct Outcome {
  Status status = Status::Ok();
  std::vector<Decision> decisions;
  ReplayStats stats;

  std::vector<const Decision*> Of(DecisionKind kind) const {
    std::vector<const Decision*> out;
    for (const auto& d : decisions) {
      if (d.kind == kind) out.push_back(&d);
    }
    return out;
  }
  std::string Describe() const {
    std::string s;
    for (const auto& d : decisions) s += d.ToJson().dump() + "\n";
    for (const auto& e : stats.errors) s += "error: " + e + "\n";
    return s;
  }
};

class ReplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("replay_test");
    auto loaded = LoadRulesText(kRules, "replay_rules.yaml");
    ASSERT_TRUE(loaded.ok()) << loaded.Report();
    rules_ = loaded.rules;
  }
  void TearDown() override { testing::RemoveTree(dir_); }

  // Writes the inputs and replays them.
  Outcome Run(const std::string& log, const std::vector<std::string>& snapshots,
              bool with_ports = true, std::optional<DecisionPolicy> policy = std::nullopt) {
    ReplayOptions options;
    if (policy) options.policy = *policy;
    if (!log.empty()) {
      options.event_log = dir_ + "/event.log";
      testing::WriteFile(options.event_log, log);
    }
    if (!snapshots.empty()) {
      std::string folder = dir_ + "/telemetry";
      std::filesystem::create_directories(folder);
      // Named so their order on disk is not their time order: replay sorts by sample time.
      for (size_t i = 0; i < snapshots.size(); ++i) {
        testing::WriteFile(folder + "/snap-" + std::to_string(snapshots.size() - i) + ".csv",
                           snapshots[i]);
      }
      options.telemetry = {folder};
    }
    if (with_ports) {
      options.ports_file = dir_ + "/ports.json";
      testing::WriteFile(options.ports_file, kPortsJson);
    }
    Outcome out;
    out.status = RunReplay(
        rules_, options, [&](const Decision& d) { out.decisions.push_back(d); }, &out.stats);
    return out;
  }

  std::string dir_;
  std::shared_ptr<const RuleSet> rules_;
};

TEST_F(ReplayTest, LinkThatWentDownIsDisabledOnce) {
  Outcome out = Run(Log({{0, kUplinkDown}}), {});
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  ASSERT_EQ(out.decisions.size(), 1u) << out.Describe();
  const Decision& d = out.decisions[0];
  EXPECT_EQ(d.kind, DecisionKind::kDisable);
  EXPECT_EQ(d.rule, "link_down");
  EXPECT_EQ(d.port, kUp33);  // the switch side; both ends are switches: the first
  EXPECT_EQ(d.peer, kSpine8);
  // The hold ends 30s after the recorded event, at the end of the recording.
  EXPECT_EQ(d.time, At(30));
  EXPECT_EQ(d.ToJson()["time"], "2026-01-01T00:00:30.000Z");
  EXPECT_EQ(d.rules_hash, rules_->hash);
  EXPECT_EQ(out.stats.events, 1u);
  EXPECT_EQ(out.stats.bad_entries, 0u);
  EXPECT_EQ(out.stats.findings, 1u);
  EXPECT_EQ(out.stats.decisions, (std::map<std::string, size_t>{{"disable", 1}}));
  EXPECT_EQ(out.stats.learned_ports, 0u);  // the ports file knows both ends
}

TEST_F(ReplayTest, LinkThatCameBackIsLeftAlone) {
  Outcome out = Run(Log({{0, kUplinkDown}, {12, kUplinkUp}}), {});
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  EXPECT_TRUE(out.decisions.empty()) << out.Describe();
  EXPECT_EQ(out.stats.events, 2u);
}

TEST_F(ReplayTest, FlappingLinkIsActedOnOnce) {
  std::vector<Entry> log;
  for (double t : {0.0, 60.0, 120.0, 180.0, 240.0}) {
    log.push_back({t, kUplinkDown});
    log.push_back({t + 5, kUplinkUp});
  }
  Outcome out = Run(Log(log), {});
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  auto acted = out.Of(DecisionKind::kDisable);
  ASSERT_EQ(acted.size(), 1u) << out.Describe();
  EXPECT_EQ(acted[0]->rule, "link_flapping");
  EXPECT_EQ(acted[0]->time, At(120));
  EXPECT_EQ(acted[0]->port, kUp33);
  for (const auto& d : out.decisions) EXPECT_FALSE(d.acts() && &d != acted[0]) << out.Describe();
  EXPECT_EQ(out.stats.events, 10u);
}

TEST_F(ReplayTest, SymbolErrorRampInSnapshotsIsDisabled) {
  Outcome out = Run("", Series(0, "9c0591030090e000", 33, {0, 600, 1200, 1800}));
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  ASSERT_EQ(out.decisions.size(), 1u) << out.Describe();
  const Decision& d = out.decisions[0];
  EXPECT_EQ(d.kind, DecisionKind::kDisable);
  EXPECT_EQ(d.rule, "symbol_errors");
  EXPECT_EQ(d.port, kUp33);
  EXPECT_EQ(d.peer, kSpine8);
  EXPECT_EQ(d.time, At(60));  // the snapshot's own time: the first has only a baseline
  EXPECT_EQ(out.stats.telemetry_files, 4u);
  EXPECT_EQ(out.stats.telemetry_samples, 4u);
  EXPECT_EQ(out.stats.events, 0u);
}

TEST_F(ReplayTest, CounterResetIsNoRamp) {
  Outcome out = Run("", Series(0, "9c0591030090e000", 33, {5000000, 5000010, 0, 0, 5, 10}));
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  EXPECT_TRUE(out.decisions.empty()) << out.Describe();
  EXPECT_EQ(out.stats.telemetry_files, 6u);
}

TEST_F(ReplayTest, HostRebootDisablesNothing) {
  Outcome out = Run(
      Log({{0,
            "[331] CRITICAL [Fabric_Topology] Computer [Computer: fsgb002]: Node is down: fsgb002"},
           {2, kHostLinkDown}}),
      {});
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  EXPECT_TRUE(out.Of(DecisionKind::kDisable).empty()) << out.Describe();
  ASSERT_EQ(out.decisions.size(), 2u) << out.Describe();
  EXPECT_EQ(out.decisions[0].rule, "node_reboot");
  EXPECT_EQ(out.decisions[0].kind, DecisionKind::kFinding);
  EXPECT_EQ(out.decisions[0].guard, "log_only");
  EXPECT_EQ(out.decisions[0].node, "fsgb002");
  EXPECT_EQ(out.decisions[0].time, At(0));
  EXPECT_EQ(out.decisions[1].rule, "link_down");
  EXPECT_EQ(out.decisions[1].kind, DecisionKind::kSuppressed);
  EXPECT_EQ(out.decisions[1].guard, "inhibited");
  EXPECT_EQ(out.decisions[1].time, At(32));
  EXPECT_NE(out.decisions[1].reason.find("covered by node_reboot on node fsgb002"),
            std::string::npos)
      << out.decisions[1].reason;
}

TEST_F(ReplayTest, SwitchRebootDisablesNothing) {
  Outcome out = Run(Log({{0,
                          "[907] CRITICAL Site [default] [Fabric_Topology] Switch [default / "
                          "Switch: T3-E21-N-U47] [dev_id: 9c0591030090e000]: Switch is down"},
                         {1, kUplinkDown},
                         {1, kHostLinkDown}}),
                    {});
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  EXPECT_TRUE(out.Of(DecisionKind::kDisable).empty()) << out.Describe();
  ASSERT_EQ(out.decisions.size(), 3u) << out.Describe();
  EXPECT_EQ(out.decisions[0].rule, "switch_reboot");
  EXPECT_EQ(out.decisions[0].kind, DecisionKind::kTicket);
  EXPECT_EQ(out.decisions[0].switch_name, "T3-E21-N-U47");
  for (int i : {1, 2}) {
    EXPECT_EQ(out.decisions[i].rule, "link_down");
    EXPECT_EQ(out.decisions[i].guard, "inhibited");
    EXPECT_EQ(out.decisions[i].time, At(31));
  }
  EXPECT_EQ(out.stats.decisions, (std::map<std::string, size_t>{{"ticket", 1}, {"suppressed", 2}}));
}

TEST_F(ReplayTest, PortMarkedUnhealthyByAPersonIsNotTouched) {
  Outcome out = Run(
      Log({{0,
            "[702] WARNING Site [default] [Fabric_Notification] Port [default / Switch: "
            "T3-E21-N-U47 / 1/17/1] [dev_id: 9c0591030090e000]: Peer Port T4-E45-L-U51:1/4/2 is "
            "considered by SM as unhealthy due to MANUAL."},
           {60, kUplinkDown}}),
      {});
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  EXPECT_TRUE(out.Of(DecisionKind::kDisable).empty()) << out.Describe();
  ASSERT_EQ(out.decisions.size(), 1u) << out.Describe();
  EXPECT_EQ(out.decisions[0].rule, "link_down");
  EXPECT_EQ(out.decisions[0].kind, DecisionKind::kBlocked);
  EXPECT_EQ(out.decisions[0].guard, "manual");
  EXPECT_EQ(out.decisions[0].time, At(90));
  EXPECT_NE(out.decisions[0].reason.find(
                "is in a person's hands (marked unhealthy by a person (UFM event 702, MANUAL) at "
                "2026-01-01T00:00:00.000Z)"),
            std::string::npos)
      << out.decisions[0].reason;
}

// A person disables the uplink's leaf port (UFM's 336, then the link goes down): as in the
// service, that is no link fault. A host link going down meanwhile is judged as ever; so is the
// uplink going down once the minute after the 336 has passed.
TEST_F(ReplayTest, APersonsDisableIsNotALinkFault) {
  const std::string disabled =
      "[336] INFO Site [default] [Fabric_Notification] Port [default / Switch: T3-E21-N-U47 / "
      "1/17/1] [dev_id: 9c0591030090e000]: Port Action Disable Succeeded";
  Outcome out = Run(Log({{0, disabled}, {1, kUplinkDown}, {5, kHostLinkDown}}), {});
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  ASSERT_EQ(out.decisions.size(), 1u) << out.Describe();
  EXPECT_EQ(out.decisions[0].rule, "link_down");
  EXPECT_EQ(out.decisions[0].port, kLeaf3);
  EXPECT_EQ(out.stats.events, 3u);

  Outcome later = Run(Log({{0, disabled}, {61, kUplinkDown}}), {});
  ASSERT_TRUE(later.status.ok()) << later.status.message();
  ASSERT_EQ(later.decisions.size(), 1u) << later.Describe();
  EXPECT_EQ(later.decisions[0].rule, "link_down");
  EXPECT_EQ(later.decisions[0].port, kUp33);
}

TEST_F(ReplayTest, DecisionsComeOutInTimeOrderWithRecordedTimestamps) {
  // Interleaved: a link that stays down (decided at 30s, when the 45s event arrives), a symbol
  // ramp on a host link (snapshots from 10s), a host reboot at 200s.
  std::vector<std::string> snaps = Series(10, "e41d2d0300a4f482", 1, {0, 50, 1000, 2000, 3000});
  Outcome out = Run(Log({{0, kUplinkDown},
                         {45, "[352] INFO [Logical_Model] Grid [Grid]: Network Added"},
                         {200,
                          "[331] CRITICAL [Fabric_Topology] Computer [Computer: fsgb002]: Node is "
                          "down: fsgb002"}}),
                    snaps);
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  struct Want {
    double at;
    std::string rule;
    DecisionKind kind;
    std::string port;
  };
  const std::vector<Want> want = {
      {30, "link_down", DecisionKind::kDisable, kUp33},
      // fsgb001 has one link: never cut automatically (its ticket asks to drain the host).
      {130, "symbol_errors", DecisionKind::kBlocked, "9c0591030090e000_1"},
      {200, "node_reboot", DecisionKind::kFinding, ""},
  };
  ASSERT_EQ(out.decisions.size(), want.size()) << out.Describe();
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i].rule);
    EXPECT_EQ(out.decisions[i].time, At(want[i].at));
    EXPECT_EQ(out.decisions[i].rule, want[i].rule);
    EXPECT_EQ(out.decisions[i].kind, want[i].kind);
    EXPECT_EQ(out.decisions[i].port, want[i].port);
  }
  EXPECT_TRUE(std::is_sorted(out.decisions.begin(), out.decisions.end(),
                             [](const Decision& a, const Decision& b) { return a.time < b.time; }));
  EXPECT_EQ(out.stats.events, 3u);
  EXPECT_EQ(out.stats.telemetry_files, 5u);
  EXPECT_EQ(out.stats.decisions,
            (std::map<std::string, size_t>{{"disable", 1}, {"blocked", 1}, {"finding", 1}}));
}

TEST_F(ReplayTest, AHostsOnlyLinkWithErrorsIsBlockedNotCut) {
  std::vector<std::string> snaps = Series(10, "e41d2d0300a4f482", 1, {0, 50, 1000, 2000, 3000});
  Outcome out = Run(Log({}), snaps);
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  ASSERT_EQ(out.decisions.size(), 1u) << out.Describe();
  const Decision& d = out.decisions[0];
  EXPECT_EQ(d.rule, "symbol_errors");
  EXPECT_EQ(d.kind, DecisionKind::kBlocked);
  EXPECT_EQ(d.guard, "last_link");
  EXPECT_EQ(d.port, "9c0591030090e000_1");
  EXPECT_NE(d.reason.find("fsgb001 has 0 other active links (at least 1 must stay up): drain the "
                          "host first"),
            std::string::npos)
      << d.reason;
  // With the guard off (min_active_links_host: 0) the same ramp is cut.
  DecisionPolicy off = ReplayOptions{}.policy;
  off.min_active_links_host = 0;
  Outcome cut = Run(Log({}), snaps, true, off);
  ASSERT_EQ(cut.decisions.size(), 1u) << cut.Describe();
  EXPECT_EQ(cut.decisions[0].kind, DecisionKind::kDisable);
}

TEST_F(ReplayTest, BadLogLinesAreCountedAndSkipped) {
  std::string log = "tail of an entry cut by rotation: (Switch:T3-E21-N-U47:1/17/1)\n" +
                    Log({{0, kUplinkDown}}) + Stamp(1) + " garbage after the timestamp\n" +
                    Stamp(2) + " [7] [abc] WARNING [Fabric_Topology] Link [x]: bad event id\n" +
                    "9999-99-99 99:99:99.999 [8] [329] WARNING [Fabric_Topology] Link [x]: "
                    "bad time\n" +
                    Stamp(3) + " [9] [352] INFO [Logical_Model] Grid [Grid]: Network Added\n" +
                    "  a continuation line of the entry before\n";
  Outcome out = Run(log, {});
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  // The first line (orphan), the garbage, the bad event id; the bad date is no entry start, so it
  // continues the one before.
  EXPECT_EQ(out.stats.bad_entries, 3u) << out.Describe();
  EXPECT_EQ(out.stats.events, 5u) << out.Describe();
  EXPECT_EQ(out.stats.errors.size(), 3u) << out.Describe();
  for (const auto& e : out.stats.errors) {
    EXPECT_EQ(e.rfind(dir_ + "/event.log: byte ", 0), 0u) << e;
  }
  EXPECT_EQ(out.stats.errors[0].rfind(dir_ + "/event.log: byte 0: ", 0), 0u) << out.stats.errors[0];
  // The good entries still count: the link is disabled.
  ASSERT_EQ(out.Of(DecisionKind::kDisable).size(), 1u) << out.Describe();
  EXPECT_EQ(out.Of(DecisionKind::kDisable)[0]->time, At(30));
}

TEST_F(ReplayTest, PortsMissingFromThePortsFileAreLearnedFromEvents) {
  Outcome out = Run(Log({{0, kHostLinkDown}}), {}, /*with_ports=*/false);
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  EXPECT_EQ(out.stats.learned_ports, 2u);
  ASSERT_EQ(out.decisions.size(), 1u) << out.Describe();
  // fsgb002 is known by this one link only: its last link is not cut.
  EXPECT_EQ(out.decisions[0].kind, DecisionKind::kBlocked);
  EXPECT_EQ(out.decisions[0].guard, "last_link");
  // Learned as a switch port from "(Switch: T3-E21-N-U47)": the switch side is the one named.
  EXPECT_EQ(out.decisions[0].port, kLeaf3);
  EXPECT_EQ(out.decisions[0].peer, kHost3);
  // The text gives no port labels: unknown placeholders render as '?'.
  EXPECT_EQ(out.decisions[0].title, "link_down: T3-E21-N-U47 port 3 <-> fsgb002 HCA-1 port 1");
}

// An event naming one port the ports file has and one it lacks learns the one it lacks, with the
// known end as its peer; the text of an event whose ports are all known by then is not read for
// ports again (nothing more is learned from the same link's next events).
TEST_F(ReplayTest, OnlyThePortTheInventoryLacksIsLearned) {
  const std::string down =
      "[329] WARNING [Fabric_Topology] Link [Source 9c0591030090e000_3  TO Dest: "
      "e41d2d0300c00001_1]: Link went down: 9c0591030090e000 (Switch: T3-E21-N-U47) : 3 - "
      "e41d2d0300c00001 (Computer: fsgb009 HCA-1) : 1";
  const std::string up =
      "[328] INFO [Fabric_Topology] Link [Source 9c0591030090e000_3  TO Dest: "
      "e41d2d0300c00001_1]: Link is up: 9c0591030090e000 (Switch: T3-E21-N-U47) : 3 - "
      "e41d2d0300c00001 (Computer: fsgb009 HCA-1) : 1";
  Outcome out = Run(Log({{0, down}, {5, up}, {100, down}}), {});
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  EXPECT_EQ(out.stats.learned_ports, 1u) << out.Describe();
  ASSERT_FALSE(out.decisions.empty()) << out.Describe();
  for (const auto& d : out.decisions) {
    EXPECT_EQ(d.port, kLeaf3) << out.Describe();
    EXPECT_EQ(d.peer, "e41d2d0300c00001_1") << out.Describe();
  }
  // The learned host port is placed on its host, from the text: the title names it.
  EXPECT_NE(out.decisions.back().title.find("fsgb009"), std::string::npos) << out.Describe();
}

// An event that names no port of its own (a REST-shaped one here, its ports only in its message)
// with the ports its text names read already (ReadEntry::named, by a reading thread): the
// pipeline learns what it learns reading them itself, and reads nothing more (the list given is
// the one it uses).
TEST_F(ReplayTest, APortlessEventsPortsReadAlreadyAreLearnedAsIfReadHere) {
  Observation o;
  o.time = At(0);
  o.source = "rest";
  o.event_type = 907;
  o.object_type = "Switch";
  o.object_name = "T3-E21-N-U47";
  o.description =
      "Switch is down: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:21 - "
      "(Computer:fsgb021 HCA-1)e41d2d0300c00021:1";
  const std::vector<PortSubject> named = ExtractPortSubjects(o.description);
  ASSERT_EQ(named.size(), 2u);
  auto learn = [&](const std::vector<PortSubject>* given) {
    Inventory inventory;
    ReplayPipeline pipeline(rules_, DecisionPolicy{}, &inventory, SilenceSet{}, [](Decision&&) {});
    Observation copy = o;
    const size_t learned =
        given ? pipeline.Event(std::move(copy), given) : pipeline.Event(std::move(copy));
    std::vector<std::string> rows;
    inventory.ForEachPort([&](const PortInfo& p) {
      rows.push_back(p.name + " " + p.system_name + " " + p.node_description + " " + p.peer);
    });
    std::sort(rows.begin(), rows.end());
    return std::make_pair(learned, rows);
  };
  const auto here = learn(nullptr);
  EXPECT_EQ(here.first, 2u);
  ASSERT_EQ(here.second.size(), 2u);
  EXPECT_EQ(here.second[0],
            "9c0591030090e000_21 T3-E21-N-U47 T3-E21-N-U47:1/17/1 e41d2d0300c00021_1");
  EXPECT_EQ(learn(&named), here);
  const std::vector<PortSubject> none;
  EXPECT_EQ(learn(&none).first, 0u) << "the list given is the one used";
}

// IBM CAST's old Link form: the object names the HCA's port GUID (...4939_2), the message its node
// GUID (...4938). Only the object's ports are learned: no port is made of the node GUID.
TEST_F(ReplayTest, NoPortIsLearnedFromAHostsNodeGuid) {
  Outcome out = Run(Log({{0,
                          "[329] WARNING [Fabric_Topology] Link [Source 248a0703006d40f0_12  TO "
                          "Dest: e41d2d0300ff4939_2]: Link went down: 248a0703006d40f0 (Switch: "
                          "c931ibsw-leaf01) : 12 - e41d2d0300ff4938 (Computer: c931f02p18 HCA-1) "
                          ": 2"}}),
                    {}, /*with_ports=*/false);
  ASSERT_TRUE(out.status.ok()) << out.status.message();
  EXPECT_EQ(out.stats.learned_ports, 1u) << "the switch port only";
  for (const auto& d : out.decisions) {
    EXPECT_NE(d.port, "e41d2d0300ff4938_2") << out.Describe();
    EXPECT_NE(d.peer, "e41d2d0300ff4938_2") << out.Describe();
  }
}

TEST_F(ReplayTest, SnapshotsWithoutATimestampAreSkipped) {
  std::string folder = dir_ + "/t";
  std::filesystem::create_directories(folder);
  testing::WriteFile(folder + "/no_time.csv",
                     "port_guid,Port_Number,SymbolErrorCounterExtended\n0x9c0591030090e000,33,5\n");
  testing::WriteFile(folder + "/ignored.txt", "not a snapshot");
  ReplayOptions options;
  options.telemetry = {folder};
  ReplayStats stats;
  std::vector<Decision> decisions;
  Status s = RunReplay(
      rules_, options, [&](const Decision& d) { decisions.push_back(d); }, &stats);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(stats.telemetry_files, 0u);
  ASSERT_EQ(stats.errors.size(), 1u);
  EXPECT_NE(stats.errors[0].find("no timestamp column"), std::string::npos) << stats.errors[0];
  EXPECT_TRUE(decisions.empty());
}

TEST_F(ReplayTest, FilesThatCannotBeReadStopTheReplay) {
  struct Case {
    std::string what;
    ReplayOptions options;
  };
  ReplayOptions no_log;
  no_log.event_log = dir_ + "/nope.log";
  ReplayOptions no_csv;
  no_csv.telemetry = {dir_ + "/nope"};
  ReplayOptions no_ports;
  no_ports.ports_file = dir_ + "/nope.json";
  ReplayOptions bad_ports;
  bad_ports.ports_file = dir_ + "/bad.json";
  testing::WriteFile(bad_ports.ports_file, "{\"not\": \"a list\"}");
  ReplayOptions no_silences;
  no_silences.silences_file = dir_ + "/nope-silences.json";
  for (const auto& c : std::vector<Case>{{"event log", no_log},
                                         {"telemetry", no_csv},
                                         {"ports file", no_ports},
                                         {"ports file that is not a list", bad_ports},
                                         {"silences file", no_silences}}) {
    SCOPED_TRACE(c.what);
    ReplayStats stats;
    int calls = 0;
    Status s = RunReplay(
        rules_, c.options, [&](const Decision&) { ++calls; }, &stats);
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(s.message().empty());
    EXPECT_EQ(calls, 0);
  }
}

TEST_F(ReplayTest, SilencesFromAFile) {
  const std::string silences = dir_ + "/silences.json";
  // Saved from GET /api/silences: wrapped in {"silences": [...]}, unset fields null.
  testing::WriteFile(silences, R"({"silences": [{"id": 5, "port": null, "switch": "T3-E21-N-U47",
    "host": null, "reason": "maintenance", "created_by": null, "expired_at": null,
    "created_at": "2025-12-31T23:00:00Z", "expires_at": "2026-01-01T01:00:00Z"}]})");
  ReplayOptions options;
  options.event_log = dir_ + "/event.log";
  testing::WriteFile(options.event_log, Log({{0, kUplinkDown}}));
  options.ports_file = dir_ + "/ports.json";
  testing::WriteFile(options.ports_file, kPortsJson);
  options.silences_file = silences;
  ReplayStats stats;
  std::vector<Decision> decisions;
  Status s = RunReplay(
      rules_, options, [&](const Decision& d) { decisions.push_back(d); }, &stats);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].guard, "silenced");
  ASSERT_TRUE(decisions[0].silence_id.has_value());
  EXPECT_EQ(*decisions[0].silence_id, 5);
}

TEST_F(ReplayTest, DryRunPolicyBlocks) {
  ReplayOptions options;
  options.event_log = dir_ + "/event.log";
  testing::WriteFile(options.event_log, Log({{0, kUplinkDown}}));
  options.policy.dry_run = true;
  ReplayStats stats;
  std::vector<Decision> decisions;
  Status s = RunReplay(
      rules_, options, [&](const Decision& d) { decisions.push_back(d); }, &stats);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].guard, "dry_run");
}

}  // namespace
}  // namespace ufmr
