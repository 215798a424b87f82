// High availability, end to end: two `ufm-remediator serve` instances on one database and one
// simulated UFM (ufm-sim), the same config but for the HTTP port. Exactly one leads and acts (its
// /metrics say `ufmr_leader 1`, its /healthz `"role": "leader"`); the other stands by, serving the
// API. During a storm of link-downs the leader is killed with SIGKILL while port actions are in
// flight; the standby takes over within 10 s and finishes the storm from the database, so the
// simulator's action log shows exactly one disable per faulted port (none duplicated, none lost,
// nothing else touched) and there is exactly one ticket per faulted link. The killed instance,
// restarted, comes back as a standby.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "http/http_server.h"
#include "support/service_config.h"
#include "support/service_process.h"
#include "support/shipped_rules.h"
#include "support/sim_process.h"
#include "support/test_env.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::WaitUntil;

// Each host has two HCAs on different leaves: one bad host link is never the host's last.
constexpr const char* kTopology = "fat-tree:leaves=4,spines=2,hosts_per_leaf=4,hcas_per_host=2";
constexpr int kStormLinks = 8;
// At most two per leaf: three links of one switch going down together look like the switch's
// trouble (switch_many_links_down), not a cable's, and are not cut.
constexpr int kPerLeaf = 2;

// One `ufm-remediator serve` instance: its config, API address and each start's log.
using Instance = testing::ServiceProcess;

// A faulted leaf-host link: the leaf's port (the one the service disables) and the host's.
struct Link {
  std::string sw;
  std::string host;
};

class HaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("ha");
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    // UFM's port jobs take long enough that the leader dies with some in flight.
    sim_ = std::make_unique<testing::SimProcess>(
        dir_, std::vector<std::string>{"--topology", kTopology, "--job-delay-ms", "1500"});
    ASSERT_TRUE(sim_->AwaitReady());
    sim_url_ = sim_->url();

    // The shipped rules; link_down's 30 s hold shortened so the test runs in seconds.
    ASSERT_TRUE(testing::ShippedRulesWithShortHold(dir_ + "/rules"));

    // Two instances: the same config but for the HTTP port. Caps and the breaker high enough
    // that the whole storm is acted on.
    a_ = std::make_unique<Instance>(dir_, "service-a");
    b_ = std::make_unique<Instance>(dir_, "service-b");
    for (Instance* in : {a_.get(), b_.get()}) {
      in->WriteConfig(testing::ServiceConfigYaml({.fabric = "ha",
                                                  .ufm_url = sim_url_,
                                                  .telemetry_url = sim_->telemetry_url(),
                                                  .db_url = db_url_,
                                                  .rules_dir = dir_ + "/rules",
                                                  .http_port = in->port(),
                                                  .remediation_extra = testing::kHighCaps}));
    }
    ASSERT_TRUE(a_->Migrate());
    http_.SetHeader("Authorization", "Bearer " + a_->CreateToken("tech", "engineer"));
  }

  void TearDown() override {
    // (each prints its logs if the test failed)
    a_.reset();
    b_.reset();
    sim_.reset();
    if (!dir_.empty()) testing::RemoveTree(dir_);
  }

  // The `ufmr_leader` gauge: 1 leader, 0 standby; -1 if the instance does not answer, -2 if the
  // gauge is missing.
  int Leader(const Instance& in) {
    auto r = http_.Get(in.api() + "/metrics");
    if (!r.ok() || r->status != 200) return -1;
    std::istringstream lines(r->body);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("ufmr_leader ", 0) == 0) return std::stoi(line.substr(12));
    }
    return -2;
  }
  std::string Role(const Instance& in) {
    json h = Get(in.api() + "/healthz");
    return h.is_object() && h.contains("role") && h["role"].is_string()
               ? h["role"].get<std::string>()
               : "";
  }
  // Up and in the given role by both its gauge and its health check; a leader has read UFM's
  // ports too.
  bool InRole(const Instance& in, const std::string& role) {
    json h = Get(in.api() + "/healthz");
    if (!h.is_object() || h["role"] != role) return false;
    if (role == "leader" && h.value("inventory_ports", 0) <= 0) return false;
    return Leader(in) == (role == "leader" ? 1 : 0);
  }

  json Get(const std::string& url) {
    auto r = http_.Get(url);
    if (!r.ok()) return json();
    return json::parse(r->body, nullptr, false);
  }

  // Leaf-host links on distinct hosts, at most kPerLeaf per leaf.
  std::vector<Link> StormLinks() {
    std::vector<Link> out;
    std::set<std::string> hosts;
    std::map<std::string, int> per_leaf;
    for (const auto& l : Get(sim_url_ + "/sim/links")) {
      if (l["b"]["is_switch"].get<bool>()) continue;  // a host link
      const std::string leaf = l["a"]["system_name"];
      const std::string host = l["b"]["system_name"];
      if (hosts.count(host) || per_leaf[leaf] >= kPerLeaf) continue;
      hosts.insert(host);
      ++per_leaf[leaf];
      out.push_back({l["a"]["port"], l["b"]["port"]});
      if (static_cast<int>(out.size()) == kStormLinks) break;
    }
    return out;
  }

  json SimActions() { return Get(sim_url_ + "/sim/actions"); }
  int Disables() {
    int n = 0;
    for (const auto& a : SimActions()) n += a["action"] == "disable";
    return n;
  }
  std::string SwitchPortState(const std::string& port) {
    for (const auto& l : Get(sim_url_ + "/sim/links")) {
      if (l["a"]["port"] == port) return l["a"]["logical_state"];
    }
    return "";
  }
  json Tickets(const Instance& in) { return Get(in.api() + "/api/tickets?state=all")["tickets"]; }

  // Lines of a log that say this instance sent a port action to UFM.
  static std::vector<std::string> SentLines(const std::string& log) {
    std::vector<std::string> out;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("sent to UFM") != std::string::npos ||
          line.find("submitted as UFM job") != std::string::npos) {
        out.push_back(line);
      }
    }
    return out;
  }

  std::string dir_, db_url_, sim_url_;
  std::unique_ptr<Instance> a_, b_;
  std::unique_ptr<testing::SimProcess> sim_;
  HttpClient http_{HttpClientOptions{}};
};

TEST_F(HaTest, KillingTheLeaderMidStormHandsOverWithNoActionDuplicatedOrLost) {
  // A starts alone and leads; it takes its starting event cursor before any fault.
  a_->Start();
  ASSERT_TRUE(WaitUntil([&] { return InRole(*a_, "leader"); }, seconds(30)))
      << "A: ufmr_leader " << Leader(*a_) << ", role '" << Role(*a_) << "'";
  ASSERT_TRUE(WaitUntil(
      [&] {
        return a_->Log().find("skipping") != std::string::npos ||
               a_->Log().find("resuming events") != std::string::npos;
      },
      seconds(10)));
  EXPECT_NE(a_->Log().find("leader: acting for fabric ha"), std::string::npos);

  // B joins on the same database: a standby that still serves the API.
  b_->Start();
  ASSERT_TRUE(WaitUntil([&] { return InRole(*b_, "standby"); }, seconds(30)))
      << "B: ufmr_leader " << Leader(*b_) << ", role '" << Role(*b_) << "'";
  EXPECT_NE(b_->Log().find("standby: "), std::string::npos);
  EXPECT_EQ(b_->Log().find("leader: acting"), std::string::npos);
  auto tickets = http_.Get(b_->api() + "/api/tickets?state=all");
  ASSERT_TRUE(tickets.ok());
  EXPECT_EQ(tickets->status, 200) << tickets->body;
  EXPECT_EQ(Leader(*a_), 1);

  // The storm: eight leaf-host links go down, on eight hosts.
  const std::vector<Link> links = StormLinks();
  ASSERT_EQ(links.size(), static_cast<size_t>(kStormLinks));
  std::set<std::string> faulted;
  for (const Link& l : links) {
    faulted.insert(l.sw);
    auto r =
        http_.Post(sim_url_ + "/sim/faults", json{{"kind", "link_down"}, {"port", l.host}}.dump());
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 201) << r->body;
  }

  // The leader has acted on some of the ports, not all: kill -9 it there.
  ASSERT_TRUE(WaitUntil([&] { return Disables() >= 2; }, seconds(60), milliseconds(50)))
      << SimActions().dump(2);
  a_->Signal(SIGKILL);
  const auto killed_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(WaitUntil([&] { return !a_->running(); }, seconds(5)));
  EXPECT_EQ(a_->term_signal(), SIGKILL);
  const json before = SimActions();
  const std::string b_log_before = b_->Log();
  ASSERT_LT(before.size(), static_cast<size_t>(kStormLinks))
      << "the storm was over before the leader was killed: " << before.dump(2);
  // Until then only A acted: B sent nothing to UFM and never led.
  EXPECT_EQ(SentLines(b_log_before), std::vector<std::string>{});
  EXPECT_EQ(b_log_before.find("leader: acting"), std::string::npos);
  EXPECT_FALSE(SentLines(a_->Log()).empty());

  // B takes over within 10 s.
  bool took_over = WaitUntil([&] { return Leader(*b_) == 1; }, seconds(15), milliseconds(50));
  const double takeover_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count();
  int in_flight = 0;
  for (const auto& a : before) in_flight += a["status"] == "Running";
  std::cout << "[ HA ] " << before.size() << " of " << kStormLinks
            << " actions sent when the leader was killed (" << in_flight
            << " of them running in UFM); the standby led after " << takeover_s << " s"
            << std::endl;
  RecordProperty("takeover_ms", static_cast<int>(takeover_s * 1000));
  ASSERT_TRUE(took_over) << "B: ufmr_leader " << Leader(*b_);
  EXPECT_LE(takeover_s, 10.0);
  EXPECT_EQ(Role(*b_), "leader");
  EXPECT_NE(b_->Log().find("leader: acting for fabric ha"), std::string::npos);

  // B finishes the storm: every faulted link ticketed with its port disabled, in the database
  // and in UFM.
  ASSERT_TRUE(WaitUntil(
      [&] {
        int done = 0;
        for (const auto& t : Tickets(*b_)) {
          for (const std::string& sw : faulted) {
            done += t["link"].get<std::string>().find(sw) != std::string::npos &&
                    t["state"] == "port_disabled";
          }
        }
        if (done < kStormLinks) return false;
        for (const std::string& sw : faulted) {
          if (SwitchPortState(sw) != "Disabled") return false;
        }
        return true;
      },
      seconds(90), milliseconds(250)))
      << Tickets(*b_).dump(2) << "\n"
      << SimActions().dump(2);
  // Let anything still queued show itself before counting.
  std::this_thread::sleep_for(seconds(3));

  // UFM received exactly one disable per faulted port, and nothing else.
  const json actions = SimActions();
  std::map<std::string, int> disables;
  for (const auto& a : actions) {
    const std::string port = a["port"];
    EXPECT_TRUE(faulted.count(port)) << "an action on a port nobody faulted: " << a.dump();
    EXPECT_EQ(a["action"], "disable") << a.dump();
    if (a["action"] == "disable") ++disables[port];
  }
  for (const std::string& sw : faulted) {
    EXPECT_EQ(disables[sw], 1) << sw << ": " << actions.dump(2);
  }
  EXPECT_EQ(actions.size(), static_cast<size_t>(kStormLinks)) << actions.dump(2);

  // One ticket per faulted link, and no other, as the new leader's API shows them.
  const json all = Tickets(*b_);
  EXPECT_EQ(all.size(), static_cast<size_t>(kStormLinks)) << all.dump(2);
  for (const std::string& sw : faulted) {
    int n = 0;
    for (const auto& t : all) n += t["link"].get<std::string>().find(sw) != std::string::npos;
    EXPECT_EQ(n, 1) << sw << ": " << all.dump(2);
  }

  // A comes back: a standby now, while B keeps leading.
  a_->Start();
  ASSERT_TRUE(WaitUntil([&] { return InRole(*a_, "standby"); }, seconds(30)))
      << "A: ufmr_leader " << Leader(*a_) << ", role '" << Role(*a_) << "'";
  std::this_thread::sleep_for(seconds(5));  // several of its lock retries
  EXPECT_EQ(Leader(*a_), 0);
  EXPECT_EQ(Leader(*b_), 1);
  EXPECT_EQ(a_->Log().find("leader: acting"), std::string::npos);
  EXPECT_EQ(SentLines(a_->Log()), std::vector<std::string>{});
  EXPECT_EQ(SimActions().size(), static_cast<size_t>(kStormLinks));
}

}  // namespace
}  // namespace ufmr
