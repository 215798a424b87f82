// RestUfmClient against the real simulator over loopback: the four ways of authenticating
// (basic, session, token, local), and bad answers: 5xx and HTML error pages retried with backoff,
// an expired session (a login page where JSON was expected) answered by logging in again,
// malformed JSON, a timeout, refused connections; an action is never sent twice blindly.
#include "core/ufm_client.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/http_client.h"
#include "sim/sim_server.h"

namespace ufmr {
namespace {

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
    auto ports = Client()->GetPorts();
    ASSERT_TRUE(ports.ok()) << auth << ": " << ports.status().ToString();
    EXPECT_EQ(ports->size(), 6u) << auth;  // 1 leaf x (2 hosts + 1 uplink), 1 spine x 1, 2 HCAs
  }
  EXPECT_TRUE(waits_.empty());
}

TEST_F(UfmClientTest, LinksNameBothEnds) {
  auto links = Client()->GetLinks();
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  EXPECT_EQ(links->size(), 3u);  // 2 hosts and 1 uplink on the one leaf
  auto ports = Client()->GetPorts();
  ASSERT_TRUE(ports.ok());
  for (const auto& l : links.value()) {
    bool found = false;
    for (const auto& p : ports.value()) found = found || (p.name == l.a && p.peer == l.b);
    EXPECT_TRUE(found) << l.a << " - " << l.b;
  }
}

TEST_F(UfmClientTest, WrongCredentialsAreAClearErrorWithoutRetries) {
  config_.ufm.password = "wrong";
  for (const std::string auth : {"basic", "session"}) {
    config_.ufm.auth = auth;
    auto ports = Client()->GetPorts();
    ASSERT_FALSE(ports.ok()) << auth;
    EXPECT_NE(ports.status().message().find("refused"), std::string::npos)
        << ports.status().message();
  }
  config_.ufm.auth = "token";
  config_.ufm.token = "not-a-token";
  EXPECT_FALSE(Client()->GetPorts().ok());
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
  auto ports = Client()->GetPorts();
  ASSERT_FALSE(ports.ok());
  EXPECT_NE(ports.status().message().find("HTML"), std::string::npos) << ports.status().message();
}

TEST_F(UfmClientTest, ExpiredSessionLogsInAgain) {
  config_.ufm.auth = "session";
  auto client = Client();
  ASSERT_TRUE(client->GetPorts().ok());
  Misbehave("html_login", 1);  // the session has expired: UFM shows its login page
  auto ports = client->GetPorts();
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  Misbehave("status_401", 1);
  ASSERT_TRUE(client->GetPorts().ok());
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
  auto ports = Client()->GetPorts();
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  EXPECT_EQ(waits_.size(), 1u);
}

TEST_F(UfmClientTest, AnActionThatMayHaveReachedUfmIsNotSentAgain) {
  auto client = Client();
  auto ports = client->GetPorts();
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

}  // namespace
}  // namespace ufmr
