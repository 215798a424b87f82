// Chaos, end to end: a mixed fault scenario on a simulated UFM (ufm-sim: a spine's reboot, then
// link-downs and symbol errors) while the real service
// (`ufm-remediator serve`) is killed with SIGKILL at random moments, again and again (20 times by
// default; UFMR_CHAOS_KILLS sets it, UFMR_CHAOS_SEED replays a run). Between kills UFM fails:
// it answers 500, answers slowly (past the service's UFM timeout), and stops answering at all (the
// simulator is frozen with SIGSTOP); PostgreSQL restarts under the running service. Half-way
// through, a technician reports half of the cut links repaired. After a last, undisturbed start
// the fabric (the simulator's port states and action log) and the database are checked:
//   - every fault has exactly one ticket, and nothing else is ticketed;
//   - no action was duplicated: each port's actions alternate disable, enable, starting with a
//     disable (one disable for a link still broken, a disable then an enable for a repaired one),
//     and no port nobody faulted was touched;
//   - no port is left disabled without an open ticket;
//   - no ticket is closed while its port is disabled;
//   - no event cursor went backwards (sampled after every kill).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

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
constexpr const char* kFabric = "chaos";
constexpr int kLinkDowns = 6;
constexpr int kSymbolErrors = 2;
constexpr int kRepaired = 3;                   // of the link-downs
constexpr const char* kSpine = "ib-spine-01";  // reboots
// At most two faults per leaf: three bad links on one switch look like the switch's trouble
// (switch_many_links_down) and are not cut.
constexpr int kPerLeaf = 2;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// A faulted leaf-host link: the leaf's port (the one the service disables) and the host's.
struct Link {
  std::string sw;
  std::string host;
  bool repaired = false;
};

class ChaosTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("chaos");
    // This binary's own server (nothing else uses it), so restarting it disturbs only this test.
    db_url_ = testing::TestPostgres::Own().CreateDatabase();
    // UFM's port jobs take long enough that kills land with some in flight.
    sim_ = std::make_unique<testing::SimProcess>(
        dir_, std::vector<std::string>{"--topology", kTopology, "--job-delay-ms", "400"});
    ASSERT_TRUE(sim_->AwaitReady());
    sim_url_ = sim_->url();
    ASSERT_TRUE(testing::ShippedRulesWithShortHold(dir_ + "/rules"));

    service_ = std::make_unique<testing::ServiceProcess>(dir_, "service");
    service_->PrintOnFailure(4, std::string::npos);  // the last few starts are the interesting ones
    api_ = service_->api();
    // A short UFM timeout, so that a slow or frozen UFM is a timeout, not just a wait.
    service_->WriteConfig(testing::ServiceConfigYaml({.fabric = kFabric,
                                                      .ufm_url = sim_url_,
                                                      .telemetry_url = sim_->telemetry_url(),
                                                      .db_url = db_url_,
                                                      .rules_dir = dir_ + "/rules",
                                                      .http_port = service_->port(),
                                                      .remediation_extra = testing::kHighCaps,
                                                      .ufm_extra = "  timeout_s: 1\n"}));
    ASSERT_TRUE(service_->Migrate());
    http_.SetHeader("Authorization", "Bearer " + service_->CreateToken("tech", "technician"));
  }

  void TearDown() override {
    service_.reset();  // (each prints its log if the test failed; the simulator is continued)
    sim_.reset();
    if (!dir_.empty()) testing::RemoveTree(dir_);
  }

  // Kills the service. It may have stopped by itself only when PostgreSQL restarted under it: a
  // leader that loses its lock stops at once (exit 75) rather than act without it.
  void Kill(bool postgres_restarted) {
    service_->Signal(SIGKILL);
    ASSERT_TRUE(WaitUntil([&] { return !service_->running(); }, seconds(10)));
    if (service_->term_signal() == SIGKILL) return;
    EXPECT_TRUE(postgres_restarted) << "the service ended before it was killed";
    EXPECT_NE(service_->Log().find("lost the leader lock"), std::string::npos)
        << "the service ended before it was killed";
    ++self_stops_;
  }

  // UFM stops answering: the simulator is frozen (its sockets accept, nothing answers).
  void FreezeUfm(milliseconds how_long) {
    sim_->Signal(SIGSTOP);
    std::this_thread::sleep_for(how_long);
    sim_->Signal(SIGCONT);
  }

  void Misbehave(const json& body) {
    auto r = http_.Post(sim_url_ + "/sim/misbehave", body.dump());
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
  }

  json Get(const std::string& url) {
    auto r = http_.Get(url);
    if (!r.ok() || r->status != 200) return json();
    return json::parse(r->body, nullptr, false);
  }

  // Event cursors by source, read from the database.
  std::map<std::string, int64_t> Cursors() {
    std::map<std::string, int64_t> out;
    pqxx::connection c(db_url_);
    pqxx::nontransaction w(c);
    for (const auto& row :
         w.exec_params("SELECT source, position FROM cursors WHERE fabric = $1", kFabric)) {
      out[row[0].as<std::string>()] = row[1].as<int64_t>();
    }
    return out;
  }

  // Leaf-host links on distinct hosts, at most kPerLeaf per leaf.
  std::vector<Link> FaultLinks(int n) {
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
      if (static_cast<int>(out.size()) == n) break;
    }
    return out;
  }

  std::map<std::string, std::string> PortStates() {
    std::map<std::string, std::string> out;
    for (const auto& l : Get(sim_url_ + "/sim/links")) {
      out[l["a"]["port"]] = l["a"]["logical_state"];
      out[l["b"]["port"]] = l["b"]["logical_state"];
    }
    return out;
  }

  json Tickets() {
    json t = Get(api_ + "/api/tickets?state=all&limit=1000");
    return t.is_object() ? t["tickets"] : json();
  }

  // True when a ticket's link ("PORT|PORT", or one port) has this port as an end.
  static bool HasEnd(const json& ticket, const std::string& port) {
    const std::string link = ticket["link"];
    const size_t bar = link.find('|');
    return link.substr(0, bar) == port ||
           (bar != std::string::npos && link.substr(bar + 1) == port);
  }

  // The tickets whose link has this port as an end.
  static std::vector<json> TicketsFor(const json& tickets, const std::string& port) {
    std::vector<json> out;
    if (!tickets.is_array()) return out;
    for (const auto& t : tickets) {
      if (HasEnd(t, port)) out.push_back(t);
    }
    return out;
  }

  // Reports the link repaired (the simulator's fault is gone first, as a technician's fix would
  // be). True once the service took the report or the ticket is already past it.
  bool ReportRepaired(const Link& l) {
    std::vector<json> t = TicketsFor(Tickets(), l.sw);
    if (t.size() != 1) return false;
    const std::string state = t[0]["state"];
    if (state == "repair_reported" || state == "verifying" || state == "closed") return true;
    if (state != "port_disabled") return false;
    auto r =
        http_.Post(api_ + "/api/tickets/" + std::to_string(t[0]["id"].get<int64_t>()) + "/repaired",
                   json{{"by", "chaos"}, {"kind", "reseat"}}.dump());
    return r.ok() && r->status == 200;
  }

  std::string dir_, db_url_, sim_url_, api_;
  int self_stops_ = 0;
  std::unique_ptr<testing::SimProcess> sim_;
  std::unique_ptr<testing::ServiceProcess> service_;
  HttpClient http_{HttpClientOptions{}};
};

TEST_F(ChaosTest, KilledAgainAndAgainWhileUfmAndPostgresFailTheFabricAndTicketsStayConsistent) {
  const int kills = EnvInt("UFMR_CHAOS_KILLS", 20);
  const unsigned seed = static_cast<unsigned>(
      EnvInt("UFMR_CHAOS_SEED", static_cast<int>(std::random_device{}() & 0x7fffffff)));
  std::cout << "[ CHAOS ] " << kills << " kills, seed " << seed << " (UFMR_CHAOS_SEED=" << seed
            << " replays it)" << std::endl;
  std::mt19937 rng(seed);
  auto between = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };

  // The service starts on a healthy fabric and takes its starting cursors.
  service_->Start();
  ASSERT_TRUE(WaitUntil(
      [&] {
        json h = Get(api_ + "/healthz");
        return h.is_object() && h.value("inventory_ports", 0) > 0 && !Cursors().empty();
      },
      seconds(30)))
      << service_->Log();

  // First a spine reboots: all its links go down and come back (one switch ticket, nothing cut).
  {
    auto r = http_.Post(sim_url_ + "/sim/faults",
                        json{{"kind", "switch_reboot"}, {"switch", kSpine}, {"down_s", 4}}.dump());
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 201) << r->body;
  }
  const auto rebooted_at = std::chrono::steady_clock::now();
  // Then, from the third kill on, the link faults: link-downs and symbol errors, on distinct
  // hosts, at most two per leaf. Not within 20 s of the reboot: with it, each leaf would lose
  // three links at once, which is the leaf's trouble (switch_many_links_down), not a cable's.
  constexpr int kFaultRound = 3;
  std::vector<Link> links = FaultLinks(kLinkDowns + kSymbolErrors);
  ASSERT_EQ(links.size(), static_cast<size_t>(kLinkDowns + kSymbolErrors));
  for (int i = 0; i < kRepaired; ++i) links[i].repaired = true;
  auto inject_faults = [&] {
    // The service times events as it reads them, so "within 20 s" is counted from when it read
    // the reboot's link-downs, which a kill or a stalled UFM can delay: wait until it has the
    // spine's ticket, then 21 s.
    ASSERT_TRUE(WaitUntil(
        [&] {
          for (const auto& t : Tickets()) {
            if (t["link"] == std::string("switch:") + kSpine) return true;
          }
          return false;
        },
        seconds(60), milliseconds(200)))
        << "the spine's reboot was never ticketed";
    std::this_thread::sleep_until(
        std::max(rebooted_at + seconds(25), std::chrono::steady_clock::now() + seconds(21)));
    for (int i = 0; i < kLinkDowns + kSymbolErrors; ++i) {
      json fault = i < kLinkDowns
                       ? json{{"kind", "link_down"}, {"port", links[i].host}}
                       : json{{"kind", "symbol_errors"}, {"port", links[i].host}, {"rate", 200}};
      auto r = http_.Post(sim_url_ + "/sim/faults", fault.dump());
      ASSERT_TRUE(r.ok());
      ASSERT_EQ(r->status, 201) << r->body;
    }
  };

  std::map<std::string, int64_t> cursors = Cursors();
  int pg_restarts = 0, freezes = 0, errors_5xx = 0, slow = 0;
  bool repairs_reported = false;
  int repaired_at = 0;
  for (int round = 1; round <= kills; ++round) {
    if (round > 1) service_->Start();
    if (round == kFaultRound) {
      ASSERT_NO_FATAL_FAILURE(inject_faults());
    }
    const auto kill_at = std::chrono::steady_clock::now() + milliseconds(between(300, 2500));
    bool postgres_restarted = false;

    // From half-way on: the repairs, once the links to repair are ticketed and cut (a technician
    // works from the ticket). The fault is gone from the fabric, then the technician reports it
    // (while the service is up; a kill may come before the report is taken, so retried later).
    if (round >= kills / 2 && !repairs_reported) {
      bool cut = WaitUntil(
          [&] {
            json tickets = Tickets();
            for (const Link& l : links) {
              if (!l.repaired) continue;
              std::vector<json> t = TicketsFor(tickets, l.sw);
              if (t.size() != 1 || t[0]["state"] != "port_disabled") return false;
            }
            return true;
          },
          // The last rounds wait longer: on a loaded machine a service killed every second or
          // two may not have cut them yet, and the repairs must come while the kills go on.
          round >= kills - 2 ? seconds(30) : milliseconds(1500), milliseconds(100));
      if (cut) {
        for (const Link& l : links) {
          if (!l.repaired) continue;
          auto r = http_.Post(sim_url_ + "/sim/repair", json{{"port", l.host}}.dump());
          ASSERT_TRUE(r.ok());
          ASSERT_EQ(r->status, 200) << r->body;
        }
        repairs_reported = true;
        repaired_at = round;
      }
    }
    if (repairs_reported) {
      WaitUntil(
          [&] {
            bool all = true;
            for (const Link& l : links) all = (!l.repaired || ReportRepaired(l)) && all;
            return all || std::chrono::steady_clock::now() >= kill_at;
          },
          milliseconds(2500), milliseconds(100));
    }

    // One of UFM's or PostgreSQL's failures while the service runs.
    switch (round % 4) {
      case 0:
        Misbehave({{"mode", "status_500"}, {"count", between(1, 8)}});
        ++errors_5xx;
        break;
      case 1:
        Misbehave({{"mode", "slow"}, {"count", between(1, 4)}, {"delay_ms", 1500}});
        ++slow;
        break;
      case 2:
        std::this_thread::sleep_for(milliseconds(between(0, 800)));
        FreezeUfm(milliseconds(between(500, 2500)));
        ++freezes;
        break;
      case 3:
        if (round % 8 == 3) {
          std::this_thread::sleep_for(milliseconds(between(0, 800)));
          testing::TestPostgres::Own().Restart();
          postgres_restarted = true;
          ++pg_restarts;
        }
        break;
    }
    std::this_thread::sleep_until(kill_at);
    ASSERT_NO_FATAL_FAILURE(Kill(postgres_restarted));

    // No cursor went backwards, whatever the kill interrupted.
    std::map<std::string, int64_t> now = Cursors();
    for (const auto& [source, position] : cursors) {
      ASSERT_TRUE(now.count(source)) << source << " cursor vanished after kill " << round;
      EXPECT_GE(now[source], position) << source << " cursor went backwards at kill " << round;
    }
    cursors = now;
  }
  std::cout << "[ CHAOS ] " << kills << " kills; UFM answered 500 in " << errors_5xx
            << " rounds, slowly in " << slow << ", froze " << freezes
            << " times; PostgreSQL restarted " << pg_restarts << " times (the service stopped "
            << "itself " << self_stops_ << " times on losing its lock); repairs reported at round "
            << repaired_at << std::endl;
  EXPECT_GE(kills, 20) << "the quick form kills at least 20 times";
  EXPECT_GE(pg_restarts, 1);
  EXPECT_TRUE(repairs_reported) << "the links to repair were never all cut while the kills went on";

  // A last start, left alone: the service finishes what the kills interrupted.
  service_->Start();
  ASSERT_TRUE(WaitUntil(
      [&] {
        json tickets = Tickets();
        std::map<std::string, std::string> ports = PortStates();
        for (const Link& l : links) {
          if (l.repaired && !ReportRepaired(l)) return false;
          std::vector<json> t = TicketsFor(tickets, l.sw);
          if (t.size() != 1) return false;
          if (l.repaired ? t[0]["state"] != "closed" || ports[l.sw] == "Disabled"
                         : t[0]["state"] != "port_disabled" || ports[l.sw] != "Disabled") {
            return false;
          }
        }
        return true;
      },
      seconds(120), milliseconds(500)))
      << Tickets().dump(2) << "\n"
      << Get(sim_url_ + "/sim/actions").dump(2);
  // Let anything still queued show itself before counting.
  std::this_thread::sleep_for(seconds(3));

  const json tickets = Tickets();
  const json actions = Get(sim_url_ + "/sim/actions");
  const std::map<std::string, std::string> ports = PortStates();
  std::set<std::string> faulted;
  for (const Link& l : links) faulted.insert(l.sw);

  // Every fault has exactly one ticket (the spine's reboot one for the switch), and nothing else
  // is ticketed.
  ASSERT_TRUE(tickets.is_array());
  for (const Link& l : links) {
    EXPECT_EQ(TicketsFor(tickets, l.sw).size(), 1u) << l.sw << ": " << tickets.dump(2);
  }
  int spine_tickets = 0;
  for (const auto& t : tickets) spine_tickets += t["link"] == std::string("switch:") + kSpine;
  EXPECT_EQ(spine_tickets, 1) << tickets.dump(2);
  EXPECT_EQ(tickets.size(), links.size() + 1)
      << tickets.dump(2) << "\nswitch-level decisions:\n"
      << Get(api_ + "/api/decisions?rule=switch_many_links_down").dump(2);

  // No action was duplicated; only faulted ports were touched.
  std::map<std::string, std::vector<std::string>> by_port;
  for (const auto& a : actions) {
    const std::string port = a["port"];
    EXPECT_TRUE(faulted.count(port)) << "an action on a port nobody faulted: " << a.dump();
    by_port[port].push_back(a["action"]);
  }
  for (const Link& l : links) {
    const std::vector<std::string> want = l.repaired ? std::vector<std::string>{"disable", "enable"}
                                                     : std::vector<std::string>{"disable"};
    EXPECT_EQ(by_port[l.sw], want) << l.sw << ": " << actions.dump(2);
  }

  // No port is left disabled without an open ticket; no ticket is closed while its port is
  // disabled.
  for (const auto& [port, state] : ports) {
    if (state != "Disabled") continue;
    std::vector<json> t = TicketsFor(tickets, port);
    bool open = false;
    for (const auto& x : t) open = open || x["state"] != "closed";
    EXPECT_TRUE(open) << port << " is disabled with no open ticket: " << tickets.dump(2);
  }
  for (const auto& t : tickets) {
    if (t["state"] != "closed") continue;
    for (const auto& [port, state] : ports) {
      if (HasEnd(t, port)) {
        EXPECT_NE(state, "Disabled")
            << "ticket " << t["id"] << " closed with " << port << " disabled";
      }
    }
  }
}

}  // namespace
}  // namespace ufmr
