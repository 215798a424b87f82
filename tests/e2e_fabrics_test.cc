// Many fabrics, end to end: one `ufm-remediator serve` instance per fabric, each on its own
// simulated UFM (ufm-sim), all on one PostgreSQL database. The two simulators run the same
// topology with the same seed, so both fabrics have identical port names and GUIDs and only the
// fabric key tells them apart. Each instance leads its own fabric at the same time as the other
// (a leader lock per fabric: both say `ufmr_leader 1`), acts only on its own UFM (the other
// simulator's action log never shows its port), and keeps its tickets, port actions and event
// cursor under its fabric. The same link faulted in both fabrics is two tickets, one per fabric
// (one open ticket per link is a rule within a fabric). The ticket list spans every fabric in the
// database and filters by fabric, from either instance; a change to a ticket is made through its
// own fabric's instance (another fabric's answers 409). Restarting one fabric's instance does not
// disturb the other's, and the restarted one resumes from its own cursor.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>
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

// Each host has two HCAs on different leaves: one bad host link is never the host's last.
constexpr const char* kTopology = "fat-tree:leaves=2,spines=2,hosts_per_leaf=2,hcas_per_host=2";
// Beta's simulator starts its event ids this far on, so its cursor cannot be mistaken for
// alpha's: alpha's stays below, beta's moves past it.
constexpr int64_t kBetaEventIdSkip = 1000;
// Generous: the machine running the tests may be busy.
constexpr auto kWait = seconds(60);

// One fabric: its simulated UFM and the `ufm-remediator serve` instance that watches it.
struct Fabric {
  std::string name;
  std::unique_ptr<testing::SimProcess> sim;
  std::unique_ptr<testing::ServiceProcess> service;

  const std::string& sim_url() const { return sim->url(); }
  const std::string& api() const { return service->api(); }
  std::string Log() const { return service->Log(); }
};

// A leaf-host link: the leaf's port (the one the service disables) and the host's.
struct Link {
  std::string sw;
  std::string host;
  bool operator==(const Link&) const = default;
};

class FabricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("ufmr-fabrics");
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    alpha_.name = "alpha";
    beta_.name = "beta";

    // The shipped rules; link_down's 30 s hold shortened so the test runs in seconds.
    ASSERT_TRUE(testing::ShippedRulesWithShortHold(dir_ + "/rules"));

    for (Fabric* f : {&alpha_, &beta_}) ASSERT_NO_FATAL_FAILURE(StartSim(*f));
    auto skipped =
        http_.Post(beta_.sim_url() + "/sim/events/skip", json{{"count", kBetaEventIdSkip}}.dump());
    ASSERT_TRUE(skipped.ok());
    ASSERT_EQ(skipped->status, 200) << skipped->body;

    // Same database, each its own UFM and HTTP port. Caps high enough that no guard but the
    // fabric's own state decides.
    for (Fabric* f : {&alpha_, &beta_}) {
      f->service = std::make_unique<testing::ServiceProcess>(dir_, "service-" + f->name);
      f->service->WriteConfig(
          testing::ServiceConfigYaml({.fabric = f->name,
                                      .ufm_url = f->sim->url(),
                                      .telemetry_url = f->sim->telemetry_url(),
                                      .db_url = db_url_,
                                      .rules_dir = dir_ + "/rules",
                                      .http_port = f->service->port(),
                                      .remediation_extra = testing::kHighCaps}));
    }
    // One database: migrated once; users and tokens are shared by every fabric's service.
    ASSERT_TRUE(alpha_.service->Migrate());
    http_.SetHeader("Authorization", "Bearer " + alpha_.service->CreateToken("tech", "engineer"));

    // Both start together and both lead: each fabric has its own leader lock.
    for (Fabric* f : {&alpha_, &beta_}) f->service->Start();
    for (Fabric* f : {&alpha_, &beta_}) ASSERT_NO_FATAL_FAILURE(AwaitFirstStart(*f));
  }

  void TearDown() override {
    // (each prints its logs if the test failed)
    for (Fabric* f : {&alpha_, &beta_}) f->service.reset();
    for (Fabric* f : {&alpha_, &beta_}) f->sim.reset();
    if (!dir_.empty()) testing::RemoveTree(dir_);
  }

  // The same topology and seed for every fabric: identical port names and GUIDs.
  void StartSim(Fabric& f) {
    f.sim = std::make_unique<testing::SimProcess>(
        dir_, std::vector<std::string>{"--topology", kTopology, "--job-delay-ms", "200"},
        "sim-" + f.name);
    ASSERT_TRUE(f.sim->AwaitReady(kWait));
  }

  // Leading with UFM's ports read, by /healthz and by /metrics.
  bool Leads(const Fabric& f) {
    json h = Get(f.api() + "/healthz");
    if (!h.is_object() || h["role"] != "leader" || h.value("inventory_ports", 0) <= 0) {
      return false;
    }
    return Leader(f) == 1;
  }

  // A first start leads and takes its starting event cursor before any fault.
  void AwaitFirstStart(const Fabric& f) {
    ASSERT_TRUE(WaitUntil([&] { return Leads(f); }, kWait))
        << f.name << ": ufmr_leader " << Leader(f) << "\n"
        << f.Log();
    ASSERT_TRUE(WaitUntil(
        [&] {
          return f.Log().find("first start for fabric '" + f.name + "'") != std::string::npos;
        },
        kWait))
        << f.Log();
    EXPECT_NE(f.Log().find("leader: acting for fabric " + f.name), std::string::npos) << f.Log();
    EXPECT_EQ(f.Log().find("standby:"), std::string::npos) << f.Log();
  }

  // The `ufmr_leader` gauge: 1 leader, 0 standby; -1 if the instance does not answer, -2 if the
  // gauge is missing.
  int Leader(const Fabric& f) {
    auto r = http_.Get(f.api() + "/metrics");
    if (!r.ok() || r->status != 200) return -1;
    std::istringstream lines(r->body);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("ufmr_leader ", 0) == 0) return std::stoi(line.substr(12));
    }
    return -2;
  }

  // A label-less gauge or counter of an instance's /metrics; -1 if it does not answer or lacks it.
  double Metric(const Fabric& f, const std::string& name) {
    auto r = http_.Get(f.api() + "/metrics");
    if (!r.ok() || r->status != 200) return -1;
    std::istringstream lines(r->body);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
    }
    return -1;
  }

  json Get(const std::string& url) {
    auto r = http_.Get(url);
    if (!r.ok()) return json();
    return json::parse(r->body, nullptr, false);
  }

  HttpResult Post(const std::string& url, const json& body) {
    auto r = http_.Post(url, body.dump());
    EXPECT_TRUE(r.ok()) << url << ": " << r.status().ToString();
    return r.ok() ? r.value() : HttpResult();
  }

  void Fault(const Fabric& f, const json& fault) {
    HttpResult r = Post(f.sim_url() + "/sim/faults", fault);
    ASSERT_EQ(r.status, 201) << f.name << ": " << r.body;
  }

  // Leaf-host links, one per host.
  std::vector<Link> HostLinks(const Fabric& f) {
    std::vector<Link> out;
    std::set<std::string> hosts;
    for (const auto& l : Get(f.sim_url() + "/sim/links")) {
      if (l["b"]["is_switch"].get<bool>()) continue;  // a host link
      if (!hosts.insert(l["b"]["system_name"].get<std::string>()).second) continue;
      out.push_back({l["a"]["port"], l["b"]["port"]});
    }
    return out;
  }

  // What the simulated UFM was asked to do, in order: "disable <port>", ...
  std::vector<std::string> Actions(const Fabric& f) {
    std::vector<std::string> out;
    for (const auto& a : Get(f.sim_url() + "/sim/actions")) {
      out.push_back(a["action"].get<std::string>() + " " + a["port"].get<std::string>());
    }
    return out;
  }

  std::string PortState(const Fabric& f, const std::string& port) {
    for (const auto& l : Get(f.sim_url() + "/sim/links")) {
      for (const char* end : {"a", "b"}) {
        if (l[end]["port"] == port) return l[end]["logical_state"];
      }
    }
    return "";
  }

  // The tickets `instance` lists for a query string (every state unless the query says).
  json Tickets(const Fabric& instance, const std::string& query = "") {
    json r = Get(instance.api() + "/api/tickets?state=all" + (query.empty() ? "" : "&" + query));
    return r.is_object() && r.contains("tickets") ? r["tickets"] : json();
  }

  // The one ticket of `fabric` on `link_port`'s link (as listed by that fabric's instance), or
  // null while there is none or more than one.
  json TicketOn(const Fabric& f, const std::string& link_port) {
    json found;
    int n = 0;
    for (const auto& t : Tickets(f, "fabric=" + f.name)) {
      if (t["link"].get<std::string>().find(link_port) == std::string::npos) continue;
      found = t;
      ++n;
    }
    return n == 1 ? found : json();
  }

  // A fabric's ticket on the link that has reached port_disabled.
  json AwaitDisabledTicket(const Fabric& f, const std::string& link_port) {
    json t;
    bool ok = WaitUntil(
        [&] {
          t = TicketOn(f, link_port);
          return t.is_object() && t["state"] == "port_disabled";
        },
        kWait);
    EXPECT_TRUE(ok) << f.name << " has no disabled ticket on " << link_port << ": "
                    << Tickets(f).dump(2);
    return ok ? t : json();
  }

  static std::set<int64_t> Ids(const json& tickets) {
    std::set<int64_t> out;
    for (const auto& t : tickets) out.insert(t["id"].get<int64_t>());
    return out;
  }

  // Rows of a query against the shared database, each row's columns as text.
  std::vector<std::vector<std::string>> Sql(const std::string& query) {
    pqxx::connection c(db_url_);
    pqxx::read_transaction w(c);
    std::vector<std::vector<std::string>> out;
    for (const auto& row : w.exec(query)) {
      std::vector<std::string> cols;
      for (const auto& field : row) cols.push_back(field.is_null() ? "" : field.c_str());
      out.push_back(std::move(cols));
    }
    return out;
  }

  // A fabric's `rest_events` cursor (-1 when it has none).
  int64_t Cursor(const std::string& fabric) {
    for (const auto& row : Sql("SELECT fabric, source, position FROM cursors")) {
      if (row[0] == fabric && row[1] == "rest_events") return std::stoll(row[2]);
    }
    return -1;
  }

  std::string dir_, db_url_;
  Fabric alpha_, beta_;
  HttpClient http_{HttpClientOptions{}};
};

TEST_F(FabricsTest, EachFabricActsOnItsOwnUfmAndKeepsItsTicketsActionsAndCursorApart) {
  // The two fabrics are the same to the port: only the fabric key separates them.
  const std::vector<Link> links = HostLinks(alpha_);
  ASSERT_GE(links.size(), 2u);
  ASSERT_EQ(HostLinks(beta_), links);
  const Link x = links[0];  // down in alpha
  const Link y = links[1];  // symbol errors in beta

  ASSERT_NO_FATAL_FAILURE(Fault(alpha_, {{"kind", "link_down"}, {"port", x.host}}));
  ASSERT_NO_FATAL_FAILURE(
      Fault(beta_, {{"kind", "symbol_errors"}, {"rate", 200}, {"port", y.host}}));

  const json ta = AwaitDisabledTicket(alpha_, x.sw);
  const json tb = AwaitDisabledTicket(beta_, y.sw);
  ASSERT_TRUE(ta.is_object() && tb.is_object());
  EXPECT_EQ(ta["fabric"], "alpha");
  EXPECT_EQ(ta["rule"], "link_down");
  EXPECT_EQ(ta["action_port"], x.sw);
  EXPECT_EQ(tb["fabric"], "beta");
  EXPECT_EQ(tb["rule"], "symbol_errors");
  const std::string tb_port = tb["action_port"];
  EXPECT_TRUE(tb_port == y.sw || tb_port == y.host) << tb.dump(2);
  const int64_t alpha_id = ta["id"], beta_id = tb["id"];

  // More event polls, telemetry passes and reconciliations go by: still one action per fabric,
  // each in its own UFM only.
  std::this_thread::sleep_for(seconds(3));
  EXPECT_EQ(Actions(alpha_), std::vector<std::string>{"disable " + x.sw});
  EXPECT_EQ(Actions(beta_), std::vector<std::string>{"disable " + tb_port});
  EXPECT_EQ(PortState(alpha_, x.sw), "Disabled");
  EXPECT_NE(PortState(beta_, x.sw), "Disabled");
  EXPECT_EQ(PortState(beta_, tb_port), "Disabled");
  EXPECT_NE(PortState(alpha_, tb_port), "Disabled");

  // The list spans every fabric in the database, from either instance; ?fabric= keeps one.
  for (const Fabric* in : {&alpha_, &beta_}) {
    SCOPED_TRACE("listed by " + in->name);
    EXPECT_EQ(Ids(Tickets(*in)), (std::set<int64_t>{alpha_id, beta_id}));
    const json only_alpha = Tickets(*in, "fabric=alpha");
    EXPECT_EQ(Ids(only_alpha), std::set<int64_t>{alpha_id}) << only_alpha.dump(2);
    for (const auto& t : only_alpha) EXPECT_EQ(t["fabric"], "alpha");
    const json only_beta = Tickets(*in, "fabric=beta");
    EXPECT_EQ(Ids(only_beta), std::set<int64_t>{beta_id}) << only_beta.dump(2);
    for (const auto& t : only_beta) EXPECT_EQ(t["fabric"], "beta");
    EXPECT_EQ(Tickets(*in, "fabric=gamma"), json::array());
    json page = Get(in->api() + "/api/tickets?fabric=alpha");
    EXPECT_EQ(page["total"], 1) << page.dump(2);
    // One ticket reads the same from either instance.
    EXPECT_EQ(Get(in->api() + "/api/tickets/" + std::to_string(alpha_id))["fabric"], "alpha");
    EXPECT_EQ(Get(in->api() + "/api/tickets/" + std::to_string(beta_id))["fabric"], "beta");
  }

  // Changes go through the ticket's own fabric's instance: the other answers 409 and changes
  // nothing; the owner accepts.
  const std::string alpha_ticket = "/api/tickets/" + std::to_string(alpha_id);
  const std::string beta_ticket = "/api/tickets/" + std::to_string(beta_id);
  HttpResult r = Post(beta_.api() + alpha_ticket + "/acknowledge", {{"note", "on my way"}});
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_NE(r.body.find("alpha"), std::string::npos) << r.body;
  r = Post(alpha_.api() + beta_ticket + "/acknowledge", {{"note", "on my way"}});
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_NE(r.body.find("beta"), std::string::npos) << r.body;
  r = Post(alpha_.api() + beta_ticket + "/comments", {{"text", "wrong fabric"}});
  EXPECT_EQ(r.status, 409) << r.body;
  r = Post(beta_.api() + alpha_ticket + "/repaired", {{"kind", "reseat"}});
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_TRUE(Get(alpha_.api() + alpha_ticket)["acknowledged_by"].is_null());
  EXPECT_EQ(Get(alpha_.api() + alpha_ticket)["state"], "port_disabled");
  EXPECT_EQ(Get(beta_.api() + beta_ticket)["state"], "port_disabled");

  r = Post(alpha_.api() + alpha_ticket + "/acknowledge", {{"note", "on my way"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["acknowledged_by"], "tech");
  EXPECT_EQ(json::parse(r.body)["state"], "acknowledged");
  r = Post(beta_.api() + beta_ticket + "/comments", {{"text", "right fabric"}});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Get(beta_.api() + beta_ticket)["state"], "port_disabled");

  // In the database: tickets and port actions tagged with their fabric.
  EXPECT_EQ(Sql("SELECT fabric, count(*) FROM tickets GROUP BY fabric ORDER BY fabric"),
            (std::vector<std::vector<std::string>>{{"alpha", "1"}, {"beta", "1"}}));
  EXPECT_EQ(Sql("SELECT fabric, action, port FROM port_actions ORDER BY fabric, id"),
            (std::vector<std::vector<std::string>>{{"alpha", "disable", x.sw},
                                                   {"beta", "disable", tb_port}}));

  // Event cursors per fabric: beta's follows its own UFM's ids (skipped past kBetaEventIdSkip),
  // alpha's its own (below it).
  ASSERT_TRUE(WaitUntil([&] { return Cursor("beta") >= kBetaEventIdSkip; }, kWait))
      << "beta's cursor " << Cursor("beta");
  EXPECT_GE(Cursor("alpha"), 0);
  EXPECT_LT(Cursor("alpha"), kBetaEventIdSkip);
  std::set<std::string> fabrics;
  for (const auto& row : Sql("SELECT DISTINCT fabric FROM cursors")) fabrics.insert(row[0]);
  EXPECT_EQ(fabrics, (std::set<std::string>{"alpha", "beta"}));

  // Both still lead, side by side.
  EXPECT_EQ(Leader(alpha_), 1);
  EXPECT_EQ(Leader(beta_), 1);
}

TEST_F(FabricsTest, SameLinkInBothFabricsIsTwoTicketsAndARestartLeavesTheOtherFabricAlone) {
  const std::vector<Link> links = HostLinks(alpha_);
  ASSERT_GE(links.size(), 2u);
  ASSERT_EQ(HostLinks(beta_), links);
  const Link x = links[0];  // down in both fabrics
  const Link z = links[1];  // down in both while beta's instance is stopped

  for (const Fabric* f : {&alpha_, &beta_}) {
    ASSERT_NO_FATAL_FAILURE(Fault(*f, {{"kind", "link_down"}, {"port", x.host}}));
  }
  const json ta = AwaitDisabledTicket(alpha_, x.sw);
  const json tb = AwaitDisabledTicket(beta_, x.sw);
  ASSERT_TRUE(ta.is_object() && tb.is_object());
  // One link key, two open tickets: one open ticket per link is a rule within a fabric.
  EXPECT_EQ(ta["link"], tb["link"]);
  EXPECT_NE(ta["id"], tb["id"]);
  EXPECT_EQ(ta["fabric"], "alpha");
  EXPECT_EQ(tb["fabric"], "beta");
  EXPECT_EQ(Sql("SELECT fabric FROM tickets WHERE link_key = '" + ta["link"].get<std::string>() +
                "' AND state <> 'closed' ORDER BY fabric"),
            (std::vector<std::vector<std::string>>{{"alpha"}, {"beta"}}));
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(Actions(alpha_), std::vector<std::string>{"disable " + x.sw});
  EXPECT_EQ(Actions(beta_), std::vector<std::string>{"disable " + x.sw});

  // Beta's instance stops. Alpha keeps leading and acting on its own fabric; a fault in beta's
  // fabric meanwhile waits for beta's instance.
  beta_.service->Stop();
  ASSERT_FALSE(beta_.service->running());
  const int64_t beta_cursor = Cursor("beta");
  EXPECT_GE(beta_cursor, kBetaEventIdSkip);
  EXPECT_EQ(Leader(alpha_), 1);
  ASSERT_NO_FATAL_FAILURE(Fault(alpha_, {{"kind", "link_down"}, {"port", z.host}}));
  ASSERT_NO_FATAL_FAILURE(Fault(beta_, {{"kind", "link_down"}, {"port", z.host}}));
  const json tz_alpha = AwaitDisabledTicket(alpha_, z.sw);
  ASSERT_TRUE(tz_alpha.is_object());
  EXPECT_EQ(tz_alpha["fabric"], "alpha");
  EXPECT_EQ(Leader(alpha_), 1);
  EXPECT_EQ(Actions(beta_), std::vector<std::string>{"disable " + x.sw});
  for (const auto& t : Tickets(alpha_, "fabric=beta")) {
    EXPECT_EQ(t["link"].get<std::string>().find(z.sw), std::string::npos) << t.dump(2);
  }

  // Beta's instance comes back: it leads again at once (alpha's lock is not its own), resumes
  // after its own cursor and acts on what happened in its fabric while it was away.
  beta_.service->Start();
  ASSERT_TRUE(WaitUntil([&] { return Leads(beta_); }, kWait)) << beta_.Log();
  ASSERT_TRUE(WaitUntil(
      [&] { return beta_.Log().find("resuming events after id") != std::string::npos; }, kWait))
      << beta_.Log();
  {
    const std::string log = beta_.Log();
    const size_t at = log.find("resuming events after id ") + 25;
    EXPECT_EQ(std::stoll(log.substr(at)), beta_cursor) << log;
  }
  EXPECT_EQ(beta_.Log().find("first start"), std::string::npos);
  const json tz_beta = AwaitDisabledTicket(beta_, z.sw);
  ASSERT_TRUE(tz_beta.is_object());
  EXPECT_EQ(tz_beta["fabric"], "beta");
  EXPECT_EQ(tz_beta["link"], tz_alpha["link"]);

  // Nothing done twice, nothing done in the wrong UFM; alpha led throughout.
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(Actions(alpha_), (std::vector<std::string>{"disable " + x.sw, "disable " + z.sw}));
  EXPECT_EQ(Actions(beta_), (std::vector<std::string>{"disable " + x.sw, "disable " + z.sw}));
  EXPECT_EQ(Leader(alpha_), 1);
  EXPECT_EQ(Leader(beta_), 1);
  EXPECT_EQ(alpha_.service->logs().size(), 1u);
  EXPECT_TRUE(alpha_.service->running());
  EXPECT_EQ(Tickets(alpha_, "fabric=alpha").size(), 2u);
  EXPECT_EQ(Tickets(alpha_, "fabric=beta").size(), 2u);
  EXPECT_EQ(Tickets(beta_).size(), 4u);
  EXPECT_EQ(Get(alpha_.api() + "/api/tickets/" + std::to_string(ta["id"].get<int64_t>()))["state"],
            "port_disabled");
}

// A copied config points beta's instance at alpha's UFM: one UFM, two fabric names. Alpha claimed
// that UFM first, so beta's instance holds beta's leader lock but does not act (ufmr_ufm_shared 1,
// ufmr_leader 0, an alert that names alpha); a fault on alpha's UFM is disabled and ticketed once,
// by alpha. When alpha's instance stops, beta's takes over the UFM within a claim check.
TEST_F(FabricsTest, TwoFabricsOnOneUfmActOnlyOnceTheOlderClaimActs) {
  beta_.service->Stop();
  std::string config = testing::ReadFile(beta_.service->config_path());
  for (const auto& [from, to] :
       {std::pair{beta_.sim_url(), alpha_.sim_url()},
        std::pair{beta_.sim->telemetry_url(), alpha_.sim->telemetry_url()}}) {
    size_t at = config.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    config.replace(at, from.size(), to);
  }
  beta_.service->WriteConfig(config);
  beta_.service->Start();
  ASSERT_TRUE(WaitUntil([&] { return Metric(beta_, "ufmr_ufm_shared") == 1; }, kWait))
      << beta_.Log();
  EXPECT_EQ(Leader(beta_), 0);
  EXPECT_EQ(Metric(alpha_, "ufmr_ufm_shared"), 0);
  EXPECT_EQ(Leader(alpha_), 1);
  EXPECT_NE(beta_.Log().find("fabric 'alpha' acts on the same UFM"), std::string::npos)
      << beta_.Log();
  json alerts = Get(beta_.api() + "/api/alerts");
  ASSERT_TRUE(alerts.is_object()) << alerts;
  EXPECT_NE(alerts.dump().find("ufm_shared"), std::string::npos) << alerts.dump(2);

  const std::vector<Link> links = HostLinks(alpha_);
  ASSERT_FALSE(links.empty());
  ASSERT_NO_FATAL_FAILURE(Fault(alpha_, {{"kind", "link_down"}, {"port", links[0].host}}));
  ASSERT_TRUE(AwaitDisabledTicket(alpha_, links[0].sw).is_object());
  std::this_thread::sleep_for(seconds(3));
  EXPECT_EQ(Actions(alpha_), std::vector<std::string>{"disable " + links[0].sw});
  EXPECT_TRUE(Tickets(beta_, "fabric=beta").empty()) << Tickets(beta_).dump(2);
  EXPECT_TRUE(Actions(beta_).empty());  // beta's own simulator was never used

  // Alpha's instance stops: beta's leads on the UFM it was pointed at.
  alpha_.service->Stop();
  ASSERT_TRUE(WaitUntil([&] { return Leader(beta_) == 1; }, kWait)) << beta_.Log();
  EXPECT_EQ(Metric(beta_, "ufmr_ufm_shared"), 0);
  EXPECT_NE(beta_.Log().find("is the only one acting on"), std::string::npos) << beta_.Log();
}

}  // namespace
}  // namespace ufmr
