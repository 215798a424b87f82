// A host's only link, end to end with a real Slurm: the real service binary against ufm-sim, a
// throwaway PostgreSQL and a private Slurm cluster (slurmctld, one slurmd per simulated host,
// munge) whose nodes are the simulator's hosts. The drain waits for a real job, then the link is
// cut; after the repair and the soak the node is resumed; a person's drain is never resumed; a
// crash between the drain and the cut neither repeats nor loses a step; a Slurm that does not
// answer delays the cut and says so, and the host's last link is never cut without the drain;
// dry run drains nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/service_config.h"
#include "support/service_process.h"
#include "support/shipped_rules.h"
#include "support/sim_process.h"
#include "support/test_env.h"
#include "support/test_slurm.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

using json = nlohmann::json;
using std::chrono::seconds;
using testing::WaitUntil;

constexpr const char* kOneLinkHosts = "fat-tree:leaves=2,spines=2,hosts_per_leaf=2";

struct Scenario {
  std::string remediation;  // extra lines under `remediation:`
  std::string crash_at;     // UFMR_CRASH_AT for the first start
  std::string scheduler;    // extra lines under `scheduler:`
};

class SchedulerDrainTest : public ::testing::Test {
 protected:
  void Start(const Scenario& setup = {}) {
    dir_ = testing::MakeTempDir("scheduler-drain");
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    sim_ = std::make_unique<testing::SimProcess>(
        dir_, std::vector<std::string>{"--topology", kOneLinkHosts, "--job-delay-ms", "100"});
    ASSERT_TRUE(sim_->AwaitReady());
    sim_url_ = sim_->url();
    // Slurm's nodes are the fabric's hosts, one link each.
    std::vector<std::string> nodes;
    const json links = Get(sim_url_ + "/sim/links");
    for (const auto& l : links) {
      if (l["b"]["is_switch"].get<bool>()) continue;  // a host link
      nodes.push_back(l["b"]["system_name"]);
      links_.emplace_back(l["a"]["port"], l["b"]["port"]);
    }
    ASSERT_FALSE(nodes.empty());
    hosts_ = nodes;
    slurm_ = std::make_unique<testing::TestSlurm>(nodes);
    // The service's scontrol writes down each call, then runs the real one.
    const std::string scontrol = dir_ + "/scontrol";
    testing::WriteFile(scontrol, "#!/bin/sh\necho \"$*\" >> '" + dir_ +
                                     "/scontrol.calls'\nexec scontrol \"$@\"\n");
    ASSERT_EQ(chmod(scontrol.c_str(), 0755), 0);
    ASSERT_TRUE(testing::ShippedRulesWithShortHold(dir_ + "/rules"));
    service_ = std::make_unique<testing::ServiceProcess>(dir_, "service");
    api_ = service_->api();
    service_->WriteConfig(testing::ServiceConfigYaml(
        {.fabric = "drain",
         .ufm_url = sim_url_,
         .telemetry_url = sim_->telemetry_url(),
         .db_url = db_url_,
         .rules_dir = dir_ + "/rules",
         .http_port = service_->port(),
         .remediation_extra = std::string(testing::kHighCaps) + setup.remediation,
         .sections_extra = "scheduler:\n  backend: slurm\n  scontrol: " + scontrol +
                           "\n  slurm_conf: " + slurm_->conf() +
                           "\n  poll_interval_s: 0.3\n  retry_s: 0.5\n  timeout_s: 5\n" +
                           setup.scheduler}));
    ASSERT_TRUE(service_->Migrate());
    http_.SetHeader("Authorization", "Bearer " + service_->CreateToken("tech", "engineer"));
    service_->Start({.log_level = "debug", .crash_at = setup.crash_at});
    if (setup.crash_at.empty()) AwaitReady();
  }

  // The service's scontrol calls that carry `what` (e.g. "State=DRAIN").
  size_t ScontrolCalls(const std::string& what) {
    std::ifstream in(dir_ + "/scontrol.calls");
    size_t n = 0;
    for (std::string line; std::getline(in, line);) n += line.find(what) != std::string::npos;
    return n;
  }

  void AwaitReady() {
    ASSERT_TRUE(service_->AwaitInventory(seconds(20)));
    ASSERT_TRUE(service_->AwaitLog({"skipping", "resuming events"}, seconds(10)));
  }

  void TearDown() override {
    service_.reset();
    sim_.reset();
    slurm_.reset();
    if (!dir_.empty()) testing::RemoveTree(dir_);
  }

  json Get(const std::string& url) {
    auto r = http_.Get(url);
    if (!r.ok()) return json();
    return json::parse(r->body, nullptr, false);
  }
  int Post(const std::string& url, const json& body) {
    auto r = http_.Post(url, body.dump());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->status : 0;
  }
  void Fault(const std::string& port) {
    ASSERT_EQ(Post(sim_url_ + "/sim/faults", {{"kind", "link_down"}, {"port", port}}), 201);
  }
  json TicketFor(const std::string& port) {
    const json list = Get(api_ + "/api/tickets?state=all");
    if (!list.contains("tickets")) return json();
    for (const auto& t : list["tickets"]) {
      if (t["link"].get<std::string>().find(port) != std::string::npos) {
        return Get(api_ + "/api/tickets/" + std::to_string(t["id"].get<int64_t>()));
      }
    }
    return json();
  }
  json AwaitTicket(const std::string& port, const std::function<bool(const json&)>& done,
                   seconds timeout = seconds(40)) {
    json t;
    bool ok = WaitUntil(
        [&] {
          t = TicketFor(port);
          return !t.is_null() && done(t);
        },
        timeout);
    EXPECT_TRUE(ok) << "ticket for " << port << ": " << t.dump(2);
    return t;
  }
  size_t Disables(const std::string& port) {
    size_t n = 0;
    const json actions = Get(sim_url_ + "/sim/actions");
    for (const auto& a : actions) {
      n += a["port"] == port && a["action"] == "disable";
    }
    return n;
  }
  // The kinds of the ticket's timeline, in order.
  static std::vector<std::string> Kinds(const json& t) {
    std::vector<std::string> out;
    for (const auto& e : t["events"]) out.push_back(e["kind"]);
    return out;
  }
  static size_t Count(const std::vector<std::string>& kinds, const std::string& kind) {
    return static_cast<size_t>(std::count(kinds.begin(), kinds.end(), kind));
  }
  int Repaired(const json& t, const std::string& host_port) {
    EXPECT_EQ(Post(sim_url_ + "/sim/repair", {{"port", host_port}}), 200);
    return Post(api_ + "/api/tickets/" + std::to_string(t["id"].get<int64_t>()) + "/repaired",
                {{"by", "tech"}, {"kind", "cable_replaced"}, {"note", "new cable"}});
  }

  std::string dir_, db_url_, sim_url_, api_;
  // The text of /metrics.
  std::string Metrics() {
    auto r = http_.Get(api_ + "/metrics");
    return r.ok() ? r->body : "";
  }

  std::vector<std::pair<std::string, std::string>> links_;  // switch port, host port
  std::vector<std::string> hosts_;                          // links_' hosts, in order
  std::unique_ptr<testing::SimProcess> sim_;
  std::unique_ptr<testing::TestSlurm> slurm_;
  std::unique_ptr<testing::ServiceProcess> service_;
  HttpClient http_{HttpClientOptions{}};
};

bool State(const json& t, const char* state) { return t["state"] == state; }

TEST_F(SchedulerDrainTest, TheDrainWaitsForTheJobThenCutsAndTheRepairResumesTheNode) {
  Start();
  auto [sw, host_port] = links_.at(0);
  const std::string node = hosts_.at(0);
  std::string job = slurm_->StartJob(node, 600, "pretrain-llm");
  Fault(host_port);
  json t = AwaitTicket(sw, [](const json& x) { return State(x, "draining"); });
  const std::string id = std::to_string(t["id"].get<int64_t>());
  // The node drains with a reason that names the ticket; the job is not killed, and the link
  // is not cut while it runs.
  auto draining = [&] {
    std::string s = slurm_->State(node);  // allocated+drain, or mixed+drain
    return s.find("+drain") != std::string::npos && s.rfind("idle", 0) != 0;
  };
  ASSERT_TRUE(WaitUntil(draining, seconds(20))) << slurm_->State(node);
  EXPECT_EQ(slurm_->Reason(node).rfind("ufm-remediator #" + id + ": link_down on " + sw, 0), 0u)
      << slurm_->Reason(node);
  EXPECT_EQ(Disables(sw), 0u);
  // Who is hurt: the job on the host, on the ticket.
  t = AwaitTicket(sw, [](const json& x) { return !x["host_jobs"].is_null(); });
  ASSERT_EQ(t["host_jobs"]["jobs"].size(), 1u) << t["host_jobs"].dump();
  EXPECT_EQ(t["host_jobs"]["jobs"][0]["id"], job);
  EXPECT_EQ(t["host_jobs"]["jobs"][0]["name"], "pretrain-llm");
  EXPECT_EQ(t["host_jobs"]["node"], node);
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(Disables(sw), 0u);
  EXPECT_EQ(TicketFor(sw)["state"], "draining");
  // The job ends: drained, then cut.
  ASSERT_EQ(slurm_->Run({"scancel", job}).exit_code, 0);
  t = AwaitTicket(
      sw, [](const json& x) { return State(x, "port_disabled"); }, seconds(60));
  EXPECT_EQ(Disables(sw), 1u);
  EXPECT_EQ(slurm_->State(node), "idle+drain");
  auto kinds = Kinds(t);
  for (const char* step : {"opened", "draining", "drain", "drained", "action"}) {
    EXPECT_EQ(Count(kinds, step), 1u) << step << " in " << t["events"].dump(2);
  }
  ASSERT_EQ(t["drains"].size(), 1u);
  EXPECT_EQ(t["drains"][0]["state"], "drained");

  // Repaired and soaked: closed, and the node is given back to Slurm.
  ASSERT_EQ(Repaired(t, host_port), 200);
  t = AwaitTicket(
      sw, [](const json& x) { return State(x, "closed"); }, seconds(60));
  ASSERT_TRUE(WaitUntil([&] { return slurm_->State(node) == "idle"; }, seconds(20)))
      << slurm_->State(node);
  t = TicketFor(sw);
  EXPECT_EQ(t["drains"][0]["state"], "resumed") << t["drains"].dump(2);
  kinds = Kinds(t);
  for (const char* step : {"soak_passed", "resuming", "resumed"}) {
    EXPECT_EQ(Count(kinds, step), 1u) << step << " in " << t["events"].dump(2);
  }
}

TEST_F(SchedulerDrainTest, APersonsDrainIsNeverResumed) {
  Start();
  auto [sw, host_port] = links_.at(0);
  const std::string node = hosts_.at(0);
  Fault(host_port);
  json t = AwaitTicket(sw, [](const json& x) { return State(x, "port_disabled"); });
  // A person drains the node again for their own reason while the link is out.
  auto r = slurm_->Run({"scontrol", "update", "NodeName=" + node, "State=DRAIN",
                        "Reason=dimm errors, ticket DC-991"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Repaired(t, host_port), 200);
  t = AwaitTicket(
      sw,
      [](const json& x) {
        return State(x, "closed") && !x["drains"].empty() && x["drains"][0]["state"] == "released";
      },
      seconds(60));
  EXPECT_EQ(slurm_->State(node), "idle+drain");
  EXPECT_EQ(slurm_->Reason(node).rfind("dimm errors, ticket DC-991", 0), 0u);
  EXPECT_NE(t["events"].dump().find("drained again by someone else"), std::string::npos)
      << t["events"].dump(2);
}

// The cap counts the service's drains only. With at most one node drained, a host a person
// drained for their own reason, whose only link then goes down, does not hold back the drain of
// another host; it is waited for, never counted as a drain sent, and never resumed.
TEST_F(SchedulerDrainTest, APersonsDrainedHostDoesNotHoldBackAnotherHostsDrain) {
  Start({.scheduler = "  max_drained_nodes: 1\n  max_drained_percent: 0\n"});
  auto [persons_sw, persons_port] = links_.at(0);
  auto [sw, host_port] = links_.at(1);
  auto r = slurm_->Run(
      {"scontrol", "update", "NodeName=" + hosts_.at(0), "State=DRAIN", "Reason=bad DIMM, DC-991"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Fault(persons_port);
  json persons = AwaitTicket(persons_sw, [](const json& x) { return State(x, "port_disabled"); });
  EXPECT_NE(persons["events"].dump().find("drained by a person already"), std::string::npos)
      << persons["events"].dump(2);
  EXPECT_EQ(persons["drains"][0]["by_person"], true);
  Fault(host_port);
  json t = AwaitTicket(sw, [](const json& x) { return State(x, "port_disabled"); });
  EXPECT_EQ(t["events"].dump().find("drained by the service already"), std::string::npos)
      << t["events"].dump(2);
  EXPECT_EQ(ScontrolCalls("State=DRAIN"), 1u);  // the second host's; the person's never asked
  const std::string metrics = Metrics();
  EXPECT_NE(metrics.find("ufmr_drains_total{result=\"sent\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("ufmr_drains_total{result=\"person\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("ufmr_nodes_drained 1\n"), std::string::npos) << metrics;
  EXPECT_EQ(service_->Log().find("node " + hosts_.at(0) + " draining"), std::string::npos);
  ASSERT_EQ(Repaired(persons, persons_port), 200);
  persons = AwaitTicket(
      persons_sw,
      [](const json& x) {
        return State(x, "closed") && !x["drains"].empty() && x["drains"][0]["state"] == "released";
      },
      seconds(60));
  EXPECT_EQ(slurm_->State(hosts_.at(0)), "idle+drain");
  EXPECT_EQ(slurm_->Reason(hosts_.at(0)).rfind("bad DIMM, DC-991", 0), 0u);
  EXPECT_NE(persons["events"].dump().find("drained by a person before the service asked"),
            std::string::npos)
      << persons["events"].dump(2);
  EXPECT_EQ(ScontrolCalls("State=RESUME"), 0u);
}

TEST_F(SchedulerDrainTest, ACrashBetweenTheDrainAndTheCutNeitherRepeatsNorLosesAStep) {
  for (const char* point : {"drain:drain_sent", "drain:drain_released"}) {
    SCOPED_TRACE(point);
    Start({.remediation = "", .crash_at = point});
    auto [sw, host_port] = links_.at(0);
    const std::string node = hosts_.at(0);
    ASSERT_TRUE(service_->AwaitInventory(seconds(20)));
    ASSERT_TRUE(service_->AwaitLog({"skipping", "resuming events"}, seconds(10)));
    Fault(host_port);
    ASSERT_TRUE(WaitUntil([&] { return !service_->running(); }, seconds(40))) << service_->Log();
    EXPECT_EQ(service_->term_signal(), SIGKILL);
    service_->Start();
    json t = AwaitTicket(sw, [](const json& x) { return State(x, "port_disabled"); });
    std::this_thread::sleep_for(seconds(2));  // anything repeated would show by now
    EXPECT_EQ(Disables(sw), 1u);
    t = TicketFor(sw);
    auto kinds = Kinds(t);
    EXPECT_EQ(Count(kinds, "drain"), 1u) << t["events"].dump(2);
    // Slurm was asked to drain the node once: a drain sent before the crash is adopted after it.
    EXPECT_EQ(ScontrolCalls("State=DRAIN"), 1u);
    if (std::string(point) == "drain:drain_sent") {
      EXPECT_NE(t["events"].dump().find("was drained for this service already"), std::string::npos)
          << t["events"].dump(2);
    }
    EXPECT_EQ(Count(kinds, "drained"), 1u) << t["events"].dump(2);
    ASSERT_EQ(t["drains"].size(), 1u);
    EXPECT_EQ(t["drains"][0]["state"], "drained");
    EXPECT_EQ(slurm_->State(node), "idle+drain");
    TearDown();
    dir_.clear();
    links_.clear();
    hosts_.clear();
  }
}

TEST_F(SchedulerDrainTest, ASilentSlurmDelaysTheCutAndSaysSo) {
  Start();
  auto [sw, host_port] = links_.at(0);
  const std::string node = hosts_.at(0);
  slurm_->StopController();
  Fault(host_port);
  json t = AwaitTicket(sw, [](const json& x) {
    return x["events"].dump().find("the job scheduler did not answer") != std::string::npos;
  });
  EXPECT_EQ(t["state"], "draining");
  std::this_thread::sleep_for(seconds(3));
  EXPECT_EQ(Disables(sw), 0u) << "a host's last link was cut without its drain";
  // Said once, not every retry.
  EXPECT_EQ(Count(Kinds(TicketFor(sw)), "scheduler"), 1u);
  slurm_->StartController();
  t = AwaitTicket(
      sw, [](const json& x) { return State(x, "port_disabled"); }, seconds(60));
  EXPECT_EQ(Disables(sw), 1u);
  EXPECT_NE(slurm_->State(node).find("drain"), std::string::npos) << slurm_->State(node);
}

TEST_F(SchedulerDrainTest, DryRunDrainsNothingAndSaysWhatItWouldDo) {
  Start({.remediation = "  dry_run: true\n", .crash_at = ""});
  auto [sw, host_port] = links_.at(0);
  Fault(host_port);
  json t = AwaitTicket(sw, [](const json& x) { return State(x, "ticket_only"); });
  EXPECT_EQ(t["guard"], "dry_run");
  EXPECT_NE(t["events"].dump().find("would be drained first"), std::string::npos)
      << t["events"].dump(2);
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(slurm_->State(hosts_.at(0)), "idle");
  EXPECT_TRUE(t["drains"].empty());
  EXPECT_EQ(Disables(sw), 0u);
}

}  // namespace
}  // namespace ufmr
