// End to end, notifications: a real PostgreSQL, the real ufm-sim and the real ufm-remediator,
// with a webhook receiver (an HTTP server here) and a mailbox (scripts/mail-sink.py) on loopback.
// Two links break at once: the webhook receiver gets one message with both tickets, and the
// mailbox one mail, each once. A receiver that is down while the service restarts gets the
// message when it is back, once, under the key it was first tried with; meanwhile the API lists
// it as failing.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "support/http_receiver.h"
#include "support/service_process.h"
#include "support/shipped_rules.h"
#include "support/sim_process.h"
#include "support/test_env.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

using json = nlohmann::json;
using std::chrono::seconds;
using testing::WaitUntil;

class NotifyServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("ufmr-notify");
    sim_ = std::make_unique<testing::SimProcess>(
        dir_, std::vector<std::string>{
                  "--topology", "fat-tree:leaves=2,spines=2,hosts_per_leaf=2,hcas_per_host=2",
                  "--job-delay-ms", "100"});
    ASSERT_TRUE(sim_->AwaitReady());
    ASSERT_TRUE(testing::ShippedRulesWithShortHold(dir_ + "/rules"));
    mail_ = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{"/usr/bin/python3", testing::SourceDir() + "/scripts/mail-sink.py",
                                 "--dir", dir_ + "/mail", "--port-file", dir_ + "/smtp-port"},
        dir_ + "/mail.log");
    ASSERT_TRUE(WaitUntil([&] { return std::ifstream(dir_ + "/smtp-port").good(); }, seconds(10)))
        << mail_->Log();
    service_ = std::make_unique<testing::ServiceProcess>(dir_, "service");
    service_->WriteConfig(Config());
    ASSERT_TRUE(service_->Migrate());
    http_.SetHeader("Authorization", "Bearer " + service_->CreateToken("eng", "engineer"));
    service_->Start();
    ASSERT_TRUE(service_->AwaitInventory(seconds(20)));
    ASSERT_TRUE(service_->AwaitLog({"skipping"}, seconds(10)));
  }

  void TearDown() override {
    service_.reset();
    mail_.reset();
    sim_.reset();
    testing::RemoveTree(dir_);
  }

  std::string Config() {
    return "fabric: e2e-notify\nufm:\n  url: " + sim_->url() +
           "\n  user: admin\n  password: \"123456\"\n"
           "database:\n  url: \"" +
           testing::TestPostgres::Get().CreateDatabase() +
           "\"\n  schema_dir: " + testing::SourceDir() + "/schema\nrules:\n  dir: " + dir_ +
           "/rules\nevents:\n  poll_interval_s: 0.3\nhttp:\n  listen: 127.0.0.1\n  port: " +
           std::to_string(service_->port()) +
           "\nremediation:\n  job_poll_interval_s: 0.1\n"
           "notify:\n  dashboard_url: http://dash.example/\n  retry_max_s: 1\n  receivers:\n"
           "    - {name: hook, type: webhook, url: \"" +
           hook_.Url("/hook") +
           "\", timeout_s: 2}\n"
           "    - {name: mail, type: email, url: \"smtp://127.0.0.1:" +
           testing::ReadFile(dir_ + "/smtp-port") +
           "\", starttls: false, from: svc@example.com, to: [dc@example.com]}\n"
           "  route:\n    group_wait: 10s\n    group_interval: 3s\n    routes:\n"
           "      - {receiver: hook, continue: true}\n      - {receiver: mail}\n";
  }

  json Get(const std::string& url) {
    auto r = http_.Get(url);
    return r.ok() ? json::parse(r->body, nullptr, false) : json();
  }

  // Breaks `n` links facing hosts, each of another host and leaf (links of one host or one switch
  // down together are a reboot, which covers them), at the host end.
  void BreakHostLinks(size_t n) {
    size_t broken = 0;
    std::set<std::string> systems;  // the hosts and leaves used
    for (const auto& l : Get(sim_->url() + "/sim/links")) {
      if (broken == n) break;
      const std::string s = l.dump();
      if (s.find("gpu-node") == std::string::npos && s.find("Computer") == std::string::npos) {
        continue;
      }
      std::vector<std::string> ends, names;
      for (const auto& [k, v] : l.items()) {
        if (!v.is_object() || !v.contains("port")) continue;
        ends.push_back(v["port"]);
        names.push_back(v.value("system_name", ""));
      }
      ASSERT_EQ(ends.size(), 2u);
      if (systems.count(names[0]) || systems.count(names[1])) continue;
      systems.insert(names.begin(), names.end());
      auto r = http_.Post(sim_->url() + "/sim/faults",
                          json{{"kind", "link_down"}, {"port", ends[1]}}.dump());
      ASSERT_TRUE(r.ok() && r->status == 201);
      ++broken;
    }
    ASSERT_EQ(broken, n);
  }

  std::vector<json> Mails() {
    std::vector<json> out;
    std::ifstream in(dir_ + "/mail/mails.jsonl");
    for (std::string line; std::getline(in, line);) {
      json mail = json::parse(line, nullptr, false);  // a line half written is read next time
      if (!mail.is_discarded()) out.push_back(std::move(mail));
    }
    return out;
  }

  std::string dir_;
  HttpClient http_;
  testing::HttpReceiver hook_;
  std::unique_ptr<testing::SimProcess> sim_;
  std::unique_ptr<testing::ChildProcess> mail_;
  std::unique_ptr<testing::ServiceProcess> service_;
};

TEST_F(NotifyServiceTest, LinkFaultsReachTheWebhookAndTheMailboxOnceGrouped) {
  ASSERT_NO_FATAL_FAILURE(BreakHostLinks(2));
  ASSERT_TRUE(WaitUntil([&] { return !hook_.Requests().empty() && !Mails().empty(); }, seconds(40)))
      << service_->Log();
  std::this_thread::sleep_for(seconds(7));  // two group intervals: nothing more comes
  const auto got = hook_.Requests();
  ASSERT_EQ(got.size(), 1u);
  const json body = json::parse(got[0].body);
  ASSERT_EQ(body["notifications"].size(), 2u) << body.dump(2);
  std::set<std::string> tickets;
  for (const auto& n : body["notifications"]) {
    EXPECT_EQ(n["kind"], "ticket_opened");
    EXPECT_EQ(n["labels"]["rule"], "link_down");
    EXPECT_NE(n["title"].get<std::string>().find("port cut"), std::string::npos) << n.dump();
    EXPECT_EQ(n["url"], "http://dash.example/tickets/" + n["labels"]["ticket"].get<std::string>());
    tickets.insert(n["labels"]["ticket"].get<std::string>());
  }
  EXPECT_EQ(tickets.size(), 2u);
  const auto mails = Mails();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(mails[0]["rcpt_tos"], json::array({"dc@example.com"}));
  EXPECT_NE(mails[0]["data"].get<std::string>().find("Subject: [ufm-remediator] 2 notifications: "),
            std::string::npos)
      << mails[0]["data"];
}

TEST_F(NotifyServiceTest, ReceiverDownAcrossARestartGetsTheMessageOnceWhenBack) {
  hook_.set_status(503);
  ASSERT_NO_FATAL_FAILURE(BreakHostLinks(1));
  ASSERT_TRUE(WaitUntil([&] { return hook_.Requests().size() >= 2; }, seconds(40)))
      << service_->Log();
  json failing = Get(service_->api() + "/api/notify/failing")["deliveries"];
  ASSERT_GE(failing.size(), 1u) << failing.dump();
  EXPECT_EQ(failing[0]["receiver"], "hook");
  EXPECT_EQ(failing[0]["state"], "pending");
  EXPECT_EQ(failing[0]["last_status"], 503);
  service_->Stop();
  const std::string key = hook_.Requests()[0].Header("idempotency-key");
  hook_.set_status(200);
  const size_t before = hook_.Requests().size();
  service_->Start();
  ASSERT_TRUE(WaitUntil([&] { return hook_.Requests().size() > before; }, seconds(30)))
      << service_->Log();
  std::this_thread::sleep_for(seconds(4));
  const auto got = hook_.Requests();
  ASSERT_EQ(got.size(), before + 1) << "delivered once after the restart";
  EXPECT_EQ(got.back().Header("idempotency-key"), key);
  for (const auto& r : got) EXPECT_EQ(r.Header("idempotency-key"), key);
  const json after = Get(service_->api() + "/api/notify/failing");
  ASSERT_TRUE(after.contains("deliveries")) << after.dump();
  EXPECT_TRUE(after["deliveries"].empty()) << after.dump();
  EXPECT_EQ(Mails().size(), 1u) << "the mailbox was up all along";
}

}  // namespace
}  // namespace ufmr
