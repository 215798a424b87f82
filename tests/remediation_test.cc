// Acting on the fabric, end to end: the real service binary against ufm-sim (a simulated UFM) and
// a throwaway PostgreSQL. Each guard blocks and says so on the ticket (a host's last link, the
// caps, the per-switch cap, the rate limit, the cooldown, the circuit breaker, dry run, shadow
// rules); a port a person isolated is never touched; ports a person disabled for maintenance
// (UFM's 336, then the link-down) file no ticket; a port someone re-enabled is reported as
// drift and left alone; isolation through UFM's unhealthy ports; the repair flow (pass, fail,
// escalate) with repair kinds; UFM external events; and crash-resume: the service killed with
// SIGKILL at each step of an action's life, restarted, and the simulator's action log still
// shows the action exactly once.
#include <gtest/gtest.h>

#include <csignal>
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
using std::chrono::seconds;
using testing::WaitUntil;

constexpr const char* kTwoRails = "fat-tree:leaves=2,spines=2,hosts_per_leaf=2,hcas_per_host=2";
constexpr const char* kOneLinkHosts = "fat-tree:leaves=2,spines=2,hosts_per_leaf=2";

struct Fabric {
  std::string topology = kTwoRails;
  std::string remediation;  // extra lines under `remediation:`, each indented by two spaces
  // Replaces the `action:` of the shipped link_down rule (e.g. "isolate_port"), or its mode.
  std::string link_down_action;
  std::string link_down_mode;
  int job_delay_ms = 200;             // how long UFM's port action jobs run
  std::vector<std::string> sim_args;  // more ufm-sim options (e.g. --disabled-state ambiguous)
};

Fabric WithTopology(const std::string& topology) {
  Fabric f;
  f.topology = topology;
  return f;
}
Fabric WithRemediation(const std::string& remediation) {
  Fabric f;
  f.remediation = remediation;
  return f;
}
Fabric WithLinkDown(const std::string& action, const std::string& mode) {
  Fabric f;
  f.link_down_action = action;
  f.link_down_mode = mode;
  return f;
}

class RemediationTest : public ::testing::Test {
 protected:
  void Start(const Fabric& setup, const std::string& crash_at = "") {
    dir_ = testing::MakeTempDir("remediation");
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    std::vector<std::string> sim_args{"--topology", setup.topology, "--job-delay-ms",
                                      std::to_string(setup.job_delay_ms)};
    sim_args.insert(sim_args.end(), setup.sim_args.begin(), setup.sim_args.end());
    sim_ = std::make_unique<testing::SimProcess>(dir_, sim_args);
    ASSERT_TRUE(sim_->AwaitReady());
    sim_url_ = sim_->url();

    // The shipped rules; link_down's 30 s hold shortened so the tests run in seconds.
    std::vector<testing::RulesEdit> edits = {testing::ShortHold()};
    if (!setup.link_down_action.empty()) {
      edits.push_back({"links.yaml", "name: link_down", "action: disable_port",
                       "action: " + setup.link_down_action});
    }
    if (!setup.link_down_mode.empty()) {  // a line of its own after the rule's name
      edits.push_back(
          {"links.yaml", "name: link_down", "\n", "\n    mode: " + setup.link_down_mode + "\n"});
    }
    ASSERT_TRUE(testing::ShippedRules(dir_ + "/rules", edits));
    service_ = std::make_unique<testing::ServiceProcess>(dir_, "service");
    api_ = service_->api();
    service_->WriteConfig(testing::ServiceConfigYaml({.fabric = "remediation",
                                                      .ufm_url = sim_url_,
                                                      .telemetry_url = sim_->telemetry_url(),
                                                      .db_url = db_url_,
                                                      .rules_dir = dir_ + "/rules",
                                                      .http_port = service_->port(),
                                                      .remediation_extra = setup.remediation}));
    ASSERT_TRUE(service_->Migrate());
    // The API wants a person: an engineer's token (engineers may re-arm the breaker too).
    http_.SetHeader("Authorization", "Bearer " + service_->CreateToken("tech", "engineer"));
    StartService(crash_at);
    if (crash_at.empty()) AwaitReady();  // (an armed service may die before it is ready)
  }

  // The service, optionally armed to kill itself at a crash point (UFMR_CRASH_AT).
  void StartService(const std::string& crash_at = "") {
    service_->Start({.log_level = "debug", .crash_at = crash_at});
  }

  void AwaitReady() {
    ASSERT_TRUE(service_->AwaitInventory(seconds(20)));
    // Let the service take its starting cursor before any fault, as a running service would.
    ASSERT_TRUE(service_->AwaitLog({"skipping", "resuming events"}, seconds(10)));
  }

  void TearDown() override {
    service_.reset();  // (each prints its logs if the test failed)
    sim_.reset();
    if (!dir_.empty()) testing::RemoveTree(dir_);
  }

  json Get(const std::string& url) {
    auto r = http_.Get(url);
    if (!r.ok()) return json();
    return json::parse(r->body, nullptr, false);
  }

  HttpResult Post(const std::string& url, const json& body) {
    auto r = http_.Post(url, body.dump());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r.value() : HttpResult();
  }

  // Links that face a host, leaf side first ("a" is the switch end), one per host: two links of
  // one host going down together look like its reboot (node_many_links_down), and are not cut.
  std::vector<std::pair<std::string, std::string>> HostLinks() {
    std::vector<std::pair<std::string, std::string>> out;
    std::set<std::string> hosts;
    for (const auto& l : Get(sim_url_ + "/sim/links")) {
      if (l["b"]["is_switch"].get<bool>()) continue;  // a host link
      if (!hosts.insert(l["b"]["system_name"].get<std::string>()).second) continue;
      out.emplace_back(l["a"]["port"], l["b"]["port"]);
    }
    return out;
  }
  // UFM's REST API, as the service sees it (basic auth).
  json Ufm(const std::string& path) {
    HttpClientOptions o;
    o.basic_user = "admin";
    o.basic_password = "123456";
    HttpClient ufm(o);
    auto r = ufm.Get(sim_url_ + "/ufmRest" + path);
    EXPECT_TRUE(r.ok() && r->status == 200) << path;
    if (!r.ok()) return json();
    return json::parse(r->body, nullptr, false);
  }
  // Whether UFM's unhealthy ports list holds the port: entries name it by UnhealthyGUID and
  // UnhealthyPortNumber, as the REST API guide prints them.
  bool UfmIsolates(const std::string& port) {
    for (const auto& u : Ufm("/app/unhealthy_ports")) {
      if (u["UnhealthyGUID"].get<std::string>() + "_" +
              std::to_string(u["UnhealthyPortNumber"].get<int>()) ==
          port) {
        return true;
      }
    }
    return false;
  }
  std::string LeafOf(const std::string& port) {
    for (const auto& l : Get(sim_url_ + "/sim/links")) {
      if (l["a"]["port"] == port) return l["a"]["system_name"];
    }
    return "";
  }

  void Fault(const std::string& port, const std::string& kind = "link_down") {
    auto r = Post(sim_url_ + "/sim/faults", {{"kind", kind}, {"port", port}});
    ASSERT_EQ(r.status, 201) << r.body;
  }

  json Tickets() { return Get(api_ + "/api/tickets?state=all")["tickets"]; }
  json Ticket(int64_t id) { return Get(api_ + "/api/tickets/" + std::to_string(id)); }
  // The ticket of the link with this port, once it exists; null otherwise.
  json TicketFor(const std::string& port) {
    for (const auto& t : Tickets()) {
      if (t["link"].get<std::string>().find(port) != std::string::npos) return t;
    }
    return json();
  }
  json AwaitTicket(const std::string& port, const std::function<bool(const json&)>& done) {
    json t;
    bool ok = WaitUntil(
        [&] {
          t = TicketFor(port);
          return !t.is_null() && done(t);
        },
        seconds(30));
    EXPECT_TRUE(ok) << "ticket for " << port << ": " << t.dump(2);
    return t.is_null() ? t : Ticket(t["id"]);
  }
  std::vector<json> SimActions(const std::string& port, const std::string& action) {
    std::vector<json> out;
    for (const auto& a : Get(sim_url_ + "/sim/actions")) {
      if (a["port"] == port && a["action"] == action) out.push_back(a);
    }
    return out;
  }
  std::vector<json> ExternalEvents(const std::string& contains) {
    std::vector<json> out;
    for (const auto& e : Get(sim_url_ + "/sim/external_events")) {
      if (e.dump().find(contains) != std::string::npos) out.push_back(e);
    }
    return out;
  }
  HttpResult Repaired(int64_t id, const std::string& kind = "cable_replaced") {
    return Post(api_ + "/api/tickets/" + std::to_string(id) + "/repaired",
                {{"by", "tech"}, {"kind", kind}, {"note", "done at the rack"}});
  }

  std::string dir_, db_url_, sim_url_, api_;
  std::unique_ptr<testing::SimProcess> sim_;
  std::unique_ptr<testing::ServiceProcess> service_;
  HttpClient http_{HttpClientOptions{}};
};

bool Disabled(const json& t) { return t["state"] == "port_disabled"; }
bool Blocked(const json& t) { return t["state"] == "ticket_only" && t["guard"] != ""; }

// --- guards --------------------------------------------------------------------------------

TEST_F(RemediationTest, AHostsOnlyLinkIsTicketedAndBlockedNotCut) {
  Start(WithTopology(kOneLinkHosts));
  auto [sw, host] = HostLinks().at(0);
  Fault(host);
  json t = AwaitTicket(sw, Blocked);
  EXPECT_EQ(t["guard"], "last_link");
  EXPECT_NE(t["explanation"].get<std::string>().find("drain the host first"), std::string::npos)
      << t["explanation"];
  EXPECT_NE(t["events"].dump().find("drain the host first"), std::string::npos);
  std::this_thread::sleep_for(seconds(2));
  EXPECT_TRUE(Get(sim_url_ + "/sim/actions").empty()) << Get(sim_url_ + "/sim/actions").dump();
}

TEST_F(RemediationTest, AbsoluteCap) {
  Start(WithRemediation("  max_disabled_ports: 1\n"));
  auto links = HostLinks();
  Fault(links[0].second);
  AwaitTicket(links[0].first, Disabled);
  Fault(links[1].second);
  json t = AwaitTicket(links[1].first, Blocked);
  EXPECT_EQ(t["guard"], "cap");
  EXPECT_NE(t["explanation"].get<std::string>().find("the cap is 1"), std::string::npos)
      << t["explanation"];
  EXPECT_TRUE(SimActions(links[1].first, "disable").empty());
}

TEST_F(RemediationTest, PercentCap) {
  // 24 ports: 5% allows 1.
  Start(WithRemediation("  max_disabled_percent: 5\n"));
  auto links = HostLinks();
  Fault(links[0].second);
  AwaitTicket(links[0].first, Disabled);
  Fault(links[1].second);
  json t = AwaitTicket(links[1].first, Blocked);
  EXPECT_EQ(t["guard"], "cap");
  EXPECT_NE(t["explanation"].get<std::string>().find("5% of the fabric's 24 ports allows 1"),
            std::string::npos)
      << t["explanation"];
}

TEST_F(RemediationTest, PerSwitchCap) {
  Start(WithRemediation("  max_disabled_per_switch: 1\n"));
  auto links = HostLinks();
  // Two host links on one leaf.
  std::string leaf = LeafOf(links[0].first);
  std::string second;
  for (const auto& [sw, host] : links) {
    if (sw != links[0].first && LeafOf(sw) == leaf) second = host;
  }
  ASSERT_FALSE(second.empty());
  Fault(links[0].second);
  AwaitTicket(links[0].first, Disabled);
  Fault(second);
  json t = AwaitTicket(second, Blocked);
  EXPECT_EQ(t["guard"], "switch_cap");
  EXPECT_NE(t["explanation"].get<std::string>().find("links of switch " + leaf), std::string::npos)
      << t["explanation"];
}

TEST_F(RemediationTest, RateLimit) {
  Start(WithRemediation("  max_actions_per_hour: 1\n"));
  auto links = HostLinks();
  Fault(links[0].second);
  AwaitTicket(links[0].first, Disabled);
  Fault(links[2].second);
  json t = AwaitTicket(links[2].first, Blocked);
  EXPECT_EQ(t["guard"], "rate_limit");
}

TEST_F(RemediationTest, CooldownAfterARepair) {
  Start(WithRemediation("  port_cooldown_s: 1h\n"));
  auto [sw, host] = HostLinks().at(0);
  Fault(host);
  json t = AwaitTicket(sw, Disabled);
  ASSERT_EQ(Post(sim_url_ + "/sim/repair", {{"port", host}}).status, 200);
  ASSERT_EQ(Repaired(t["id"]).status, 200);
  AwaitTicket(sw, [](const json& x) { return x["state"] == "closed"; });
  // The same link fails again soon after: not cut again so soon.
  Fault(host);
  json again;
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const auto& x : Tickets()) {
          if (x["id"] != t["id"] && x["link"] == t["link"]) again = x;
        }
        return !again.is_null() && Blocked(again);
      },
      seconds(30)))
      << Tickets().dump(2);
  EXPECT_EQ(again["guard"], "cooldown");
  EXPECT_EQ(SimActions(sw, "disable").size(), 1u);
  // It is a repeat offender now.
  EXPECT_EQ(again["repeat_count"], 1);
  EXPECT_TRUE(again["repeat_offender"].get<bool>());
}

TEST_F(RemediationTest, CircuitBreakerStopsAStormAndWaitsForAPerson) {
  // No cap would stop a third cut here (percent cap off): only the breaker does.
  Start(
      WithRemediation("  breaker_findings: 2\n  breaker_window_s: 5m\n"
                      "  max_disabled_per_switch: 10\n  max_disabled_percent: 0\n"));
  auto links = HostLinks();
  ASSERT_GE(links.size(), 4u);
  for (int i = 0; i < 4; ++i) Fault(links[i].second);
  json storm;
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const auto& t : Tickets()) {
          if (t["storm"].get<bool>()) storm = t;
        }
        return !storm.is_null() && Get(api_ + "/api/breaker")["tripped"] == true;
      },
      seconds(30)))
      << Tickets().dump(2);
  // Two were cut before the storm was recognized; the rest wait, on the one storm ticket.
  ASSERT_TRUE(WaitUntil(
      [&] { return Ticket(storm["id"])["events"].dump().find("held back") != std::string::npos; },
      seconds(20)));
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(Get(sim_url_ + "/sim/actions").size(), 2u) << Get(sim_url_ + "/sim/actions").dump();
  int link_tickets = 0;
  for (const auto& t : Tickets()) link_tickets += !t["storm"].get<bool>();
  EXPECT_EQ(link_tickets, 2);
  EXPECT_EQ(storm["guard"], "breaker");
  // A person re-arms it (API; the dashboard's button does the same).
  auto r = Post(api_ + "/api/breaker/rearm", {{"note", "leaf power fixed"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["tripped"], false);
  EXPECT_EQ(json::parse(r.body)["rearmed_by"], "tech");  // the token's user, whatever "by" says
  EXPECT_EQ(Ticket(storm["id"])["state"], "closed");
  EXPECT_EQ(Post(api_ + "/api/breaker/rearm", {{"by", "sre"}}).status, 409);
}

TEST_F(RemediationTest, DryRunTicketsAndTouchesNothing) {
  Start(WithRemediation("  dry_run: true\n"));
  auto [sw, host] = HostLinks().at(0);
  Fault(host);
  json t = AwaitTicket(sw, Blocked);
  EXPECT_EQ(t["guard"], "dry_run");
  std::this_thread::sleep_for(seconds(1));
  EXPECT_TRUE(Get(sim_url_ + "/sim/actions").empty());
}

TEST_F(RemediationTest, ShadowRuleDecidesButNeverActs) {
  Start(WithLinkDown("", "shadow"));
  auto [sw, host] = HostLinks().at(0);
  Fault(host);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return Get(api_ + "/api/decisions?rule=link_down")
                   .dump()
                   .find(
                       "shadow mode: would "
                       "disable") != std::string::npos;
      },
      seconds(30)));
  std::this_thread::sleep_for(seconds(1));
  EXPECT_TRUE(Get(sim_url_ + "/sim/actions").empty());
  EXPECT_TRUE(TicketFor(sw).is_null());
}

TEST_F(RemediationTest, ASwitchRebootCutsNothing) {
  Start(Fabric{});
  std::string leaf = LeafOf(HostLinks().at(0).first);
  auto r =
      Post(sim_url_ + "/sim/faults", {{"kind", "switch_reboot"}, {"switch", leaf}, {"down_s", 4}});
  ASSERT_EQ(r.status, 201) << r.body;
  // One switch-level ticket, no port touched, through the reboot and after it.
  json sw;
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const auto& t : Tickets()) {
          if (t["link"].get<std::string>().rfind("switch:", 0) == 0) sw = t;
        }
        return !sw.is_null();
      },
      seconds(30)))
      << Tickets().dump(2);
  EXPECT_EQ(sw["rule"], "switch_reboot");
  std::this_thread::sleep_for(seconds(8));
  EXPECT_TRUE(Get(sim_url_ + "/sim/actions").empty()) << Get(sim_url_ + "/sim/actions").dump();
  for (const auto& t : Tickets()) {
    EXPECT_EQ(t["link"].get<std::string>().rfind("switch:", 0), 0u) << t.dump();
  }
}

// --- a person's ports ----------------------------------------------------------------------

TEST_F(RemediationTest, APortAPersonIsolatedIsNeverTouched) {
  Start(Fabric{});
  auto [sw, host] = HostLinks().at(0);
  // A person isolates the switch port in UFM, then its link goes down.
  ASSERT_EQ(Post(sim_url_ + "/sim/operator", {{"port", sw}, {"action", "isolate"}}).status, 200);
  std::this_thread::sleep_for(seconds(2));  // a reconciliation reads UFM's unhealthy ports
  Fault(host);
  json t = AwaitTicket(sw, Blocked);
  EXPECT_EQ(t["guard"], "manual");
  EXPECT_NE(t["explanation"].get<std::string>().find("person"), std::string::npos)
      << t["explanation"];
  std::this_thread::sleep_for(seconds(2));
  EXPECT_TRUE(Get(sim_url_ + "/sim/actions").empty());
  // Still isolated, as the person left it.
  EXPECT_TRUE(UfmIsolates(sw));
}

// A person takes three ports of one leaf down in UFM for maintenance: UFM says 336 ("port
// action disable succeeded"), then each link goes down. That is no fault: no link_down ticket,
// no switch_many_links_down, no action; the events were read, and counted as such.
TEST_F(RemediationTest, APersonsMaintenanceDisablesFileNoTickets) {
  Start(Fabric{});
  const std::string leaf = LeafOf(HostLinks().at(0).first);
  std::vector<std::string> ports;
  for (const auto& l : Get(sim_url_ + "/sim/links")) {
    for (const char* end : {"a", "b"}) {
      if (l[end]["system_name"] == leaf && ports.size() < 3) ports.push_back(l[end]["port"]);
    }
  }
  ASSERT_EQ(ports.size(), 3u);
  for (const auto& p : ports) {
    ASSERT_EQ(Post(sim_url_ + "/sim/operator", {{"port", p}, {"action", "disable"}}).status, 200);
  }
  auto counted = [&] {
    auto r = http_.Get(api_ + "/metrics");
    if (!r.ok()) return 0.0;
    double n = 0;
    std::istringstream lines(r->body);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("ufmr_events_after_hand_disable_total{", 0) == 0) {
        n += std::stod(line.substr(line.rfind(' ') + 1));
      }
    }
    return n;
  };
  ASSERT_TRUE(WaitUntil([&] { return counted() >= 3; }, seconds(20)))
      << "the link-downs after the disables were not read";
  std::this_thread::sleep_for(seconds(4));  // past link_down's hold (1 s here) and a few passes
  EXPECT_TRUE(Tickets().empty()) << Tickets().dump(2);
  EXPECT_TRUE(Get(sim_url_ + "/sim/actions").empty()) << Get(sim_url_ + "/sim/actions").dump();
}

TEST_F(RemediationTest, DriftIsReportedAndNotUndone) {
  Start(WithRemediation("  port_cooldown_s: 0\n"));  // only the drift keeps the service away
  auto [sw, host] = HostLinks().at(0);
  Fault(host);
  AwaitTicket(sw, Disabled);
  // Someone enables the port by hand in UFM.
  ASSERT_EQ(Post(sim_url_ + "/sim/operator", {{"port", sw}, {"action", "enable"}}).status, 200);
  json t = AwaitTicket(sw, [](const json& x) { return x["guard"] == "drift"; });
  EXPECT_EQ(t["state"], "ticket_only");
  EXPECT_FALSE(t["disabled_by_us"].get<bool>());
  EXPECT_NE(t["events"].dump().find("brought it back by hand"), std::string::npos);
  std::this_thread::sleep_for(seconds(3));
  EXPECT_EQ(SimActions(sw, "disable").size(), 1u);  // not disabled again
  EXPECT_TRUE(SimActions(sw, "enable").empty());
  // The link then flaps: a rule that acts fires on it, and still the person's port is left alone.
  ASSERT_EQ(Post(sim_url_ + "/sim/repair", {{"port", host}}).status, 200);
  auto r = Post(sim_url_ + "/sim/faults", {{"kind", "flap"}, {"port", host}, {"interval_s", 1}});
  ASSERT_EQ(r.status, 201) << r.body;
  ASSERT_TRUE(WaitUntil(
      [&] {
        return Get(api_ + "/api/decisions?rule=link_flapping").dump().find("open_ticket") !=
               std::string::npos;
      },
      seconds(30)))
      << Get(api_ + "/api/decisions").dump(2);
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(SimActions(sw, "disable").size(), 1u);
  EXPECT_EQ(Ticket(t["id"])["guard"], "drift");
}

// A UFM that shows a disabled port only as "Down" / "Link Down": the service cannot read whether
// its cut took. It never leaves the cut untracked: the ticket holds the port as the service's,
// says it is uncertain, and a repair report still brings the port back.
TEST_F(RemediationTest, ACutWhoseOutcomeCannotBeReadIsHeldAndBroughtBackAfterTheRepair) {
  Fabric fabric;
  fabric.sim_args = {"--disabled-state", "ambiguous"};
  Start(fabric);
  auto [sw, host] = HostLinks().at(0);
  Fault(host);
  json t = AwaitTicket(sw, Disabled);
  EXPECT_EQ(t["guard"], "uncertain") << t.dump(2);
  EXPECT_TRUE(t["disabled_by_us"].get<bool>());
  EXPECT_NE(t["events"].dump().find("uncertain"), std::string::npos) << t["events"].dump(2);
  EXPECT_EQ(SimActions(sw, "disable").size(), 1u);
  std::this_thread::sleep_for(seconds(3));  // reconciliation runs: "Down" is not drift
  EXPECT_EQ(Ticket(t["id"])["guard"], "uncertain");
  EXPECT_EQ(SimActions(sw, "disable").size(), 1u) << "sent once";
  ASSERT_EQ(Post(sim_url_ + "/sim/repair", {{"port", host}}).status, 200);
  ASSERT_EQ(Repaired(t["id"]).status, 200);
  t = AwaitTicket(sw, [](const json& x) { return x["state"] == "closed"; });
  EXPECT_EQ(SimActions(sw, "enable").size(), 1u) << "the repair brought the port back";
}

// --- isolation, repairs, external events ------------------------------------------------------

TEST_F(RemediationTest, IsolateRuleIsolatesAndMakesHealthyAfterTheRepair) {
  Start(WithLinkDown("isolate_port", ""));
  auto [sw, host] = HostLinks().at(0);
  Fault(host);
  json t = AwaitTicket(sw, Disabled);
  EXPECT_EQ(t["method"], "isolate");
  ASSERT_EQ(SimActions(sw, "isolate").size(), 1u);
  EXPECT_TRUE(UfmIsolates(sw));
  EXPECT_TRUE(SimActions(sw, "disable").empty());
  ASSERT_EQ(Post(sim_url_ + "/sim/repair", {{"port", host}}).status, 200);
  ASSERT_EQ(Repaired(t["id"], "transceiver_replaced").status, 200);
  t = AwaitTicket(sw, [](const json& x) { return x["state"] == "closed"; });
  EXPECT_EQ(SimActions(sw, "healthy").size(), 1u);
  EXPECT_EQ(t["repair_kind"], "transceiver_replaced");
  ASSERT_TRUE(Ufm("/app/unhealthy_ports").is_array());
  EXPECT_FALSE(UfmIsolates(sw));
  // Our own isolation's 702 MANUAL event did not make the port a person's: it was made healthy
  // again, and nothing on the ticket calls it a person's.
  EXPECT_EQ(t["events"].dump().find("person's hands"), std::string::npos) << t["events"].dump(2);
}

TEST_F(RemediationTest, RepairFailsThenEscalates) {
  Start(WithRemediation("  max_attempts: 2\n"));
  auto [sw, host] = HostLinks().at(0);
  Fault(host);
  json t = AwaitTicket(sw, Disabled);
  // Reported repaired, but the link is still broken: the soak fails, the port goes out again.
  ASSERT_EQ(Repaired(t["id"], "reseat").status, 200);
  t = AwaitTicket(sw, [](const json& x) { return x["attempts"] == 1 && Disabled(x); });
  EXPECT_EQ(SimActions(sw, "disable").size(), 2u);
  EXPECT_EQ(SimActions(sw, "enable").size(), 1u);
  // Once more: escalated, with what to replace.
  ASSERT_EQ(Repaired(t["id"], "cable_replaced").status, 200);
  t = AwaitTicket(sw, [](const json& x) { return x["state"] == "escalated"; });
  EXPECT_EQ(t["attempts"], 2);
  EXPECT_NE(t["events"].dump().find("replace the switch module or the host's HCA"),
            std::string::npos)
      << t["events"].dump(2);
  // Still held out of service by the service.
  EXPECT_TRUE(t["disabled_by_us"].get<bool>());
}

TEST_F(RemediationTest, ExternalEventsSayWhoActed) {
  Start(Fabric{});
  auto [sw, host] = HostLinks().at(0);
  Fault(host);
  json t = AwaitTicket(sw, Disabled);
  ASSERT_TRUE(WaitUntil([&] { return ExternalEvents(sw).size() == 1; }, seconds(10)))
      << Get(sim_url_ + "/sim/external_events").dump();
  json e = ExternalEvents(sw)[0];
  EXPECT_EQ(e.dump().find("552") != std::string::npos, true) << e.dump();
  EXPECT_NE(e.dump().find("ufm-remediator disabled port " + sw), std::string::npos) << e.dump();
  ASSERT_EQ(Post(sim_url_ + "/sim/repair", {{"port", host}}).status, 200);
  ASSERT_EQ(Repaired(t["id"]).status, 200);
  ASSERT_TRUE(WaitUntil([&] { return ExternalEvents(sw).size() == 2; }, seconds(20)));
  EXPECT_NE(ExternalEvents(sw)[1].dump().find("ufm-remediator enabled port " + sw),
            std::string::npos);
  // UFM's own event list shows them (its log says who acted).
  EXPECT_NE(Ufm("/app/events").dump().find("ufm-remediator disabled port"), std::string::npos);
}

TEST_F(RemediationTest, SigtermDuringAJobStopsCleanlyAndTheRestartFinishesIt) {
  // SIGTERM (systemctl stop) while UFM runs the disable's job: the service finishes its pass and
  // exits by itself, and the next start picks the action up where it was: still exactly once.
  Fabric fabric;
  fabric.job_delay_ms = 4000;
  Start(fabric);
  auto [sw, host] = HostLinks().at(0);
  Fault(host);
  ASSERT_TRUE(WaitUntil([&] { return SimActions(sw, "disable").size() == 1; }, seconds(30)))
      << Get(sim_url_ + "/sim/actions").dump();
  auto asked = std::chrono::steady_clock::now();
  service_->Signal(SIGTERM);
  ASSERT_TRUE(WaitUntil([&] { return !service_->running(); }, seconds(20)))
      << "still running 20 s after SIGTERM";
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  std::cout << "[ measured ] stopped " << took << " s after SIGTERM\n";
  EXPECT_EQ(service_->term_signal(), 0) << "exited by itself, not by the signal";
  StartService();
  AwaitReady();
  AwaitTicket(sw, Disabled);
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(SimActions(sw, "disable").size(), 1u) << Get(sim_url_ + "/sim/actions").dump(2);
  EXPECT_EQ(Tickets().size(), 1u) << Tickets().dump(2);
}

// --- crash-resume -----------------------------------------------------------------------------

struct CrashCase {
  std::string at;  // UFMR_CRASH_AT
  bool during_enable = false;
  bool isolate = false;  // the rule isolates (unhealthy_ports) rather than disables
};

class CrashResumeTest : public RemediationTest, public ::testing::WithParamInterface<CrashCase> {};

TEST_P(CrashResumeTest, KilledAtEachStepActsExactlyOnce) {
  const CrashCase& c = GetParam();
  // Armed from the start: "enable:..." points pass the disable by. Jobs run long enough that a
  // restart finds one still running, and must adopt it (found by its marker in GET /jobs).
  Fabric fabric;
  fabric.job_delay_ms = 2500;
  if (c.isolate) fabric.link_down_action = "isolate_port";
  Start(fabric, c.at);
  AwaitReady();
  auto [sw, host] = HostLinks().at(0);
  Fault(host);
  json t;
  if (c.during_enable) {
    t = AwaitTicket(sw, Disabled);
    ASSERT_TRUE(WaitUntil([&] { return ExternalEvents(sw).size() == 1; }, seconds(10)));
    ASSERT_EQ(Post(sim_url_ + "/sim/repair", {{"port", host}}).status, 200);
    const std::string repaired =
        api_ + "/api/tickets/" + std::to_string(t["id"].get<int64_t>()) + "/repaired";
    // Not asserted: what the crash point leaves behind is what the checks below look at.
    LogIfError(http_.Post(repaired, json{{"by", "tech"}, {"kind", "reseat"}}.dump()).status(),
               "report the repair");
  }
  // kill -9 at the crash point.
  ASSERT_TRUE(WaitUntil([&] { return !service_->running(); }, seconds(30)))
      << "never reached crash point " << c.at;
  EXPECT_EQ(service_->term_signal(), SIGKILL);
  StartService();
  AwaitReady();
  const std::string action = c.isolate ? (c.during_enable ? "healthy" : "isolate")
                                       : (c.during_enable ? "enable" : "disable");
  if (c.during_enable) {
    AwaitTicket(sw, [](const json& x) { return x["state"] == "closed"; });
  } else {
    AwaitTicket(sw, Disabled);
  }
  ASSERT_TRUE(WaitUntil([&] { return ExternalEvents(sw).size() == (c.during_enable ? 2u : 1u); },
                        seconds(15)));
  std::this_thread::sleep_for(seconds(2));
  // The simulator's action log: the action exactly once, and nothing else.
  EXPECT_EQ(SimActions(sw, action).size(), 1u) << Get(sim_url_ + "/sim/actions").dump(2);
  EXPECT_EQ(Get(sim_url_ + "/sim/actions").size(), c.during_enable ? 2u : 1u);
  EXPECT_EQ(ExternalEvents(sw).size(), c.during_enable ? 2u : 1u)
      << Get(sim_url_ + "/sim/external_events").dump(2);
  // One ticket, its timeline whole.
  EXPECT_EQ(Tickets().size(), 1u) << Tickets().dump(2);
  if (c.at.ends_with(":sent") && !c.isolate) {
    // UFM had the request when the service died: the restart adopted its job, not a second one.
    EXPECT_NE(service_->Log().find("resuming UFM job"), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Steps, CrashResumeTest,
    ::testing::Values(CrashCase{"disable:decided"}, CrashCase{"disable:submitted_marked"},
                      CrashCase{"disable:sent"}, CrashCase{"disable:job_recorded"},
                      CrashCase{"disable:job_done"}, CrashCase{"disable:confirmed"},
                      CrashCase{"disable:announced"}, CrashCase{"enable:decided", true},
                      CrashCase{"enable:submitted_marked", true}, CrashCase{"enable:sent", true},
                      CrashCase{"enable:job_recorded", true}, CrashCase{"enable:job_done", true},
                      CrashCase{"enable:confirmed", true}, CrashCase{"enable:announced", true},
                      CrashCase{"isolate:submitted_marked", false, true},
                      CrashCase{"isolate:sent", false, true},
                      CrashCase{"isolate:confirmed", false, true},
                      CrashCase{"unisolate:sent", true, true}),
    [](const ::testing::TestParamInfo<CrashCase>& p) {
      std::string name = p.param.at;
      for (char& ch : name) {
        if (ch == ':') ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace ufmr
