// RecordedUfm: a UFM that answers as a recording says (`ufm-remediator probe --record DIR`, or
// the recordings in tests/testdata/recorded/): its ports, links, events, unhealthy ports, jobs and
// a telemetry sample, each in the shape it was recorded in, so a site's real shapes can be run
// end to end. It has just enough life for that: a link fault (POST /sim/faults {"kind":
// "link_down", "port"}) adds a 329 in the recording's event layout, takes both ends down and
// drops the link from the links answer (as UFM may stop listing a link once it is down); a disable
// or enable (POST /ufmRest/actions) runs as a job, changes the port and adds its 336; a person's
// isolation (POST /sim/operator {"port", "action": "isolate"}) adds a MANUAL unhealthy port and
// its 702. Every request is kept (GET /sim/requests), and what the service said in UFM's event
// log (GET /sim/external_events). Thread-safe: one mutex.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "http/http_server.h"
#include "sim/ufm_access.h"

namespace ufmr::sim {

class RecordedUfm {
 public:
  using Json = nlohmann::ordered_json;

  // Reads DIR (ufm.json, ports.json, links.json, events.json, unhealthy_ports.json, jobs.json,
  // telemetry.csv; all but ports.json may be missing). An error names the file.
  static Result<std::unique_ptr<RecordedUfm>> Load(const std::string& dir, std::string user,
                                                   std::string password);

  // Every route: UFM REST (basic auth on /ufmRest, a session, a token or the UFM host, as
  // ufm-sim lets them in), /csv/metrics (telemetry, no auth), /sim/....
  HttpResponse Answer(const HttpRequest& request);
  int ufm_version() const { return version_; }
  size_t port_count() const;

 private:
  struct Job {
    Json doc;
    std::string port, action;
    int reads = 0;
  };
  struct LinkEnds {
    std::string a, b, serial;
  };

  RecordedUfm(std::string user, std::string password)
      : access_(std::move(user), std::move(password)) {}
  static LinkEnds EndsOf(const Json& link);
  HttpResponse Rest(const HttpRequest& r, const std::string& path);
  HttpResponse Control(const HttpRequest& r);
  HttpResponse Links(const HttpRequest& r) const;
  HttpResponse Action(const std::string& body);
  HttpResponse JobAnswer(const std::string& id);
  HttpResponse Telemetry() const;
  Status LinkDown(const std::string& port);
  Status Isolate(const std::string& port);

  Json* Port(const std::string& name);
  // The link of a port, by its ends as the links answer names them.
  const LinkEnds* LinkOf(const std::string& port) const;
  // An event in the recording's layout (6.16: "type" holds the id; 6.17: "event_type").
  void Emit(int event_id, const std::string& object_type, const std::string& object_name,
            const std::string& object_path, const std::vector<std::string>& args);
  // "(Switch:<node description>)<guid>:<number>", as 329's message names an end.
  std::string DescribeEnd(const std::string& port);

  mutable std::mutex mu_;
  int version_ = 622;
  UfmAccess access_;
  Json ports_ = Json::array();
  Json links_ = Json::array();
  bool links_wrapped_ = false;
  std::vector<LinkEnds> link_ends_;  // one per element of links_
  std::vector<bool> link_down_;
  Json events_ = Json::array();
  Json unhealthy_ = Json::array();
  Json jobs_example_ = Json::object();
  std::map<std::string, Job> jobs_;
  int64_t next_event_id_ = 1;
  int next_job_ = 1;
  std::string telemetry_;
  Json requests_ = Json::array();
  Json external_ = Json::array();  // POST /app/events/external_event bodies
};

}  // namespace ufmr::sim
