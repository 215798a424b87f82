// End to end: a real PostgreSQL, the real ufm-sim and the real ufm-remediator over loopback.
// A link goes down; exactly one disable reaches the simulator and one ticket opens; staff report
// the repair through the API; the port is enabled and the ticket closes after the soak. Second
// case: the link is still bad after the "repair", so the port is disabled again and the ticket
// is reopened.
#include <gtest/gtest.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <thread>

#include "http/http_server.h"
#include "store/store.h"
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

class LoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("ufmr-e2e");
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    std::vector<std::string> sim_args{"--topology",
                                      "fat-tree:leaves=2,spines=2,hosts_per_leaf=2,hcas_per_host=2",
                                      "--job-delay-ms", "200"};
    std::string sources;
    if (AllSources()) {
      // UFM's event log on disk and its syslog forwarding, besides REST: three sources.
      int syslog_port = testing::FreePort();
      sim_args.insert(sim_args.end(), {"--event-log", dir_ + "/event.log", "--syslog",
                                       "127.0.0.1:" + std::to_string(syslog_port)});
      sources = "event_log:\n  path: " + dir_ + "/event.log\n  poll_interval_s: 0.2\n" +
                "syslog:\n  listen: 127.0.0.1\n  udp_port: " + std::to_string(syslog_port) + "\n";
    }
    sim_ = std::make_unique<testing::SimProcess>(dir_, sim_args);
    ASSERT_TRUE(sim_->AwaitReady());
    sim_url_ = sim_->url();

    // The shipped rules; link_down's 30 s hold shortened so the test runs in seconds.
    ASSERT_TRUE(testing::ShippedRulesWithShortHold(dir_ + "/rules"));

    service_ = std::make_unique<testing::ServiceProcess>(dir_, "service");
    api_ = service_->api();
    service_->WriteConfig(
        "fabric: e2e\n"
        "ufm:\n  url: " +
        sim_url_ +
        "\n  user: admin\n  password: \"123456\"\n"
        "telemetry:\n  url: " +
        sim_->telemetry_url() +
        "\n  interval_s: 0.5\n"
        "database:\n  url: \"" +
        db_url_ + "\"\n  schema_dir: " + testing::SourceDir() +
        "/schema\n"
        "rules:\n  dir: " +
        dir_ +
        "/rules\n"
        "events:\n  poll_interval_s: 0.3\n"
        "http:\n  listen: 127.0.0.1\n  port: " +
        std::to_string(service_->port()) +
        "\n"
        "remediation:\n  soak_s: 3\n  max_attempts: 3\n  job_poll_interval_s: 0.1\n" +
        sources);
    ASSERT_TRUE(service_->Migrate());
    // The API wants a person: an engineer's token (engineers may re-arm the breaker too).
    http_.SetHeader("Authorization", "Bearer " + service_->CreateToken("tech", "engineer"));
    service_->Start();
    ASSERT_TRUE(service_->AwaitInventory(seconds(20)));
    // Let the service take its starting cursor before the fault, as a running service would.
    ASSERT_TRUE(service_->AwaitLog({"skipping"}, seconds(10)));
  }

  virtual bool AllSources() const { return false; }

  double Metric(const std::string& name) {
    auto r = http_.Get(api_ + "/metrics");
    if (!r.ok()) return -1;
    size_t at = r->body.find("\n" + name + " ");
    if (at == std::string::npos) return 0;
    return std::stod(r->body.substr(at + name.size() + 2));
  }

  void TearDown() override {
    service_.reset();  // (each prints its log if the test failed)
    sim_.reset();
    testing::RemoveTree(dir_);
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

  // A leaf port facing a host: the link this test breaks.
  json HostLink() {
    json links = Get(sim_url_ + "/sim/links");
    for (const auto& l : links) {
      std::string s = l.dump();
      if (s.find("Computer") != std::string::npos || s.find("gpu-node") != std::string::npos) {
        return l;
      }
    }
    return json();
  }

  std::vector<json> ActionsFor(const std::string& port, const std::string& action) {
    std::vector<json> out;
    for (const auto& a : Get(sim_url_ + "/sim/actions")) {
      if (a["port"] == port && a["action"] == action) out.push_back(a);
    }
    return out;
  }

  json OpenTickets() { return Get(api_ + "/api/tickets?state=open")["tickets"]; }

  json Ticket(int64_t id) { return Get(api_ + "/api/tickets/" + std::to_string(id)); }

  // Breaks a host link and waits for its switch-side port to be disabled and ticketed.
  void BreakLinkAndAwaitTicket(std::string* switch_port, std::string* host_port, int64_t* id,
                               json fault = {{"kind", "link_down"}}) {
    json link = HostLink();
    ASSERT_FALSE(link.is_null()) << Get(sim_url_ + "/sim/links").dump();
    std::vector<std::string> ends;
    for (const auto& [k, v] : link.items()) {
      if (v.is_object() && v.contains("port")) ends.push_back(v["port"]);
    }
    ASSERT_EQ(ends.size(), 2u) << link.dump();
    fault["port"] = ends[1];
    auto r = Post(sim_url_ + "/sim/faults", fault);
    ASSERT_EQ(r.status, 201) << r.body;

    // A ticket whose port action is chosen (a ticket-only finding may come first and be upgraded).
    ASSERT_TRUE(WaitUntil(
        [&] {
          json open = OpenTickets();
          return open.size() == 1 && !open[0].value("action_port", "").empty();
        },
        seconds(20)))
        << OpenTickets().dump(2);
    json t = OpenTickets()[0];
    *id = t["id"];
    *switch_port = t["action_port"];
    *host_port = *switch_port == ends[0] ? ends[1] : ends[0];
    ASSERT_TRUE(*switch_port == ends[0] || *switch_port == ends[1]) << t.dump();
    ASSERT_TRUE(WaitUntil([&] { return Ticket(*id)["state"] == "port_disabled"; }, seconds(20)))
        << Ticket(*id).dump(2);
    // Both ends are named on the ticket, with the switch port's label.
    json ports = Ticket(*id)["ports"];
    ASSERT_EQ(ports.size(), 2u);
    bool has_label = false;
    for (const auto& p : ports) has_label = has_label || !p.value("label", "").empty();
    EXPECT_TRUE(has_label) << ports.dump();
    // Each end as the inventory knows it, in the list as on the ticket's page.
    json listed = OpenTickets()[0]["ports"];
    EXPECT_EQ(listed, ports);
    for (const auto& p : ports) {
      EXPECT_TRUE(p.value("known", false)) << p.dump();
      EXPECT_FALSE(p.value("guid", "").empty()) << p.dump();
      EXPECT_GT(p.value("number", 0), 0) << p.dump();
      EXPECT_EQ(p.value("is_switch", false), p["name"] == *switch_port) << p.dump();
    }
  }

  std::string dir_, db_url_, sim_url_, api_;
  HttpClient http_;
  std::unique_ptr<testing::SimProcess> sim_;
  std::unique_ptr<testing::ServiceProcess> service_;
};

TEST_F(LoopTest, LinkDownIsDisabledTicketedRepairedAndClosed) {
  std::string sw, host;
  int64_t id = 0;
  ASSERT_NO_FATAL_FAILURE(BreakLinkAndAwaitTicket(&sw, &host, &id));

  // More polls and telemetry passes go by: still exactly one disable, one ticket.
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(ActionsFor(sw, "disable").size(), 1u) << Get(sim_url_ + "/sim/actions").dump();
  EXPECT_TRUE(ActionsFor(host, "disable").empty());
  EXPECT_EQ(OpenTickets().size(), 1u);
  json port = Get(sim_url_ + "/sim/links");
  EXPECT_NE(port.dump().find("Disabled"), std::string::npos);

  // The technician replaces the cable, then reports the repair.
  ASSERT_EQ(Post(sim_url_ + "/sim/repair", {{"port", host}}).status, 200);
  auto r = Post(api_ + "/api/tickets/" + std::to_string(id) + "/repaired",
                {{"by", "tech-on-shift"}, {"kind", "cable_replaced"}, {"note", "replaced cable"}});
  ASSERT_EQ(r.status, 200) << r.body;

  ASSERT_TRUE(WaitUntil([&] { return Ticket(id)["state"] == "closed"; }, seconds(30)))
      << Ticket(id).dump(2);
  EXPECT_EQ(ActionsFor(sw, "enable").size(), 1u);
  EXPECT_EQ(ActionsFor(sw, "disable").size(), 1u);
  json t = Ticket(id);
  EXPECT_EQ(t["attempts"], 0);
  std::string timeline = t["events"].dump();
  for (const char* kind : {"opened", "repair_reported", "soak_started", "soak_passed"}) {
    EXPECT_NE(timeline.find(kind), std::string::npos) << kind << " missing from " << timeline;
  }
  EXPECT_TRUE(OpenTickets().empty());

  // A second report on a closed ticket is refused with a message.
  r = Post(api_ + "/api/tickets/" + std::to_string(id) + "/repaired",
           {{"by", "x"}, {"kind", "reseat"}});
  EXPECT_EQ(r.status, 409) << r.body;
}

// What an SRE scrapes after a fault was handled: UFM request latency and answers by endpoint, the
// database's transaction times, inputs by result, event lag, decisions, actions by result, tickets
// by state, the leader gauge and the fabric's name; all of it valid exposition.
TEST_F(LoopTest, MetricsDescribeTheLoopAfterAFault) {
  std::string sw, host;
  int64_t id = 0;
  ASSERT_NO_FATAL_FAILURE(BreakLinkAndAwaitTicket(&sw, &host, &id));
  // Tickets by state are read from the database every 15 s.
  ASSERT_TRUE(
      WaitUntil([&] { return Metric("ufmr_tickets{state=\"port_disabled\"}") == 1; }, seconds(40)))
      << http_.Get(api_ + "/metrics")->body;
  EXPECT_EQ(Metric("ufmr_tickets{state=\"closed\"}"), 0);
  EXPECT_EQ(Metric("ufmr_leader"), 1);
  EXPECT_EQ(Metric("ufmr_port_actions_total{action=\"disable\",result=\"confirmed\"}"), 1);
  EXPECT_GE(Metric("ufmr_decisions_total{decision=\"disable\"}"), 1);
  EXPECT_GE(Metric("ufmr_findings_total{rule=\"link_down\"}"), 1);
  EXPECT_GT(Metric("ufmr_ufm_requests_total{endpoint=\"events\",code=\"2xx\"}"), 0);
  EXPECT_EQ(Metric("ufmr_ufm_requests_total{endpoint=\"actions\",code=\"2xx\"}"), 1);
  EXPECT_GT(Metric("ufmr_ufm_request_duration_seconds_count{endpoint=\"ports\"}"), 0);
  EXPECT_GT(Metric("ufmr_ufm_request_duration_seconds_bucket{endpoint=\"events\",le=\"+Inf\"}"), 0);
  EXPECT_GT(Metric("ufmr_db_transaction_duration_seconds_count{result=\"commit\"}"), 0);
  EXPECT_GT(Metric("ufmr_db_query_duration_seconds_count{op=\"ticket_counts\"}"), 0);
  EXPECT_GT(Metric("ufmr_input_reads_total{input=\"ufm_events\",result=\"ok\"}"), 0);
  EXPECT_GT(Metric("ufmr_input_reads_total{input=\"inventory\",result=\"ok\"}"), 0);
  // The simulator stamps events in UTC, as configured (ufm.utc_offset defaults to +00:00): the
  // link-down was taken in within a few seconds of its stamp.
  EXPECT_GT(Metric("ufmr_event_lag_seconds_count{source=\"rest\"}"), 0);
  EXPECT_EQ(Metric("ufmr_event_lag_seconds_bucket{source=\"rest\",le=\"10\"}"),
            Metric("ufmr_event_lag_seconds_count{source=\"rest\"}"));
  auto r = http_.Get(api_ + "/metrics");
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->body.find("\nufmr_info{fabric=\""), std::string::npos);
  EXPECT_NE(r->body.find("# TYPE ufmr_ufm_request_duration_seconds histogram\n"),
            std::string::npos);
  EXPECT_NE(r->Header("content-type").find("text/plain; version=0.0.4"), std::string::npos);
}

TEST_F(LoopTest, StillBadAfterRepairIsDisabledAgainAndReopened) {
  std::string sw, host;
  int64_t id = 0;
  ASSERT_NO_FATAL_FAILURE(BreakLinkAndAwaitTicket(&sw, &host, &id));

  // The repair is reported, but the cable was not actually fixed.
  auto r = Post(api_ + "/api/tickets/" + std::to_string(id) + "/repaired",
                {{"by", "tech"}, {"kind", "reseat"}});
  ASSERT_EQ(r.status, 200) << r.body;

  ASSERT_TRUE(WaitUntil(
      [&] {
        json t = Ticket(id);
        return t["attempts"] == 1 && t["state"] == "port_disabled";
      },
      seconds(30)))
      << Ticket(id).dump(2);
  EXPECT_EQ(ActionsFor(sw, "enable").size(), 1u);
  EXPECT_EQ(ActionsFor(sw, "disable").size(), 2u) << Get(sim_url_ + "/sim/actions").dump();
  std::string timeline = Ticket(id)["events"].dump();
  EXPECT_NE(timeline.find("soak_failed"), std::string::npos) << timeline;
  EXPECT_NE(timeline.find("reopened"), std::string::npos) << timeline;
  // Still one ticket for the link: reopened, not duplicated.
  EXPECT_EQ(OpenTickets().size(), 1u);
  EXPECT_EQ(Get(api_ + "/api/tickets?state=all")["tickets"].size(), 1u);
}

TEST_F(LoopTest, SymbolErrorsTripTheCounterRuleAndTheChartShowsTheRise) {
  std::string sw, host;
  int64_t id = 0;
  ASSERT_NO_FATAL_FAILURE(
      BreakLinkAndAwaitTicket(&sw, &host, &id, {{"kind", "symbol_errors"}, {"rate", 200}}));
  json t = Ticket(id);
  EXPECT_EQ(t["rule"], "symbol_errors");
  EXPECT_NE(t["events"].dump().find("SymbolErrorCounterExtended"), std::string::npos);
  EXPECT_EQ(ActionsFor(sw, "disable").size(), 1u);

  // The ticket's chart starts before the ticket: the rise that led to it (LeadUp), the value
  // before it included. Without the lead-up, only the sample that tripped the rule is older than
  // the ticket; with it, the one before the rise is too, with a lower value.
  const std::string opened = t["created_at"].get<std::string>();
  json series;
  auto rise_before_ticket = [&] {
    series = Get(api_ + "/api/tickets/" + std::to_string(id) + "/counters")["series"];
    for (const auto& s : series) {
      if (s["counter"] != "SymbolErrorCounterExtended") continue;
      std::vector<double> before;  // values sampled before the ticket opened
      for (const auto& p : s["points"]) {
        // ISO-8601 UTC times of one form compare as strings.
        if (p["at"].get<std::string>() < opened) before.push_back(p["value"].get<double>());
      }
      if (before.size() >= 2 && before.front() < before.back()) return true;
    }
    return false;
  };
  EXPECT_TRUE(WaitUntil(rise_before_ticket, seconds(10))) << opened << " " << series.dump();

  // Reported repaired while the errors go on: the soak sees them and the port goes down again.
  ASSERT_EQ(Post(api_ + "/api/tickets/" + std::to_string(id) + "/repaired",
                 {{"by", "tech"}, {"kind", "reseat"}})
                .status,
            200);
  ASSERT_TRUE(WaitUntil([&] { return Ticket(id)["attempts"] == 1; }, seconds(30)))
      << Ticket(id).dump(2);
  ASSERT_TRUE(WaitUntil([&] { return ActionsFor(sw, "disable").size() == 2; }, seconds(20)));
}

TEST_F(LoopTest, FlappingLinkIsDisabledOnce) {
  std::string sw, host;
  int64_t id = 0;
  ASSERT_NO_FATAL_FAILURE(
      BreakLinkAndAwaitTicket(&sw, &host, &id, {{"kind", "flap"}, {"interval_s", 0.4}}));
  // The second down opened a ticket to investigate (repeated_link_downs); the third made the link
  // flapping, and link_flapping upgraded that same ticket to a disable (and now names it).
  EXPECT_EQ(Ticket(id)["rule"], "link_flapping");
  bool upgraded = false;
  const json ticket = Ticket(id);
  for (const auto& e : ticket["events"]) {
    upgraded = upgraded || (e["kind"] == "upgraded" && e["message"].get<std::string>().find(
                                                           "link_flapping") != std::string::npos);
  }
  EXPECT_TRUE(upgraded) << Ticket(id).dump(2);
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(ActionsFor(sw, "disable").size(), 1u);
  EXPECT_EQ(Get(api_ + "/api/tickets?state=all")["tickets"].size(), 1u);
}

bool HasAlertOfKind(const json& alerts, const std::string& kind) {
  for (const auto& a : alerts["alerts"]) {
    if (a.value("kind", "") == kind) return true;
  }
  return false;
}

// Hot reload: a broken rules file never replaces working rules (the service keeps deciding with
// the old ones, says so on a dashboard alert and in /metrics); a good one swaps in on its own,
// clears the alert, and every decision records the hash it was made under. SIGHUP reloads too.
TEST_F(LoopTest, RulesReloadKeepsWorkingRulesWhenAChangeIsBroken) {
  const std::string before = Get(api_ + "/api/rules")["hash"];
  ASSERT_FALSE(before.empty());
  testing::WriteFile(dir_ + "/rules/zz_new.yaml",
                     "rules:\n  - name: width\n    match: {event_id: 130}\n    action: explode\n");
  ASSERT_TRUE(WaitUntil([&] { return HasAlertOfKind(Get(api_ + "/api/alerts"), "rules_reload"); },
                        seconds(15)))
      << service_->Log();
  EXPECT_EQ(Metric("ufmr_rules_last_reload_success"), 0);
  EXPECT_EQ(Get(api_ + "/api/rules")["hash"], before);
  EXPECT_NE(service_->Log().find("zz_new.yaml:4:13"), std::string::npos) << service_->Log();

  // The old rules still act, and the decision says which rules made it.
  std::string sw, host;
  int64_t id = 0;
  BreakLinkAndAwaitTicket(&sw, &host, &id);
  json decisions = Get(api_ + "/api/decisions")["decisions"];
  ASSERT_FALSE(decisions.empty()) << decisions.dump();
  EXPECT_EQ(decisions[0]["rule"], "link_down");
  EXPECT_EQ(decisions[0]["decision"], "disable");
  EXPECT_EQ(decisions[0]["rules_hash"], before);
  EXPECT_EQ(decisions[0]["ticket_id"], id);

  testing::WriteFile(dir_ + "/rules/zz_new.yaml",
                     "rules:\n  - name: width\n    match: {event_id: 130}\n"
                     "    action: ticket_only\n    mode: shadow\n");
  ASSERT_TRUE(WaitUntil([&] { return Get(api_ + "/api/rules")["hash"] != before; }, seconds(15)))
      << service_->Log();
  EXPECT_TRUE(WaitUntil([&] { return !HasAlertOfKind(Get(api_ + "/api/alerts"), "rules_reload"); },
                        seconds(10)));
  EXPECT_EQ(Metric("ufmr_rules_last_reload_success"), 1);

  double reloads = Metric("ufmr_rules_reloads_total{result=\"ok\"}");
  service_->Signal(SIGHUP);
  EXPECT_TRUE(WaitUntil([&] { return Metric("ufmr_rules_reloads_total{result=\"ok\"}") > reloads; },
                        seconds(10)))
      << service_->Log();
}

TEST_F(LoopTest, ApiAnswersBadRequestsWithMessages) {
  struct Case {
    std::string path;
    std::string body;
    long status;
  };
  for (const Case& c : std::vector<Case>{
           {"/api/tickets/1/repaired", "{not json", 400},
           {"/api/tickets/1/repaired", "{}", 400},  // "by" is required
           {"/api/tickets/1/repaired", R"({"by": 7})", 400},
           {"/api/tickets/abc/repaired", R"({"by": "x", "kind": "reseat"})", 400},
           {"/api/tickets/1/repaired", R"({"by": "x"})", 400},  // "kind" is required
           {"/api/tickets/1/repaired", R"({"by": "x", "kind": "magic"})", 400},
           {"/api/tickets/1/repaired", R"({"by": "x", "kind": "other"})", 400},  // needs a note
           {"/api/tickets/999/repaired", R"({"by": "x", "kind": "reseat"})", 404},
           {"/api/tickets/999/acknowledge", R"({"by": "x"})", 404},
       }) {
    auto r = http_.Post(api_ + c.path, c.body);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, c.status) << c.path << " " << c.body << " -> " << r->body;
    json body = json::parse(r->body, nullptr, false);
    EXPECT_TRUE(body.is_object() && body.contains("error")) << r->body;
  }
  auto r = http_.Get(api_ + "/api/tickets?state=bogus");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400);
  r = http_.Get(api_ + "/api/nothing");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 404);
  // The service is still healthy after all that, and says what it has seen.
  r = http_.Get(api_ + "/metrics");
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->body.find("ufmr_inventory_ports"), std::string::npos) << r->body;
  EXPECT_EQ(http_.Get(api_ + "/healthz")->status, 200);
}

// A ticket on ports the fabric no longer has: the list (which parses a ticket's filed ends only
// when it needs them) shows each end as it was filed, the same as the ticket's page does.
TEST_F(LoopTest, ListShowsPortsTheInventoryDoesNotKnowAsTheyWereFiled) {
  auto store = Store::Open(db_url_, "e2e");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ufmr::Ticket t;  // (Ticket alone names the fixture's getter here)
  t.link_key = "0000aa0000000001_9|0000aa0000000002_1";
  t.port_a = "0000aa0000000001_9";
  t.port_b = "0000aa0000000002_1";
  t.state = ticket_state::kClosed;
  t.rule = "link_down";
  t.reason = "filed before the switch was removed";
  t.search_text = "0000aa0000000001_9 0000aa0000000002_1";
  // Only the first end was known when the ticket was filed.
  t.ends = json::array({{{"name", t.port_a},
                         {"label", "1/5/1"},
                         {"system_name", "old-leaf-9"},
                         {"guid", "0000aa0000000001"},
                         {"cable_serial", "MT0000FT00001"},
                         {"number", 9},
                         {"is_switch", true}},
                        {{"name", t.port_b}}});
  auto tx = store.value()->Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  const int64_t id = tx.value()->InsertTicket(t);
  tx.value()->Commit();

  json page = Get(api_ + "/api/tickets?state=all&q=0000aa0000000001");
  ASSERT_EQ(page["tickets"].size(), 1u) << page.dump(2);
  json ports = page["tickets"][0]["ports"];
  ASSERT_EQ(ports.size(), 2u) << ports.dump(2);
  EXPECT_EQ(ports[0]["name"], t.port_a);
  EXPECT_FALSE(ports[0]["known"].get<bool>());
  EXPECT_EQ(ports[0]["label"], "1/5/1");
  EXPECT_EQ(ports[0]["system_name"], "old-leaf-9");
  EXPECT_EQ(ports[0]["guid"], "0000aa0000000001");
  EXPECT_EQ(ports[0]["cable_serial"], "MT0000FT00001");
  EXPECT_EQ(ports[0]["number"], 9);
  EXPECT_TRUE(ports[0]["is_switch"].get<bool>());
  // Nothing filed about the second end but its name: empty fields, number 0, not a switch.
  EXPECT_EQ(ports[1]["name"], t.port_b);
  EXPECT_FALSE(ports[1]["known"].get<bool>());
  EXPECT_EQ(ports[1]["label"], "");
  EXPECT_EQ(ports[1]["number"], 0);
  EXPECT_FALSE(ports[1]["is_switch"].get<bool>());
  EXPECT_EQ(Ticket(id)["ports"], ports);
}

TEST_F(LoopTest, ReadyWhileTheDatabaseAndUfmAnswerAndNotWhenUfmIsGone) {
  auto r = http_.Get(api_ + "/readyz");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200) << r->body;
  json ready = json::parse(r->body, nullptr, false);
  EXPECT_EQ(ready["status"], "ready") << r->body;
  for (const char* check : {"database", "ufm", "rules"}) {
    EXPECT_EQ(ready["checks"][check]["ok"], true) << check << ": " << r->body;
  }
  // UFM goes away: the next event poll fails and the service says it is not ready (but alive).
  sim_.reset();
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto n = http_.Get(api_ + "/readyz");
        return n.ok() && n->status == 503;
      },
      seconds(20)));
  r = http_.Get(api_ + "/readyz");
  ASSERT_TRUE(r.ok());
  json not_ready = json::parse(r->body, nullptr, false);
  EXPECT_EQ(not_ready["status"], "not ready") << r->body;
  EXPECT_EQ(not_ready["checks"]["ufm"]["ok"], false) << r->body;
  EXPECT_EQ(not_ready["checks"]["database"]["ok"], true) << r->body;
  EXPECT_EQ(http_.Get(api_ + "/healthz")->status, 200) << "alive all the same";
}

TEST_F(LoopTest, LostEventsRaiseAnAlertUntilDismissed) {
  std::string sw, host;
  int64_t id = 0;
  ASSERT_NO_FATAL_FAILURE(BreakLinkAndAwaitTicket(&sw, &host, &id));
  EXPECT_TRUE(Get(api_ + "/api/alerts")["alerts"].empty());
  // UFM drops events before the service reads them.
  ASSERT_EQ(Post(sim_url_ + "/sim/events/skip", {{"count", 5}}).status, 200);
  std::string other = Get(sim_url_ + "/sim/links").back()["a"]["port"];  // a leaf-spine link
  ASSERT_EQ(Post(sim_url_ + "/sim/faults", {{"kind", "link_down"}, {"port", other}}).status, 201);
  ASSERT_TRUE(WaitUntil([&] { return !Get(api_ + "/api/alerts")["alerts"].empty(); }, seconds(20)))
      << Get(sim_url_ + "/ufmRest/app/events").dump();
  json alert = Get(api_ + "/api/alerts")["alerts"][0];
  EXPECT_EQ(alert["kind"], "event_id_gap");
  EXPECT_NE(alert["message"].get<std::string>().find("5 UFM events"), std::string::npos)
      << alert.dump();
  auto r = Post(api_ + "/api/alerts/" + std::to_string(alert["id"].get<int64_t>()) + "/clear",
                {{"by", "sre"}});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(Get(api_ + "/api/alerts")["alerts"].empty());
}

// The same faults with UFM's event log and syslog as sources too: every event arrives three
// times, and is still one observation.
class AllSourcesLoopTest : public LoopTest {
 protected:
  bool AllSources() const override { return true; }
};

TEST_F(AllSourcesLoopTest, OneTicketAndOneDisableFromThreeSources) {
  std::string sw, host;
  int64_t id = 0;
  ASSERT_NO_FATAL_FAILURE(BreakLinkAndAwaitTicket(&sw, &host, &id));
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(ActionsFor(sw, "disable").size(), 1u);
  EXPECT_EQ(Get(api_ + "/api/tickets?state=all")["tickets"].size(), 1u);
  // Each source delivered events; the later copies were recognized as duplicates.
  double rest = Metric("ufmr_events_total{source=\"rest\"}");
  double log = Metric("ufmr_events_total{source=\"event_log\"}") +
               Metric("ufmr_duplicate_events_total{source=\"event_log\"}");
  double syslog = Metric("ufmr_events_total{source=\"syslog\"}") +
                  Metric("ufmr_duplicate_events_total{source=\"syslog\"}");
  double dups = Metric("ufmr_duplicate_events_total{source=\"rest\"}") +
                Metric("ufmr_duplicate_events_total{source=\"event_log\"}") +
                Metric("ufmr_duplicate_events_total{source=\"syslog\"}");
  EXPECT_GT(log, 0) << service_->Log();
  EXPECT_GT(syslog, 0) << service_->Log();
  EXPECT_GE(dups, 2) << "each event seen by three sources is two duplicates";
  EXPECT_GE(rest + Metric("ufmr_events_total{source=\"event_log\"}") +
                Metric("ufmr_events_total{source=\"syslog\"}"),
            2);
  EXPECT_EQ(Metric("ufmr_parse_errors_total{source=\"event_log\"}"), 0) << service_->Log();
  EXPECT_EQ(Metric("ufmr_parse_errors_total{source=\"syslog\"}"), 0) << service_->Log();
}

}  // namespace
}  // namespace ufmr
