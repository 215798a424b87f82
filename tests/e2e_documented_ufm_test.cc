// End to end against a UFM that is not the simulator: the real service binary (`serve`, with a
// throwaway PostgreSQL) against a small stand-in UFM inside this test, which answers only as
// NVIDIA's UFM Enterprise REST API guide documents (every object is built from the documented
// examples in tests/testdata/rest/ and the UFM interfaces reference, with their field sets and
// nothing else) and records every request. Covers: a port a person isolated (UFM's unhealthy
// ports list, Condition MANUAL) is never touched when its link goes down (a ticket with guard
// `manual`, no POST /actions, no PUT /app/unhealthy_ports); a real link fault is cut exactly once
// (POST /actions disable, 202 with a job Location, the job Running then Completed, the port then
// Disabled/Down), and stays cut without drift through several reconciliations.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "http/http_server.h"
#include "support/service_config.h"
#include "support/service_process.h"
#include "support/shipped_rules.h"
#include "support/test_env.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

using json = nlohmann::json;
using std::chrono::seconds;
using testing::WaitUntil;

// The fabric: two leaf switches joined by one link, two hosts with one link to each leaf (so
// neither a host nor a switch is left without a live link by one cut). leaf-a's port 1 was
// isolated in UFM by a person.
//
//   leaf-a 1 (1/1/1)  <-> node-01 HCA-1   the person's isolation (leaf-a's port)
//   leaf-a 2 (1/1/2)  <-> node-02 HCA-1   the link that really fails
//   leaf-b 1 (1/1/1)  <-> node-01 HCA-2
//   leaf-b 2 (1/1/2)  <-> node-02 HCA-2
//   leaf-a 33 (1/17/1) <-> leaf-b 33 (1/17/1)
constexpr char kLeafA[] = "9c0591030090e000";  // the GUIDs of ports.json's switches
constexpr char kLeafB[] = "fc6a1c0300244e00";
constexpr char kPersonsPort[] = "9c0591030090e000_1";
constexpr char kPersonsPeer[] = "e41d2d0300062380_1";
constexpr char kFaultyPort[] = "9c0591030090e000_2";
constexpr char kFaultyPeer[] = "e41d2d0300062480_1";
// `-u admin:123456` (the credentials ServiceConfigYaml writes), base64.
constexpr char kBasicAuth[] = "Basic YWRtaW46MTIzNDU2";

json Fixture(const std::string& name) { return json::parse(testing::ReadFixture("rest/" + name)); }

// A documented example with some of its values replaced: only fields the example has, so the
// stand-in's objects keep exactly the documented field set.
json Documented(json example, const json& values) {
  for (const auto& [key, value] : values.items()) {
    EXPECT_TRUE(example.contains(key)) << key << " is not a field of the documented example";
    example[key] = value;
  }
  return example;
}

// UFM's timestamps: the server's local time (UTC here), no zone, whole seconds from 6.17.
std::string UfmTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%d %H:%M:%S", &tm);
  return out;
}

// The stand-in UFM. Thread-safe: the server's workers answer while the test reads.
class DocumentedUfm {
 public:
  struct Seen {
    std::string method;
    std::string target;  // with the query string
    std::string path;
    std::string body;
  };
  struct Link {
    std::string a, b;  // port names, the switch end first
    std::string serial;
  };

  DocumentedUfm()
      : link_down_example_(Fixture("events_6_17.json").at(1)),
        link_example_(Fixture("links_paged.json")["data"].at(0)),
        job_example_(Fixture("job_completed.json")),
        unknown_job_(Fixture("job_unknown.json")),
        csv_header_(testing::ReadFixture("telemetry/primary.csv")) {
    csv_header_.resize(csv_header_.find('\n') + 1);
    // GET /resources/ports: each port is the REST API guide's public port sample (ports.json's
    // fourth entry, "the guide's own public sample": no `label`, `dname` the label or number).
    auto sw = [&](const char* guid, const char* name, int number, const char* label,
                  const std::string& peer) {
      AddPort({{"name", std::string(guid) + "_" + std::to_string(number)},
               {"guid", guid},
               {"systemID", guid},  // a switch's ports carry the switch's GUID
               {"system_name", name},
               {"node_description", std::string(name) + ":" + label},
               {"description", "Switch IB Port"},
               {"number", number},
               {"external_number", number},
               {"dname", label},
               {"active_speed", "NDR"},
               {"lid", std::string(guid) == kLeafA ? 12 : 14},  // one LID per switch
               {"tier", 2},
               {"peer", peer}});
    };
    auto host = [&](const char* port_guid, const char* system_guid, const char* name,
                    const char* hca, const std::string& peer) {
      AddPort({{"name", std::string(port_guid) + "_1"},
               {"guid", port_guid},
               {"systemID", system_guid},  // the host's GUID, not the port's (ports.json)
               {"system_name", name},
               {"node_description", std::string(name) + " " + hca},
               {"description", "Computer IB Port"},
               {"number", 1},
               {"external_number", 1},
               {"dname", "1"},
               {"active_speed", "NDR"},
               {"lid", 100 + static_cast<int>(ports_.size())},
               {"tier", 1},
               {"peer", peer}});
    };
    sw(kLeafA, "leaf-a", 1, "1/1/1", kPersonsPeer);
    sw(kLeafA, "leaf-a", 2, "1/1/2", kFaultyPeer);
    sw(kLeafA, "leaf-a", 33, "1/17/1", std::string(kLeafB) + "_33");
    sw(kLeafB, "leaf-b", 1, "1/1/1", "e41d2d0300062390_1");
    sw(kLeafB, "leaf-b", 2, "1/1/2", "e41d2d0300062490_1");
    sw(kLeafB, "leaf-b", 33, "1/17/1", std::string(kLeafA) + "_33");
    host("e41d2d0300062380", "e41d2d0300062300", "node-01", "HCA-1", kPersonsPort);
    host("e41d2d0300062390", "e41d2d0300062300", "node-01", "HCA-2", std::string(kLeafB) + "_1");
    host("e41d2d0300062480", "e41d2d0300062400", "node-02", "HCA-1", kFaultyPort);
    host("e41d2d0300062490", "e41d2d0300062400", "node-02", "HCA-2", std::string(kLeafB) + "_2");
    links_ = {{kPersonsPort, kPersonsPeer, "MT2330FT09101"},
              {kFaultyPort, kFaultyPeer, "MT2330FT09102"},
              {std::string(kLeafB) + "_1", "e41d2d0300062390_1", "MT2330FT09103"},
              {std::string(kLeafB) + "_2", "e41d2d0300062490_1", "MT2330FT09104"},
              {std::string(kLeafA) + "_33", std::string(kLeafB) + "_33", "MT2330FT09118"}};

    // GET /app/unhealthy_ports: the REST API guide's example (6.11 to 6.22, unhealthy_ports.json)
    // naming leaf-a's port 1, isolated by a person (Condition MANUAL) before this service ran.
    unhealthy_ = json::array(
        {Documented(Fixture("unhealthy_ports.json").at(0), {{"UnhealthyGUID", kLeafA},
                                                            {"UnhealthyPortNumber", 1},
                                                            {"UnhealthyNode", "leaf-a"},
                                                            {"UnhealthyPort", "leaf-a/1/1/1"},
                                                            {"UnhealthyPortDname", "1/1/1"},
                                                            {"PeerGUID", "e41d2d0300062380"},
                                                            {"PeerPortNumber", 1},
                                                            {"PeerNode", "node-01"},
                                                            {"PeerPort", "node-01/HCA-1/1"},
                                                            {"PeerPortDname", "HCA-1/1"},
                                                            {"PeerLID", "106"},
                                                            {"Condition", "MANUAL"},
                                                            {"State", "Info"}})});

    // GET /app/events: UFM's history before the service starts, the 6.17 layout's first
    // example (events_6_17.json), which the service skips on its first start.
    json history = Fixture("events_6_17.json").at(0);
    next_event_id_ = history["id"].get<int64_t>() + 1;
    events_ = json::array({history});

    server_ = std::make_unique<HttpServer>("127.0.0.1", 0,
                                           [this](const HttpRequest& r) { return Answer(r); });
  }
  ~DocumentedUfm() {
    if (server_) server_->Stop();
  }

  bool Start() { return server_->Start().ok(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }

  // A link goes down: UFM says 329 "Link went down" (the 6.17 layout: events_6_17.json's second
  // example, both ports in object_name `<port>:<port>`, the message naming each end as
  // `(<type>:<node description>)<guid>:<number>` with the cable's serial; the host end is written
  // as the guide writes a switch end), and both ends then read logical_state Down,
  // physical_state Polling (an enabled port with no partner).
  void LinkDown(const std::string& port) {
    std::lock_guard<std::mutex> lock(mu_);
    const Link& l = LinkOf(port);
    auto end = [&](const std::string& name) {
      const json& p = PortLocked(name);
      const bool is_switch = p["description"] == "Switch IB Port";
      return "(" + std::string(is_switch ? "Switch:" : "Computer:") +
             p["node_description"].get<std::string>() + ")" + p["guid"].get<std::string>() + ":" +
             std::to_string(p["number"].get<int>());
    };
    events_.push_back(Documented(link_down_example_,
                                 {{"id", next_event_id_++},
                                  {"timestamp", UfmTimestamp()},
                                  {"object_name", l.a + ":" + l.b},
                                  {"object_path", l.a + ":" + l.b},
                                  {"description", "Link went down: " + end(l.a) + " - " + end(l.b) +
                                                      ", cable S/N: " + l.serial}}));
    for (const auto& name : {l.a, l.b}) {
      json& p = PortLocked(name);
      p["logical_state"] = "Down";
      p["physical_state"] = "Polling";
    }
  }

  json Port(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    return PortLocked(name);
  }

  std::vector<Seen> Requests(const std::string& method, const std::string& path_prefix) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Seen> out;
    for (const auto& s : seen_) {
      if (s.method == method && s.path.rfind(path_prefix, 0) == 0) out.push_back(s);
    }
    return out;
  }

  std::string RequestLog() {
    std::lock_guard<std::mutex> lock(mu_);
    std::ostringstream out;
    for (const auto& s : seen_) {
      if (s.path == "/csv/metrics") continue;  // every half second: not worth the lines
      out << s.method << " " << s.target << (s.body.empty() ? "" : " " + s.body) << "\n";
    }
    return out.str();
  }

 private:
  struct Job {
    json doc;
    std::string port;
    std::string action;
    int reads = 0;
  };

  void AddPort(const json& values) {
    json p = Documented(Fixture("ports.json").at(3), values);
    p["logical_state"] = "Active";
    p["physical_state"] = "Link Up";
    ports_.push_back(std::move(p));
  }

  json& PortLocked(const std::string& name) {
    for (auto& p : ports_) {
      if (p["name"] == name) return p;
    }
    throw std::runtime_error("the stand-in has no port " + name);
  }
  bool KnowsPort(const std::string& name) const {
    for (const auto& p : ports_) {
      if (p["name"] == name) return true;
    }
    return false;
  }
  const Link& LinkOf(const std::string& port) const {
    for (const auto& l : links_) {
      if (l.a == port || l.b == port) return l;
    }
    throw std::runtime_error("the stand-in has no link of " + port);
  }

  HttpResponse Answer(const HttpRequest& r) {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.push_back({r.method, r.target, r.path, r.body});
    // UFM Telemetry: plain HTTP, no auth (the UFM interfaces reference, "Counters").
    if (r.method == "GET" && r.path == "/csv/metrics") return Telemetry();
    // REST: basic auth on /ufmRest (the reference, "Authentication").
    if (r.path.rfind("/ufmRest/", 0) != 0) return HttpResponse::Error(404, "not found");
    if (r.Header("authorization") != kBasicAuth) return HttpResponse::Error(401, "unauthorized");
    const std::string path = r.path.substr(std::string("/ufmRest").size());
    if (r.method == "GET" && path == "/app/events") return HttpResponse::Json(200, events_);
    // Ports: a bare list (any query: the service asks ?show_disabled=true); one port: a list of
    // one (the reference, "Ports and links").
    if (r.method == "GET" && path == "/resources/ports") return HttpResponse::Json(200, ports_);
    if (r.method == "GET" && path.rfind("/resources/ports/", 0) == 0) {
      const std::string name = path.substr(std::string("/resources/ports/").size());
      if (!KnowsPort(name)) return HttpResponse::Error(404, "not found");
      return HttpResponse::Json(200, json::array({PortLocked(name)}));
    }
    if (r.method == "GET" && path == "/resources/links") return Links();
    if (r.method == "GET" && path == "/app/unhealthy_ports") {
      return HttpResponse::Json(200, unhealthy_);
    }
    if (r.method == "POST" && path == "/actions") return Action(r.body);
    if (r.method == "GET" && path == "/jobs") {
      json list = json::array();
      for (const auto& [id, job] : jobs_) list.push_back(job.doc);
      return HttpResponse::Json(200, list);
    }
    if (r.method == "GET" && path.rfind("/jobs/", 0) == 0) {
      return JobAnswer(path.substr(std::string("/jobs/").size()));
    }
    // External events: 200 (the reference, "Events").
    if (r.method == "POST" && path == "/app/events/external_event") {
      return HttpResponse::Json(200, json::object());
    }
    return HttpResponse::Error(404, "not found");
  }

  // GET /resources/links?cable_info=true&page_number=1&rpp=...: {"data": [...]}, each link the
  // 6.20 example of links_paged.json (with the cable's serial_number).
  HttpResponse Links() {
    json data = json::array();
    for (const auto& l : links_) {
      const json& a = PortLocked(l.a);
      const json& b = PortLocked(l.b);
      data.push_back(
          Documented(link_example_, {{"source_guid", a["guid"]},
                                     {"source_port", std::to_string(a["number"].get<int>())},
                                     {"source_port_dname", a["dname"]},
                                     {"source_port_name", l.a},
                                     {"source_port_node_description", a["node_description"]},
                                     {"destination_guid", b["guid"]},
                                     {"destination_port", std::to_string(b["number"].get<int>())},
                                     {"destination_port_dname", b["dname"]},
                                     {"destination_port_name", l.b},
                                     {"destination_port_node_description", b["node_description"]},
                                     {"name", l.a + ":" + l.b},
                                     {"serial_number", l.serial}}));
    }
    return HttpResponse::Json(200, {{"data", data}});
  }

  // POST /actions {"action": "disable"|"enable", "object_type": "System", "object_ids":
  // [<system GUID>], "params": {"port_id": <port>}, ...}: 202 with Location .../jobs/<id> (the
  // reference, "Acting on ports").
  HttpResponse Action(const std::string& body) {
    json req = json::parse(body, nullptr, false);
    if (!req.is_object() || !req.contains("params") || !req["params"].contains("port_id") ||
        !req["params"]["port_id"].is_string()) {
      return HttpResponse::Error(400, "bad action");
    }
    const std::string port = req["params"]["port_id"];
    const std::string action = req.value("action", "");
    if (!KnowsPort(port) || (action != "disable" && action != "enable")) {
      return HttpResponse::Error(400, "bad action");
    }
    const std::string id = std::to_string(next_job_++);
    // The job: job_completed.json's fields, Running until it is first read.
    Job job{Documented(job_example_,
                       {{"ID", id},
                        {"Status", "Running"},
                        {"Operation", action == "disable" ? "Disable Port" : "Enable Port"},
                        {"Progress", 0},
                        {"Summary", ""},
                        {"RelatedObjects", {port}},
                        {"CreatedTime", UfmTimestamp()},
                        {"LastUpdated", UfmTimestamp()}}),
            port, action};
    jobs_.emplace(id, std::move(job));
    HttpResponse out;
    out.status = 202;
    out.headers.emplace_back("Location", "/ufmRest/jobs/" + id);
    return out;
  }

  // GET /jobs/<id>: Running on its first read, then Completed, and from then on the port reads
  // as the REST API guide shows a disabled port (ports.json: physical_state Disabled,
  // logical_state Down). An unknown id: [] (job_unknown.json).
  HttpResponse JobAnswer(const std::string& id) {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return HttpResponse::Json(200, unknown_job_);
    Job& job = it->second;
    if (job.reads++ > 0 && job.doc["Status"] == "Running") {
      job.doc["Status"] = "Completed";
      job.doc["Progress"] = 100;
      job.doc["Summary"] = "Port " + job.port + " " + job.action + "d";
      job.doc["LastUpdated"] = UfmTimestamp();
      json& p = PortLocked(job.port);
      p["logical_state"] = job.action == "disable" ? "Down" : "Active";
      p["physical_state"] = job.action == "disable" ? "Disabled" : "Link Up";
    }
    return HttpResponse::Json(200, job.doc);
  }

  // The primary telemetry endpoint's CSV (tests/testdata/telemetry/primary.csv's header, the
  // reference's column list): a row per port, GUIDs as 0x..., a microsecond timestamp, quiet
  // counters.
  HttpResponse Telemetry() {
    std::string csv = csv_header_;
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    for (const auto& p : ports_) {
      csv += std::to_string(us) + ",127.0.0.1:9001,,0x" + p["systemID"].get<std::string>() + ",0x" +
             p["guid"].get<std::string>() + "," + std::to_string(p["number"].get<int>()) +
             ",8555412824,8555412000,118825178,118825100,0,0,1,0,0,0\n";
    }
    return HttpResponse::Text(200, csv, "text/csv");
  }

  // The documented examples the answers are made of, read once.
  const json link_down_example_;  // events_6_17.json: the 329
  const json link_example_;       // links_paged.json: the 6.20 link with its cable
  const json job_example_;        // job_completed.json
  const json unknown_job_;        // job_unknown.json
  std::string csv_header_;        // telemetry/primary.csv's header

  std::mutex mu_;
  std::vector<json> ports_;
  std::vector<Link> links_;
  json unhealthy_;
  json events_;
  int64_t next_event_id_ = 0;
  std::map<std::string, Job> jobs_;
  int next_job_ = 42;
  std::vector<Seen> seen_;
  std::unique_ptr<HttpServer> server_;
};

class DocumentedUfmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ufm_ = std::make_unique<DocumentedUfm>();
    ASSERT_TRUE(ufm_->Start());
    dir_ = testing::MakeTempDir("e2e-documented-ufm");
    db_url_ = testing::TestPostgres::Get().CreateDatabase();
    ASSERT_TRUE(testing::ShippedRulesWithShortHold(dir_ + "/rules"));
    service_ = std::make_unique<testing::ServiceProcess>(dir_, "service");
    api_ = service_->api();
    // Basic auth on /ufmRest, said outright (it is the default).
    service_->WriteConfig(testing::ServiceConfigYaml({.fabric = "documented",
                                                      .ufm_url = ufm_->url(),
                                                      .telemetry_url = ufm_->url() + "/csv/metrics",
                                                      .db_url = db_url_,
                                                      .rules_dir = dir_ + "/rules",
                                                      .http_port = service_->port(),
                                                      .ufm_extra = "  auth: basic\n"}));
    ASSERT_TRUE(service_->Migrate());
    http_.SetHeader("Authorization", "Bearer " + service_->CreateToken("tech", "engineer"));
    service_->Start();
    ASSERT_TRUE(service_->AwaitReadyz(seconds(20)));
    // The service takes its starting cursor before any fault, as a running service would...
    ASSERT_TRUE(service_->AwaitLog({"skipping"}, seconds(10)));
    // ... every port and the telemetry CSV's rows are in ...
    EXPECT_EQ(Get(api_ + "/healthz")["inventory_ports"], 10);
    ASSERT_TRUE(
        WaitUntil([&] { return Metric("ufmr_telemetry_samples_total") >= 10; }, seconds(10)))
        << service_->Log();
    // ... and a reconciliation has read the person's isolation from UFM's unhealthy ports.
    ASSERT_TRUE(
        WaitUntil([&] { return Metric("ufmr_ports_isolated_by_people") == 1; }, seconds(10)))
        << service_->Log();
  }

  void TearDown() override {
    if (HasFailure()) {
      std::cerr << "---- requests to the stand-in ----\n"
                << (ufm_ ? ufm_->RequestLog() : "") << "\n";
    }
    service_.reset();  // (prints its log if the test failed)
    ufm_.reset();
    if (!dir_.empty()) testing::RemoveTree(dir_);
  }

  json Get(const std::string& url) {
    auto r = http_.Get(url);
    if (!r.ok()) return json();
    return json::parse(r->body, nullptr, false);
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

  // Every documented answer was taken as it is: no UFM call failed, nothing was skipped as
  // malformed.
  void ExpectEveryAnswerAccepted() {
    EXPECT_LE(Metric("ufmr_ufm_errors_total"), 0) << ufm_->RequestLog();
    EXPECT_LE(Metric("ufmr_parse_errors_total"), 0);
    EXPECT_EQ(service_->Log().find("skipped"), std::string::npos) << service_->Log();
    for (const char* level : {" warning ", " error ", " critical "}) {
      EXPECT_EQ(service_->Log().find(level), std::string::npos) << service_->Log();
    }
  }

  json Tickets() { return Get(api_ + "/api/tickets?state=all")["tickets"]; }
  json Ticket(int64_t id) { return Get(api_ + "/api/tickets/" + std::to_string(id)); }
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
    return t.is_null() ? t : Ticket(t["id"]);
  }

  std::unique_ptr<DocumentedUfm> ufm_;
  std::string dir_, db_url_, api_;
  std::unique_ptr<testing::ServiceProcess> service_;
  HttpClient http_{HttpClientOptions{}};
};

TEST_F(DocumentedUfmTest, APortAPersonIsolatedIsNeverTouched) {
  ufm_->LinkDown(kPersonsPort);
  json t = AwaitTicket(
      kPersonsPort, [](const json& x) { return x["state"] == "ticket_only" && x["guard"] != ""; });
  ASSERT_FALSE(t.is_null());
  EXPECT_EQ(t["guard"], "manual") << t.dump(2);
  EXPECT_NE(t["link"].get<std::string>().find(kPersonsPeer), std::string::npos) << t["link"];
  EXPECT_NE(t["explanation"].get<std::string>().find("isolated in UFM by a person"),
            std::string::npos)
      << t["explanation"];
  EXPECT_FALSE(t["disabled_by_us"].get<bool>());
  // Nothing more happens: several reconciliations (1 s apart) later, UFM heard no action and no
  // change to its unhealthy ports, for that port or any other.
  std::this_thread::sleep_for(seconds(3));
  EXPECT_TRUE(ufm_->Requests("POST", "/ufmRest/actions").empty()) << ufm_->RequestLog();
  EXPECT_TRUE(ufm_->Requests("PUT", "/ufmRest/app/unhealthy_ports").empty()) << ufm_->RequestLog();
  EXPECT_TRUE(ufm_->Requests("POST", "/ufmRest/app/events/external_event").empty());
  EXPECT_EQ(Tickets().size(), 1u) << Tickets().dump(2);
  ExpectEveryAnswerAccepted();
}

TEST_F(DocumentedUfmTest, ARealLinkFaultIsCutOnce) {
  ufm_->LinkDown(kFaultyPeer);  // named from the host's side: the switch's port is cut
  json t = AwaitTicket(kFaultyPort, [](const json& x) { return x["state"] == "port_disabled"; });
  ASSERT_FALSE(t.is_null());
  EXPECT_TRUE(t["disabled_by_us"].get<bool>()) << t.dump(2);
  EXPECT_EQ(t["guard"], "") << t.dump(2);
  EXPECT_EQ(t["method"], "disable");
  // The one POST /actions: the documented body, for the switch's port, on the switch.
  auto actions = ufm_->Requests("POST", "/ufmRest/actions");
  ASSERT_EQ(actions.size(), 1u) << ufm_->RequestLog();
  json body = json::parse(actions[0].body);
  EXPECT_EQ(body["action"], "disable");
  EXPECT_EQ(body["object_type"], "System");
  EXPECT_EQ(body["object_ids"], json::array({kLeafA}));
  EXPECT_EQ(body["params"]["port_id"], kFaultyPort);
  // Its job was followed to the end, and the port reads as UFM shows a disabled port.
  EXPECT_GE(ufm_->Requests("GET", "/ufmRest/jobs/42").size(), 2u) << ufm_->RequestLog();
  EXPECT_EQ(ufm_->Port(kFaultyPort)["physical_state"], "Disabled");
  // UFM's own event log says who acted, once.
  ASSERT_TRUE(WaitUntil(
      [&] { return ufm_->Requests("POST", "/ufmRest/app/events/external_event").size() == 1; },
      seconds(10)))
      << ufm_->RequestLog();
  json announced =
      json::parse(ufm_->Requests("POST", "/ufmRest/app/events/external_event")[0].body);
  EXPECT_EQ(announced["event_id"], 552);
  EXPECT_NE(announced["description"].get<std::string>().find(kFaultyPort), std::string::npos)
      << announced.dump();

  // Several reconciliations later: still cut once, held as the service's, no drift.
  const size_t reads = ufm_->Requests("GET", "/ufmRest/app/unhealthy_ports").size();
  std::this_thread::sleep_for(seconds(4));
  EXPECT_GE(ufm_->Requests("GET", "/ufmRest/app/unhealthy_ports").size(), reads + 3)
      << "reconciliation ran";
  EXPECT_EQ(ufm_->Requests("POST", "/ufmRest/actions").size(), 1u) << ufm_->RequestLog();
  EXPECT_TRUE(ufm_->Requests("PUT", "/ufmRest/app/unhealthy_ports").empty()) << ufm_->RequestLog();
  EXPECT_EQ(ufm_->Requests("POST", "/ufmRest/app/events/external_event").size(), 1u);
  t = Ticket(t["id"]);
  EXPECT_EQ(t["state"], "port_disabled") << t.dump(2);
  EXPECT_TRUE(t["disabled_by_us"].get<bool>());
  EXPECT_EQ(t["guard"], "") << t.dump(2);
  EXPECT_EQ(t["events"].dump().find("drift"), std::string::npos) << t["events"].dump(2);
  EXPECT_LE(Metric("ufmr_drift_total"), 0);
  EXPECT_EQ(Tickets().size(), 1u) << Tickets().dump(2);
  ExpectEveryAnswerAccepted();
}

}  // namespace
}  // namespace ufmr
