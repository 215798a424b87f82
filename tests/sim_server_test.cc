// The real simulator server over loopback, driven by a FakeClock (no sleeps).
#include "sim/sim_server.h"

#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "filter/manual_marks.h"
#include "ingest/event_log.h"
#include "ingest/event_subjects.h"
#include "ingest/rest_event.h"
#include "ufm/http_client.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"
#include "ufm/ufm_event.h"

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
  HttpResult Put(const std::string& path, const std::string& body) {
    Result<HttpResult> r = client_->Put(base_ + path, body);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r.value() : HttpResult{};
  }
  Json GetJson(const std::string& path) {
    HttpResult r = Get(path);
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
    return Json::parse(r.body, nullptr, false);
  }
  std::vector<std::string> EventTypes() {
    std::vector<std::string> out;
    for (const Json& e : GetJson("/ufmRest/app/events")) out.push_back(e["event_type"]);
    return out;
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
  for (const char* path : {"/ufmRest/app/events", "/ufmRest/resources/ports", "/ufmRest/jobs/1",
                           "/ufmRest/nope", "/ufmRest/app/unhealthy_ports/x_1"}) {
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
        "external_number", "dname", "active_speed", "active_width", "logical_state",
        "physical_state", "peer", "peer_node_name", "peer_port_dname", "peer_node_description",
        "severity", "tier"}) {
    EXPECT_TRUE(ports[0].contains(field)) << field;
  }
  // UFM's port objects have no label field (dname is the label) and no cable serial.
  EXPECT_FALSE(ports[0].contains("label"));
  EXPECT_FALSE(ports[0].contains("cable_serial"));
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
  EXPECT_EQ(list[0]["dname"], "1");
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
  EXPECT_EQ(events[0]["name"], "Link is Down");
  EXPECT_EQ(events[0]["event_type"], "329");
  EXPECT_EQ(events[0]["severity"], "Warning");
  EXPECT_EQ(events[1]["name"], "Link is Up");
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

  Json port =
      Json::parse(Get("/ufmRest/resources/ports/" + host.name + "?show_disabled=true").body)[0];
  // In InfiniBand, disabled is a physical state; the peer keeps polling for its partner.
  EXPECT_EQ(port["logical_state"], "Down");
  EXPECT_EQ(port["physical_state"], "Disabled");
  Json peer =
      Json::parse(Get("/ufmRest/resources/ports/" + port["peer"].get<std::string>()).body)[0];
  EXPECT_EQ(peer["logical_state"], "Down");
  EXPECT_EQ(peer["physical_state"], "Polling");
  // The list leaves a disabled port out unless asked for it.
  const size_t all = state_->topology().ports().size();
  EXPECT_EQ(Json::parse(Get("/ufmRest/resources/ports").body).size(), all - 1);
  EXPECT_EQ(Json::parse(Get("/ufmRest/resources/ports?show_disabled=true").body).size(), all);
  EXPECT_EQ(Json::parse(Get("/ufmRest/resources/ports/" + host.name).body), Json::array());

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
  EXPECT_EQ(events[0]["name"], "Port Action Succeeded");
  EXPECT_EQ(events[0]["category"], "Maintenance");
  EXPECT_EQ(events[0]["type"], "Port");
  EXPECT_EQ(events[0]["object_name"], host.name);
  EXPECT_EQ(events[1]["event_type"], "329");

  // UFM answers a job it does not know with an empty list.
  for (const char* unknown : {"/ufmRest/jobs/2", "/ufmRest/jobs/abc"}) {
    HttpResult r = Get(unknown);
    EXPECT_EQ(r.status, 200) << unknown;
    EXPECT_EQ(Json::parse(r.body), Json::array()) << unknown;
  }
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

TEST_F(SimServerTest, UnhealthyPortsIsolateAndHealRoundTrip) {
  const Port& host = HostPort();
  const Port& leaf = state_->topology().ports()[host.peer];
  clock_.Advance(std::chrono::seconds(2));
  const Json isolate = {
      {"ports", {host.name}}, {"ports_policy", "UNHEALTHY"}, {"action", "isolate"}};
  HttpResult put = Put("/ufmRest/app/unhealthy_ports", isolate.dump());
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(
      Json::parse(put.body),
      (Json{{"ports_policy", "UNHEALTHY"}, {"ports", {host.name}}, {"changed", {host.name}}}));

  // As the REST API guide prints an entry: the port by UnhealthyGUID and UnhealthyPortNumber,
  // UnhealthyPort and PeerPort display paths, StatusTime as ctime.
  Json list = GetJson("/ufmRest/app/unhealthy_ports");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["UnhealthyGUID"], host.guid);
  EXPECT_EQ(list[0]["UnhealthyPortNumber"], host.number);
  EXPECT_EQ(list[0]["UnhealthyPort"], "gpu-node-001/1");
  EXPECT_EQ(list[0]["UnhealthyNode"], "gpu-node-001");
  EXPECT_EQ(list[0]["PeerPort"], "ib-leaf-01/1/1/1");
  EXPECT_EQ(list[0]["PeerGUID"], leaf.guid);
  EXPECT_EQ(list[0]["PeerNode"], "ib-leaf-01");
  EXPECT_EQ(list[0]["Condition"], "MANUAL");
  EXPECT_TRUE(std::regex_match(
      list[0]["StatusTime"].get<std::string>(),
      std::regex("^[A-Z][a-z]{2} [A-Z][a-z]{2} \\d\\d \\d\\d:\\d\\d:\\d\\d \\d{4}$")))
      << list[0]["StatusTime"];
  int skipped = 0;
  auto parsed = ParseUnhealthyPorts(Get("/ufmRest/app/unhealthy_ports").body, &skipped);
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ(parsed.value()[0].port, host.name);
  // From 6.19, one port: UnhealthyPort the number as text, Condition a list.
  Json one = GetJson("/ufmRest/app/unhealthy_ports/" + host.name);
  EXPECT_EQ(one["UnhealthyPort"], std::to_string(host.number));
  EXPECT_EQ(one["UnhealthyNode"], "gpu-node-001 HCA-1");
  EXPECT_EQ(one["Condition"], Json::array({"MANUAL"}));
  EXPECT_EQ(Get("/ufmRest/app/unhealthy_ports/" + leaf.name).status, 404) << "not unhealthy";

  Json events = GetJson("/ufmRest/app/events");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["event_type"], "702");
  EXPECT_EQ(events[0]["name"], "Unhealthy IB Port");
  EXPECT_EQ(events[0]["type"], "IBPort") << "a host port, from 6.17";
  EXPECT_EQ(events[0]["object_path"], "Computer: gpu-node-001 / HCA-1");
  EXPECT_EQ(events[0]["severity"], "Warning");
  EXPECT_EQ(events[0]["category"], "Hardware");
  EXPECT_EQ(events[0]["object_name"], host.name);
  EXPECT_EQ(events[0]["description"],
            "Peer Port gpu-node-001 HCA-1:1 is considered by SM as unhealthy due to MANUAL.");

  // The port itself looks the same: the link stays up.
  Json port = GetJson("/ufmRest/resources/ports/" + host.name)[0];
  EXPECT_EQ(port["logical_state"], "Active");
  EXPECT_EQ(port["physical_state"], "Link Up");

  Json actions = GetJson("/sim/actions");
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0]["action"], "isolate");
  EXPECT_EQ(actions[0]["port"], host.name);
  EXPECT_EQ(actions[0]["status"], "Completed");
  EXPECT_EQ(actions[0]["job_id"], "0");

  HttpResult healthy = Put("/ufmRest/app/unhealthy_ports",
                           Json{{"ports", {host.name}}, {"ports_policy", "HEALTHY"}}.dump());
  ASSERT_EQ(healthy.status, 200) << healthy.body;
  EXPECT_EQ(Json::parse(healthy.body)["changed"], Json::array({host.name}));
  EXPECT_TRUE(GetJson("/ufmRest/app/unhealthy_ports").empty());
  EXPECT_EQ(GetJson("/ufmRest/app/events").size(), 1u) << "no event for healthy";
  actions = GetJson("/sim/actions");
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[1]["action"], "healthy");
  EXPECT_EQ(actions[1]["status"], "Completed");
}

TEST_F(SimServerTest, UnhealthyPortsThroughEveryPrefix) {
  const Port& host = HostPort();
  const Port& leaf = state_->topology().ports()[host.peer];
  const Json isolate = {
      {"ports", {leaf.name}}, {"ports_policy", "UNHEALTHY"}, {"action", "isolate"}};
  // Token (/ufmRestV3).
  Json token = Json::parse(Post("/ufmRest/app/tokens", "{}").body);
  HttpClientOptions with_token;
  with_token.headers["Authorization"] = "Basic " + token["access_token"].get<std::string>();
  HttpClient v3(with_token);
  Result<HttpResult> r = v3.Put(base_ + "/ufmRestV3/app/unhealthy_ports", isolate.dump());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200) << r->body;
  r = v3.Get(base_ + "/ufmRestV3/app/unhealthy_ports");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(Json::parse(r->body).size(), 1u);
  // Session (/ufmRestV2).
  HttpClient v2;
  ASSERT_EQ(v2.PostForm(base_ + "/dologin", "httpd_username=admin&httpd_password=s3cret")->status,
            200);
  r = v2.Put(base_ + "/ufmRestV2/app/unhealthy_ports",
             Json{{"ports", {leaf.name}}, {"ports_policy", "HEALTHY"}}.dump());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200) << r->body;
  // On the UFM host: no prefix.
  HttpClientOptions local_options;
  local_options.headers["X-Remote-User"] = "ufmsystem";
  HttpClient local(local_options);
  r = local.Put(base_ + "/app/unhealthy_ports", isolate.dump());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200) << r->body;
  r = local.Get(base_ + "/app/unhealthy_ports");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(Json::parse(r->body)[0]["UnhealthyGUID"], leaf.guid);
  EXPECT_EQ(Json::parse(r->body)[0]["UnhealthyPortNumber"], leaf.number);
  EXPECT_EQ(Json::parse(r->body)[0]["UnhealthyNode"], "ib-leaf-01");
  // And none without credentials.
  HttpClient anonymous;
  r = anonymous.Put(base_ + "/ufmRest/app/unhealthy_ports", isolate.dump());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 401);
  r = anonymous.Get(base_ + "/app/unhealthy_ports");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"702", "702"}));
  EXPECT_EQ(GetJson("/sim/actions").size(), 3u);
}

// The service reads event 702 through its own parsers: from GET /app/events (the port is the
// object), and from the event.log line (the port is the object; a switch port is also named by
// its node description after "Peer Port"). Either way the port, and only it, is a person's.
TEST_F(SimServerTest, Event702NamesThePortTheServiceMarksAsManual) {
  const Port& host = HostPort();
  const Port& leaf = state_->topology().ports()[host.peer];
  for (const Port* p : {&host, &leaf}) {
    SCOPED_TRACE(p->name);
    ASSERT_EQ(
        Put("/ufmRest/app/unhealthy_ports",
            Json{{"ports", {p->name}}, {"ports_policy", "UNHEALTHY"}, {"action", "isolate"}}.dump())
            .status,
        200);
    HttpResult events = Get("/ufmRest/app/events");
    Result<ParsedEvents> parsed = ParseUfmEvents(events.body);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    ASSERT_TRUE(parsed->errors.empty());
    const UfmEvent& e = parsed->events.back();
    EXPECT_EQ(e.event_type, 702);
    // From 6.17 a host port is an IBPort object "Computer: <host> / <device>" (REST guide,
    // Alarms REST API); a switch port stays a Port.
    EXPECT_EQ(e.object_type, p->is_switch ? "Port" : "IBPort");
    Observation o = ToObservation(e, clock_.Now());
    EXPECT_EQ(o.ports, std::vector<std::string>{p->name});
    ManualMarks marks;
    marks.Observe(o, o.ports);
    EXPECT_NE(marks.Why(p->name), "");
    EXPECT_EQ(marks.Why(state_->topology().ports()[p->peer].name), "");
    EXPECT_TRUE(ExtractPortSubjects(e.description).empty())
        << "the text names no GUID: the port comes from the object";

    const std::string line = FormatEventLogLine(state_->Events().back());
    Result<LogEntry> entry = ParseEventLogEntry(line);
    ASSERT_TRUE(entry.ok()) << line << ": " << entry.status().ToString();
    Observation from_log = ToObservation(entry.value(), clock_.Now());
    EXPECT_EQ(from_log.event_type, 702);
    EXPECT_EQ(entry->object_type, "IBPort") << line;
    if (p->is_switch) {
      // "IBPort [default(1) / Switch: ib-leaf-01 / 1/1/1 / 1] [dev_id: <switch GUID>]": a
      // switch's ports are named by its GUID.
      EXPECT_EQ(from_log.ports, std::vector<std::string>{p->name}) << line;
      ManualMarks log_marks;
      log_marks.Observe(from_log, from_log.ports);
      EXPECT_NE(log_marks.Why(p->name), "");
      // "Peer Port ib-leaf-01:1/1/1": the inventory finds the same port by its description.
      EXPECT_EQ(from_log.port_refs, std::vector<std::string>{"ib-leaf-01:1/1/1"});
      Inventory inventory;
      Result<std::vector<PortInfo>> ports =
          ParsePorts(Get("/ufmRest/resources/ports").body, nullptr);
      ASSERT_TRUE(ports.ok());
      inventory.Replace(std::move(ports.value()));
      EXPECT_EQ(inventory.FindByDescription(from_log.port_refs[0]),
                std::optional<std::string>(p->name));
    } else {
      // "IBPort [Computer: gpu-node-001 / HCA-1] [dev_id: <port GUID>]" (6.17+): no port name
      // is made of a host's dev_id; the port is "<host> <device>", which the inventory resolves
      // to the adapter's one port.
      EXPECT_TRUE(from_log.ports.empty()) << line;
      EXPECT_EQ(from_log.port_refs, std::vector<std::string>{p->node_description}) << line;
      Inventory inventory;
      Result<std::vector<PortInfo>> ports =
          ParsePorts(Get("/ufmRest/resources/ports").body, nullptr);
      ASSERT_TRUE(ports.ok());
      inventory.Replace(std::move(ports.value()));
      EXPECT_EQ(inventory.WithReferencedPorts(from_log.ports, from_log.port_refs),
                std::vector<std::string>{p->name});
    }
  }
}

TEST_F(SimServerTest, BadUnhealthyPortsBodies) {
  const Port& host = HostPort();
  struct Case {
    std::string body;
    long status;
  };
  const std::vector<Case> cases = {
      {"{not json", 400},
      {"", 400},
      {"[]", 400},
      {"\"isolate\"", 400},
      {"{}", 400},
      {Json{{"ports", host.name}, {"ports_policy", "UNHEALTHY"}}.dump(), 400},
      {Json{{"ports", Json::array()}, {"ports_policy", "UNHEALTHY"}}.dump(), 400},
      {Json{{"ports", {host.name, 7}}, {"ports_policy", "UNHEALTHY"}}.dump(), 400},
      {Json{{"ports", {host.name}}, {"ports_policy", "QUARANTINE"}}.dump(), 400},
      {Json{{"ports", {host.name}}}.dump(), 400},
      {Json{{"ports", {host.name}}, {"ports_policy", "UNHEALTHY"}, {"action", "reset"}}.dump(),
       400},
      {Json{{"ports", {host.name, "0123456789abcdef_1"}}, {"ports_policy", "UNHEALTHY"}}.dump(),
       404},
  };
  for (const Case& c : cases) {
    HttpResult r = Put("/ufmRest/app/unhealthy_ports", c.body);
    EXPECT_EQ(r.status, c.status) << c.body << " -> " << r.body;
    Json error = Json::parse(r.body, nullptr, false);
    ASSERT_TRUE(error.is_object()) << r.body;
    EXPECT_TRUE(error.contains("error")) << r.body;
  }
  EXPECT_TRUE(GetJson("/ufmRest/app/unhealthy_ports").empty());
  EXPECT_TRUE(GetJson("/ufmRest/app/events").empty());
  EXPECT_TRUE(GetJson("/sim/actions").empty());
  EXPECT_EQ(Post("/ufmRest/app/unhealthy_ports", "{}").status, 405) << "PUT, not POST";
}

TEST_F(SimServerTest, ExternalEventsShowInUfmEvents) {
  clock_.Advance(std::chrono::seconds(5));
  const Json body = {{"event_id", 552},
                     {"description", "ufm-remediator: disabled port x for ticket 12"},
                     {"external_event_name", "UFM Remediator action"},
                     {"external_event_type", "Remediation"},
                     {"external_event_source", "ufm-remediator"}};
  HttpResult r = Post("/ufmRest/app/events/external_event", body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Json::parse(r.body)["id"], 1);

  Json events = GetJson("/ufmRest/app/events");
  ASSERT_EQ(events.size(), 1u);
  const Json& e = events[0];
  EXPECT_EQ(e["id"], 1);
  EXPECT_EQ(e["event_type"], "552");
  EXPECT_EQ(e["name"], "UFM Remediator action");
  EXPECT_EQ(e["type"], "Remediation");
  EXPECT_EQ(e["severity"], "Warning");
  EXPECT_EQ(e["category"], "External");
  EXPECT_EQ(e["object_name"], "ufm-remediator");
  EXPECT_EQ(e["description"], "ufm-remediator: disabled port x for ticket 12");
  EXPECT_EQ(e["timestamp"], FormatUfmTime(clock_.Now()));
  EXPECT_EQ(GetJson("/ufmRest/app/events?category=External").size(), 1u);
  EXPECT_EQ(GetJson("/ufmRest/app/events/1")["event_type"], "552");

  Json received = GetJson("/sim/external_events");
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0]["body"], body);
  EXPECT_EQ(received[0]["id"], 1);
  EXPECT_EQ(received[0]["time"], FormatIsoTime(clock_.Now()));

  // The minimal body; the other prefixes.
  HttpClientOptions local_options;
  local_options.headers["X-Remote-User"] = "ufmsystem";
  HttpClient local(local_options);
  Result<HttpResult> minimal = local.Post(base_ + "/app/events/external_event",
                                          Json{{"event_id", 554}, {"description", "x"}}.dump());
  ASSERT_TRUE(minimal.ok());
  EXPECT_EQ(minimal->status, 200) << minimal->body;
  events = GetJson("/ufmRest/app/events");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["name"], "External Event");
  EXPECT_EQ(events[1]["severity"], "Critical");

  for (const std::string& bad :
       {std::string("{not json"), std::string("[]"), std::string("{}"),
        Json{{"event_id", 550}, {"description", "x"}}.dump(),
        Json{{"event_id", 555}, {"description", "x"}}.dump(),
        Json{{"event_id", "551"}, {"description", "x"}}.dump(), Json{{"event_id", 551}}.dump(),
        Json{{"event_id", 551}, {"description", "x"}, {"external_event_name", 3}}.dump()}) {
    HttpResult b = Post("/ufmRest/app/events/external_event", bad);
    EXPECT_EQ(b.status, 400) << bad << " -> " << b.body;
    EXPECT_TRUE(Json::parse(b.body, nullptr, false).contains("error")) << b.body;
  }
  EXPECT_EQ(GetJson("/ufmRest/app/events").size(), 2u);
  EXPECT_EQ(GetJson("/sim/external_events").size(), 2u);
}

TEST_F(SimServerTest, OperatorActionsAreNotTheServicesActions) {
  const Port& host = HostPort();
  HttpClient anonymous;  // the control API needs no auth
  Result<HttpResult> r = anonymous.Post(base_ + "/sim/operator",
                                        Json{{"port", host.name}, {"action", "disable"}}.dump());
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json::parse(r->body),
            (Json{{"action", "disable"}, {"port", host.name}, {"changed", true}}));
  EXPECT_EQ(
      GetJson("/ufmRest/resources/ports/" + host.name + "?show_disabled=true")[0]["physical_state"],
      "Disabled");
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329"}));

  const Port& leaf = state_->topology().ports()[host.peer];
  ASSERT_EQ(Post("/sim/operator", Json{{"port", leaf.name}, {"action", "isolate"}}.dump()).status,
            200);
  Json list = GetJson("/ufmRest/app/unhealthy_ports");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["UnhealthyGUID"], leaf.guid);
  EXPECT_EQ(list[0]["UnhealthyPortNumber"], leaf.number);
  EXPECT_EQ(list[0]["Condition"], "MANUAL");
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329", "702"}));

  EXPECT_TRUE(GetJson("/sim/actions").empty());
  Json log = GetJson("/sim/operator");
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0]["action"], "disable");
  EXPECT_EQ(log[0]["port"], host.name);
  EXPECT_EQ(log[0]["changed"], true);
  EXPECT_EQ(log[1]["action"], "isolate");
  EXPECT_TRUE(
      std::regex_match(log[0]["time"].get<std::string>(),
                       std::regex("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$")));

  struct Case {
    std::string body;
    long status;
  };
  for (const Case& c : std::vector<Case>{
           {"{not json", 400},
           {"[]", 400},
           {Json{{"port", host.name}}.dump(), 400},
           {Json{{"port", host.name}, {"action", "reset"}}.dump(), 400},
           {Json{{"port", "0123456789abcdef_1"}, {"action", "enable"}}.dump(), 404},
       }) {
    HttpResult b = Post("/sim/operator", c.body);
    EXPECT_EQ(b.status, c.status) << c.body << " -> " << b.body;
    EXPECT_TRUE(Json::parse(b.body, nullptr, false).contains("error")) << b.body;
  }
  EXPECT_EQ(GetJson("/sim/operator").size(), 2u);
}

TEST_F(SimServerTest, JobsListHasEveryJobAsItsOwnPageShowsIt) {
  EXPECT_EQ(GetJson("/ufmRest/jobs"), Json::array());
  const Port& host = HostPort();
  const Port& leaf = state_->topology().ports()[host.peer];
  auto action = [](const Port& p, const std::string& what, const std::string& description) {
    return Json{{"action", what},
                {"object_type", "System"},
                {"object_ids", {p.system_guid}},
                {"params", {{"port_id", p.name}}},
                {"description", description},
                {"identifier", "id"}}
        .dump();
  };
  ASSERT_EQ(
      Post("/ufmRest/actions", action(host, "disable", "ufm-remediator [ufmr:t42:a1]")).status,
      202);
  clock_.Advance(milliseconds(300));
  ASSERT_EQ(Post("/ufmRest/actions", action(leaf, "disable", "second")).status, 202);
  Json jobs = GetJson("/ufmRest/jobs");
  ASSERT_EQ(jobs.size(), 2u);
  for (const char* field : {"ID", "Status", "Operation", "Progress", "Description", "Summary",
                            "RelatedObjects", "CreationTime", "CreatedTime", "LastUpdated"}) {
    EXPECT_TRUE(jobs[0].contains(field)) << field;
  }
  EXPECT_EQ(jobs[0]["ID"], "1");
  EXPECT_EQ(jobs[0]["Description"], "ufm-remediator [ufmr:t42:a1]");
  EXPECT_EQ(jobs[0]["Status"], "Completed");
  EXPECT_EQ(jobs[0]["RelatedObjects"], Json::array({host.name}));
  EXPECT_EQ(jobs[0]["CreationTime"], jobs[0]["CreatedTime"]);
  EXPECT_EQ(jobs[1]["ID"], "2");
  EXPECT_EQ(jobs[1]["Description"], "second");
  EXPECT_EQ(jobs[1]["Status"], "Running");
  for (const Json& job : jobs) {
    EXPECT_EQ(job, GetJson("/ufmRest/jobs/" + job["ID"].get<std::string>()));
  }
  HttpClientOptions local_options;
  local_options.headers["X-Remote-User"] = "ufmsystem";
  HttpClient local(local_options);
  Result<HttpResult> r = local.Get(base_ + "/jobs");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json::parse(r->body).size(), 2u);
}

TEST_F(SimServerTest, SwitchRebootOverHttp) {
  const Node& leaf = state_->topology().nodes()[0];
  HttpResult created =
      Post("/sim/faults",
           Json{{"kind", "switch_reboot"}, {"switch", leaf.system_guid}, {"down_s", 20}}.dump());
  ASSERT_EQ(created.status, 201) << created.body;
  Json fault = Json::parse(created.body);
  EXPECT_EQ(fault["kind"], "switch_reboot");
  EXPECT_EQ(fault["switch"], "ib-leaf-01");
  EXPECT_EQ(fault["system_guid"], leaf.system_guid);
  EXPECT_EQ(fault["down_s"], 20.0);
  ASSERT_EQ(fault["links"].size(), 5u);  // 3 hosts + 2 spines
  Json faults = GetJson("/sim/faults");
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0]["kind"], "switch_reboot");
  EXPECT_EQ(faults[0]["switch"], "ib-leaf-01");

  Json events = GetJson("/ufmRest/app/events");
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[0]["event_type"], "907");
  EXPECT_EQ(events[0]["name"], "Switch is Down");
  EXPECT_EQ(events[0]["type"], "Switch");
  EXPECT_EQ(events[0]["severity"], "Critical");
  EXPECT_EQ(events[0]["object_name"], leaf.system_guid);
  EXPECT_EQ(events[0]["description"], "Site configuration changes: ib-leaf-01 Switch is Down");
  for (size_t i = 1; i < 6; ++i) EXPECT_EQ(events[i]["event_type"], "329");
  int down = 0;
  for (const Json& l : GetJson("/sim/links")) {
    if (l["a"]["system_name"] == "ib-leaf-01") {
      EXPECT_FALSE(l["up"].get<bool>());
      EXPECT_EQ(l["faults"], Json::array({1}));
      ++down;
    } else {
      EXPECT_TRUE(l["up"].get<bool>());
    }
  }
  EXPECT_EQ(down, 5);

  clock_.Advance(std::chrono::seconds(19));
  EXPECT_EQ(GetJson("/ufmRest/app/events").size(), 6u);
  clock_.Advance(std::chrono::seconds(1));
  std::vector<std::string> types = EventTypes();
  ASSERT_EQ(types.size(), 12u);
  EXPECT_EQ(types[6], "908");
  for (size_t i = 7; i < 12; ++i) EXPECT_EQ(types[i], "328");
  EXPECT_TRUE(GetJson("/sim/faults").empty());
  for (const Json& l : GetJson("/sim/links")) EXPECT_TRUE(l["up"].get<bool>());
}

TEST_F(SimServerTest, NodeRebootOverHttpAndRepairEndsItEarly) {
  const Port& host = HostPort();
  HttpResult created =
      Post("/sim/faults", Json{{"kind", "node_reboot"}, {"node", "gpu-node-001"}}.dump());
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(Json::parse(created.body)["node"], "gpu-node-001");
  EXPECT_EQ(Json::parse(created.body)["down_s"], 20.0);
  Json events = GetJson("/ufmRest/app/events");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["event_type"], "331");
  EXPECT_EQ(events[0]["name"], "Node is Down");
  EXPECT_EQ(events[0]["type"], "Computer");
  EXPECT_EQ(events[0]["object_name"], "gpu-node-001");
  EXPECT_EQ(events[0]["description"], "Site configuration changes: gpu-node-001 node is Down");
  EXPECT_EQ(events[1]["event_type"], "329");
  EXPECT_EQ(GetJson("/ufmRest/resources/ports/" + host.name)[0]["physical_state"], "Polling");

  clock_.Advance(std::chrono::seconds(3));
  HttpResult repaired = Post("/sim/repair", Json{{"port", host.name}}.dump());
  ASSERT_EQ(repaired.status, 200) << repaired.body;
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"331", "329", "332", "328"}));
  EXPECT_EQ(GetJson("/ufmRest/app/events/3")["description"],
            "Site configuration changes: gpu-node-001 node is Up");
  EXPECT_TRUE(GetJson("/sim/faults").empty());
  EXPECT_EQ(GetJson("/ufmRest/resources/ports/" + host.name)[0]["physical_state"], "Link Up");

  struct Case {
    Json body;
    long status;
  };
  for (const Case& c : std::vector<Case>{
           {{{"kind", "node_reboot"}, {"node", "gpu-node-404"}}, 404},
           {{{"kind", "switch_reboot"}, {"switch", "ib-leaf-09"}}, 404},
           {{{"kind", "node_reboot"}}, 400},
           {{{"kind", "node_reboot"}, {"node", "gpu-node-001"}, {"down_s", 0}}, 400},
           {{{"kind", "switch_reboot"}, {"switch", "ib-leaf-01"}, {"down_s", "soon"}}, 400},
       }) {
    HttpResult b = Post("/sim/faults", c.body.dump());
    EXPECT_EQ(b.status, c.status) << c.body.dump() << " -> " << b.body;
    EXPECT_TRUE(Json::parse(b.body, nullptr, false).contains("error")) << b.body;
  }
  ASSERT_EQ(
      Post("/sim/faults", Json{{"kind", "node_reboot"}, {"node", "gpu-node-002"}}.dump()).status,
      201);
  EXPECT_EQ(
      Post("/sim/faults", Json{{"kind", "node_reboot"}, {"node", "gpu-node-002"}}.dump()).status,
      409)
      << "already rebooting";
}

TEST_F(SimServerTest, NodeDescriptionCanBeSetAndRestored) {
  const Port& host = HostPort();
  const Port& leaf = state_->topology().ports()[host.peer];
  const std::string hostile = "<script>window.__xss=1</script><img src=x onerror=\"a,b\">";
  HttpResult set =
      Post("/sim/node_description", Json{{"port", host.name}, {"description", hostile}}.dump());
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_EQ(Json::parse(set.body)["port"], host.name);
  EXPECT_EQ(Json::parse(set.body)["node_description"], hostile);

  // The ports list, the single port, the peer's view, the links, /sim/links.
  EXPECT_EQ(GetJson("/ufmRest/resources/ports/" + host.name)[0]["node_description"], hostile);
  EXPECT_EQ(GetJson("/ufmRest/resources/ports/" + leaf.name)[0]["peer_node_description"], hostile);
  EXPECT_EQ(GetJson("/ufmRest/resources/ports/" + leaf.name)[0]["node_description"],
            "ib-leaf-01:1/1/1");
  bool in_list = false;
  for (const Json& p : GetJson("/ufmRest/resources/ports")) {
    if (p["name"] == host.name) in_list = p["node_description"] == hostile;
  }
  EXPECT_TRUE(in_list);
  bool in_links = false;
  for (const Json& l : GetJson("/ufmRest/resources/links")) {
    if (l["destination_guid"] == host.guid) {
      in_links = l["destination_port_node_description"] == hostile;
    }
  }
  EXPECT_TRUE(in_links);
  bool in_sim_links = false;
  for (const Json& l : GetJson("/sim/links")) {
    if (l["b"]["port"] == host.name) in_sim_links = l["b"]["node_description"] == hostile;
  }
  EXPECT_TRUE(in_sim_links);

  // Events name the node by its new description.
  ASSERT_EQ(Post("/sim/faults", Json{{"kind", "link_down"}, {"port", host.name}}.dump()).status,
            201);
  Json events = GetJson("/ufmRest/app/events");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0]["description"].get<std::string>().find("(Computer:" + hostile + ")"),
            std::string::npos)
      << events[0].dump();

  // Labelled telemetry quotes it (it holds a comma and quotes).
  HttpClient plain;
  Result<HttpResult> labels = plain.Get(telemetry_ + "/labels/csv/metrics");
  ASSERT_TRUE(labels.ok());
  EXPECT_NE(
      labels->body.find(",\"<script>window.__xss=1</script><img src=x onerror=\"\"a,b\"\">\",1,"),
      std::string::npos);

  // "" restores the generated one; bad bodies are clear errors.
  ASSERT_EQ(
      Post("/sim/node_description", Json{{"port", host.name}, {"description", ""}}.dump()).status,
      200);
  EXPECT_EQ(GetJson("/ufmRest/resources/ports/" + host.name)[0]["node_description"],
            "gpu-node-001 HCA-1");
  struct Case {
    Json body;
    long status;
  };
  for (const Case& c : std::vector<Case>{
           {{{"description", "x"}}, 400},
           {{{"port", host.name}}, 400},
           {{{"port", host.name}, {"description", 5}}, 400},
           {{{"port", host.name}, {"description", std::string(257, 'x')}}, 400},
           {{{"port", host.name}, {"description", "x"}, {"by", "me"}}, 400},
           {{{"port", "0123456789abcdef_1"}, {"description", "x"}}, 404},
       }) {
    HttpResult b = Post("/sim/node_description", c.body.dump());
    EXPECT_EQ(b.status, c.status) << c.body.dump() << " -> " << b.body;
    EXPECT_TRUE(Json::parse(b.body, nullptr, false).contains("error")) << b.body;
  }
}

}  // namespace
}  // namespace ufmr::sim
