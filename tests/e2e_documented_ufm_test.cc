// End to end against UFM as it answers in each documented shape: the real service binary
// (`serve`, with a throwaway PostgreSQL) against `ufm-sim` serving each recording of
// tests/testdata/recorded/ (6.10 to 6.16, 6.17 to 6.19, 6.20 to 6.22: NVIDIA's own examples, built
// by make_recordings.py; ufm-sim --recording, the way a site's `probe --record` is served), and
// against ufm-sim's generated fabric in the 6.16, 6.19 and 6.22 shapes. The fabric is discovered
// through the service's own parsers. On each:
//   - a port a person isolated (UFM's unhealthy ports, Condition MANUAL) is never touched when
//     its link goes down: a ticket with guard `manual`, no action;
//   - a real link fault on a host with two links is cut exactly once (the documented action body,
//     its job followed to the end, the port then disabled, UFM's event log told once), its 336
//     is read as the service's own (no event is taken for someone else's disable), no drift, and
//     the ticket names the cable by the serial in the links' cable_info, even where UFM stops
//     listing the link once it is down (the recordings);
//   - that host's other link, now its only one, going down is never cut (guard last_link).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/service_config.h"
#include "support/service_process.h"
#include "support/shipped_rules.h"
#include "support/sim_process.h"
#include "support/test_env.h"
#include "ufm/host_names.h"
#include "ufm/http_client.h"
#include "ufm/inventory.h"

namespace ufmr {
namespace {

using json = nlohmann::json;
using std::chrono::seconds;
using testing::WaitUntil;

struct Shape {
  std::string name;
  std::vector<std::string> sim_args;
  bool recording = false;
};

void PrintTo(const Shape& s, std::ostream* os) { *os << s.name; }

// A host with two links to switches: its ports and, for each, the switch port facing it.
struct TwoLinkHost {
  std::string machine;
  std::vector<std::string> host_ports, switch_ports;
};

class DocumentedUfmTest : public ::testing::TestWithParam<Shape> {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("e2e-documented-ufm");
    std::vector<std::string> args = GetParam().sim_args;
    if (GetParam().recording) args[1] = testing::SourceDir() + "/" + args[1];
    sim_ = std::make_unique<testing::SimProcess>(dir_, args);
    ASSERT_TRUE(sim_->AwaitReady());
    HttpClientOptions auth;  // the credentials ServiceConfigYaml gives the service
    auth.basic_user = "admin";
    auth.basic_password = "123456";
    ufm_ = std::make_unique<HttpClient>(auth);
    Discover();
    ASSERT_GE(hosts_.size(), 2u) << "the fabric has two hosts with two links each";

    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    // link_down's hold 1 s; two links of one host down within 2 s (not 20) are a reboot, so the
    // test's second fault on a host, seconds after its first, is judged on its own.
    ASSERT_TRUE(testing::ShippedRules(
        dir_ + "/rules",
        {testing::ShortHold(),
         {"reboots.yaml", "name: node_many_links_down", "window: 20s", "window: 2s"}}));
    service_ = std::make_unique<testing::ServiceProcess>(dir_, "service");
    api_ = service_->api();
    service_->WriteConfig(testing::ServiceConfigYaml({.fabric = "documented",
                                                      .ufm_url = sim_->url(),
                                                      .telemetry_url = sim_->telemetry_url(),
                                                      .db_url = db_url_,
                                                      .rules_dir = dir_ + "/rules",
                                                      .http_port = service_->port(),
                                                      .remediation_extra = testing::kHighCaps,
                                                      .ufm_extra = "  auth: basic\n"}));
    ASSERT_TRUE(service_->Migrate());
    http_.SetHeader("Authorization", "Bearer " + service_->CreateToken("tech", "engineer"));
    service_->Start();
    ASSERT_TRUE(service_->AwaitReadyz(seconds(20)));
    ASSERT_TRUE(service_->AwaitLog({"skipping"}, seconds(10)));  // its starting cursor
    EXPECT_EQ(Get(api_ + "/healthz")["inventory_ports"], ports_.size());
    ASSERT_TRUE(WaitUntil([&] { return Metric("ufmr_telemetry_samples_total") > 0; }, seconds(10)))
        << service_->Log();
    EXPECT_EQ(Metric("ufmr_inventory_links_unresolved"), 0) << "every link's ends are known";
  }

  void TearDown() override {
    if (HasFailure() && sim_) {
      std::cerr << "---- UFM's requests ----\n" << Sim("/sim/requests").dump(1) << "\n";
    }
    service_.reset();  // (prints its log if the test failed)
    sim_.reset();
    if (!dir_.empty()) testing::RemoveTree(dir_);
  }

  json Ufm(const std::string& path) {
    auto r = ufm_->Get(sim_->url() + "/ufmRest" + path);
    EXPECT_TRUE(r.ok() && r->status == 200) << path;
    return r.ok() ? json::parse(r->body, nullptr, false) : json();
  }
  json Sim(const std::string& path) {
    auto r = http_.Get(sim_->url() + path);
    return r.ok() && r->status == 200 ? json::parse(r->body, nullptr, false) : json::array();
  }
  void SimPost(const std::string& path, const json& body) {
    auto r = http_.Post(sim_->url() + path, body.dump());
    ASSERT_TRUE(r.ok() && r->status / 100 == 2)
        << path << " " << body << ": " << (r.ok() ? r->body : "");
  }

  // The fabric as the service reads it: ports, links resolved against them, hosts by machine.
  void Discover() {
    auto ports = ParsePorts(Ufm("/resources/ports?show_disabled=true").dump(), nullptr);
    ASSERT_TRUE(ports.ok());
    Inventory inventory;
    inventory.Replace(ports.value());
    std::set<std::string> names;
    inventory.ForEachPort([&](const PortInfo& p) {
      names.insert(p.name);
      ports_[p.name] = p;
    });
    links_raw_ = Ufm("/resources/links?cable_info=true");
    auto links = ParseLinks(links_raw_.dump(), nullptr);
    ASSERT_TRUE(links.ok());
    ASSERT_EQ(ResolveLinks(&links.value(), [&](const std::string& n) { return names.count(n); }),
              0);
    std::map<std::string, TwoLinkHost> by_machine;
    for (const auto& l : links.value()) {
      const PortInfo &a = ports_[l.a], &b = ports_[l.b];
      if (a.is_switch() == b.is_switch()) continue;
      const PortInfo& host = a.is_switch() ? b : a;
      const PortInfo& sw = a.is_switch() ? a : b;
      TwoLinkHost& h = by_machine[host.host];
      h.machine = host.host;
      h.host_ports.push_back(host.name);
      h.switch_ports.push_back(sw.name);
    }
    for (auto& [machine, h] : by_machine) {
      if (h.host_ports.size() == 2) hosts_.push_back(h);
    }
  }

  // What the links answer says of a port's cable: cable_info's serial_number.
  std::string SerialOf(const std::string& port) {
    const json& list = links_raw_.is_object() ? links_raw_["data"] : links_raw_;
    for (const auto& l : list) {
      if (l.value("name", "").find(port) == std::string::npos) continue;
      return l.contains("cable_info") ? l["cable_info"].value("serial_number", "") : "";
    }
    return "";
  }

  json Get(const std::string& url) {
    auto r = http_.Get(url);
    return r.ok() ? json::parse(r->body, nullptr, false) : json();
  }
  // A metric's value on /metrics (the sum over its labels); -1 when it is not there.
  double Metric(const std::string& name) {
    auto r = http_.Get(api_ + "/metrics");
    if (!r.ok()) return -1;
    double sum = -1;
    std::istringstream lines(r->body);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind(name + " ", 0) != 0 && line.rfind(name + "{", 0) != 0) continue;
      sum = std::max(sum, 0.0) + std::stod(line.substr(line.rfind(' ') + 1));
    }
    return sum;
  }
  json Tickets() { return Get(api_ + "/api/tickets?state=all")["tickets"]; }
  json AwaitTicket(const std::string& port, const std::function<bool(const json&)>& done) {
    json t;
    bool ok = WaitUntil(
        [&] {
          t = json();
          for (const auto& x : Tickets()) {
            if (x["link"].get<std::string>().find(port) != std::string::npos) t = x;
          }
          return !t.is_null() && done(t);
        },
        seconds(20));
    EXPECT_TRUE(ok) << "ticket for " << port << ": " << t.dump(2);
    return t.is_null() ? t : Get(api_ + "/api/tickets/" + std::to_string(t["id"].get<int64_t>()));
  }
  size_t ActionsOn(const std::string& port) {
    size_t n = 0;
    for (const auto& a : Sim("/sim/actions")) n += a.value("port", "") == port;
    return n;
  }
  // Every answer was taken as it came: no UFM call failed, nothing skipped as malformed.
  void ExpectEveryAnswerAccepted() {
    EXPECT_LE(Metric("ufmr_ufm_errors_total"), 0);
    EXPECT_LE(Metric("ufmr_parse_errors_total"), 0);
    EXPECT_EQ(service_->Log().find("skipped"), std::string::npos) << service_->Log();
    for (const char* level : {" warning ", " error ", " critical "}) {
      EXPECT_EQ(service_->Log().find(level), std::string::npos) << service_->Log();
    }
  }

  std::string dir_, db_url_, api_;
  std::unique_ptr<testing::SimProcess> sim_;
  std::unique_ptr<HttpClient> ufm_;
  std::map<std::string, PortInfo> ports_;
  json links_raw_;
  std::vector<TwoLinkHost> hosts_;
  std::unique_ptr<testing::ServiceProcess> service_;
  HttpClient http_{HttpClientOptions{}};
};

TEST_P(DocumentedUfmTest, APersonsIsolationARealFaultAndAHostsOnlyLink) {
  // A person isolates the switch port facing the first host's first adapter.
  const TwoLinkHost& persons = hosts_[0];
  const std::string isolated = persons.switch_ports[0];
  SimPost("/sim/operator", {{"port", isolated}, {"action", "isolate"}});
  ASSERT_TRUE(WaitUntil([&] { return Metric("ufmr_ports_isolated_by_people") >= 1; }, seconds(10)))
      << service_->Log();
  SimPost("/sim/faults", {{"kind", "link_down"}, {"port", persons.host_ports[0]}});
  json t = AwaitTicket(isolated, [](const json& x) { return x["guard"] != ""; });
  ASSERT_FALSE(t.is_null());
  EXPECT_EQ(t["guard"], "manual") << t.dump(2);
  EXPECT_FALSE(t["disabled_by_us"].get<bool>());
  EXPECT_EQ(ActionsOn(isolated), 0u);

  // A real fault on the second host's first link, named from the host's side: the switch's port
  // is cut, once.
  const TwoLinkHost& host = hosts_[1];
  const std::string cut = host.switch_ports[0];
  SimPost("/sim/faults", {{"kind", "link_down"}, {"port", host.host_ports[0]}});
  t = AwaitTicket(cut, [](const json& x) { return x["state"] == "port_disabled"; });
  ASSERT_FALSE(t.is_null());
  EXPECT_TRUE(t["disabled_by_us"].get<bool>()) << t.dump(2);
  EXPECT_EQ(t["method"], "disable");
  EXPECT_EQ(t["location"]["host"], host.machine) << "a host is its machine, not its adapter";
  ASSERT_TRUE(WaitUntil([&] { return Sim("/sim/external_events").size() == 1; }, seconds(10)));
  EXPECT_EQ(Sim("/sim/external_events")[0]["body"]["event_id"], 552);
  EXPECT_EQ(ActionsOn(cut), 1u) << Sim("/sim/actions").dump();
  if (GetParam().recording) {
    // The documented body, for the switch's port, on the switch.
    for (const auto& r : Sim("/sim/requests")) {
      if (r["method"] != "POST" || r["target"] != "/ufmRest/actions") continue;
      json body = json::parse(r["body"].get<std::string>());
      EXPECT_EQ(body["action"], "disable");
      EXPECT_EQ(body["object_type"], "System");
      EXPECT_EQ(body["object_ids"], json::array({ports_[cut].system_guid}));
      EXPECT_EQ(body["params"]["port_id"], cut);
    }
  }
  const auto disabled = Ufm("/resources/ports/" + cut + "?show_disabled=true");
  ASSERT_FALSE(disabled.empty());
  EXPECT_EQ(disabled[0]["physical_state"], "Disabled");
  // The ticket names the cable by the serial cable_info gave, though UFM may no longer list the
  // link (the recordings drop a link once it is down).
  const std::string serial = SerialOf(cut);
  ASSERT_FALSE(serial.empty());
  for (const auto& end : t["ports"]) EXPECT_EQ(end["cable_serial"], serial) << t["ports"].dump(2);

  // That host's other link is now its only one: its fault is never cut. (Later than the rules'
  // shortened reboot window: two links down together would be a reboot, recorded only.)
  std::this_thread::sleep_for(seconds(3));
  SimPost("/sim/faults", {{"kind", "link_down"}, {"port", host.host_ports[1]}});
  json last = AwaitTicket(host.switch_ports[1], [](const json& x) { return x["guard"] != ""; });
  ASSERT_FALSE(last.is_null());
  EXPECT_EQ(last["guard"], "last_link") << last.dump(2);
  EXPECT_EQ(ActionsOn(host.switch_ports[1]), 0u);

  // Several reconciliations later: one cut in all, held as the service's, its 336 read as its
  // own, no drift, the person's port untouched.
  std::this_thread::sleep_for(seconds(3));
  EXPECT_EQ(Sim("/sim/actions").size(), 1u) << Sim("/sim/actions").dump();
  // UFM said so (336), and the service read that as its own disable, not someone else's.
  bool said = false;
  for (const auto& e : Ufm("/app/events")) {
    const std::string id = e.contains("event_type") ? e["event_type"] : e["type"];
    said = said || (id == "336" && e["description"] == "Port " + cut + " action disable succeeded");
  }
  EXPECT_TRUE(said) << Ufm("/app/events").dump(1);
  EXPECT_GE(Metric("ufmr_events_on_held_links_total"), 1) << service_->Log();
  EXPECT_EQ(service_->Log().find("not by this service"), std::string::npos) << service_->Log();
  EXPECT_LE(Metric("ufmr_events_after_hand_disable_total"), 0) << "its 336 is its own";
  EXPECT_LE(Metric("ufmr_drift_total"), 0);
  EXPECT_EQ(Sim("/sim/external_events").size(), 1u);
  t = Get(api_ + "/api/tickets/" + std::to_string(t["id"].get<int64_t>()));
  EXPECT_EQ(t["state"], "port_disabled") << t.dump(2);
  EXPECT_EQ(t["events"].dump().find("drift"), std::string::npos) << t["events"].dump(2);
  EXPECT_EQ(Tickets().size(), 3u) << Tickets().dump(2);
  ExpectEveryAnswerAccepted();
}

const char* kTopology = "fat-tree:leaves=2,spines=1,hosts_per_leaf=2,hcas_per_host=2";

INSTANTIATE_TEST_SUITE_P(
    Shapes, DocumentedUfmTest,
    ::testing::Values(
        Shape{"recording_6_10_to_6_16", {"--recording", "tests/testdata/recorded/6.10-6.16"}, true},
        Shape{"recording_6_17_to_6_19", {"--recording", "tests/testdata/recorded/6.17-6.19"}, true},
        Shape{"recording_6_20_to_6_22", {"--recording", "tests/testdata/recorded/6.20-6.22"}, true},
        Shape{"sim_6_16", {"--topology", kTopology, "--ufm-version", "6.16"}},
        Shape{"sim_6_19", {"--topology", kTopology, "--ufm-version", "6.19"}},
        Shape{"sim_6_22", {"--topology", kTopology, "--ufm-version", "6.22"}}),
    [](const ::testing::TestParamInfo<Shape>& i) { return i.param.name; });

}  // namespace
}  // namespace ufmr
