// RestUfmClient against the real simulator over loopback: the four ways of authenticating
// (basic, session, token, local), and bad answers: 5xx and HTML error pages retried with backoff,
// an expired session (a login page where JSON was expected) answered by logging in again,
// malformed JSON, a timeout, refused connections; an action is never sent twice blindly.
// Against a scripted local HttpServer that records every request: isolation (SetPortHealth's PUT
// and its exact body, not retried on a 5xx), GetUnhealthyPorts and ParseUnhealthyPorts (list or
// {"data": [...]}, bad elements skipped, a port named by UnhealthyGUID + UnhealthyPortNumber,
// Condition a string or a list), GetJobs (string or
// integer ID), PostExternalEvent's body, and how an answer to a POST maps to a Status (4xx
// permanent, 5xx transient).
#include "ufm/ufm_client.h"

#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "http/http_server.h"
#include "sim/sim_server.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

// A ports answer as a list of PortInfos, for the checks below.
Result<std::vector<PortInfo>> AsList(Result<PortTable> table) {
  if (!table.ok()) return table.status();
  return table->ToVector();
}

using Json = nlohmann::json;

class UfmClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = sim::Topology::FromString("fat-tree:leaves=1,spines=1,hosts_per_leaf=2", 1);
    ASSERT_TRUE(t.ok());
    sim::SimOptions options;
    options.job_delay = std::chrono::milliseconds(0);
    state_ = std::make_unique<sim::SimState>(std::move(t.value()), options, clock_.Now());
    sim::SimServerOptions so;
    so.user = "admin";
    so.password = "p@ss word";
    server_ = std::make_unique<sim::SimServer>(*state_, clock_, so);
    ASSERT_TRUE(server_->Start().ok());
    base_ = "http://127.0.0.1:" + std::to_string(server_->port());
    config_.ufm.url = base_;
    config_.ufm.user = "admin";
    config_.ufm.password = "p@ss word";
    config_.ufm.timeout_s = 2;
    config_.ufm.retries = 3;
  }

  std::unique_ptr<RestUfmClient> Client() {
    return std::make_unique<RestUfmClient>(config_, [this](double s) { waits_.push_back(s); });
  }

  void Misbehave(const std::string& mode, int count, int delay_ms = 0) {
    HttpClient c;
    auto r = c.Post(base_ + "/sim/misbehave",
                    Json{{"mode", mode}, {"count", count}, {"delay_ms", delay_ms}}.dump());
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
  }

  int ActionsReceived() {
    HttpClient c;
    auto r = c.Get(base_ + "/sim/actions");
    return r.ok() ? static_cast<int>(Json::parse(r->body).size()) : -1;
  }

  FakeClock clock_;
  std::unique_ptr<sim::SimState> state_;
  std::unique_ptr<sim::SimServer> server_;
  std::string base_;
  Config config_;
  std::vector<double> waits_;
};

TEST_F(UfmClientTest, EveryAuthMethodReadsPorts) {
  HttpClientOptions basic;
  basic.basic_user = "admin";
  basic.basic_password = "p@ss word";
  HttpClient http(basic);
  auto token = http.Post(base_ + "/ufmRest/app/tokens", "{}");
  ASSERT_TRUE(token.ok());
  ASSERT_EQ(token->status, 200) << token->body;

  for (const std::string auth : {"basic", "session", "token", "local"}) {
    config_.ufm.auth = auth;
    config_.ufm.token = Json::parse(token->body)["access_token"];
    auto ports = AsList(Client()->GetPorts());
    ASSERT_TRUE(ports.ok()) << auth << ": " << ports.status().ToString();
    EXPECT_EQ(ports->size(), 6u) << auth;  // 1 leaf x (2 hosts + 1 uplink), 1 spine x 1, 2 HCAs
  }
  EXPECT_TRUE(waits_.empty());
}

TEST_F(UfmClientTest, LinksNameBothEnds) {
  auto links = Client()->GetLinks();
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  EXPECT_EQ(links->size(), 3u);  // 2 hosts and 1 uplink on the one leaf
  auto ports = AsList(Client()->GetPorts());
  ASSERT_TRUE(ports.ok());
  for (const auto& l : links.value()) {
    bool found = false;
    for (const auto& p : ports.value()) found = found || (p.name == l.a && p.peer == l.b);
    EXPECT_TRUE(found) << l.a << " - " << l.b;
  }
}

// The simulator answers in UFM's documented shapes, and the client reads them: disabled ports
// come only when asked for (show_disabled=true, which the client always sends) and read disabled
// by their physical state; labels from dname; links paged with their cable serials; an isolation
// listed by UnhealthyGUID + UnhealthyPortNumber; an unknown job is [] (NotFound).
TEST_F(UfmClientTest, ReadsUfmsDocumentedShapesFromTheSimulator) {
  auto client = Client();
  auto ports = AsList(client->GetPorts());
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  const PortInfo* leaf_port = nullptr;
  for (const auto& p : ports.value()) {
    if (p.is_switch() && p.peer.size() > 0 && !leaf_port) leaf_port = &p;
    if (p.is_switch()) {
      EXPECT_EQ(p.node_description, p.system_name + ":" + p.label) << p.name;
      EXPECT_NE(p.label.find('/'), std::string::npos) << p.name << ": a cage/split label";
    }
  }
  ASSERT_NE(leaf_port, nullptr);
  const PortInfo target = *leaf_port;
  auto job = client->SubmitPortAction("disable", target, "test");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  clock_.Advance(std::chrono::seconds(1));
  auto status = client->GetJob(job.value());
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_TRUE(status->done()) << status->status;
  auto after = AsList(client->GetPorts());
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->size(), ports->size()) << "the disabled port is still listed";
  auto port = client->GetPort(target.name);
  ASSERT_TRUE(port.ok()) << port.status().ToString();
  EXPECT_EQ(port->physical_state, "Disabled");
  EXPECT_EQ(port->logical_state, "Down");
  EXPECT_TRUE(port->disabled());

  HttpClientOptions basic;
  basic.basic_user = "admin";
  basic.basic_password = "p@ss word";
  auto bare = HttpClient(basic).Get(base_ + "/ufmRest/resources/ports");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(Json::parse(bare->body).size(), ports->size() - 1)
      << "without show_disabled the simulator leaves the disabled port out";
  for (const auto& p : Json::parse(bare->body)) EXPECT_FALSE(p.contains("label"));

  auto links = client->GetLinks();
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  for (const auto& l : links.value()) EXPECT_FALSE(l.cable_serial.empty()) << l.a;

  ASSERT_TRUE(client->SetPortHealth(target.peer, true, "test").ok());
  auto isolated = client->GetUnhealthyPorts();
  ASSERT_TRUE(isolated.ok()) << isolated.status().ToString();
  ASSERT_EQ(isolated->size(), 1u);
  EXPECT_EQ(isolated.value()[0].port, target.peer);
  EXPECT_TRUE(isolated.value()[0].manual());

  EXPECT_EQ(client->GetJob("999999").status().code(), Status::Code::kNotFound);
}

// A UFM that shows a disabled port only as "Down" / "Link Down": the client cannot tell it from
// a broken link, and says so (kUnknown), rather than "not disabled".
TEST_F(UfmClientTest, AnAmbiguousDisabledPortReadsUnknown) {
  server_->Stop();
  sim::SimServerOptions so;
  so.user = "admin";
  so.password = "p@ss word";
  so.disabled_state = "ambiguous";
  server_ = std::make_unique<sim::SimServer>(*state_, clock_, so);
  ASSERT_TRUE(server_->Start().ok());
  config_.ufm.url = "http://127.0.0.1:" + std::to_string(server_->port());
  auto client = Client();
  auto ports = AsList(client->GetPorts());
  ASSERT_TRUE(ports.ok());
  const PortInfo target = ports.value()[0];
  auto job = client->SubmitPortAction("disable", target, "test");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  clock_.Advance(std::chrono::seconds(1));
  auto port = client->GetPort(target.name);
  ASSERT_TRUE(port.ok());
  EXPECT_EQ(port->admin_state(), AdminState::kUnknown)
      << port->logical_state << " / " << port->physical_state;
  EXPECT_FALSE(port->disabled());
  EXPECT_FALSE(port->link_up());
}

// The simulator as an older UFM (--ufm-version 6.16): an event's "type" holds its id and its
// timestamp has milliseconds; the client reads that layout as it reads 6.17's.
TEST_F(UfmClientTest, ReadsTheEventLayoutOfUfmsBefore617) {
  server_->Stop();
  sim::SimServerOptions so;
  so.user = "admin";
  so.password = "p@ss word";
  so.ufm_version = 616;
  server_ = std::make_unique<sim::SimServer>(*state_, clock_, so);
  ASSERT_TRUE(server_->Start().ok());
  config_.ufm.url = "http://127.0.0.1:" + std::to_string(server_->port());
  auto port = AsList(Client()->GetPorts());
  ASSERT_TRUE(port.ok());
  HttpClient control;
  ASSERT_TRUE(control
                  .Post(config_.ufm.url + "/sim/faults",
                        Json{{"kind", "link_down"}, {"port", port.value()[0].name}}.dump())
                  .ok());
  auto events = Client()->GetEvents();
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_FALSE(events->events.empty());
  EXPECT_EQ(events->events[0].event_type, 329);
  EXPECT_EQ(events->events[0].object_type, "") << "the old layout has no object type";
  EXPECT_EQ(events->events[0].timestamp.size(), 23u) << events->events[0].timestamp;
  EXPECT_EQ(sim::ParseUfmVersion("6.16"), std::optional<int>(616));
  EXPECT_EQ(sim::ParseUfmVersion("6.19.3"), std::optional<int>(619));
  EXPECT_FALSE(sim::ParseUfmVersion("6").has_value());
  EXPECT_FALSE(sim::ParseUfmVersion("six.1").has_value());
}

TEST_F(UfmClientTest, WrongCredentialsAreAClearErrorWithoutRetries) {
  config_.ufm.password = "wrong";
  for (const std::string auth : {"basic", "session"}) {
    config_.ufm.auth = auth;
    auto ports = AsList(Client()->GetPorts());
    ASSERT_FALSE(ports.ok()) << auth;
    EXPECT_NE(ports.status().message().find("refused"), std::string::npos)
        << ports.status().message();
  }
  config_.ufm.auth = "token";
  config_.ufm.token = "not-a-token";
  EXPECT_FALSE(AsList(Client()->GetPorts()).ok());
  EXPECT_TRUE(waits_.empty()) << "credentials errors are not retried";
}

TEST_F(UfmClientTest, ServerErrorsAndHtmlPagesAreRetriedWithCappedJitteredBackoff) {
  config_.ufm.retry_base_s = 0.5;
  config_.ufm.retry_max_s = 1.5;
  Misbehave("status_500", 1);
  Misbehave("html_error", 2);
  auto events = Client()->GetEvents();
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(waits_.size(), 3u);
  const double caps[] = {0.5, 1.0, 1.5};
  for (size_t i = 0; i < waits_.size(); ++i) {
    EXPECT_GE(waits_[i], 0);
    EXPECT_LE(waits_[i], caps[i]) << "attempt " << i;
  }
}

TEST_F(UfmClientTest, GivesUpAfterTheRetriesWithTheLastError) {
  Misbehave("html_error", 10);
  auto events = Client()->GetEvents();
  ASSERT_FALSE(events.ok());
  EXPECT_NE(events.status().message().find("HTTP 502"), std::string::npos)
      << events.status().message();
  EXPECT_NE(events.status().message().find("after 4 attempts"), std::string::npos);
  EXPECT_EQ(waits_.size(), 3u);
}

TEST_F(UfmClientTest, HtmlWhereJsonWasExpectedIsAnError) {
  Misbehave("html_login", 1);
  auto ports = AsList(Client()->GetPorts());
  ASSERT_FALSE(ports.ok());
  EXPECT_NE(ports.status().message().find("HTML"), std::string::npos) << ports.status().message();
}

TEST_F(UfmClientTest, ExpiredSessionLogsInAgain) {
  config_.ufm.auth = "session";
  auto client = Client();
  ASSERT_TRUE(AsList(client->GetPorts()).ok());
  Misbehave("html_login", 1);  // the session has expired: UFM shows its login page
  auto ports = AsList(client->GetPorts());
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  Misbehave("status_401", 1);
  ASSERT_TRUE(AsList(client->GetPorts()).ok());
}

TEST_F(UfmClientTest, MalformedJsonIsAnError) {
  Misbehave("malformed_json", 1);
  auto events = Client()->GetEvents();
  ASSERT_FALSE(events.ok());
  EXPECT_NE(events.status().message().find("not valid JSON"), std::string::npos)
      << events.status().message();
}

TEST_F(UfmClientTest, TimeoutIsRetried) {
  config_.ufm.timeout_s = 0.3;
  Misbehave("slow", 1, 1500);
  auto ports = AsList(Client()->GetPorts());
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  EXPECT_EQ(waits_.size(), 1u);
}

TEST_F(UfmClientTest, AnActionThatMayHaveReachedUfmIsNotSentAgain) {
  auto client = Client();
  auto ports = AsList(client->GetPorts());
  ASSERT_TRUE(ports.ok());
  PortInfo port;
  for (const auto& p : ports.value()) {
    if (p.is_switch()) port = p;
  }
  Misbehave("status_500", 1);
  auto job = client->SubmitPortAction("disable", port, "test");
  ASSERT_FALSE(job.ok());
  EXPECT_TRUE(waits_.empty());
  EXPECT_EQ(ActionsReceived(), 0);
  // The next one goes through: one action, one job.
  job = client->SubmitPortAction("disable", port, "test");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(ActionsReceived(), 1);
  auto status = client->GetJob(job.value());
  ASSERT_TRUE(status.ok());
}

TEST_F(UfmClientTest, RefusedConnectionIsRetriedEvenForActions) {
  server_->Stop();
  PortInfo port;
  port.name = "fc6a1c0300000001_1";
  port.system_guid = "fc6a1c0300000001";
  auto job = Client()->SubmitPortAction("disable", port, "test");
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(waits_.size(), 3u) << "nothing was sent, so trying again is safe";
}

TEST_F(UfmClientTest, TheActionBodyIsTheDocumentedShape) {
  PortInfo port;
  port.name = "e41d2d0300062380_3";
  port.system_guid = "e41d2d0300062300";
  Json body = Json::parse(RestUfmClient::PortActionBody("disable", port, "why"));
  EXPECT_EQ(body, (Json{{"action", "disable"},
                        {"object_type", "System"},
                        {"object_ids", {"e41d2d0300062300"}},
                        {"params", {{"port_id", "e41d2d0300062380_3"}}},
                        {"description", "why"},
                        {"identifier", "id"}}));
}

// A UFM stand-in that answers every request with the scripted response and records what it got.
class ScriptedUfmTest : public ::testing::Test {
 protected:
  struct Seen {
    std::string method;
    std::string path;
    std::string body;
  };

  void SetUp() override {
    server_ = std::make_unique<HttpServer>("127.0.0.1", 0, [this](const HttpRequest& r) {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back({r.method, r.path, r.body});
      return answer_;
    });
    ASSERT_TRUE(server_->Start().ok());
    config_.ufm.url = "http://127.0.0.1:" + std::to_string(server_->port());
    config_.ufm.auth = "basic";
    config_.ufm.user = "admin";
    config_.ufm.password = "secret";
    config_.ufm.timeout_s = 2;
    config_.ufm.retries = 3;
  }

  void TearDown() override { server_->Stop(); }

  void Answer(int status, const std::string& body) {
    std::lock_guard<std::mutex> lock(mu_);
    answer_ = HttpResponse::Text(status, body, "application/json");
  }

  std::vector<Seen> Requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

  std::unique_ptr<RestUfmClient> Client() {
    return std::make_unique<RestUfmClient>(config_, [this](double s) { waits_.push_back(s); });
  }

  std::unique_ptr<HttpServer> server_;
  std::mutex mu_;
  HttpResponse answer_;
  std::vector<Seen> seen_;
  Config config_;
  std::vector<double> waits_;
};

TEST_F(ScriptedUfmTest, IsolateAndHealthyPutTheDocumentedBody) {
  Answer(200, "");
  auto client = Client();
  ASSERT_TRUE(client->SetPortHealth("e41d2d0300062380_3", true, "why").ok());
  ASSERT_TRUE(client->SetPortHealth("e41d2d0300062380_3", false, "why").ok());
  auto seen = Requests();
  ASSERT_EQ(seen.size(), 2u);
  for (const auto& r : seen) {
    EXPECT_EQ(r.method, "PUT");
    EXPECT_EQ(r.path, "/ufmRest/app/unhealthy_ports");
  }
  EXPECT_EQ(Json::parse(seen[0].body), (Json{{"ports", {"e41d2d0300062380_3"}},
                                             {"ports_policy", "UNHEALTHY"},
                                             {"action", "isolate"}}));
  EXPECT_EQ(Json::parse(seen[1].body),
            (Json{{"ports", {"e41d2d0300062380_3"}}, {"ports_policy", "HEALTHY"}}));
  EXPECT_EQ(Json::parse(RestUfmClient::UnhealthyPortsBody("a_1", true)),
            (Json{{"ports", {"a_1"}}, {"ports_policy", "UNHEALTHY"}, {"action", "isolate"}}));
  EXPECT_EQ(Json::parse(RestUfmClient::UnhealthyPortsBody("a_1", false)),
            (Json{{"ports", {"a_1"}}, {"ports_policy", "HEALTHY"}}));
}

TEST_F(ScriptedUfmTest, TheAuthMethodsPrefixComesFirst) {
  Answer(200, "");
  config_.ufm.auth = "token";
  config_.ufm.token = "t0k3n";
  ASSERT_TRUE(Client()->SetPortHealth("a_1", true, "why").ok());
  ASSERT_EQ(Requests().size(), 1u);
  EXPECT_EQ(Requests()[0].path, "/ufmRestV3/app/unhealthy_ports");
}

TEST_F(ScriptedUfmTest, IsolationIsNotRetriedOnAServerError) {
  Answer(503, R"({"error": "busy"})");
  Status s = Client()->SetPortHealth("e41d2d0300062380_3", true, "why");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("HTTP 503"), std::string::npos) << s.message();
  EXPECT_EQ(Requests().size(), 1u) << "a PUT that may have reached UFM is not sent again";
  EXPECT_TRUE(waits_.empty());
}

TEST_F(ScriptedUfmTest, UnhealthyPortsAListOrWrappedWithBadElementsSkipped) {
  // Entries as the REST API guide prints them: UnhealthyGUID + UnhealthyPortNumber name the port
  // (a string or a number, a GUID with or without 0x, any case); UnhealthyPort is a display path.
  const std::string list = R"([
    {"UnhealthyGUID": "e41d2d0300062380", "UnhealthyPortNumber": 3, "UnhealthyNode": "host-1",
     "UnhealthyPort": "host-1/HCA-1/3", "PeerPort": "sw-1/1/1/1", "Condition": "MANUAL",
     "StatusTime": "Wed Apr 29 00:05:32 2020"},
    {"UnhealthyGUID": "0x9C0591030090E000", "UnhealthyPortNumber": "7", "Condition": ["FLAPPING"]},
    {"UnhealthyGUID": "9c0591030090e000", "UnhealthyPortNumber": 12,
     "Condition": ["FLAPPING", "MANUAL"]},
    {"UnhealthyPort": "r-dmz-ufm135/HCA-1/1", "UnhealthyNode": "r-dmz-ufm135"},
    {"UnhealthyNode": "host-2"},
    "e41d2d0300062380_4",
    {"UnhealthyPort": ""}
  ])";
  for (const std::string& body : {list, std::string(R"({"data": )") + list + "}"}) {
    Answer(200, body);
    auto ports = Client()->GetUnhealthyPorts();
    ASSERT_TRUE(ports.ok()) << ports.status().ToString();
    ASSERT_EQ(ports->size(), 3u) << body;
    const UnhealthyPort& u = ports.value()[0];
    EXPECT_EQ(u.port, "e41d2d0300062380_3");
    EXPECT_EQ(u.node, "host-1");
    EXPECT_EQ(u.peer_port, "sw-1/1/1/1");
    EXPECT_EQ(u.condition, "MANUAL");
    EXPECT_TRUE(u.manual());
    EXPECT_EQ(u.status_time, "Wed Apr 29 00:05:32 2020");
    EXPECT_EQ(ports.value()[1].port, "9c0591030090e000_7") << "lower case, no 0x";
    EXPECT_EQ(ports.value()[1].condition, "FLAPPING");
    EXPECT_FALSE(ports.value()[1].manual()) << "the SM's own verdict";
    EXPECT_EQ(ports.value()[2].port, "9c0591030090e000_12");
    EXPECT_EQ(ports.value()[2].condition, "FLAPPING,MANUAL");
    EXPECT_TRUE(ports.value()[2].manual());
  }
  auto seen = Requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].method, "GET");
  EXPECT_EQ(seen[0].path, "/ufmRest/app/unhealthy_ports");
}

TEST(ParseUnhealthyPortsTest, SkipsAndCountsBadElements) {
  int skipped = 0;
  auto ports = ParseUnhealthyPorts(R"({"data": [
    {"UnhealthyPort": "A4D2D0300062380F_1"},
    {"UnhealthyGUID": "9c0591030090e00", "UnhealthyPortNumber": 3},
    {"UnhealthyGUID": "9c0591030090e000x", "UnhealthyPortNumber": 3},
    {"UnhealthyGUID": "zz0591030090e000", "UnhealthyPortNumber": 3},
    {"UnhealthyGUID": "0xfc6a1c0300244e00", "UnhealthyPortNumber": 3, "UnhealthyNode": "sw"},
    {"UnhealthyGUID": "fc6a1c0300244e00", "UnhealthyPortNumber": "x"},
    {"UnhealthyPort": "1", "UnhealthyNode": "9c0591030090e000"},
    {"UnhealthyPort": true},
    42
  ]})",
                                   &skipped);
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  ASSERT_EQ(ports->size(), 2u);
  EXPECT_EQ(ports.value()[0].port, "a4d2d0300062380f_1") << "a port name in UnhealthyPort";
  EXPECT_EQ(ports.value()[0].node, "");
  EXPECT_EQ(ports.value()[1].port, "fc6a1c0300244e00_3");
  EXPECT_EQ(ports.value()[1].node, "sw");
  // A bare number beside a node is no port name: a node description is not a GUID.
  EXPECT_EQ(skipped, 7);

  skipped = 0;
  auto empty = ParseUnhealthyPorts("[]", &skipped);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  EXPECT_EQ(skipped, 0);
  EXPECT_FALSE(ParseUnhealthyPorts(R"({"ports": []})", &skipped).ok());
  EXPECT_FALSE(ParseUnhealthyPorts("<html>", &skipped).ok());
}

TEST_F(ScriptedUfmTest, JobsWithStringOrIntegerIds) {
  const std::string list = R"([
    {"ID": "17", "Status": "Completed", "Description": "disable [ufm-remediator action 3]"},
    {"ID": 18, "Status": "Running", "Description": "isolate"},
    {"id": 19, "Status": "Completed With Errors"},
    {"Status": "Completed", "Description": "no id"},
    {"ID": 1.5, "Status": "Completed"},
    "not an object"
  ])";
  for (const std::string& body : {list, std::string(R"({"data": )") + list + "}"}) {
    Answer(200, body);
    auto jobs = Client()->GetJobs();
    ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
    ASSERT_EQ(jobs->size(), 3u) << body;
    EXPECT_EQ(jobs.value()[0].id, "17");
    EXPECT_EQ(jobs.value()[0].status, "Completed");
    EXPECT_EQ(jobs.value()[0].description, "disable [ufm-remediator action 3]");
    EXPECT_EQ(jobs.value()[1].id, "18");
    EXPECT_EQ(jobs.value()[1].status, "Running");
    EXPECT_EQ(jobs.value()[1].description, "isolate");
    EXPECT_EQ(jobs.value()[2].id, "19");
    EXPECT_EQ(jobs.value()[2].status, "Completed With Errors");
    EXPECT_EQ(jobs.value()[2].description, "");
  }
  EXPECT_EQ(Requests()[0].path, "/ufmRest/jobs");
  Answer(200, R"({"jobs": 3})");
  EXPECT_FALSE(Client()->GetJobs().ok());
}

TEST_F(ScriptedUfmTest, ExternalEventBody) {
  Answer(200, "");
  Status s = Client()->PostExternalEvent(552, "Port disabled by ufm-remediator",
                                         "ufm-remediator disabled port a_1 [ufm-remediator "
                                         "action 9]");
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto seen = Requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].path, "/ufmRest/app/events/external_event");
  EXPECT_EQ(Json::parse(seen[0].body),
            (Json{{"event_id", 552},
                  {"description", "ufm-remediator disabled port a_1 [ufm-remediator action 9]"},
                  {"external_event_name", "Port disabled by ufm-remediator"},
                  {"external_event_type", "Port"},
                  {"external_event_source", "ufm-remediator"}}));
}

TEST_F(ScriptedUfmTest, ARejectedPostIsPermanentAServerErrorTransient) {
  PortInfo port;
  port.name = "e41d2d0300062380_3";
  port.system_guid = "e41d2d0300062300";
  for (int code : {400, 409}) {
    Answer(code, R"({"error": "no such port"})");
    auto job = Client()->SubmitPortAction("disable", port, "why");
    ASSERT_FALSE(job.ok()) << code;
    EXPECT_EQ(job.status().code(), Status::Code::kInvalidArgument) << job.status().ToString();
    EXPECT_NE(job.status().message().find("HTTP " + std::to_string(code)), std::string::npos)
        << job.status().message();
    EXPECT_NE(job.status().message().find("no such port"), std::string::npos);
    Status s = Client()->PostExternalEvent(552, "n", "d");
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  }
  Answer(500, "oops");
  auto job = Client()->SubmitPortAction("disable", port, "why");
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), Status::Code::kUnavailable) << job.status().ToString();
  EXPECT_EQ(Client()->PostExternalEvent(552, "n", "d").code(), Status::Code::kUnavailable);
  // 2 x (action + event) for 400 and 409, then one of each for 500: none sent twice.
  EXPECT_EQ(Requests().size(), 6u);
  EXPECT_TRUE(waits_.empty());
}

// Plain http:// to another host sends UFM's credentials in the clear: said at start (serve) and
// by `config check`. Loopback, https and the local auth on the UFM host itself are fine.
TEST(CleartextUfmWarningTest, WarnsOnlyForPlainHttpLeavingThisHost) {
  auto warning = [](const std::string& url, const std::string& auth = "basic") {
    Config c;
    c.ufm.url = url;
    c.ufm.auth = auth;
    return CleartextUfmWarning(c);
  };
  for (const char* quiet :
       {"https://ufm.example", "https://10.0.0.5:443/x", "http://127.0.0.1:8000",
        "http://127.10.0.1", "http://localhost", "http://LOCALHOST:80/ufmRest", "http://[::1]:8080",
        "http://admin@127.0.0.1:80"}) {
    EXPECT_EQ(warning(quiet), "") << quiet;
  }
  EXPECT_EQ(warning("http://localhost", "local"), "");
  std::string remote = warning("http://ufm.example:80/ufmRest");
  EXPECT_NE(remote.find("plain http:// to ufm.example: UFM's credentials"), std::string::npos)
      << remote;
  EXPECT_NE(warning("http://10.0.0.5").find("to 10.0.0.5:"), std::string::npos);
  EXPECT_NE(warning("http://[fe80::1]:80").find("to fe80::1:"), std::string::npos);
  EXPECT_NE(warning("http://user@127.0.0.1.evil.example/").find("to 127.0.0.1.evil.example"),
            std::string::npos)
      << "a name that starts like a loopback address is still a name";
  std::string local = warning("http://ufm.example", "local");
  EXPECT_NE(local.find("UFM's requests, port actions included, and answers cross"),
            std::string::npos)
      << local;
  EXPECT_NE(warning("HTTP://ufm.example").find("to ufm.example:"), std::string::npos)
      << "the scheme's case does not matter";
}

}  // namespace
}  // namespace ufmr
