// Remediator against a real PostgreSQL and a fake UFM (behind the UfmClient interface), with a
// fake clock: the guards (dry run, cap, a port a person disabled), the store being unavailable
// (no record, no action; the finding is kept and acted on later), the event cursor surviving a
// restart, and crash recovery of an action whose submission was recorded but not confirmed.
#include "loop/remediator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <pqxx/pqxx>
#include <set>

#include "base/clock.h"
#include "base/metrics.h"
#include "config/config.h"
#include "rules/rule_loader.h"
#include "sim/sim_state.h"
#include "store/store.h"
#include "support/test_env.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"

namespace ufmr {
namespace {

using std::chrono::seconds;

class FakeUfm : public UfmClient {
 public:
  FakeUfm() {
    // One leaf switch port facing one host port, and a second such link.
    AddLink("fc6a1c0300000001_1", "e41d2d0300000001_1", "gpu-node-001");
    AddLink("fc6a1c0300000001_2", "e41d2d0300000002_1", "gpu-node-002");
  }

  void AddLink(const std::string& sw, const std::string& host, const std::string& host_name) {
    PortInfo s{sw,
               sw.substr(0, 16),
               "fc6a1c0300000001",
               "ib-leaf-01",
               "ib-leaf-01:1/1/1",
               "Switch IB Port",
               "1/1/1",
               1,
               "Active",
               "Link Up",
               host};
    PortInfo h{host,
               host.substr(0, 16),
               "aa00000000000001",
               host_name,
               host_name + " HCA-1",
               "Computer IB Port",
               "1",
               1,
               "Active",
               "Link Up",
               sw};
    ports[sw] = s;
    ports[host] = h;
  }

  void LinkDown(const std::string& a, const std::string& b,
                const std::string& timestamp = "2026-11-29 10:00:00") {
    LinkEvent(a, b, 329, "Link went down", timestamp);
  }

  void LinkEvent(const std::string& a, const std::string& b, int type, const std::string& name,
                 const std::string& timestamp = "2026-11-29 10:00:00") {
    UfmEvent e;
    e.id = ++last_id;
    e.timestamp = timestamp;
    e.event_type = type;
    e.name = name;
    e.object_type = "Link";
    e.object_name = a + ":" + b;
    e.description = "Link went down: (Switch:ib-leaf-01:1/1/1)" + a.substr(0, 16) + ":" +
                    a.substr(17) + " - (Computer:host HCA-1)" + b.substr(0, 16) + ":1";
    events.push_back(e);
  }

  // Event 702 "... unhealthy due to MANUAL": a person isolated the port.
  void IsolatedByAPerson(const std::string& port,
                         const std::string& timestamp = "2026-11-29 10:00:00") {
    UfmEvent e;
    e.id = ++last_id;
    e.timestamp = timestamp;
    e.event_type = 702;
    e.name = "Port is unhealthy";
    e.object_type = "Port";
    e.object_name = port;
    e.description = "Peer Port host HCA-1 is considered by SM as unhealthy due to MANUAL.";
    events.push_back(e);
  }

  // Event 336 "port action succeeded", for a disable or an enable (the name says which), as UFM
  // reports a port action (IBM CAST's UFM event table: 336 Port Action Succeeded).
  void PortAction(const std::string& port, bool disabled,
                  const std::string& timestamp = "2026-11-29 10:00:00") {
    UfmEvent e;
    e.id = ++last_id;
    e.timestamp = timestamp;
    e.event_type = 336;
    e.name = disabled ? "Port Action Disable Succeeded" : "Port Action Enable Succeeded";
    e.object_type = "Port";
    e.object_name = port;
    e.description = e.name + ": port " + port;
    events.push_back(e);
  }

  // A person disables a switch port in UFM: its 336, then its link's "Link went down".
  void DisabledByAPerson(const std::string& sw) {
    PortAction(sw, true);
    auto& p = ports[sw];
    LinkDown(sw, p.peer);
    p.logical_state = "Disabled";
    p.physical_state = "Link Down";
  }

  Result<ParsedEvents> GetEvents() override {
    ParsedEvents p;
    p.events = events;
    p.errors = malformed;
    return p;
  }
  Result<PortTable> GetPorts() override {
    if (ports_fail) return Status::Unavailable("GET /resources/ports: HTTP 500");
    std::vector<PortInfo> out;
    for (auto& [k, v] : ports) out.push_back(v);
    return PortTable::From(out);
  }
  Result<PortInfo> GetPort(const std::string& name) override {
    if (!ports.count(name)) return Status::NotFound(name);
    return ports[name];
  }
  Result<std::string> SubmitPortAction(const std::string& action, const PortInfo& port,
                                       const std::string&) override {
    submitted.push_back(action + " " + port.name);
    if (!apply_actions) return std::to_string(submitted.size());
    auto& p = ports[port.name];
    // As UFM does: a link that was up and is cut reads as "Link went down".
    if (action == "disable" && p.physical_state == "Link Up") LinkDown(port.name, p.peer);
    p.logical_state = action == "disable" ? (disabled_reads_down ? "Down" : "Disabled") : "Active";
    p.physical_state = action == "disable" || link_broken ? "Link Down" : "Link Up";
    if (action == "enable" && link_broken) p.logical_state = "Inactive";
    return std::to_string(submitted.size());
  }
  Result<JobStatus> GetJob(const std::string&) override { return JobStatus{job_status, ""}; }
  Result<std::string> GetTelemetryCsv() override { return Status::NotFound("none"); }

  std::map<std::string, PortInfo> ports;
  bool ports_fail = false;             // GetPorts answers an error
  std::vector<std::string> malformed;  // what GetEvents reports it skipped
  std::vector<UfmEvent> events;
  std::vector<std::string> submitted;
  int64_t last_id = 100;
  bool link_broken = true;
  bool apply_actions = true;  // false: UFM takes the request and never does it
  // A disabled port reads "Down" / "Link Down", as a broken link does: a cut cannot be confirmed.
  bool disabled_reads_down = false;
  std::string job_status = "Completed";
};

constexpr const char* kRules = R"(rules:
  - name: link_down
    match: {event_id: [329]}
    for: 30s
    clear: {event_id: [328]}
    action: disable_port
)";

// Rules for the tests of link-downs that are no fault: cut a link on its symbol errors, and
// count a switch's link-downs (three within 20 s are the switch's ticket).
constexpr const char* kCutsAndTheSwitchCount = R"(rules:
  - name: symbol_errors
    match: {event_id: 113}
    scope: link
    action: disable_port
  - name: switch_many_links_down
    match: {event_id: 329}
    scope: switch
    count: 3
    window: 20s
    action: ticket_only
)";

class RemediatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    auto store = Store::Open(db_url_, "test");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store.value());
    ASSERT_TRUE(store_->Migrate(testing::SourceDir() + "/schema").ok());
    config_.ufm.url = "http://fake";
    config_.events.poll_interval_s = 1;
    config_.remediation.soak_s = 60;
    config_.remediation.job_poll_interval_s = 0.01;
    // The fake fabric's hosts have one link each, and its switch two: the last-link guard would
    // keep most actions here from happening. It has tests of its own (decision_test,
    // remediation_test).
    config_.remediation.min_active_links_host = 0;
    config_.remediation.min_active_links_switch = 0;
    config_.remediation.port_cooldown_s = 0;
    auto rules = LoadRulesText(kRules, "test.yaml");
    ASSERT_TRUE(rules.ok()) << rules.Report();
    rules_ = std::move(rules.rules);
  }

  std::unique_ptr<Remediator> Make() {
    return std::make_unique<Remediator>(config_, *store_, ufm_, inventory_, metrics_, clock_,
                                        rules_);
  }

  // Runs passes, moving the fake clock on by `step` each time.
  void Run(Remediator& r, int passes, seconds step = seconds(2)) {
    for (int i = 0; i < passes; ++i) {
      r.RunOnce();
      clock_.Advance(step);
    }
  }

  void UseRules(const std::string& yaml) {
    auto rules = LoadRulesText(yaml, "test.yaml");
    ASSERT_TRUE(rules.ok()) << rules.Report();
    rules_ = std::move(rules.rules);
  }
  // Ports of the six links of the leaf ib-leaf-01: the fake's own two (1 and 2), and 3 to 6.
  static std::string LeafPort(int i) { return "fc6a1c0300000001_" + std::to_string(i); }
  static std::string HostPort(int i) { return "e41d2d030000000" + std::to_string(i) + "_1"; }
  // Links 3 to 6 added to the fake's two, with a percent cap that lets all six be cut.
  void SixLinksOnOneLeaf() {
    config_.remediation.max_disabled_percent = 100;
    for (int i = 3; i <= 6; ++i) {
      ufm_.AddLink(LeafPort(i), HostPort(i), "gpu-node-00" + std::to_string(i));
    }
  }

  std::vector<Ticket> Tickets() {
    auto t = store_->ListTickets("all", 100);
    EXPECT_TRUE(t.ok());
    return t.ok() ? t.value() : std::vector<Ticket>{};
  }

  std::string Timeline(int64_t id) {
    std::string s;
    auto events = store_->Events(id);
    if (!events.ok()) return events.status().ToString();
    for (const auto& e : events.value()) s += e.kind + ": " + e.message + "\n";
    return s;
  }

  // The link repaired and its repair reported; the ticket closes after its soak.
  void RepairAndClose(Remediator& r, int64_t id) {
    ufm_.link_broken = false;
    ASSERT_TRUE(r.ReportRepair(id, "tech", "reseat", "").ok());
    Run(r, 40);
    ASSERT_EQ(store_->GetTicket(id)->state, "closed") << Timeline(id);
  }

  std::string db_url_;
  std::unique_ptr<Store> store_;
  Config config_;
  FakeUfm ufm_;
  Inventory inventory_;
  Metrics metrics_;
  FakeClock clock_;
  std::shared_ptr<const RuleSet> rules_;
};

TEST_F(RemediatorTest, ReplacedHcaIsJudgedByTheSwitchEnd) {
  // The HCA was replaced: its port (<guid>_<n>) is gone from UFM. The soak judges the link by the
  // end that is left instead of waiting for the old port forever.
  auto r = Make();
  Run(*r, 1);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  Ticket t = Tickets()[0];
  ASSERT_EQ(t.state, "port_disabled") << Timeline(t.id);
  ufm_.link_broken = false;
  ASSERT_TRUE(r->ReportRepair(t.id, "tech", "hca_replaced", "").ok());
  Run(*r, 1);
  ASSERT_EQ(store_->GetTicket(t.id)->state, "verifying");
  ufm_.ports.erase("e41d2d0300000001_1");
  Run(*r, 40);
  EXPECT_EQ(store_->GetTicket(t.id)->state, "closed") << Timeline(t.id);
  EXPECT_EQ(store_->GetTicket(t.id)->repair_kind, "hca_replaced");
}

// Intake metrics: a malformed event counts as a parse error while the rest carries on, each poll
// is a read by result, and an event's lag is read in UFM's zone (ufm.utc_offset): UFM an hour
// ahead of UTC, an event stamped 3 s before it is read lags 3 s, not 0 (a sign error clamps to 0)
// nor hours.
TEST_F(RemediatorTest, IntakeMetricsCountParseErrorsReadsAndLagInUfmsZone) {
  config_.ufm.utc_offset_s = 3600;
  auto r = Make();
  Run(*r, 1);
  const double reads = metrics_.Get("ufmr_input_reads_total{input=\"ufm_events\",result=\"ok\"}");
  EXPECT_GE(reads, 1);
  ufm_.malformed = {"element 3: no id"};
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1",
                sim::FormatUfmTime(clock_.Now() - seconds(3) + seconds(3600)));
  Run(*r, 1);
  ufm_.malformed.clear();
  EXPECT_EQ(metrics_.Get("ufmr_parse_errors_total{source=\"rest_events\"}"), 1);
  EXPECT_EQ(metrics_.Get("ufmr_input_reads_total{input=\"ufm_events\",result=\"ok\"}"), reads + 1);
  auto lag = metrics_.GetHistogram("ufmr_event_lag_seconds{source=\"rest\"}");
  ASSERT_TRUE(lag.has_value());
  EXPECT_EQ(lag->count, 1u);
  EXPECT_NEAR(lag->sum, 3.5, 0.51);  // UFM stamps whole seconds
  Run(*r, 1);
  EXPECT_EQ(metrics_.GetHistogram("ufmr_event_lag_seconds{source=\"rest\"}")->count, 1u)
      << "an event read again is not taken in again";
}

TEST_F(RemediatorTest, HoldThenDisableThenRepairThenClose) {
  auto r = Make();
  Run(*r, 1);  // first start: takes the cursor
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 5);  // 10 s: still within the 30 s hold
  EXPECT_TRUE(Tickets().empty());
  EXPECT_TRUE(ufm_.submitted.empty());
  Run(*r, 15);
  ASSERT_EQ(Tickets().size(), 1u);
  Ticket t = Tickets()[0];
  EXPECT_EQ(t.state, "port_disabled") << Timeline(t.id);
  EXPECT_EQ(t.action_port, "fc6a1c0300000001_1");  // the switch side
  EXPECT_TRUE(t.disabled_by_us);
  ASSERT_EQ(ufm_.submitted, std::vector<std::string>{"disable fc6a1c0300000001_1"});

  ufm_.link_broken = false;
  ASSERT_TRUE(r->ReportRepair(t.id, "tech", "cable_replaced", "new cable").ok());
  Run(*r, 1);
  EXPECT_EQ(store_->GetTicket(t.id)->state, "verifying");
  Run(*r, 40);  // 80 s > 60 s soak
  EXPECT_EQ(store_->GetTicket(t.id)->state, "closed") << Timeline(t.id);
  EXPECT_EQ(ufm_.submitted.size(), 2u);
  EXPECT_EQ(ufm_.submitted[1], "enable fc6a1c0300000001_1");
}

// The evidence a ticket keeps is the finding's whole: the events that made it (kept as they are
// by the rules and made JSON only when written), the rule and its threshold, the decision and its
// explanation.
TEST_F(RemediatorTest, AnOpenedTicketKeepsTheEventsThatMadeIt) {
  auto r = Make();
  Run(*r, 1);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1", "2026-11-29 10:00:07");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  const Ticket t = Tickets()[0];
  auto kinds = [&](const std::string& kind) {
    std::vector<TicketEvent> of;
    auto events = store_->Events(t.id);
    EXPECT_TRUE(events.ok());
    for (const auto& e : events.value()) {
      if (e.kind == kind) of.push_back(e);
    }
    return of;
  };
  const auto opened = kinds("opened");
  ASSERT_EQ(opened.size(), 1u) << Timeline(t.id);
  const nlohmann::json& ev = opened[0].details;
  ASSERT_TRUE(ev["observations"].is_array()) << ev.dump();
  ASSERT_EQ(ev["observations"].size(), 1u) << ev.dump();
  const auto& o = ev["observations"][0];
  EXPECT_EQ(o["event_type"], 329);
  EXPECT_EQ(o["ufm_timestamp"], "2026-11-29 10:00:07");
  EXPECT_EQ(o["ports"], nlohmann::json({"fc6a1c0300000001_1", "e41d2d0300000001_1"}));
  EXPECT_EQ(ev["rule"]["name"], t.rule);
  EXPECT_EQ(ev["threshold"]["for_s"], 30.0);
  EXPECT_EQ(ev["decision"]["decision"], "disable");
  EXPECT_EQ(ev["explanation"], t.explanation);
  EXPECT_NE(t.explanation.find("UFM reported \"Link is Down\" once"), std::string::npos)
      << t.explanation;
}

// A UFM that shows a disabled port only as "Down" / "Link Down": the cut is held as uncertain.
// Reconciliation settles it: a port UFM later reads disabled confirms the cut; one it reads
// plainly enabled was brought back by someone (drift, left as it is). "Down" alone settles
// nothing.
TEST_F(RemediatorTest, AnUncertainCutIsSettledByReconciliation) {
  config_.remediation.reconcile_interval_s = 1;
  config_.remediation.max_disabled_percent = 100;  // both of the small fabric's links may be cut
  ufm_.disabled_reads_down = true;
  auto r = Make();
  Run(*r, 1);
  const std::string a = "fc6a1c0300000001_1", b = "fc6a1c0300000001_2";
  ufm_.LinkDown(a, "e41d2d0300000001_1");
  ufm_.LinkDown(b, "e41d2d0300000002_1");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 2u);
  for (const Ticket& t : Tickets()) {
    EXPECT_EQ(t.state, "port_disabled") << Timeline(t.id);
    EXPECT_EQ(t.guard, "uncertain") << Timeline(t.id);
    EXPECT_TRUE(t.disabled_by_us);
  }
  Run(*r, 3);  // reconciliations: "Down" / "Link Down" is neither
  for (const Ticket& t : Tickets()) EXPECT_EQ(t.guard, "uncertain") << Timeline(t.id);

  ufm_.ports[a].physical_state = "Disabled";  // UFM catches up: a is disabled
  ufm_.ports[b].logical_state = "Active";     // someone enabled b, and its link trained
  ufm_.ports[b].physical_state = "Link Up";
  Run(*r, 3);
  for (const Ticket& t : Tickets()) {
    if (t.action_port == a) {
      EXPECT_EQ(t.guard, "") << Timeline(t.id);
      EXPECT_TRUE(t.disabled_by_us);
      EXPECT_NE(Timeline(t.id).find("the uncertain cut is confirmed"), std::string::npos)
          << Timeline(t.id);
    } else {
      EXPECT_EQ(t.guard, "drift") << Timeline(t.id);
      EXPECT_FALSE(t.disabled_by_us);
    }
  }
  EXPECT_EQ(ufm_.submitted.size(), 2u) << "nothing sent again";
}

// Event 702 "... unhealthy due to MANUAL": a person isolated the port. A later fault on its link
// is ticketed and blocked, never acted on.
TEST_F(RemediatorTest, PortAPersonIsolatedIsNeverActedOn) {
  auto r = Make();
  Run(*r, 1);
  ufm_.IsolatedByAPerson("fc6a1c0300000001_1");
  Run(*r, 2);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  Ticket t = Tickets()[0];
  EXPECT_EQ(t.state, "ticket_only") << Timeline(t.id);
  EXPECT_NE(Timeline(t.id).find("in a person's hands"), std::string::npos) << Timeline(t.id);
  EXPECT_TRUE(ufm_.submitted.empty());
  auto decisions = store_->RecentDecisions(10, "link_down");
  ASSERT_TRUE(decisions.ok());
  ASSERT_EQ(decisions->size(), 1u);
  EXPECT_EQ(decisions.value()[0]["decision"], "blocked");
  EXPECT_EQ(decisions.value()[0]["guard"], "manual");
}

// A silenced link's event is decided once, though a restart reads it again. The count window that
// still holds the event keeps the event cursor before it (so a restart rebuilds the window), and
// the link_down finding the re-read rebuilds was decided before the restart: it is not decided a
// second time, with the silence or without it (an open ticket's evidence likewise).
TEST_F(RemediatorTest, AnEventReadAgainAfterARestartIsNotDecidedAgain) {
  UseRules(R"(rules:
  - name: link_down
    match: {event_id: [329]}
    for: 30s
    clear: {event_id: [328]}
    action: disable_port
  - name: link_flapping
    match: {event_id: [329]}
    count: 3
    window: 10m
    action: ticket_only
)");
  clock_.Advance(SystemClock().Now() - clock_.Now());  // silences are in force by the db clock
  Silence silence;
  silence.port = "fc6a1c0300000001_1";
  silence.reason = "cable work in row 3";
  silence.created_by = "tech";
  silence.created_at = clock_.Now() - seconds(60);
  silence.expires_at = clock_.Now() + seconds(3600);
  ASSERT_TRUE(store_->AddSilence(silence).ok());
  // UFM's stamp: now, in UFM's own format (its zone is UTC here).
  const std::string stamp = FormatIsoTime(clock_.Now()).substr(0, 19).replace(10, 1, " ");
  {
    auto r = Make();
    Run(*r, 1);
    ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1", stamp);
    ufm_.LinkDown("fc6a1c0300000002_1", "e41d2d0300000002_1", stamp);  // not silenced
    Run(*r, 20);
  }
  auto decided = [&] {
    auto d = store_->RecentDecisions(100, "link_down");
    EXPECT_TRUE(d.ok());
    return d.ok() ? d.value() : nlohmann::json::array();
  };
  ASSERT_EQ(decided().size(), 2u) << decided().dump(2);
  ASSERT_EQ(Tickets().size(), 1u);
  auto r = Make();  // a new process: the events are read again
  Run(*r, 30);
  EXPECT_EQ(decided().size(), 2u) << decided().dump(2);
  // The silenced link's; the other's event is on a link the service holds out (not a finding).
  EXPECT_EQ(metrics_.Get("ufmr_findings_decided_already_total"), 1);
  EXPECT_EQ(Tickets().size(), 1u);
  // The silenced link comes up and goes down again: a new event, decided.
  ufm_.LinkEvent("fc6a1c0300000001_1", "e41d2d0300000001_1", 328, "Link is Up",
                 FormatIsoTime(clock_.Now()).substr(0, 19).replace(10, 1, " "));
  Run(*r, 2);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1",
                FormatIsoTime(clock_.Now()).substr(0, 19).replace(10, 1, " "));
  Run(*r, 20);
  EXPECT_EQ(decided().size(), 3u) << decided().dump(2);
}

// The link is repaired and its ticket closed; 10 s after the service's enable it goes down again,
// and the service is killed while the new fault's hold runs. Read again by the next process, the
// link-down is a new fault, not the service's own enable: it is ticketed (a minute after the
// enable counted as the service's own swallowed such faults: the campaign lost two of 66).
TEST_F(RemediatorTest, AFaultJustAfterARepairReadAgainAfterARestartIsTicketed) {
  clock_.Advance(SystemClock().Now() - clock_.Now());  // UFM's stamps and the db's clock agree
  const std::string sw = "fc6a1c0300000001_1", host = "e41d2d0300000001_1";
  {
    auto r = Make();
    Run(*r, 1);
    ufm_.LinkDown(sw, host, sim::FormatUfmTime(clock_.Now()));
    Run(*r, 20);
    ASSERT_EQ(Tickets().size(), 1u);
    ASSERT_NO_FATAL_FAILURE(RepairAndClose(*r, Tickets()[0].id));
    pqxx::connection c(db_url_);
    pqxx::nontransaction w(c);
    const double enabled_at =
        w.exec(
             "SELECT extract(epoch from updated_at)::float8 FROM port_actions WHERE action = "
             "'enable' AND state = 'confirmed'")[0][0]
            .as<double>();
    ufm_.link_broken = true;
    ufm_.ports[sw].physical_state = "Link Down";
    ufm_.LinkDown(sw, host, sim::FormatUfmTime(FromEpochSeconds(enabled_at + 10)));
    Run(*r, 3);  // killed within the 30 s hold
    ASSERT_EQ(Tickets().size(), 1u);
  }
  auto r = Make();
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 2u) << "the fault read again was taken as the service's own enable";
  EXPECT_EQ(Tickets()[0].rule, "link_down");
  EXPECT_EQ(ufm_.submitted.size(), 3u) << "disable, enable, disable";
}

// After a restart the events a window still held are read again, and the rebuilt window need not
// be the one the last leader had: there, a cut forgot the link's count (its own link-down is no
// fault), and the count rule fired on the fourth link-down; rebuilt, the cut is decided already
// (so nothing is forgotten) and the same rule fires on the third. The last leader's judgment of
// the events it read stands: the finding made again is not decided again, whatever event
// completes it (the campaign: tickets opened, and healthy links cut, for faults long closed).
TEST_F(RemediatorTest, AFindingRebuiltDifferentlyFromEventsReadAgainIsNotDecidedAgain) {
  UseRules(R"(rules:
  - name: symbol_errors
    match: {event_id: 113}
    scope: link
    action: disable_port
  - name: three_downs
    match: {event_id: 329}
    scope: link
    count: 3
    window: 10m
    action: ticket_only
  - name: switch_downs
    match: {event_id: 329}
    scope: switch
    count: 100
    window: 30m
    action: ticket_only
)");
  clock_.Advance(SystemClock().Now() - clock_.Now());
  const std::string sw = "fc6a1c0300000001_1", host = "e41d2d0300000001_1";
  // UFM's stamps, by the database's clock (the spans the service held the port are by it; the
  // fake clock runs ahead of it, two seconds a pass).
  auto stamp = [](int s) { return sim::FormatUfmTime(SystemClock().Now() + seconds(s)); };
  {
    auto r = Make();
    Run(*r, 1);
    ufm_.LinkDown(sw, host, stamp(-10));  // counted by three_downs: 1
    Run(*r, 1);
    ufm_.LinkEvent(sw, host, 113, "Symbol error counter rose", stamp(0));  // cut: counts forgotten
    Run(*r, 3);
    ASSERT_EQ(Tickets().size(), 1u);
    ASSERT_NO_FATAL_FAILURE(RepairAndClose(*r, Tickets()[0].id));
    ufm_.ports[sw].physical_state = "Link Up";
    for (int i = 0; i < 3; ++i) {  // three_downs fires on the third of these (the fourth in all)
      ufm_.LinkDown(sw, host, stamp(10 + 2 * i));
      Run(*r, 1);
    }
    ASSERT_EQ(Tickets().size(), 2u);
    EXPECT_EQ(Tickets()[0].rule, "three_downs");
    ASSERT_NO_FATAL_FAILURE(RepairAndClose(*r, Tickets()[0].id));
  }
  const auto decided = store_->RecentDecisions(100, "");
  ASSERT_TRUE(decided.ok());
  auto r = Make();  // a new process: the switch's window held the cursor back, all is read again
  Run(*r, 10);
  EXPECT_EQ(Tickets().size(), 2u) << "a third ticket for a fault closed long ago";
  EXPECT_EQ(store_->RecentDecisions(100, "")->size(), decided->size())
      << store_->RecentDecisions(100, "")->dump(2);
  EXPECT_GE(metrics_.Get("ufmr_findings_decided_already_total"), 1)
      << "three_downs, made again on its third link-down";
  EXPECT_EQ(ufm_.submitted.size(), 2u) << "disable, enable: no cut of the healthy link";
}

// A flapping link's finding, made again from its events read again after a restart, is the last
// leader's (decided already), and its episode is over: the link counts afresh. Left active (a
// fired flapping rule stays so while the link keeps flapping), it swallowed the link's next flap,
// read fresh in the same poll (the campaign: a flap 25 s after a repair never ticketed).
TEST_F(RemediatorTest, AFindingReadAgainLeavesTheLinkToCountAfresh) {
  UseRules(R"(rules:
  - name: link_flapping
    flapping: {downs: 3, within: 10m}
    match: {event_id: [329]}
    scope: link
    action: disable_port
  - name: switch_downs
    match: {event_id: 329}
    scope: switch
    count: 100
    window: 30m
    action: ticket_only
)");
  clock_.Advance(SystemClock().Now() - clock_.Now());
  const std::string sw = "fc6a1c0300000001_1", host = "e41d2d0300000001_1";
  auto stamp = [](int s) { return sim::FormatUfmTime(SystemClock().Now() + seconds(s)); };
  {
    auto r = Make();
    Run(*r, 1);
    for (int i = 0; i < 3; ++i) ufm_.LinkDown(sw, host, stamp(-30 + 2 * i));
    Run(*r, 2);
    ASSERT_EQ(Tickets().size(), 1u);
    ASSERT_NO_FATAL_FAILURE(RepairAndClose(*r, Tickets()[0].id));
  }
  // The link flaps again while no leader runs; the next reads it with what it reads again.
  ufm_.link_broken = true;
  for (int i = 0; i < 3; ++i) ufm_.LinkDown(sw, host, stamp(10 + 2 * i));
  auto r = Make();
  Run(*r, 10);
  ASSERT_EQ(Tickets().size(), 2u) << "the new flap was swallowed by the old episode";
  EXPECT_EQ(Tickets()[0].rule, "link_flapping");
  EXPECT_GE(metrics_.Get("ufmr_findings_decided_already_total"), 1);
}

// A standby reads the ports again when it takes the lead: a port the last leader enabled a moment
// before it died reads enabled, so its next fault is acted on, not taken as in a person's hands
// (the campaign: a standby's "Disabled", read before the enable, made a fault "manual").
TEST_F(RemediatorTest, TakingTheLeadReadsThePortsAgain) {
  config_.inventory.refresh_interval_s = 3600;
  const std::string sw = "fc6a1c0300000001_1";
  bool leader = false;
  auto r = Make();
  r->set_may_act([&] { return leader; });
  ufm_.ports[sw].logical_state = "Down";  // the last leader's cut
  ufm_.ports[sw].physical_state = "Disabled";
  Run(*r, 2);  // a standby: reads the ports
  ASSERT_TRUE(inventory_.Get(sw)->disabled());
  ufm_.ports[sw].logical_state = "Active";  // the last leader's enable, then it dies
  ufm_.ports[sw].physical_state = "Link Up";
  leader = true;
  ufm_.ports_fail = true;  // and UFM does not answer the first read
  Run(*r, 1);
  EXPECT_TRUE(inventory_.Get(sw)->disabled());
  ufm_.ports_fail = false;
  Run(*r, 3);  // tried again a few seconds on, not at the next refresh an hour away
  EXPECT_FALSE(inventory_.Get(sw)->disabled()) << "read again on taking the lead";
  ufm_.LinkDown(sw, "e41d2d0300000001_1");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  EXPECT_EQ(Tickets()[0].guard, "") << Timeline(Tickets()[0].id);
  EXPECT_TRUE(Tickets()[0].disabled_by_us) << Timeline(Tickets()[0].id);
}

// A person isolates the port while its repair is under watch (702 MANUAL), then the link goes
// down: the soak fails, but the port is theirs now and is not disabled again.
TEST_F(RemediatorTest, FailedSoakDoesNotDisableAgainAPortAPersonTook) {
  auto r = Make();
  Run(*r, 1);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  Ticket t = Tickets()[0];
  ASSERT_EQ(t.state, "port_disabled") << Timeline(t.id);
  ufm_.link_broken = false;
  ASSERT_TRUE(r->ReportRepair(t.id, "tech", "reseat", "").ok());
  Run(*r, 2);
  ASSERT_EQ(store_->GetTicket(t.id)->state, "verifying") << Timeline(t.id);

  ufm_.IsolatedByAPerson("fc6a1c0300000001_1", "2026-11-29 10:05:00");
  Run(*r, 2);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1", "2026-11-29 10:06:00");
  Run(*r, 3);

  Ticket after = store_->GetTicket(t.id).value();
  EXPECT_NE(after.state, "verifying") << Timeline(t.id);
  EXPECT_NE(after.state, "open") << Timeline(t.id);
  EXPECT_EQ(after.attempts, 1) << Timeline(t.id);
  EXPECT_NE(Timeline(t.id).find("not taken out again"), std::string::npos) << Timeline(t.id);
  // disable, enable for the soak, and nothing after.
  EXPECT_EQ(ufm_.submitted,
            (std::vector<std::string>{"disable fc6a1c0300000001_1", "enable fc6a1c0300000001_1"}));
}

TEST_F(RemediatorTest, ClearEventWithinHoldMeansNoTicket) {
  auto r = Make();
  Run(*r, 1);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 3);
  UfmEvent up = ufm_.events.back();
  up.id = ++ufm_.last_id;
  up.event_type = 328;
  up.name = "Link is Up";
  ufm_.events.push_back(up);
  Run(*r, 30);
  EXPECT_TRUE(Tickets().empty());
  EXPECT_TRUE(ufm_.submitted.empty());
}

TEST_F(RemediatorTest, DryRunFilesTicketOnly) {
  config_.remediation.dry_run = true;
  auto r = Make();
  Run(*r, 1);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  EXPECT_EQ(Tickets()[0].state, "ticket_only");
  EXPECT_NE(Timeline(Tickets()[0].id).find("dry run"), std::string::npos);
  EXPECT_TRUE(ufm_.submitted.empty());
  EXPECT_EQ(Tickets()[0].guard, "dry_run");
  // No intent is recorded for a decision that does not act.
  EXPECT_TRUE(store_->Actions(Tickets()[0].id).value().empty());
}

TEST_F(RemediatorTest, CapLimitsPortsHeldDisabled) {
  config_.remediation.max_disabled_ports = 1;
  auto r = Make();
  Run(*r, 1);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  ufm_.LinkDown("fc6a1c0300000001_2", "e41d2d0300000002_1");
  Run(*r, 20);
  auto tickets = Tickets();
  ASSERT_EQ(tickets.size(), 2u);
  int disabled = 0, ticket_only = 0;
  for (const auto& t : tickets) {
    disabled += t.state == "port_disabled";
    ticket_only += t.state == "ticket_only";
  }
  EXPECT_EQ(disabled, 1);
  EXPECT_EQ(ticket_only, 1);
  EXPECT_EQ(ufm_.submitted.size(), 1u);
  EXPECT_EQ(metrics_.Get("ufmr_guard_vetoes_total{guard=\"cap\"}"), 1);
}

TEST_F(RemediatorTest, PortDisabledByAPersonIsNeverTouched) {
  auto r = Make();
  Run(*r, 1);
  ufm_.ports["fc6a1c0300000001_1"].logical_state = "Disabled";  // done by hand in UFM
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  Ticket t = Tickets()[0];
  EXPECT_EQ(t.state, "ticket_only") << Timeline(t.id);
  EXPECT_FALSE(t.disabled_by_us);
  EXPECT_NE(Timeline(t.id).find("not by this service"), std::string::npos);
  // Reporting the repair does not enable a port this service did not disable.
  ASSERT_TRUE(r->ReportRepair(t.id, "tech", "reseat", "").ok());
  Run(*r, 5);
  EXPECT_TRUE(ufm_.submitted.empty());
  // At the end of the soak the link is still down (the port is still disabled by hand): the
  // ticket goes back to the person, and the service still does not touch the port.
  Run(*r, 30);
  Ticket after = store_->GetTicket(t.id).value();
  EXPECT_EQ(after.state, "ticket_only") << Timeline(t.id);
  EXPECT_EQ(after.attempts, 1);
  EXPECT_NE(Timeline(t.id).find("soak_failed"), std::string::npos);
  EXPECT_TRUE(ufm_.submitted.empty());
}

TEST_F(RemediatorTest, PortEnabledByHandBeforeTheRepairReportIsVerifiedNotEnabledAgain) {
  auto r = Make();
  Run(*r, 1);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  ASSERT_EQ(Tickets()[0].state, "port_disabled");
  // A technician re-enabled the port in UFM's UI, then reported the repair.
  ufm_.ports["fc6a1c0300000001_1"].logical_state = "Active";
  ufm_.ports["fc6a1c0300000001_1"].physical_state = "Link Up";
  ASSERT_TRUE(r->ReportRepair(Tickets()[0].id, "tech", "reseat", "").ok());
  Run(*r, 1);
  EXPECT_EQ(store_->GetTicket(Tickets()[0].id)->state, "verifying") << Timeline(Tickets()[0].id);
  EXPECT_EQ(ufm_.submitted, std::vector<std::string>{"disable fc6a1c0300000001_1"});
}

TEST_F(RemediatorTest, NoRecordNoActionAndTheFindingIsKept) {
  auto r = Make();
  Run(*r, 1);
  // Take the database away: rename it after closing its connections.
  std::string name = db_url_.substr(db_url_.find("dbname=") + 7);
  name = name.substr(0, name.find(' '));
  auto admin = [&](const std::string& sql) {
    pqxx::connection c(testing::TestPostgres::Get().admin_url());
    pqxx::nontransaction w(c);
    w.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname IN ('" + name +
           "', '" + name + "_away')");
    w.exec(sql);
  };
  admin("ALTER DATABASE " + name + " RENAME TO " + name + "_away");
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 20);
  EXPECT_TRUE(ufm_.submitted.empty()) << "acted without a record";
  EXPECT_GT(metrics_.Get("ufmr_store_errors_total"), 0);

  admin("ALTER DATABASE " + name + "_away RENAME TO " + name);
  Run(*r, 3);
  ASSERT_EQ(Tickets().size(), 1u);
  EXPECT_EQ(ufm_.submitted, std::vector<std::string>{"disable fc6a1c0300000001_1"});
}

TEST_F(RemediatorTest, CursorSurvivesRestart) {
  {
    auto r = Make();
    Run(*r, 1);
    ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
    Run(*r, 20);
    ASSERT_EQ(Tickets().size(), 1u);
  }
  // Close the ticket out of band so a reprocessed event would show as a new ticket.
  {
    pqxx::connection c(db_url_);
    pqxx::work w(c);
    w.exec("UPDATE tickets SET state = 'closed', closed_at = now()");
    w.commit();
  }
  auto r = Make();
  Run(*r, 20);
  EXPECT_EQ(Tickets().size(), 1u) << "an event before the cursor was processed again";
}

// A start while UFM cannot list its ports: events wait for the inventory. REST names a switch
// event's object by the switch's GUID, and only the inventory knows its name: read without it, a
// "Switch is down" re-read after a restart would name the switch differently and file a second
// ticket (the chaos test found this). Judged once the ports are known, it is the switch's, by name.
TEST_F(RemediatorTest, EventsWaitForTheInventory) {
  auto rules = LoadRulesText(R"(rules:
  - name: switch_reboot
    match: {event_id: 907}
    scope: switch
    action: ticket_only
)",
                             "test.yaml");
  ASSERT_TRUE(rules.ok()) << rules.Report();
  rules_ = std::move(rules.rules);
  Run(*Make(), 1);  // the first start takes its cursor

  // The switch goes down; the service restarts (an empty inventory) while UFM's ports fail.
  UfmEvent e;
  e.id = ++ufm_.last_id;
  e.timestamp = "2026-11-29 10:00:00";
  e.event_type = 907;
  e.name = "Switch is down";
  e.object_type = "Switch";
  e.object_name = "fc6a1c0300000001";
  e.description = "Switch is down";
  ufm_.events.push_back(e);
  ufm_.ports_fail = true;
  Inventory fresh;
  Remediator r(config_, *store_, ufm_, fresh, metrics_, clock_, rules_);
  Run(r, 10);
  EXPECT_TRUE(Tickets().empty()) << "read without the inventory";
  ufm_.ports_fail = false;
  Run(r, 10);
  auto t = Tickets();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].link_key, "switch:ib-leaf-01");
}

// UFM reports this service's own cut of a link that was up as "Link went down". Cuts on three
// links of one switch are not the switch losing three links: the count of its link-downs leaves
// them out, before and after a restart, while a link that really goes down still counts.
TEST_F(RemediatorTest, OwnDisablesAreNotCountedAsTheSwitchLosingLinks) {
  ASSERT_NO_FATAL_FAILURE(UseRules(kCutsAndTheSwitchCount));
  SixLinksOnOneLeaf();
  ufm_.link_broken = false;
  auto r = Make();
  Run(*r, 1);  // first start: takes the cursor
  ufm_.LinkEvent(LeafPort(1), HostPort(1), 113, "Symbol error counter rose");
  ufm_.LinkEvent(LeafPort(2), HostPort(2), 113, "Symbol error counter rose");
  Run(*r, 1, seconds(0));  // both links cut; their link-downs are not read yet
  ASSERT_EQ(ufm_.submitted.size(), 2u);
  // A restart: what the service holds disabled comes from the database.
  r = Make();
  ufm_.LinkEvent(LeafPort(3), HostPort(3), 113, "Symbol error counter rose");
  Run(*r, 3, seconds(1));
  ASSERT_EQ(ufm_.submitted.size(), 3u);
  ASSERT_EQ(std::count_if(ufm_.events.begin(), ufm_.events.end(),
                          [](const UfmEvent& e) { return e.event_type == 329; }),
            3);
  Run(*r, 3, seconds(1));
  auto tickets = Tickets();
  ASSERT_EQ(tickets.size(), 3u);
  for (const auto& t : tickets) {
    EXPECT_EQ(t.rule, "symbol_errors") << t.link_key;
    EXPECT_EQ(t.state, "port_disabled") << Timeline(t.id);
  }
  EXPECT_EQ(metrics_.Get("ufmr_events_on_held_links_total{source=\"rest\"}"), 3);

  // Links that really go down, within the switch rule's 20 s: two are not three, nor is a
  // "Link went down" about a held link; a third real one is.
  ufm_.LinkDown(LeafPort(4), HostPort(4));
  ufm_.LinkDown(LeafPort(5), HostPort(5));
  ufm_.LinkDown(LeafPort(2), HostPort(2));
  Run(*r, 2, seconds(1));
  EXPECT_EQ(Tickets().size(), 3u) << "two real link-downs and a held link's";
  ufm_.LinkDown(LeafPort(6), HostPort(6));
  Run(*r, 2, seconds(1));
  tickets = Tickets();
  EXPECT_EQ(tickets.size(), 4u);
  EXPECT_EQ(std::count_if(tickets.begin(), tickets.end(),
                          [](const Ticket& t) { return t.link_key == "switch:ib-leaf-01"; }),
            1);
}

// A person takes three ports of a leaf down in UFM for maintenance (each a 336, then its link's
// "Link went down"): no link_down ticket, and not the switch losing three links. A real link-down
// meanwhile is judged; UFM's 336 for this service's own cut is not mistaken for a person's; and
// a minute later, the disabled port's link is judged again.
TEST_F(RemediatorTest, APersonsDisablesAreNotLinkFaults) {
  ASSERT_NO_FATAL_FAILURE(UseRules(std::string(kCutsAndTheSwitchCount) + R"(  - name: link_down
    match: {event_id: 329}
    scope: link
    action: ticket_only
)"));
  SixLinksOnOneLeaf();
  auto r = Make();
  Run(*r, 1);  // first start: takes the cursor
  for (int i = 1; i <= 3; ++i) ufm_.DisabledByAPerson(LeafPort(i));
  Run(*r, 3, seconds(1));
  EXPECT_TRUE(Tickets().empty()) << Tickets().size() << " tickets";
  EXPECT_EQ(metrics_.Get("ufmr_events_after_hand_disable_total{source=\"rest\"}"), 3);

  // This service's own cut: UFM's 336 for it is not a person's.
  ufm_.LinkEvent(LeafPort(5), HostPort(5), 113, "Symbol error counter rose");
  Run(*r, 2, seconds(1));
  ASSERT_EQ(ufm_.submitted, std::vector<std::string>{"disable " + LeafPort(5)});
  const double held = metrics_.Get("ufmr_events_on_held_links_total{source=\"rest\"}");
  ufm_.PortAction(LeafPort(5), true);
  ufm_.LinkEvent(LeafPort(5), HostPort(5), 113, "Symbol error counter rose");
  // A real link-down on the same leaf, within the switch rule's 20 s of the three.
  ufm_.LinkDown(LeafPort(4), HostPort(4));
  Run(*r, 3, seconds(1));
  EXPECT_EQ(metrics_.Get("ufmr_events_after_hand_disable_total{source=\"rest\"}"), 3);
  EXPECT_EQ(metrics_.Get("ufmr_events_on_held_links_total{source=\"rest\"}"), held + 2)
      << "the 336 of this service's own cut, and what followed it, are about a link it holds";
  auto tickets = Tickets();
  ASSERT_EQ(tickets.size(), 2u);
  std::set<std::string> rules_fired;
  for (const auto& t : tickets) rules_fired.insert(t.rule);
  EXPECT_EQ(rules_fired, (std::set<std::string>{"symbol_errors", "link_down"}));

  // A minute on (by UFM's stamps, as by the clock), the person's port's link says something
  // again: it is judged.
  Run(*r, 1, seconds(61));
  ufm_.LinkDown(LeafPort(1), HostPort(1), "2026-11-29 10:01:05");
  Run(*r, 3, seconds(1));
  EXPECT_EQ(Tickets().size(), 3u);
  EXPECT_EQ(metrics_.Get("ufmr_events_after_hand_disable_total{source=\"rest\"}"), 3);
}

TEST_F(RemediatorTest, RestartDuringAHoldDoesNotLoseTheEvent) {
  {
    auto r = Make();
    Run(*r, 1);
    ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
    Run(*r, 3);  // the event is held, not yet a ticket
    ASSERT_TRUE(Tickets().empty());
  }
  auto r = Make();  // a new process: nothing in memory
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  EXPECT_EQ(ufm_.submitted, std::vector<std::string>{"disable fc6a1c0300000001_1"});
}

TEST_F(RemediatorTest, SubmittedButUnconfirmedActionIsReconciledNotRepeated) {
  auto r = Make();
  Run(*r, 1);
  // A crash right after recording the submission and UFM carrying it out.
  int64_t ticket_id = 0;
  {
    auto tx = store_->Begin();
    ASSERT_TRUE(tx.ok());
    Ticket t;
    t.link_key = "e41d2d0300000001_1|fc6a1c0300000001_1";
    t.port_a = "e41d2d0300000001_1";
    t.port_b = "fc6a1c0300000001_1";
    t.state = "open";
    t.rule = "link_down";
    t.reason = "test";
    t.action_port = "fc6a1c0300000001_1";
    ticket_id = tx.value()->InsertTicket(t);
    PortAction a;
    a.ticket_id = ticket_id;
    a.port = t.action_port;
    a.system_guid = "fc6a1c0300000001";
    a.action = "disable";
    a.state = "submitted";
    a.reason = "test";
    tx.value()->InsertAction(a);
    tx.value()->Commit();
  }
  ufm_.ports["fc6a1c0300000001_1"].logical_state = "Disabled";
  Run(*r, 2);
  EXPECT_TRUE(ufm_.submitted.empty());
  EXPECT_EQ(store_->GetTicket(ticket_id)->state, "port_disabled");
  EXPECT_TRUE(store_->GetTicket(ticket_id)->disabled_by_us);
}

TEST_F(RemediatorTest, OneOpenTicketPerLinkIsEnforcedByTheDatabase) {
  auto tx = store_->Begin();
  ASSERT_TRUE(tx.ok());
  Ticket t;
  t.link_key = "a|b";
  t.port_a = "a";
  t.state = "open";
  t.rule = "r";
  t.reason = "x";
  tx.value()->InsertTicket(t);
  EXPECT_THROW(tx.value()->InsertTicket(t), pqxx::unique_violation);
}

TEST_F(RemediatorTest, RepairReportOnWrongStateIsAConflict) {
  auto r = Make();
  EXPECT_EQ(r->ReportRepair(999, "tech", "reseat", "").status().code(), Status::Code::kNotFound);
  Run(*r, 1);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  ASSERT_TRUE(r->ReportRepair(Tickets()[0].id, "tech", "reseat", "").ok());
  EXPECT_EQ(r->ReportRepair(Tickets()[0].id, "tech", "reseat", "").status().code(),
            Status::Code::kConflict);
}

TEST_F(RemediatorTest, JobThatNeverCompletesFailsTheActionAndSaysSo) {
  config_.remediation.job_timeout_s = 1;
  ufm_.job_status = "Running";
  ufm_.apply_actions = false;  // UFM never does it
  auto r = Make();
  Run(*r, 1);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  Ticket t = Tickets()[0];
  EXPECT_EQ(t.state, "ticket_only");
  EXPECT_FALSE(t.disabled_by_us);
  EXPECT_NE(Timeline(t.id).find("did not complete"), std::string::npos) << Timeline(t.id);
  auto actions = store_->Actions(t.id).value();
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].state, "failed");
  EXPECT_EQ(ufm_.submitted.size(), 1u) << "a failed action is not retried blindly";
}

TEST_F(RemediatorTest, JobThatTimesOutButDidTheWorkIsConfirmed) {
  // The job never says Completed, but the port is disabled: what UFM did decides.
  config_.remediation.job_timeout_s = 1;
  ufm_.job_status = "Running";
  auto r = Make();
  Run(*r, 1);
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");
  Run(*r, 20);
  ASSERT_EQ(Tickets().size(), 1u);
  Ticket t = Tickets()[0];
  EXPECT_EQ(t.state, "port_disabled");
  EXPECT_TRUE(t.disabled_by_us);
  EXPECT_NE(Timeline(t.id).find("UFM reports it done"), std::string::npos) << Timeline(t.id);
  EXPECT_EQ(store_->Actions(t.id).value()[0].state, "confirmed");
  EXPECT_EQ(ufm_.submitted.size(), 1u);
}

TEST_F(RemediatorTest, LostEventsAreReportedAndTheRestRead) {
  ufm_.LinkDown("fc6a1c0300000001_2", "e41d2d0300000002_1");  // history: id 101
  auto r = Make();
  Run(*r, 1);           // cursor at 101
  ufm_.events.clear();  // UFM's retention dropped 101..104
  ufm_.last_id = 104;
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1");  // id 105
  Run(*r, 20);
  auto alerts = store_->ActiveAlerts(10);
  ASSERT_TRUE(alerts.ok());
  ASSERT_EQ(alerts->size(), 1u);
  EXPECT_EQ(alerts.value()[0].kind, "event_id_gap");
  EXPECT_NE(alerts.value()[0].message.find("3 UFM events (ids 102 to 104)"), std::string::npos)
      << alerts.value()[0].message;
  EXPECT_EQ(Tickets().size(), 1u) << "the events after the gap are still read";
  EXPECT_EQ(metrics_.Get("ufmr_events_lost_total"), 3);
  // A person dismisses the banner.
  EXPECT_TRUE(store_->ClearAlert(alerts.value()[0].id, "sre").ok());
  EXPECT_TRUE(store_->ActiveAlerts(10)->empty());
  EXPECT_EQ(store_->ClearAlert(alerts.value()[0].id, "sre").code(), Status::Code::kNotFound);
}

TEST_F(RemediatorTest, IdRegressionDoesNotReplayOldEvents) {
  ufm_.LinkDown("fc6a1c0300000001_2", "e41d2d0300000002_1", "2026-11-29 10:00:00");  // id 101
  {
    auto r = Make();
    Run(*r, 1);  // cursor at 101, newest timestamp 10:00:00
  }
  // UFM is reinstalled with an old backup: ids restart, and an old link-down comes back.
  ufm_.events.clear();
  ufm_.last_id = 0;
  ufm_.LinkDown("fc6a1c0300000001_2", "e41d2d0300000002_1", "2026-11-29 09:00:00");  // old
  ufm_.LinkDown("fc6a1c0300000001_1", "e41d2d0300000001_1", "2026-11-29 10:05:00");  // new
  auto r = Make();  // also across a restart: the timestamp was persisted with the cursor
  Run(*r, 20);
  auto tickets = Tickets();
  ASSERT_EQ(tickets.size(), 1u);
  EXPECT_EQ(tickets[0].action_port, "fc6a1c0300000001_1");
  auto alerts = store_->ActiveAlerts(10);
  ASSERT_TRUE(alerts.ok());
  ASSERT_EQ(alerts->size(), 1u);
  EXPECT_EQ(alerts.value()[0].kind, "event_id_regression");
  EXPECT_EQ(alerts.value()[0].details["skipped"], 1);
  EXPECT_EQ(metrics_.Get("ufmr_event_id_regressions_total"), 1);
  // No second alert on later polls: the cursor follows the new sequence.
  Run(*r, 5);
  EXPECT_EQ(store_->ActiveAlerts(10)->size(), 1u);
}

TEST_F(RemediatorTest, MigrateIsIdempotent) {
  auto fresh = Store::Open(testing::TestPostgres::Get().CreateDatabase(), "test");
  ASSERT_TRUE(fresh.ok());
  auto pending = fresh.value()->PendingMigrations(testing::SourceDir() + "/schema");
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  // Every .sql file of schema/, in name order (001_initial.sql first).
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(testing::SourceDir() + "/schema")) {
    if (e.path().extension() == ".sql") files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 7u);
  EXPECT_EQ(files.front(), "001_initial.sql");
  EXPECT_EQ(pending.value(), files);
  EXPECT_TRUE(store_->PendingMigrations(testing::SourceDir() + "/schema")->empty());
  EXPECT_TRUE(store_->Migrate(testing::SourceDir() + "/schema").ok());
  EXPECT_FALSE(store_->Migrate("/nonexistent-schema-dir").ok());
}

}  // namespace
}  // namespace ufmr
