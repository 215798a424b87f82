#include "sim/recorded_ufm.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "base/clock.h"
#include "base/text.h"
#include "catalog/event_types.h"
#include "sim/sim_event.h"
#include "sim/ufm_shapes.h"

namespace ufmr::sim {

namespace {

using RJson = RecordedUfm::Json;

// A file of the recording: absent is "", unreadable an error.
Result<std::string> RecReadFile(const std::string& path, bool required) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (required) return Status::NotFound("cannot read " + path);
    return std::string();
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<RJson> RecReadJson(const std::string& dir, const std::string& name, bool required) {
  auto text = RecReadFile(dir + "/" + name, required);
  if (!text.ok()) return text.status();
  if (text->empty()) return RJson();
  RJson j = RJson::parse(text.value(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument(dir + "/" + name + " is not JSON");
  return j;
}

// A list as UFM answers one: bare, or wrapped in {"data": [...]}.
RJson RecListOf(const RJson& j, bool* wrapped = nullptr) {
  if (wrapped) *wrapped = j.is_object() && j.contains("data");
  if (j.is_object() && j.contains("data") && j["data"].is_array()) return j["data"];
  return j.is_array() ? j : RJson::array();
}

std::string RecText(const RJson& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

HttpResponse RecAnswer(int status, const RJson& body) {
  return HttpResponse::Text(status, body.dump(-1, ' ', false, RJson::error_handler_t::replace),
                            "application/json");
}

std::string RecNow(bool millis) {
  const std::string t = FormatUfmTime(std::chrono::system_clock::now());
  return millis ? t + ".000" : t;
}

}  // namespace

// A link's ends as the service reads them: explicit port names, else the halves of "name"; and
// its cable's serial ("NA" and "N/A" are none).
RecordedUfm::LinkEnds RecordedUfm::EndsOf(const Json& link) {
  LinkEnds l{AsciiLower(RecText(link, "source_port_name")),
             AsciiLower(RecText(link, "destination_port_name")), ""};
  const std::string name = AsciiLower(RecText(link, "name"));
  const size_t colon = name.find(':');
  if ((l.a.empty() || l.b.empty()) && colon != std::string::npos) {
    l.a = name.substr(0, colon);
    l.b = name.substr(colon + 1);
  }
  if (auto info = link.find("cable_info"); info != link.end() && info->is_object()) {
    l.serial = RecText(*info, "serial_number");
  }
  if (l.serial.empty()) l.serial = RecText(link, "serial_number");
  if (AsciiUpper(l.serial) == "NA" || AsciiUpper(l.serial) == "N/A") l.serial.clear();
  return l;
}

Result<std::unique_ptr<RecordedUfm>> RecordedUfm::Load(const std::string& dir, std::string user,
                                                       std::string password) {
  std::unique_ptr<RecordedUfm> u(new RecordedUfm(std::move(user), std::move(password)));
  auto meta = RecReadJson(dir, "ufm.json", false);
  if (!meta.ok()) return meta.status();
  if (meta->is_object()) {
    if (auto v = ParseUfmVersion(RecText(meta.value(), "ufm_version"))) u->version_ = *v;
  }
  auto ports = RecReadJson(dir, "ports.json", true);
  if (!ports.ok()) return ports.status();
  u->ports_ = RecListOf(ports.value());
  if (u->ports_.empty()) return Status::InvalidArgument(dir + "/ports.json lists no ports");
  auto links = RecReadJson(dir, "links.json", false);
  if (!links.ok()) return links.status();
  u->links_ = RecListOf(links.value(), &u->links_wrapped_);
  for (const auto& l : u->links_) u->link_ends_.push_back(EndsOf(l));
  u->link_down_.assign(u->links_.size(), false);
  auto events = RecReadJson(dir, "events.json", false);
  if (!events.ok()) return events.status();
  u->events_ = RecListOf(events.value());
  for (const auto& e : u->events_) {
    if (e.contains("id") && e["id"].is_number_integer()) {
      u->next_event_id_ = std::max(u->next_event_id_, e["id"].get<int64_t>() + 1);
    }
  }
  auto unhealthy = RecReadJson(dir, "unhealthy_ports.json", false);
  if (!unhealthy.ok()) return unhealthy.status();
  u->unhealthy_ = RecListOf(unhealthy.value());
  auto jobs = RecReadJson(dir, "jobs.json", false);
  if (!jobs.ok()) return jobs.status();
  const RJson job_list = RecListOf(jobs.value());
  if (!job_list.empty() && job_list[0].is_object()) u->jobs_example_ = job_list[0];
  auto telemetry = RecReadFile(dir + "/telemetry.csv", false);
  if (!telemetry.ok()) return telemetry.status();
  u->telemetry_ = telemetry.value();
  return u;
}

size_t RecordedUfm::port_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ports_.size();
}

HttpResponse RecordedUfm::Answer(const HttpRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (r.path == "/csv/metrics") return Telemetry();  // every poll: not kept
  requests_.push_back({{"method", r.method}, {"target", r.target}, {"body", r.body}});
  if (r.path.rfind("/sim/", 0) == 0) return Control(r);
  // UFM's ways in, as ufm-sim lets them in (basic auth, a session, a token, the UFM host).
  if (r.method == "POST" && r.path == "/dologin") return access_.Login(r);
  HttpRequest in = r;
  if (auto refused = access_.Admit(in)) return *refused;
  if (in.path.rfind("/ufmRest/", 0) != 0) return HttpResponse::Error(404, "not found");
  if (in.method == "POST" && in.path == "/ufmRest/app/tokens") return access_.IssueToken(in);
  return Rest(in, in.path.substr(std::string("/ufmRest").size()));
}

HttpResponse RecordedUfm::Rest(const HttpRequest& r, const std::string& path) {
  const bool get = r.method == "GET";
  if (get && path == "/resources/ports") {
    // As ufm-sim: a disabled port only when asked for.
    const bool show_disabled = AsciiLower(r.Query("show_disabled")) == "true";
    RJson out = RJson::array();
    for (const auto& p : ports_) {
      if (show_disabled || RecText(p, "physical_state") != "Disabled") out.push_back(p);
    }
    return RecAnswer(200, out);
  }
  if (get && path.rfind("/resources/ports/", 0) == 0) {
    RJson* p = Port(path.substr(std::string("/resources/ports/").size()));
    return p ? RecAnswer(200, RJson::array({*p})) : HttpResponse::Error(404, "no such port");
  }
  if (get && path == "/resources/links") return Links(r);
  if (get && path == "/app/events") return RecAnswer(200, events_);
  if (get && path == "/app/unhealthy_ports") return RecAnswer(200, unhealthy_);
  if (get && path == "/app/ufm_version") {
    return RecAnswer(200, {{"ufm_release_version", std::to_string(version_ / 100) + "." +
                                                       std::to_string(version_ % 100)}});
  }
  if (get && path == "/jobs") {
    RJson list = RJson::array();
    for (const auto& [id, job] : jobs_) list.push_back(job.doc);
    return RecAnswer(200, list);
  }
  if (get && path.rfind("/jobs/", 0) == 0) return JobAnswer(path.substr(6));
  if (r.method == "POST" && path == "/actions") return Action(r.body);
  if (r.method == "POST" && path == "/app/events/external_event") {
    RJson body = RJson::parse(r.body, nullptr, false);
    if (!body.is_object() || !body.contains("event_id")) {
      return HttpResponse::Error(400, "bad external event");
    }
    // As ufm-sim: the event UFM adds to its list (551 to 554, `%s`), and the body as it came.
    const int id = body["event_id"].is_number_integer() ? body["event_id"].get<int>() : 0;
    external_.push_back({{"id", next_event_id_}, {"body", body}});
    Emit(id, "Grid", "Grid", "Grid", {RecText(body, "description")});
    return RecAnswer(200, RJson::object());
  }
  return HttpResponse::Error(404, "not found");
}

HttpResponse RecordedUfm::Links(const HttpRequest& r) const {
  RJson out = RJson::array();
  for (size_t i = 0; i < links_.size(); ++i) {
    if (!link_down_[i]) out.push_back(links_[i]);  // a link that is down is not listed
  }
  if (r.query.count("page_number") || r.query.count("rpp")) return RecAnswer(200, {{"data", out}});
  return RecAnswer(200, out);
}

HttpResponse RecordedUfm::Control(const HttpRequest& r) {
  if (r.method == "GET" && r.path == "/sim/requests") return RecAnswer(200, requests_);
  if (r.method == "GET" && r.path == "/sim/external_events") return RecAnswer(200, external_);
  if (r.method == "GET" && r.path == "/sim/actions") {
    RJson out = RJson::array();
    for (const auto& [id, job] : jobs_) {
      out.push_back({{"action", job.action}, {"port", job.port}, {"job_id", id}});
    }
    return RecAnswer(200, out);
  }
  RJson body = RJson::parse(r.body, nullptr, false);
  if (r.method != "POST" || !body.is_object()) return HttpResponse::Error(404, "not found");
  const std::string port = AsciiLower(RecText(body, "port"));
  Status s = Status::InvalidArgument("unknown control request");
  if (r.path == "/sim/faults") {
    s = RecText(body, "kind") == "link_down"
            ? LinkDown(port)
            : Status::InvalidArgument("a recording simulates kind link_down only");
  } else if (r.path == "/sim/operator") {
    s = RecText(body, "action") == "isolate"
            ? Isolate(port)
            : Status::InvalidArgument("a recording's operator only isolates");
  }
  if (!s.ok()) return HttpResponse::FromStatus(s);
  return RecAnswer(200, {{"ok", true}});
}

RJson* RecordedUfm::Port(const std::string& name) {
  for (auto& p : ports_) {
    if (AsciiLower(RecText(p, "name")) == AsciiLower(name)) return &p;
  }
  return nullptr;
}

const RecordedUfm::LinkEnds* RecordedUfm::LinkOf(const std::string& port) const {
  for (const auto& l : link_ends_) {
    if (l.a == port || l.b == port) return &l;
  }
  return nullptr;
}

std::string RecordedUfm::DescribeEnd(const std::string& port) {
  const RJson* p = Port(port);
  if (!p) return port;
  const bool sw = RecText(*p, "description") == "Switch IB Port";
  return std::string("(") + (sw ? "Switch:" : "Computer:") + RecText(*p, "node_description") + ")" +
         RecText(*p, "guid") + ":" + RecText(*p, "number");
}

void RecordedUfm::Emit(int event_id, const std::string& object_type, const std::string& object_name,
                       const std::string& object_path, const std::vector<std::string>& args) {
  const UfmEventType* t = FindUfmEventType(event_id);
  // The recording's own layout: its last event's fields, else the version's.
  const bool layout_617 = events_.empty() ? version_ >= 617 : events_.back().contains("event_type");
  RJson e = events_.empty() ? RJson::object() : events_.back();
  e["id"] = next_event_id_++;
  e["name"] = t ? t->name : "";
  e["type"] = layout_617 ? object_type : std::to_string(event_id);
  if (layout_617) e["event_type"] = std::to_string(event_id);
  e["severity"] = t ? t->severity : "Info";
  e["timestamp"] = RecNow(!layout_617);
  e["counter"] = layout_617 ? RJson("N/A") : RJson();
  e["category"] = t ? t->category : "";
  e["object_name"] = object_name;
  e["object_path"] = object_path;
  std::string text = t ? FillTemplate(t->message_template, args) : "";
  while (!text.empty() && text.back() == ' ') text.pop_back();
  e["description"] = text;
  events_.push_back(std::move(e));
}

Status RecordedUfm::LinkDown(const std::string& port) {
  const LinkEnds* l = LinkOf(port);
  if (!l) return Status::NotFound("no link of '" + port + "' in the recording");
  link_down_[static_cast<size_t>(l - link_ends_.data())] = true;
  for (const std::string& end : {l->a, l->b}) {
    RJson* p = Port(end);
    if (!p || RecText(*p, "physical_state") == "Disabled") continue;
    (*p)["logical_state"] = "Down";
    (*p)["physical_state"] = "Polling";
  }
  // 329 "Link is Down", `Link went down: %s `, the ends and the cable as newer UFMs write them.
  Emit(329, "Link", l->a + ":" + l->b, l->a + ":" + l->b,
       {DescribeEnd(l->a) + " - " + DescribeEnd(l->b) +
        (l->serial.empty() ? "" : ", cable S/N: " + l->serial)});
  spdlog::info("recording: link {} - {} down", l->a, l->b);
  return Status::Ok();
}

Status RecordedUfm::Isolate(const std::string& port) {
  RJson* p = Port(port);
  if (!p) return Status::NotFound("no port '" + port + "' in the recording");
  const std::string name = RecText(*p, "name");
  RJson entry = unhealthy_.empty() ? RJson::object() : unhealthy_.front();
  const size_t underscore = name.find('_');
  const std::string number = underscore == std::string::npos ? "" : name.substr(underscore + 1);
  if (number.empty() || number.size() > 4 ||
      number.find_first_not_of("0123456789") != std::string::npos) {
    return Status::InvalidArgument("port '" + name + "' is not named <guid>_<number>");
  }
  entry["UnhealthyGUID"] = name.substr(0, underscore);
  entry["UnhealthyPortNumber"] = std::stoi(number);
  entry["UnhealthyNode"] = RecText(*p, "system_name");
  entry["Condition"] = "MANUAL";
  if (entry.contains("UnhealthyPortDname")) entry["UnhealthyPortDname"] = RecText(*p, "dname");
  if (entry.contains("UnhealthyPort")) {
    entry["UnhealthyPort"] = RecText(*p, "system_name") + "/" + RecText(*p, "dname");
  }
  unhealthy_.push_back(std::move(entry));
  const bool sw = RecText(*p, "description") == "Switch IB Port";
  const std::string node = RecText(*p, "node_description");
  // 702 "Unhealthy IB Port", `Peer Port %s is considered by SM as unhealthy due to %s.`
  Emit(702, "Port", name, name, {sw ? node : node + ":" + RecText(*p, "number"), "MANUAL"});
  return Status::Ok();
}

HttpResponse RecordedUfm::Action(const std::string& body) {
  RJson req = RJson::parse(body, nullptr, false);
  if (!req.is_object() || !req.contains("params") || !req["params"].is_object()) {
    return HttpResponse::Error(400, "bad action");
  }
  const std::string port = AsciiLower(RecText(req["params"], "port_id"));
  const std::string action = RecText(req, "action");
  if (!Port(port) || (action != "disable" && action != "enable")) {
    return HttpResponse::Error(400, "bad action");
  }
  const std::string id = std::to_string(next_job_++);
  // The recording's job fields when it has one (jobs.json), else the REST guide's.
  RJson doc = jobs_example_.empty()
                  ? RJson{{"ID", ""},      {"Status", ""},     {"Operation", ""},
                          {"Progress", 0}, {"Summary", ""},    {"RelatedObjects", RJson::array()},
                          {"Created", ""}, {"LastUpdated", ""}}
                  : jobs_example_;
  doc["ID"] = id;
  doc["Status"] = "Running";
  doc["Operation"] = action == "disable" ? "Disable Port" : "Enable Port";
  doc["Progress"] = 0;
  doc["Summary"] = "";
  doc["RelatedObjects"] = RJson::array({port});
  doc["LastUpdated"] = RecNow(false);
  jobs_[id] = Job{doc, port, action, 0};
  HttpResponse out = RecAnswer(202, RJson::object());
  out.headers.emplace_back("Location", "/ufmRest/jobs/" + id);
  return out;
}

HttpResponse RecordedUfm::JobAnswer(const std::string& id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return RecAnswer(200, RJson::array());  // UFM: an unknown job is []
  Job& job = it->second;
  if (job.reads++ > 0 && job.doc["Status"] == "Running") {
    job.doc["Status"] = "Completed";
    job.doc["Progress"] = 100;
    job.doc["LastUpdated"] = RecNow(false);
    RJson& p = *Port(job.port);
    const LinkEnds* l = LinkOf(job.port);
    const bool down = l && link_down_[static_cast<size_t>(l - link_ends_.data())];
    p["logical_state"] = job.action == "disable" || down ? "Down" : "Active";
    p["physical_state"] = job.action == "disable" ? "Disabled" : down ? "Polling" : "Link Up";
    // 336 "Port Action Succeeded", `Port %s action %s succeeded`.
    Emit(336, "Port", job.port, job.port, {job.port, job.action});
  }
  return RecAnswer(200, job.doc);
}

HttpResponse RecordedUfm::Telemetry() const {
  if (telemetry_.empty()) return HttpResponse::Error(404, "the recording has no telemetry");
  // The recorded sample, stamped now (microseconds), so each poll is a new sample.
  const std::string now = std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count());
  std::istringstream lines(telemetry_);
  std::string line, out;
  int column = -1;
  while (std::getline(lines, line)) {
    if (column < 0 && out.empty()) {
      std::istringstream cells(line);
      std::string cell;
      for (int i = 0; std::getline(cells, cell, ','); ++i) {
        if (AsciiLower(TrimSpace(cell)) == "timestamp") column = i;
      }
      out += line + "\n";
      continue;
    }
    std::string row;
    std::istringstream cells(line);
    std::string cell;
    for (int i = 0; std::getline(cells, cell, ','); ++i) {
      row += (i ? "," : "") + (i == column ? now : cell);
    }
    if (!line.empty() && line.back() == ',') row += ",";
    out += row + "\n";
  }
  return HttpResponse::Text(200, out, "text/csv");
}

}  // namespace ufmr::sim
