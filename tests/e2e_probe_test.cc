// Covers `ufm-remediator probe` against the real simulator over loopback: the text and JSON
// reports, the exit codes (a closed UFM port, unreadable telemetry, usage errors), and that the
// probe never writes to UFM (no port action, isolation or external event reaches the simulator).
// And RunProbe itself (src/app/probe.cc, linked in directly) against fake reads: a person's
// isolations in the documented shape, events none of which parse, credentials that may not act,
// telemetry read through the configured column map, an event log only read at its tail.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "app/probe.h"
#include "base/text.h"
#include "support/sim_process.h"
#include "support/test_env.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

using json = nlohmann::json;
using std::chrono::seconds;
using testing::BinaryDir;

class ProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("ufmr-probe");
    sim_ = std::make_unique<testing::SimProcess>(
        dir_, std::vector<std::string>{"--topology", "fat-tree:leaves=2,spines=2,hosts_per_leaf=2",
                                       "--event-log", dir_ + "/event.log"});
    ASSERT_TRUE(sim_->AwaitReady());
    sim_url_ = sim_->url();
    telemetry_url_ = sim_->telemetry_url();
  }
  void TearDown() override {
    sim_.reset();
    testing::RemoveTree(dir_);
  }

  // A config as `serve` takes it; `extra` adds YAML sections.
  std::string WriteConfig(const std::string& ufm_url, const std::string& telemetry_url,
                          const std::string& extra = "") {
    const std::string path = dir_ + "/config.yaml";
    testing::WriteFile(path, "ufm:\n  url: " + ufm_url +
                                 "\n  user: admin\n  password: \"123456\"\n  retries: 0\n"
                                 "telemetry:\n  url: " +
                                 telemetry_url +
                                 "\ndatabase:\n  url: \"postgresql://127.0.0.1:1/unused\"\n"
                                 "rules:\n  dir: " +
                                 testing::SourceDir() + "/rules\n" + extra);
    return path;
  }
  testing::CommandResult Probe(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BinaryDir() + "/ufm-remediator", "probe"};
    argv.insert(argv.end(), args.begin(), args.end());
    return testing::RunCommand(argv);
  }
  json Get(const std::string& url) {
    auto r = http_.Get(url);
    return r.ok() ? json::parse(r->body, nullptr, false) : json();
  }
  int Post(const std::string& path, const json& body) {
    auto r = http_.Post(sim_url_ + path, body.dump());
    return r.ok() ? static_cast<int>(r->status) : 0;
  }

  std::string dir_, sim_url_, telemetry_url_;
  std::unique_ptr<testing::SimProcess> sim_;
  HttpClient http_;
};

TEST_F(ProbeTest, JsonReportsWhatTheServiceWouldUnderstand) {
  json links = Get(sim_url_ + "/sim/links");
  ASSERT_TRUE(links.is_array() && !links.empty()) << links.dump();
  const std::string isolated = links[0]["a"]["port"];
  const std::string down = links[1]["a"]["port"];
  // A person isolates a port in UFM's GUI; a link goes down (events, and event log lines).
  ASSERT_EQ(Post("/sim/operator", {{"port", isolated}, {"action", "isolate"}}), 200);
  ASSERT_EQ(Post("/sim/faults", {{"kind", "link_down"}, {"port", down}}), 201);
  ASSERT_TRUE(testing::WaitUntil([&] { return !testing::ReadFile(dir_ + "/event.log").empty(); },
                                 seconds(10)));

  const std::string config = WriteConfig(
      sim_url_, telemetry_url_,
      "event_log:\n  path: " + dir_ + "/event.log\nsyslog:\n  listen: 127.0.0.1\n  udp_port: 0\n");
  auto r = Probe({"--config", config, "--format", "json", "--syslog-seconds", "0.2"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_TRUE(j["problems"].empty()) << j["problems"].dump();

  EXPECT_GT(j["ports"]["total"].get<int>(), 0);
  EXPECT_GT(j["ports"]["switch_ports"].get<int>(), 0);
  EXPECT_EQ(j["ports"]["total"].get<int>(),
            j["ports"]["switch_ports"].get<int>() + j["ports"]["host_ports"].get<int>());
  EXPECT_EQ(j["links"]["total"], links.size());
  EXPECT_EQ(j["links"]["both_ends_resolved"], links.size());
  EXPECT_GE(j["events"]["parsed"].get<int>(), 1);
  EXPECT_EQ(j["events"]["errors"], 0);

  EXPECT_EQ(j["unhealthy_ports"]["manual"], 1) << j["unhealthy_ports"].dump();
  EXPECT_EQ(j["unhealthy_ports"]["manual_ports"], json({isolated}));

  EXPECT_TRUE(j["telemetry"]["ok"].get<bool>()) << j["telemetry"].dump();
  EXPECT_EQ(j["telemetry"]["timestamp_unit"], "microseconds");
  EXPECT_TRUE(j["telemetry"]["columns_missing"].empty()) << j["telemetry"].dump();
  EXPECT_FALSE(j["telemetry"]["columns_mapped"].empty());

  EXPECT_TRUE(j["event_log"]["configured"].get<bool>());
  EXPECT_GE(j["event_log"]["entries"].get<int>(), 1) << j["event_log"].dump();
  EXPECT_EQ(j["event_log"]["errors"], 0);
  EXPECT_TRUE(j["syslog"]["configured"].get<bool>());
  EXPECT_TRUE(j["syslog"]["ok"].get<bool>()) << j["syslog"].dump();

  EXPECT_EQ(j["credentials"]["auth"], "basic");
  EXPECT_TRUE(j["credentials"]["jobs_readable"].get<bool>());
  // The simulator has no users endpoint: the probe says it cannot know.
  EXPECT_EQ(j["credentials"]["may_act"], "unknown");
  EXPECT_NE(j["credentials"]["detail"].get<std::string>().find("UFM offers no read-only check"),
            std::string::npos);
}

// A simulator in the 6.16 shapes (links before 6.20: no *_port_name, host ends by the host
// system's GUID): every link's ends resolve, through "name".
TEST_F(ProbeTest, LinksBefore620ResolveThroughTheirName) {
  sim_.reset();
  sim_ = std::make_unique<testing::SimProcess>(
      dir_,
      std::vector<std::string>{"--topology",
                               "fat-tree:leaves=2,spines=2,hosts_per_leaf=2,hcas_per_host=2",
                               "--ufm-version", "6.16"},
      "sim616");
  ASSERT_TRUE(sim_->AwaitReady());
  HttpClientOptions auth;  // the credentials WriteConfig gives the service
  auth.basic_user = "admin";
  auth.basic_password = "123456";
  HttpClient ufm(auth);
  auto answer = ufm.Get(sim_->url() + "/ufmRest/resources/links");
  ASSERT_TRUE(answer.ok());
  const json links = json::parse(answer->body, nullptr, false);
  ASSERT_TRUE(links.is_array() && !links.empty());
  size_t by_system_guid = 0;
  for (const auto& l : links) {
    EXPECT_FALSE(l.contains("destination_port_name"));
    const std::string name = l["name"];
    if (name.find(l["destination_guid"].get<std::string>()) == std::string::npos) ++by_system_guid;
  }
  EXPECT_GT(by_system_guid, 0u) << "host ends are given by the host system's GUID";
  auto r = Probe({"--config", WriteConfig(sim_->url(), sim_->telemetry_url()), "--format", "json"});
  const json j = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out << r.err;
  EXPECT_EQ(j["links"]["total"], links.size());
  EXPECT_EQ(j["links"]["both_ends_resolved"], links.size()) << j["links"].dump();
  EXPECT_TRUE(j["links"]["ok"].get<bool>());
}

// probe --record: every answer saved, anonymised one way throughout: no GUID, switch or host
// name, cable serial or credential of the fabric is left, while the answers still agree (links
// resolve against the ports, telemetry rows name the ports); ufm-sim --recording serves it, and
// the probe reads it as it read the fabric.
TEST_F(ProbeTest, RecordAnonymisesEverythingAndTheRecordingIsServed) {
  sim_.reset();
  const std::string password = "S3cret-Pa55";
  sim_ = std::make_unique<testing::SimProcess>(
      dir_,
      std::vector<std::string>{"--topology",
                               "fat-tree:leaves=2,spines=1,hosts_per_leaf=2,hcas_per_host=2",
                               "--password", password, "--event-log", dir_ + "/event.log",
                               "--fault", R"({"kind": "link_down", "port": "fc6a1c0300686f68_1"})"},
      "simrec");
  ASSERT_TRUE(sim_->AwaitReady());
  auto config = [&](const std::string& ufm, const std::string& telemetry, const std::string& pass) {
    const std::string path = dir_ + "/record.yaml";
    testing::WriteFile(path, "ufm:\n  url: " + ufm + "\n  user: admin\n  password: \"" + pass +
                                 "\"\n  retries: 0\ntelemetry:\n  url: " + telemetry +
                                 "\nevent_log:\n  path: " + dir_ + "/event.log" +
                                 "\ndatabase:\n  url: \"postgresql://127.0.0.1:1/unused\"\n"
                                 "rules:\n  dir: " +
                                 testing::SourceDir() + "/rules\n");
    return path;
  };
  // What must not leave the site: every GUID, name and serial the fabric has.
  std::vector<std::string> secrets = {password};
  for (const auto& l : Get(sim_->url() + "/sim/links")) {
    secrets.push_back(l["cable_serial"]);
    for (const char* end : {"a", "b"}) {
      const std::string port = l[end]["port"];
      secrets.push_back(port.substr(0, 16));
      secrets.push_back(l[end]["system_name"]);
    }
  }
  const std::string rec = dir_ + "/recording";
  auto r = Probe({"--config", config(sim_->url(), sim_->telemetry_url(), password), "--format",
                  "json", "--record", rec, "--syslog-seconds", "0"});
  const json report = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.out << r.err;
  const json& recording = report["recording"];
  EXPECT_EQ(recording["ufm_version"], "6.22.0");
  for (const char* file : {"ufm.json", "ports.json", "links.json", "events.json",
                           "unhealthy_ports.json", "jobs.json", "telemetry.csv", "event.log"}) {
    EXPECT_NE(recording["files"].dump().find(file), std::string::npos) << file;
  }
  EXPECT_GT(recording["anonymised"]["guids"].get<int>(), 10);
  EXPECT_GE(recording["anonymised"]["names"].get<int>(), 7) << "3 switches, 4 hosts";
  for (const auto& file : recording["files"]) {
    const std::string text = testing::ReadFile(rec + "/" + file.get<std::string>());
    for (const auto& secret : secrets) {
      EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in " << file;
      EXPECT_EQ(text.find(AsciiUpper(secret)), std::string::npos) << secret << " in " << file;
    }
  }
  // Still one fabric: the links' ends are ports of the ports answer, the telemetry's switch rows
  // name them, the event log's link is a link.
  auto ports = ParsePorts(testing::ReadFile(rec + "/ports.json"), nullptr);
  ASSERT_TRUE(ports.ok());
  std::set<std::string> names;
  for (const auto& p : ports.value()) names.insert(p.name);
  auto links = ParseLinks(testing::ReadFile(rec + "/links.json"), nullptr);
  ASSERT_TRUE(links.ok());
  EXPECT_EQ(ResolveLinks(&links.value(), [&](const std::string& n) { return names.count(n); }), 0);
  EXPECT_FALSE(links->empty());
  const std::string telemetry = testing::ReadFile(rec + "/telemetry.csv");
  const std::string first_switch_row_guid = links->front().a.substr(0, 16);
  EXPECT_NE(telemetry.find("0x" + first_switch_row_guid), std::string::npos);
  EXPECT_NE(testing::ReadFile(rec + "/event.log").find(links->front().a), std::string::npos);

  // replay runs over it: the recorded link-down is decided, on the switch's end, its cable named
  // by the recording's serial.
  auto replay =
      testing::RunCommand({BinaryDir() + "/ufm-remediator", "replay", "--rules",
                           testing::SourceDir() + "/rules", "--event-log", rec + "/event.log",
                           "--ports", rec + "/ports.json", "--telemetry", rec + "/telemetry.csv"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const json decision = json::parse(replay.out.substr(0, replay.out.find('\n')), nullptr, false);
  ASSERT_TRUE(decision.is_object()) << replay.out;
  EXPECT_EQ(decision["decision"], "disable") << replay.out;
  EXPECT_EQ(decision["port"], links->front().a);
  EXPECT_NE(decision["repair_hint"].get<std::string>().find("SN0000000"), std::string::npos)
      << decision["repair_hint"];

  // Served back, the probe reads it as it read the fabric.
  testing::SimProcess served(dir_, {"--recording", rec, "--password", password}, "served");
  ASSERT_TRUE(served.AwaitReady());
  r = Probe({"--config", config(served.url(), served.telemetry_url(), password), "--format", "json",
             "--syslog-seconds", "0"});
  const json again = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(again.is_object()) << r.out << r.err;
  EXPECT_EQ(again["ports"]["total"], report["ports"]["total"]);
  EXPECT_EQ(again["links"]["both_ends_resolved"], report["links"]["total"]) << again["links"];
  EXPECT_EQ(again["telemetry"]["rows"], report["telemetry"]["rows"]);
  EXPECT_EQ(again["events"]["parsed"], report["events"]["parsed"]);
}

TEST_F(ProbeTest, TextReportForAPersonAndNothingWrittenToUfm) {
  json links = Get(sim_url_ + "/sim/links");
  ASSERT_TRUE(links.is_array() && !links.empty());
  ASSERT_EQ(Post("/sim/faults", {{"kind", "link_down"}, {"port", links[0]["a"]["port"]}}), 201);
  auto r = Probe({"--config", WriteConfig(sim_url_, telemetry_url_)});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* section :
       {"ports:", "links:", "events:", "unhealthy ports:", "telemetry:",
        "event log: not configured", "syslog: not configured", "credentials:", "ok: "}) {
    EXPECT_NE(r.out.find(section), std::string::npos) << section << " missing in\n" << r.out;
  }
  // Read-only: no port action or isolation (the simulator logs both in /sim/actions), no
  // external event, and UFM's unhealthy ports untouched.
  EXPECT_EQ(Get(sim_url_ + "/sim/actions"), json::array());
  EXPECT_EQ(Get(sim_url_ + "/sim/external_events"), json::array());
  HttpClientOptions admin;
  admin.basic_user = "admin";
  admin.basic_password = "123456";
  HttpClient ufm(admin);
  auto unhealthy = ufm.Get(sim_url_ + "/ufmRest/app/unhealthy_ports");
  ASSERT_TRUE(unhealthy.ok());
  EXPECT_EQ(json::parse(unhealthy->body, nullptr, false), json::array()) << unhealthy->body;
}

TEST_F(ProbeTest, ClosedUfmPortExits1) {
  const std::string closed = "http://127.0.0.1:" + std::to_string(testing::FreePort());
  auto r = Probe({"--config", WriteConfig(closed, telemetry_url_), "--format", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_FALSE(j["ports"]["ok"].get<bool>());
  EXPECT_NE(j["problems"].dump().find("ports"), std::string::npos) << j["problems"].dump();

  auto text = Probe({"--config", WriteConfig(closed, telemetry_url_)});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("PROBLEM: ports"), std::string::npos) << text.out;
}

TEST_F(ProbeTest, TelemetryConfiguredButUnreadableExits1) {
  const std::string closed =
      "http://127.0.0.1:" + std::to_string(testing::FreePort()) + "/csv/metrics";
  auto r = Probe({"--config", WriteConfig(sim_url_, closed), "--format", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_FALSE(j["telemetry"]["ok"].get<bool>());
  EXPECT_TRUE(j["ports"]["ok"].get<bool>());
}

TEST_F(ProbeTest, UsageErrorsExit2AndHelpExits0) {
  const std::string config = WriteConfig(sim_url_, telemetry_url_);
  for (const auto& args :
       std::vector<std::vector<std::string>>{{},
                                             {"--config"},
                                             {"--config", config, "--format", "xml"},
                                             {"--config", config, "--syslog-seconds", "soon"},
                                             {"--config", config, "--bogus", "1"},
                                             {"extra", "--config", config}}) {
    auto r = Probe(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  auto help = Probe({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--syslog-seconds"), std::string::npos);
  auto missing = Probe({"--config", dir_ + "/no-such-config.yaml"});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
}

// --- RunProbe against fake reads -----------------------------------------------------------

class RunProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.ufm.url = "https://ufm.example";
    config_.ufm.auth = "basic";
    config_.ufm.user = "remediator";
    config_.rules.dir = testing::SourceDir() + "/rules";
    PortInfo sw;
    sw.name = "9c0591030090e000_33";
    sw.description = "Switch IB Port";
    sw.node_description = "T3-E21-N-U47:1/17/1";
    sw.label = "1/17/1";
    sw.logical_state = "Active";
    sw.physical_state = "Link Up";
    reads_.ports = [sw] { return Result<std::vector<PortInfo>>(std::vector<PortInfo>{sw}); };
    reads_.events = [] {
      ParsedEvents e;
      e.events.push_back(UfmEvent{});
      return Result<ParsedEvents>(e);
    };
    reads_.rest_get = [this](const std::string& path) -> Result<HttpResult> {
      asked_.push_back(path);
      HttpResult r;
      r.status = 200;
      r.body = json{{"name", "remediator"}, {"group", group_}, {"id", 7}}.dump();
      return r;
    };
  }
  app::ProbeOptions Options() const {
    app::ProbeOptions o;
    o.syslog_seconds = 0;
    return o;
  }
  static bool Mentions(const nlohmann::ordered_json& list, const std::string& word) {
    return list.dump().find(word) != std::string::npos;
  }

  Config config_;
  app::UfmReads reads_;
  std::string group_ = "Fabric_Admin";
  std::vector<std::string> asked_;
};

TEST_F(RunProbeTest, APersonsIsolationsAreCountedInTheDocumentedShapes) {
  reads_.unhealthy_ports = [] {
    int skipped = 0;
    // The REST API guide's list entry (Condition a string) and a 6.19-style list Condition.
    return ParseUnhealthyPorts(R"([
      {"UnhealthyGUID": "248a0703002e628e", "UnhealthyPortNumber": 1, "Condition": "MANUAL",
       "UnhealthyPort": "r-dmz-ufm135/HCA-1/1"},
      {"UnhealthyGUID": "ec0d9a0300d42e54", "UnhealthyPortNumber": 1, "Condition": ["MANUAL"]},
      {"UnhealthyGUID": "9c0591030090e000", "UnhealthyPortNumber": 2, "Condition": "FLAPPING"}])",
                               &skipped);
  };
  auto r = app::RunProbe(config_, reads_, Options());
  EXPECT_EQ(r["unhealthy_ports"]["total"], 3);
  EXPECT_EQ(r["unhealthy_ports"]["manual"], 2);
  EXPECT_EQ(r["unhealthy_ports"]["manual_ports"],
            json({"248a0703002e628e_1", "ec0d9a0300d42e54_1"}));
  EXPECT_EQ(r["credentials"]["may_act"], "likely") << r["credentials"].dump();
  EXPECT_EQ(asked_, std::vector<std::string>{"/app/users/remediator"});
  EXPECT_TRUE(r["ok"].get<bool>()) << r["problems"].dump();
}

TEST_F(RunProbeTest, WhatLeavesTheServiceBlindIsAProblem) {
  reads_.events = [] {
    ParsedEvents e;
    e.errors = {"element 0: no id", "element 1: no id"};
    return Result<ParsedEvents>(e);
  };
  group_ = "Monitoring_Only";
  auto r = app::RunProbe(config_, reads_, Options());
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_TRUE(Mentions(r["problems"], "events: none of 2")) << r["problems"].dump();
  EXPECT_EQ(r["credentials"]["may_act"], "no");
  EXPECT_TRUE(Mentions(r["problems"], "credentials")) << r["problems"].dump();

  reads_.ports = [] { return Result<std::vector<PortInfo>>(Status::Unavailable("HTTP 503")); };
  r = app::RunProbe(config_, reads_, Options());
  EXPECT_TRUE(Mentions(r["problems"], "ports: HTTP 503")) << r["problems"].dump();
}

// REST guide 6.11.1's links (verbatim, tests/testdata/rest/links_6_11.json): their host ends'
// destination_guid is the host system's GUID; "name" names the ports. Against a ports answer that
// lists them, every end resolves; against one that lists no host port, the links are a problem.
TEST_F(RunProbeTest, LinksWhoseEndsNameNoListedPortAreAProblem) {
  const std::string links = testing::ReadFixture("rest/links_6_11.json");
  reads_.links = [links] { return ParseLinks(links, nullptr); };
  auto port = [](const std::string& name, const std::string& description) {
    PortInfo p;
    p.name = name;
    p.description = description;
    return p;
  };
  std::vector<PortInfo> listed = {port("248a070300f88fe0_20", "Switch IB Port"),
                                  port("248a070300f88fe0_19", "Switch IB Port"),
                                  port("ec0d9a03007d7d0b_2", "Computer IB Port"),
                                  port("ec0d9a03007d7d0a_1", "Computer IB Port")};
  reads_.ports = [listed] { return Result<std::vector<PortInfo>>(listed); };
  auto r = app::RunProbe(config_, reads_, Options());
  EXPECT_EQ(r["links"]["total"], 2);
  EXPECT_EQ(r["links"]["both_ends_resolved"], 2) << r["links"].dump();
  EXPECT_TRUE(r["links"]["ok"].get<bool>());
  EXPECT_FALSE(Mentions(r["problems"], "links")) << r["problems"].dump();

  listed.resize(2);  // the switch ports only
  reads_.ports = [listed] { return Result<std::vector<PortInfo>>(listed); };
  r = app::RunProbe(config_, reads_, Options());
  EXPECT_EQ(r["links"]["both_ends_resolved"], 0);
  EXPECT_FALSE(r["links"]["ok"].get<bool>());
  EXPECT_EQ(r["links"]["first_unresolved"][0], "248a070300f88fe0_20 - ec0d9a03007d7d0b_2");
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_TRUE(Mentions(r["problems"], "links: 2 of 2 name a port")) << r["problems"].dump();
}

TEST_F(RunProbeTest, TelemetryIsReadThroughTheConfiguredColumnMap) {
  // NVIDIA's fluentd sample names the symbol error counter Infiniband_SymbolErrors_u_Errors;
  // timestamps in milliseconds, as other telemetry instances stamp them.
  config_.telemetry.url = "http://telemetry.example/csv/metrics";
  reads_.telemetry = [](const std::string&) -> Result<HttpResult> {
    HttpResult r;
    r.status = 200;
    r.body =
        "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,Infiniband_SymbolErrors_u_Errors,"
        "LinkDownedCounterExtended\n"
        "1712228785304,s,t,0x9c0591030090e000,0x9c0591030090e000,33,4,0\n";
    return r;
  };
  auto unmapped = app::RunProbe(config_, reads_, Options());
  EXPECT_TRUE(Mentions(unmapped["telemetry"]["columns_missing"], "SymbolErrorCounterExtended"))
      << unmapped["telemetry"].dump();
  config_.telemetry.columns = {{"SymbolErrorCounterExtended", "Infiniband_SymbolErrors_u_Errors"}};
  auto r = app::RunProbe(config_, reads_, Options());
  EXPECT_TRUE(Mentions(r["telemetry"]["columns_mapped"], "SymbolErrorCounterExtended"))
      << r["telemetry"].dump();
  EXPECT_EQ(r["telemetry"]["timestamp_unit"], "milliseconds");
}

TEST_F(RunProbeTest, TheEventLogIsReadAtItsTailWithItsLineNumbers) {
  const std::string dir = testing::MakeTempDir("ufmr-probe-log");
  std::string log;
  // More than the 4 MiB tail the probe reads: the head is counted, never held.
  const std::string line =
      "2024-05-28 08:03:05.118 [97214] [329] WARNING [Fabric_Topology] Link [Source "
      "9c0591030090e000_33  TO Dest: fc6a1c0300244e00_8]: Link went down\n";
  const size_t lines = (size_t{5} << 20) / line.size();
  for (size_t i = 0; i < lines; ++i) log += line;
  log += "not an entry\n";
  testing::WriteFile(dir + "/event.log", log);
  config_.event_log.path = dir + "/event.log";
  auto r = app::RunProbe(config_, reads_, Options());
  const auto& e = r["event_log"];
  EXPECT_TRUE(e["ok"].get<bool>()) << e.dump();
  EXPECT_GT(e["read_from_line"].get<size_t>(), 1u);
  EXPECT_EQ(e["read_from_line"].get<size_t>() - 1 + e["entries"].get<size_t>(), lines)
      << "the entries read and the lines skipped make up the file";
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace ufmr
