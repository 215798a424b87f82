// The real simulator server over loopback, driven by a FakeClock (no sleeps).
#include "sim/sim_server.h"

#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "core/http_client.h"

namespace ufmr::sim {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;

class SimServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<Topology> t = Topology::FromString("fat-tree:leaves=2,spines=2,hosts_per_leaf=3", 3);
    ASSERT_TRUE(t.ok());
    SimOptions options;
    options.job_delay = milliseconds(200);
    state_ = std::make_unique<SimState>(std::move(t.value()), options, clock_.Now());
    SimServerOptions server_options;
    server_options.user = "admin";
    server_options.password = "s3cret";
    server_options.threads = 1;
    server_ = std::make_unique<SimServer>(*state_, clock_, server_options);
    ASSERT_TRUE(server_->Start().ok());
    base_ = "http://127.0.0.1:" + std::to_string(server_->port());
    telemetry_ = "http://127.0.0.1:" + std::to_string(server_->telemetry_port());
    HttpClientOptions auth;
    auth.basic_user = "admin";
    auth.basic_password = "s3cret";
    client_ = std::make_unique<HttpClient>(auth);
    host_port_ = state_->topology().ports()[state_->topology().nodes()[0].ports[0]].peer;
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  HttpResult Get(const std::string& path) {
    Result<HttpResult> r = client_->Get(base_ + path);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r.value() : HttpResult{};
  }
  HttpResult Post(const std::string& path, const std::string& body) {
    Result<HttpResult> r = client_->Post(base_ + path, body);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r.value() : HttpResult{};
  }
  const Port& HostPort() const { return state_->topology().ports()[host_port_]; }

  FakeClock clock_;
  std::unique_ptr<SimState> state_;
  std::unique_ptr<SimServer> server_;
  std::unique_ptr<HttpClient> client_;
  std::string base_;
  std::string telemetry_;
  int host_port_ = -1;
};

TEST_F(SimServerTest, UfmRestNeedsBasicAuth) {
  HttpClient anonymous;
  HttpClientOptions wrong_options;
  wrong_options.basic_user = "admin";
  wrong_options.basic_password = "123456";
  HttpClient wrong(wrong_options);
  for (const char* path :
       {"/ufmRest/app/events", "/ufmRest/resources/ports", "/ufmRest/jobs/1", "/ufmRest/nope"}) {
    for (HttpClient* c : {&anonymous, &wrong}) {
      Result<HttpResult> r = c->Get(base_ + path);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->status, 401) << path;
      EXPECT_EQ(r->Header("www-authenticate"), "Basic realm=\"UFM\"") << path;
      EXPECT_TRUE(Json::parse(r->body).contains("error"));
    }
  }
  Result<HttpResult> post = anonymous.Post(base_ + "/ufmRest/actions", "{}");
  ASSERT_TRUE(post.ok());
  EXPECT_EQ(post->status, 401);
  // The control API needs none.
  Result<HttpResult> control = anonymous.Get(base_ + "/sim/actions");
  ASSERT_TRUE(control.ok());
  EXPECT_EQ(control->status, 200);
  EXPECT_EQ(Get("/ufmRest/app/events").status, 200);
}

TEST_F(SimServerTest, DecodesBase64) {
  EXPECT_EQ(DecodeBase64("YWRtaW46MTIzNDU2"), std::optional<std::string>("admin:123456"));
  EXPECT_EQ(DecodeBase64("YQ=="), std::optional<std::string>("a"));
  EXPECT_EQ(DecodeBase64("YQ"), std::optional<std::string>("a"));
  EXPECT_FALSE(DecodeBase64("Y!Q=").has_value());
  EXPECT_FALSE(DecodeBase64("YQ=a").has_value());
}

TEST_F(SimServerTest, PortsListFiltersAndSinglePort) {
  HttpResult all = Get("/ufmRest/resources/ports");
  ASSERT_EQ(all.status, 200);
  Json ports = Json::parse(all.body);
  ASSERT_EQ(ports.size(), state_->topology().ports().size());
  for (const char* field :
       {"name", "guid", "systemID", "system_name", "node_description", "description", "number",
        "external_number", "label", "active_speed", "active_width", "logical_state",
        "physical_state", "peer", "peer_node_name", "peer_port_dname", "peer_node_description",
        "severity", "tier"}) {
    EXPECT_TRUE(ports[0].contains(field)) << field;
  }
  const Port& host = HostPort();
  HttpResult one = Get("/ufmRest/resources/ports/" + host.name);
  ASSERT_EQ(one.status, 200);
  Json list = Json::parse(one.body);
  ASSERT_TRUE(list.is_array());
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["name"], host.name);
  EXPECT_EQ(list[0]["systemID"], host.system_guid);
  EXPECT_EQ(list[0]["description"], "Computer IB Port");
  EXPECT_EQ(list[0]["node_description"], "gpu-node-001 HCA-1");
  EXPECT_EQ(list[0]["peer_node_name"], "ib-leaf-01");
  EXPECT_EQ(list[0]["peer_port_dname"], "1/1/1");
  EXPECT_EQ(list[0]["peer_node_description"], "ib-leaf-01:1/1/1");
  EXPECT_EQ(list[0]["tier"], 0);
  EXPECT_EQ(list[0]["active_speed"], "NDR");
  EXPECT_EQ(list[0]["active_width"], "4x");

  HttpResult missing = Get("/ufmRest/resources/ports/0123456789abcdef_1");
  EXPECT_EQ(missing.status, 404);
  EXPECT_TRUE(Json::parse(missing.body).contains("error"));

  const std::string leaf_guid = state_->topology().nodes()[0].system_guid;
  Json leaf = Json::parse(Get("/ufmRest/resources/ports?system=" + leaf_guid).body);
  EXPECT_EQ(leaf.size(), 5u);  // 3 hosts + 2 spines
  for (const Json& p : leaf) {
    EXPECT_EQ(p["systemID"], leaf_guid);
    EXPECT_EQ(p["description"], "Switch IB Port");
    EXPECT_EQ(p["tier"], 1);
  }

  ASSERT_EQ(Post("/sim/faults", Json{{"kind", "link_down"}, {"port", host.name}}.dump()).status,
            201);
  Json active = Json::parse(Get("/ufmRest/resources/ports?active=true").body);
  EXPECT_EQ(active.size(), ports.size() - 2);
}

TEST_F(SimServerTest, FaultsMakeEventsInTheUfmLayout) {
  const Port& host = HostPort();
  HttpResult fault =
      Post("/sim/faults", Json{{"kind", "flap"}, {"port", host.name}, {"interval_s", 1}}.dump());
  ASSERT_EQ(fault.status, 201) << fault.body;
  Json created = Json::parse(fault.body);
  EXPECT_EQ(created["id"], 1);
  EXPECT_EQ(created["kind"], "flap");
  const Port& leaf = state_->topology().ports()[host.peer];
  EXPECT_EQ(created["link"], Json::array({leaf.name, host.name}));
  clock_.Advance(milliseconds(1500));

  HttpResult r = Get("/ufmRest/app/events");
  ASSERT_EQ(r.status, 200);
  Json events = Json::parse(r.body);
  ASSERT_EQ(events.size(), 2u);
  const std::regex timestamp("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$");
  for (size_t i = 0; i < events.size(); ++i) {
    const Json& e = events[i];
    EXPECT_EQ(e.size(), 12u) << e.dump();
    EXPECT_EQ(e["id"], static_cast<int>(i + 1));
    EXPECT_EQ(e["type"], "Link");
    EXPECT_EQ(e["counter"], "N/A");
    EXPECT_EQ(e["category"], "Fabric Topology");
    EXPECT_EQ(e["object_name"], leaf.name + ":" + host.name);
    EXPECT_EQ(e["object_path"], leaf.name + ":" + host.name);
    EXPECT_EQ(e["write_to_syslog"], true);
    EXPECT_TRUE(std::regex_match(e["timestamp"].get<std::string>(), timestamp)) << e.dump();
  }
  EXPECT_EQ(events[0]["name"], "Link went down");
  EXPECT_EQ(events[0]["event_type"], "329");
  EXPECT_EQ(events[0]["severity"], "Warning");
  EXPECT_EQ(events[1]["name"], "Link went up");
  EXPECT_EQ(events[1]["event_type"], "328");
  EXPECT_EQ(events[1]["severity"], "Info");
  const std::string cable = state_->topology().links()[host.link].cable_serial;
  EXPECT_EQ(events[0]["description"], "Link went down: (Switch:ib-leaf-01:1/1/1)" + leaf.guid +
                                          ":1 - (Computer:gpu-node-001 HCA-1)" + host.guid +
                                          ":1, cable S/N: " + cable);
  // Documented filters.
  Json warnings = Json::parse(Get("/ufmRest/app/events?severity=Warning").body);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0]["id"], 1);
  EXPECT_EQ(Json::parse(Get("/ufmRest/app/events?object_name=nope").body).size(), 0u);
  EXPECT_EQ(Json::parse(Get("/ufmRest/app/events?type=Link&event_type=328").body).size(), 1u);
  EXPECT_EQ(Json::parse(Get("/ufmRest/app/events/2").body)["event_type"], "328");
  EXPECT_EQ(Get("/ufmRest/app/events/99").status, 404);

  Json faults = Json::parse(Get("/sim/faults").body);
  ASSERT_EQ(faults.size(), 1u);
  HttpResult repaired = Post("/sim/repair", Json{{"port", host.name}}.dump());
  ASSERT_EQ(repaired.status, 200);
  EXPECT_EQ(Json::parse(repaired.body)["repaired"], Json::array({leaf.name, host.name}));
  EXPECT_TRUE(Json::parse(Get("/sim/faults").body).empty());
}

TEST_F(SimServerTest, ActionRunsAsAJobAndDisablesThePort) {
  const Port& host = HostPort();
  const Json body = {{"action", "disable"},
                     {"object_type", "System"},
                     {"object_ids", {host.system_guid}},
                     {"params", {{"port_id", host.name}}},
                     {"description", "ufm-remediator ticket 7"},
                     {"identifier", "id"}};
  HttpResult accepted = Post("/ufmRest/actions", body.dump());
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  EXPECT_EQ(accepted.body, "{}");
  const std::string location = accepted.Header("location");
  EXPECT_EQ(location, "/ufmRest/jobs/1");

  Json running = Json::parse(Get(location).body);
  EXPECT_EQ(running["ID"], "1");
  EXPECT_EQ(running["Status"], "Running");
  EXPECT_EQ(running["Operation"], "Disable Port");
  EXPECT_EQ(running["RelatedObjects"], Json::array({host.name}));
  for (const char* field : {"Progress", "Summary", "CreatedTime", "LastUpdated"}) {
    EXPECT_TRUE(running.contains(field)) << field;
  }
  Json actions = Json::parse(Get("/sim/actions").body);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0]["status"], "Running");

  clock_.Advance(milliseconds(200));
  Json done = Json::parse(Get(location).body);
  EXPECT_EQ(done["Status"], "Completed");
  EXPECT_EQ(done["Progress"], 100);

  Json port = Json::parse(Get("/ufmRest/resources/ports/" + host.name).body)[0];
  EXPECT_EQ(port["logical_state"], "Disabled");
  EXPECT_EQ(port["physical_state"], "Link Down");
  Json peer =
      Json::parse(Get("/ufmRest/resources/ports/" + port["peer"].get<std::string>()).body)[0];
  EXPECT_EQ(peer["logical_state"], "Inactive");

  actions = Json::parse(Get("/sim/actions").body);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0]["action"], "disable");
  EXPECT_EQ(actions[0]["port"], host.name);
  EXPECT_EQ(actions[0]["status"], "Completed");
  EXPECT_TRUE(
      std::regex_match(actions[0]["time"].get<std::string>(),
                       std::regex("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$")));

  Json events = Json::parse(Get("/ufmRest/app/events").body);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["event_type"], "336");
  EXPECT_EQ(events[0]["name"], "Port Action Disable Succeeded");
  EXPECT_EQ(events[0]["type"], "Port");
  EXPECT_EQ(events[0]["object_name"], host.name);
  EXPECT_EQ(events[1]["event_type"], "329");

  EXPECT_EQ(Get("/ufmRest/jobs/2").status, 404);
  EXPECT_EQ(Get("/ufmRest/jobs/abc").status, 404);
}

TEST_F(SimServerTest, BadRequestsAreClearErrors) {
  const Port& host = HostPort();
  struct Case {
    const char* path;
    std::string body;
    long status;
  };
  const Json good = {{"action", "disable"},
                     {"object_type", "System"},
                     {"object_ids", {host.system_guid}},
                     {"params", {{"port_id", host.name}}},
                     {"description", "x"},
                     {"identifier", "id"}};
  Json wrong_system = good;
  wrong_system["object_ids"] = {state_->topology().nodes()[0].system_guid};
  Json unknown_port = good;
  unknown_port["params"]["port_id"] = "0123456789abcdef_1";
  Json unknown_action = good;
  unknown_action["action"] = "shutdown";
  const std::vector<Case> cases = {
      {"/ufmRest/actions", "{not json", 400},
      {"/ufmRest/actions", "", 400},
      {"/ufmRest/actions", "[]", 400},
      {"/ufmRest/actions", "{}", 400},
      {"/ufmRest/actions", wrong_system.dump(), 400},
      {"/ufmRest/actions", unknown_port.dump(), 404},
      {"/ufmRest/actions", unknown_action.dump(), 400},
      {"/sim/faults", "{not json", 400},
      {"/sim/faults", R"({"kind": "meltdown", "port": ")" + host.name + "\"}", 400},
      {"/sim/faults", R"({"kind": "flap", "port": ")" + host.name + R"(", "interval_s": -2})", 400},
      {"/sim/faults", R"({"kind": "link_down", "port": "0123456789abcdef_1"})", 404},
      {"/sim/repair", "{}", 400},
      {"/sim/repair", R"({"port": 5})", 400},
      {"/sim/repair", R"({"port": "0123456789abcdef_1"})", 404},
  };
  for (const Case& c : cases) {
    HttpResult r = Post(c.path, c.body);
    EXPECT_EQ(r.status, c.status) << c.path << " " << c.body << " -> " << r.body;
    Json error = Json::parse(r.body, nullptr, false);
    ASSERT_TRUE(error.is_object()) << r.body;
    EXPECT_TRUE(error.contains("error")) << r.body;
  }
  EXPECT_TRUE(Json::parse(Get("/sim/actions").body).empty());
  EXPECT_TRUE(Json::parse(Get("/ufmRest/app/events").body).empty());
}

TEST_F(SimServerTest, TelemetryCsv) {
  const Port& host = HostPort();
  ASSERT_EQ(
      Post("/sim/faults", Json{{"kind", "symbol_errors"}, {"port", host.name}, {"rate", 10}}.dump())
          .status,
      201);
  clock_.Advance(std::chrono::seconds(3));
  HttpClient plain;
  Result<HttpResult> r = plain.Get(telemetry_ + "/csv/metrics");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200);
  std::istringstream lines(r->body);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header,
            "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,PortXmitDataExtended,"
            "PortRcvDataExtended,PortXmitPktsExtended,PortRcvPktsExtended,"
            "SymbolErrorCounterExtended,LinkErrorRecoveryCounterExtended,"
            "LinkDownedCounterExtended,PortRcvErrorsExtended,PortRcvRemotePhysicalErrorsExtended,"
            "PortRcvSwitchRelayErrorsExtended");
  const std::regex row("^\\d{16},127\\.0\\.0\\.1,,0x[0-9a-f]{16},0x[0-9a-f]{16},\\d+(,\\d+){10}$");
  std::string line;
  size_t rows = 0;
  bool found_host = false;
  while (std::getline(lines, line)) {
    ++rows;
    EXPECT_TRUE(std::regex_match(line, row)) << line;
    if (line.find(",0x" + host.guid + ",1,") != std::string::npos) {
      found_host = true;
      std::vector<std::string> cells;
      std::stringstream ss(line);
      for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
      ASSERT_EQ(cells.size(), 16u);
      EXPECT_EQ(cells[10], "30") << "SymbolErrorCounterExtended after 3 s at 10/s";
      EXPECT_EQ(cells[0], std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(
                                             clock_.Now().time_since_epoch())
                                             .count()));
    }
  }
  EXPECT_EQ(rows, state_->topology().ports().size());
  EXPECT_TRUE(found_host);
  Result<HttpResult> labels = plain.Get(telemetry_ + "/labels/csv/metrics");
  ASSERT_TRUE(labels.ok());
  EXPECT_EQ(labels->status, 200);
  EXPECT_NE(labels->body.find("port_label"), std::string::npos);
}

}  // namespace
}  // namespace ufmr::sim
