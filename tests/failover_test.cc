// PostgreSQL failover, end to end: a primary and its synchronous streaming replica
// (support/postgres_pair.h), the service's database URL naming both as an operator writes it
// (`host=<primary>,<replica> ... target_session_attrs=read-write`), the real ufm-sim and the real
// service. The primary is killed (as a crash would) and the replica promoted (pg_ctl promote).
// - Two instances: the leader exits 75 once its lock's connection is gone; the standby takes the
//   lead on the promoted primary by itself, without a restart, and acts on a fault that came
//   during the outage; the old leader, restarted, stands by.
// - A lone instance: killed with the primary while a port action is in flight, it resumes within
//   seconds of its supervisor's restart and settles that action.
// Either way nothing is lost or repeated: one ticket per faulted link, one disable per faulted
// port, every ticket's notification delivered and no message delivered twice.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/http_receiver.h"
#include "support/postgres_pair.h"
#include "support/service_config.h"
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

// Each host has two HCAs on different leaves: one bad host link is never the host's last.
constexpr const char* kTopology = "fat-tree:leaves=4,spines=2,hosts_per_leaf=2,hcas_per_host=2";

class FailoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("failover");
    pg_ = std::make_unique<testing::PostgresPair>(dir_);
    db_url_ = pg_->CreateDatabase();
    sim_ = std::make_unique<testing::SimProcess>(
        dir_, std::vector<std::string>{"--topology", kTopology, "--job-delay-ms", "1500"});
    ASSERT_TRUE(sim_->AwaitReady());
    ASSERT_TRUE(testing::ShippedRulesWithShortHold(dir_ + "/rules"));
    for (const auto& l : Get(sim_->url() + "/sim/links")) {
      if (l["b"]["is_switch"].get<bool>()) continue;  // a leaf-host link
      links_.emplace_back(l["a"]["port"], l["b"]["port"]);
    }
    ASSERT_GE(links_.size(), 4u);
  }

  void TearDown() override {
    a_.reset();
    b_.reset();
    sim_.reset();
    pg_.reset();
    if (!dir_.empty()) testing::RemoveTree(dir_);
  }

  std::unique_ptr<testing::ServiceProcess> Instance(const std::string& name) {
    auto in = std::make_unique<testing::ServiceProcess>(dir_, name);
    in->WriteConfig(testing::ServiceConfigYaml(
        {.fabric = "failover",
         .ufm_url = sim_->url(),
         .telemetry_url = sim_->telemetry_url(),
         .db_url = db_url_,
         .rules_dir = dir_ + "/rules",
         .http_port = in->port(),
         .remediation_extra = testing::kHighCaps,
         .sections_extra = "ha:\n  lock_retry_s: 0.5\nnotify:\n  retry_max_s: 1\n  receivers:\n"
                           "    - {name: hook, type: webhook, url: \"" +
                           hook_.Url("/hook") +
                           "\", timeout_s: 2}\n  route:\n    receiver: hook\n"
                           "    group_wait: 1s\n    group_interval: 1s\n"}));
    return in;
  }

  json Get(const std::string& url) {
    auto r = http_.Get(url);
    return r.ok() ? json::parse(r->body, nullptr, false) : json();
  }
  bool Leads(testing::ServiceProcess& in) {
    json h = Get(in.api() + "/healthz");
    return h.is_object() && h["role"] == "leader" && h.value("inventory_ports", 0) > 0;
  }
  void Fault(const std::string& port) {
    auto r =
        http_.Post(sim_->url() + "/sim/faults", json{{"kind", "link_down"}, {"port", port}}.dump());
    ASSERT_TRUE(r.ok() && r->status == 201) << (r.ok() ? r->body : r.status().ToString());
  }
  // The disables UFM (the simulator) carried out, by port.
  std::map<std::string, int> Disables() {
    std::map<std::string, int> out;
    for (const auto& a : Get(sim_->url() + "/sim/actions")) {
      if (a["action"] == "disable") ++out[a["port"].get<std::string>()];
    }
    return out;
  }
  // The tickets through an instance's API, by link.
  std::map<std::string, json> Tickets(testing::ServiceProcess& in) {
    std::map<std::string, json> out;
    json list = Get(in.api() + "/api/tickets?state=all");
    if (!list.contains("tickets")) return out;
    for (const auto& t : list["tickets"]) out[t["link"].get<std::string>()] = t;
    return out;
  }
  // Whether the ticket on the link of `port` holds the port disabled.
  bool Disabled(testing::ServiceProcess& in, const std::string& port) {
    for (const auto& [link, t] : Tickets(in)) {
      if (link.find(port) != std::string::npos) return t["state"] == "port_disabled";
    }
    return false;
  }
  // Tickets named in the messages the receiver took (answered 200), and whether any message
  // (by its idempotency key) was taken twice.
  std::set<int64_t> Told(bool* repeated) {
    std::set<int64_t> tickets;
    std::set<std::string> keys;
    *repeated = false;
    for (const auto& r : hook_.Requests()) {
      const std::string key = r.Header("idempotency-key");
      *repeated = *repeated || !keys.insert(key).second;
      json body = json::parse(r.body, nullptr, false);
      if (!body.is_object() || !body.contains("notifications")) continue;
      for (const auto& n : body["notifications"]) {
        if (n["kind"] == "ticket_opened" && n["labels"].contains("ticket")) {
          tickets.insert(std::stoll(n["labels"]["ticket"].get<std::string>()));
        }
      }
    }
    return tickets;
  }
  // Every ticket told once, one ticket and one disable per faulted link.
  void ExpectNothingLostOrRepeated(testing::ServiceProcess& in, size_t faults) {
    auto tickets = Tickets(in);
    EXPECT_EQ(tickets.size(), faults);
    json list = Get(in.api() + "/api/tickets?state=all");  // not by link: a second one shows
    ASSERT_TRUE(list.contains("tickets"));
    EXPECT_EQ(list["tickets"].size(), faults) << list.dump(2);
    for (const auto& [port, n] : Disables()) EXPECT_EQ(n, 1) << port << " disabled " << n;
    EXPECT_EQ(Disables().size(), faults);
    bool repeated = false;
    std::set<int64_t> told;
    EXPECT_TRUE(WaitUntil(
        [&] {
          told = Told(&repeated);
          return told.size() >= tickets.size();
        },
        seconds(20)));
    for (const auto& [link, t] : tickets) {
      EXPECT_TRUE(told.count(t["id"].get<int64_t>())) << "ticket " << t["id"] << " never told";
    }
    EXPECT_FALSE(repeated) << "a message was delivered twice";
  }

  std::string dir_, db_url_;
  testing::HttpReceiver hook_;
  HttpClient http_;
  std::unique_ptr<testing::PostgresPair> pg_;
  std::unique_ptr<testing::SimProcess> sim_;
  std::unique_ptr<testing::ServiceProcess> a_, b_;
  std::vector<std::pair<std::string, std::string>> links_;  // leaf port, host port
};

TEST_F(FailoverTest, TheStandbyLeadsOnThePromotedPrimaryWithoutARestart) {
  a_ = Instance("service-a");
  b_ = Instance("service-b");
  ASSERT_TRUE(a_->Migrate());
  http_.SetHeader("Authorization", "Bearer " + a_->CreateToken("tech", "engineer"));
  a_->Start();
  ASSERT_TRUE(WaitUntil([&] { return Leads(*a_); }, seconds(20))) << a_->Log();
  ASSERT_TRUE(a_->AwaitLog({"skipping", "resuming events"}, seconds(10)));  // UFM's past read
  b_->Start();
  ASSERT_TRUE(b_->AwaitLog({"standby: another instance acts"}, seconds(20)));
  Fault(links_[0].second);
  ASSERT_TRUE(WaitUntil([&] { return Disabled(*a_, links_[0].first); }, seconds(30)));

  pg_->KillPrimary();
  // The leader's lock is gone with its connection: it stops at once (exit 75).
  ASSERT_TRUE(WaitUntil([&] { return !a_->running(); }, seconds(10))) << a_->Log();
  EXPECT_NE(a_->Log().find("stopping at once (exit 75)"), std::string::npos) << a_->Log();
  Fault(links_[2].second);  // during the outage: read from UFM once a leader is back
  std::this_thread::sleep_for(seconds(2));
  const auto promoted_at = std::chrono::steady_clock::now();
  pg_->Promote();
  ASSERT_TRUE(WaitUntil([&] { return Leads(*b_); }, seconds(20))) << b_->Log();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - promoted_at).count();
  EXPECT_LT(took, 10) << "the standby took " << took << " s to lead after the promotion";
  std::printf("failover: the standby leads %.1f s after the promotion\n", took);
  EXPECT_TRUE(b_->running());
  ASSERT_TRUE(WaitUntil([&] { return Disabled(*b_, links_[2].first); }, seconds(30))) << b_->Log();
  // The old leader, restarted by its supervisor, stands by.
  a_->Start();
  ASSERT_TRUE(a_->AwaitLog({"standby: another instance acts"}, seconds(20))) << a_->Log();
  ExpectNothingLostOrRepeated(*b_, 2);
}

TEST_F(FailoverTest, ALoneInstanceResumesWithinSecondsOfItsRestart) {
  a_ = Instance("service-a");
  ASSERT_TRUE(a_->Migrate());
  http_.SetHeader("Authorization", "Bearer " + a_->CreateToken("tech", "engineer"));
  a_->Start();
  ASSERT_TRUE(WaitUntil([&] { return Leads(*a_); }, seconds(20))) << a_->Log();
  ASSERT_TRUE(a_->AwaitLog({"skipping", "resuming events"}, seconds(10)));  // UFM's past read
  Fault(links_[0].second);
  // Killed with its action in flight: UFM took the disable (the simulator's job runs 1.5 s).
  ASSERT_TRUE(a_->AwaitLog({"submitted as UFM job"}, seconds(30)));
  pg_->KillPrimary();
  ASSERT_TRUE(WaitUntil([&] { return !a_->running(); }, seconds(10))) << a_->Log();
  pg_->Promote();
  const auto restarted_at = std::chrono::steady_clock::now();
  a_->Start();  // as systemd does (Restart=on-failure)
  ASSERT_TRUE(WaitUntil([&] { return Leads(*a_); }, seconds(20))) << a_->Log();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - restarted_at).count();
  EXPECT_LT(took, 10) << "leading " << took << " s after the restart";
  std::printf("failover: the lone instance leads %.1f s after its restart\n", took);
  ASSERT_TRUE(WaitUntil([&] { return Disabled(*a_, links_[0].first); }, seconds(30))) << a_->Log();
  Fault(links_[2].second);
  ASSERT_TRUE(WaitUntil([&] { return Disabled(*a_, links_[2].first); }, seconds(30))) << a_->Log();
  ExpectNothingLostOrRepeated(*a_, 2);
}

}  // namespace
}  // namespace ufmr
