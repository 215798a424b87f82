#include "sim/sim_state.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <random>
#include <set>

namespace ufmr::sim {

namespace {

using Json = nlohmann::json;

// NDR 4x moves 400 Gb/s = 12.5e9 four-byte words per second.
constexpr double kNdrWordsPerSecond = 12.5e9;

constexpr double kMinFlapIntervalS = 0.1;
constexpr double kMaxFlapIntervalS = 86400;
constexpr double kMaxRate = 1e9;

TimePoint::duration ToDuration(double seconds) {
  return std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(seconds));
}

double SecondsBetween(TimePoint from, TimePoint to) {
  return std::chrono::duration<double>(to - from).count();
}

// Counters are whole numbers; the epsilon keeps 499.9999999 (from many 0.1 s steps) at 500.
uint64_t Whole(double v) { return v <= 0 ? 0 : static_cast<uint64_t>(std::floor(v + 1e-6)); }

Status CheckKeys(const Json& body, const std::set<std::string>& allowed, const std::string& what) {
  for (const auto& [key, value] : body.items()) {
    if (!allowed.count(key)) {
      return Status::InvalidArgument("unknown field '" + key + "' in " + what);
    }
  }
  return Status::Ok();
}

Status ReadString(const Json& body, const std::string& key, bool required, std::string* out) {
  auto it = body.find(key);
  if (it == body.end()) {
    return required ? Status::InvalidArgument("missing field '" + key + "'") : Status::Ok();
  }
  if (!it->is_string()) return Status::InvalidArgument("field '" + key + "' must be a string");
  *out = it->get<std::string>();
  if (required && out->empty()) return Status::InvalidArgument("field '" + key + "' is empty");
  return Status::Ok();
}

Status ReadNumber(const Json& body, const std::string& key, double min, double max, double* out) {
  auto it = body.find(key);
  if (it == body.end()) return Status::Ok();  // keep the default
  if (!it->is_number()) return Status::InvalidArgument("field '" + key + "' must be a number");
  double v = it->get<double>();
  if (!std::isfinite(v) || v < min || v > max) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "field '%s' must be between %g and %g", key.c_str(), min, max);
    return Status::InvalidArgument(buf);
  }
  *out = v;
  return Status::Ok();
}

}  // namespace

const char* FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kLinkDown:
      return "link_down";
    case FaultKind::kFlap:
      return "flap";
    case FaultKind::kSymbolErrors:
      return "symbol_errors";
  }
  return "unknown";
}

std::string FormatUfmTime(TimePoint t) {
  std::time_t secs =
      std::chrono::system_clock::to_time_t(std::chrono::time_point_cast<std::chrono::seconds>(t));
  if (std::chrono::time_point_cast<std::chrono::seconds>(t) > t) --secs;  // floor before 1970
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string FormatEventLogLine(const Event& e) {
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(e.time.time_since_epoch()).count();
  char frac[8];
  std::snprintf(frac, sizeof(frac), ".%03d", static_cast<int>(((ms % 1000) + 1000) % 1000));
  std::string severity = e.severity;
  for (auto& c : severity) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string category = e.category;
  std::replace(category.begin(), category.end(), ' ', '_');
  std::string object = e.object_name;
  size_t colon = object.find(':');
  if (e.type == "Link" && colon != std::string::npos) {
    object = "Source " + object.substr(0, colon) + "  TO Dest: " + object.substr(colon + 1);
  }
  return FormatUfmTime(e.time) + frac + " [" + std::to_string(e.id) + "] [" + e.event_type + "] " +
         severity + " [" + category + "] " + e.type + " [" + object + "]: " + e.description;
}

SimState::SimState(Topology topology, SimOptions options, TimePoint start)
    : topology_(std::move(topology)), options_(options), now_(start) {
  const size_t ports = topology_.ports().size();
  disabled_.assign(ports, false);
  counters_.assign(ports, Accumulators{});
  std::mt19937_64 rng(options_.seed ^ 0x5eed5eed5eedULL);
  std::uniform_real_distribution<double> utilization(0.05, 0.40);
  std::uniform_real_distribution<double> packet_words(256, 1024);
  auto direction = [&] {
    Direction d;
    d.words_per_s = kNdrWordsPerSecond * utilization(rng);
    d.pkts_per_s = d.words_per_s / packet_words(rng);
    return d;
  };
  links_.resize(topology_.links().size());
  for (LinkRuntime& link : links_) {
    link.up = true;
    link.settled = start;
    link.a_to_b = direction();
    link.b_to_a = direction();
  }
}

TimePoint SimState::now() const {
  std::lock_guard<std::mutex> lock(mu_);
  return now_;
}

void SimState::Advance(TimePoint now) {
  std::lock_guard<std::mutex> lock(mu_);
  AdvanceLocked(now);
}

void SimState::AdvanceLocked(TimePoint now) {
  now = Clamp(now);
  // Apply scheduled instants (flap toggles, job completions) in time order.
  while (true) {
    Fault* flap = nullptr;
    Job* job = nullptr;
    std::optional<TimePoint> best;
    for (auto& [id, f] : faults_) {
      if (f.kind == FaultKind::kFlap && f.next_toggle <= now && (!best || f.next_toggle < *best)) {
        best = f.next_toggle;
        flap = &f;
      }
    }
    for (auto& [id, j] : jobs_) {
      if (j.status == "Running" && j.due <= now && (!best || j.due < *best)) {
        best = j.due;
        job = &j;
        flap = nullptr;
      }
    }
    if (flap == nullptr && job == nullptr) break;
    const TimePoint at = Clamp(*best);
    now_ = at;
    if (flap != nullptr) {
      const int link = flap->link;
      SettleLink(link, at);
      flap->flap_down = !flap->flap_down;
      flap->next_toggle += ToDuration(flap->interval_s);
      UpdateLink(link, at);
    } else {
      CompleteJob(*job, at);
    }
  }
  now_ = now;
  for (size_t link = 0; link < links_.size(); ++link) SettleLink(static_cast<int>(link), now_);
}

void SimState::SettleLink(int link, TimePoint t) {
  LinkRuntime& lr = links_[link];
  if (t <= lr.settled) return;
  const double dt = SecondsBetween(lr.settled, t);
  lr.settled = t;
  if (!lr.up) return;
  const Link& l = topology_.links()[link];
  Accumulators& a = counters_[l.a];
  Accumulators& b = counters_[l.b];
  a.xmit_data += lr.a_to_b.words_per_s * dt;
  a.xmit_pkts += lr.a_to_b.pkts_per_s * dt;
  b.rcv_data += lr.a_to_b.words_per_s * dt;
  b.rcv_pkts += lr.a_to_b.pkts_per_s * dt;
  b.xmit_data += lr.b_to_a.words_per_s * dt;
  b.xmit_pkts += lr.b_to_a.pkts_per_s * dt;
  a.rcv_data += lr.b_to_a.words_per_s * dt;
  a.rcv_pkts += lr.b_to_a.pkts_per_s * dt;
  for (const auto& [id, f] : faults_) {
    if (f.link != link || f.kind != FaultKind::kSymbolErrors) continue;
    a.symbol_errors += f.rate * dt;
    b.symbol_errors += f.rate * dt;
    a.rcv_errors += f.rcv_errors_rate * dt;
    b.rcv_errors += f.rcv_errors_rate * dt;
  }
}

bool SimState::ComputeLinkUp(int link) const {
  const Link& l = topology_.links()[link];
  if (disabled_[l.a] || disabled_[l.b]) return false;
  for (const auto& [id, f] : faults_) {
    if (f.link != link) continue;
    if (f.kind == FaultKind::kLinkDown) return false;
    if (f.kind == FaultKind::kFlap && f.flap_down) return false;
  }
  return true;
}

void SimState::UpdateLink(int link, TimePoint t) {
  SettleLink(link, t);
  LinkRuntime& lr = links_[link];
  const bool up = ComputeLinkUp(link);
  if (up == lr.up) return;
  lr.up = up;
  const Link& l = topology_.links()[link];
  if (!up) {
    ++counters_[l.a].link_downed;
    ++counters_[l.b].link_downed;
  }
  EmitLinkEvent(link, up, t);
}

void SimState::ResetEventIds() {
  std::lock_guard<std::mutex> lock(mu_);
  events_.clear();
  next_event_id_ = 1;
}

void SimState::SkipEventIds(int64_t count) {
  std::lock_guard<std::mutex> lock(mu_);
  if (count > 0) next_event_id_ += count;
}

void SimState::Emit(Event event) {
  event.id = next_event_id_++;
  spdlog::debug("event {} [{}] {}: {}", event.id, event.event_type, event.name, event.description);
  if (options_.on_event_line) options_.on_event_line(FormatEventLogLine(event));
  events_.push_back(std::move(event));
  while (events_.size() > options_.max_events) events_.pop_front();
}

std::string SimState::DescribePort(int port) const {
  const Port& p = topology_.ports()[port];
  return std::string("(") + (p.is_switch ? "Switch:" : "Computer:") + p.node_description + ")" +
         p.guid + ":" + std::to_string(p.number);
}

void SimState::EmitLinkEvent(int link, bool up, TimePoint t) {
  const Link& l = topology_.links()[link];
  const Port& a = topology_.ports()[l.a];
  const Port& b = topology_.ports()[l.b];
  Event e;
  e.name = up ? "Link went up" : "Link went down";
  e.type = "Link";
  e.event_type = up ? kEventLinkUp : kEventLinkDown;
  e.severity = up ? "Info" : "Warning";
  e.category = "Fabric Topology";
  e.object_name = a.name + ":" + b.name;
  e.object_path = e.object_name;
  e.description = e.name + ": " + DescribePort(l.a) + " - " + DescribePort(l.b) +
                  ", cable S/N: " + l.cable_serial;
  e.write_to_syslog = true;
  e.time = t;
  Emit(std::move(e));
}

void SimState::EmitPortActionEvent(int port, bool disabled, TimePoint t) {
  const Port& p = topology_.ports()[port];
  Event e;
  e.name = disabled ? "Port Action Disable Succeeded" : "Port Action Enable Succeeded";
  e.type = "Port";
  e.event_type = disabled ? kEventPortDisabled : kEventPortEnabled;
  e.severity = "Info";
  e.category = "Fabric Notification";
  e.object_name = p.name;
  e.object_path = p.name;
  e.description = e.name + ": port " + p.name + " (" +
                  (p.is_switch ? p.system_name : p.node_description) + " port " + p.label + ")";
  e.write_to_syslog = true;
  e.time = t;
  Emit(std::move(e));
}

void SimState::CompleteJob(Job& job, TimePoint t) {
  const Port& p = topology_.ports()[job.port];
  const bool disable = job.action == "disable";
  job.progress = 100;
  job.last_updated = t;
  if (disabled_[job.port] == disable) {
    job.status = "Completed With Warnings";
    job.summary = "Port " + p.name + " is already " + (disable ? "disabled" : "enabled") +
                  "; nothing was changed";
  } else {
    SettleLink(p.link, t);
    disabled_[job.port] = disable;
    EmitPortActionEvent(job.port, disable, t);
    UpdateLink(p.link, t);
    job.status = "Completed";
    job.summary =
        "Port " + p.name + " (" + p.node_description + ") " + (disable ? "disabled" : "enabled");
  }
  spdlog::info("job {} {}: {}", job.id, job.status, job.summary);
}

Result<Fault> SimState::AddFault(const Json& body, TimePoint now) {
  if (!body.is_object()) return Status::InvalidArgument("fault body must be a JSON object");
  std::string kind_name;
  std::string port_name;
  if (Status s = ReadString(body, "kind", true, &kind_name); !s.ok()) return s;
  Fault f;
  std::set<std::string> allowed = {"kind", "port"};
  if (kind_name == "link_down") {
    f.kind = FaultKind::kLinkDown;
  } else if (kind_name == "flap") {
    f.kind = FaultKind::kFlap;
    f.interval_s = 2;
    allowed.insert("interval_s");
    if (Status s =
            ReadNumber(body, "interval_s", kMinFlapIntervalS, kMaxFlapIntervalS, &f.interval_s);
        !s.ok()) {
      return s;
    }
  } else if (kind_name == "symbol_errors") {
    f.kind = FaultKind::kSymbolErrors;
    f.rate = 50;
    allowed.insert({"rate", "rcv_errors_rate"});
    if (Status s = ReadNumber(body, "rate", 0, kMaxRate, &f.rate); !s.ok()) return s;
    if (Status s = ReadNumber(body, "rcv_errors_rate", 0, kMaxRate, &f.rcv_errors_rate); !s.ok()) {
      return s;
    }
  } else {
    return Status::InvalidArgument("unknown fault kind '" + kind_name +
                                   "' (expected link_down, flap or symbol_errors)");
  }
  if (Status s = ReadString(body, "port", true, &port_name); !s.ok()) return s;
  if (Status s = CheckKeys(body, allowed, kind_name + " fault"); !s.ok()) return s;
  std::optional<int> port = topology_.FindPort(port_name);
  if (!port) return Status::NotFound("unknown port '" + port_name + "'");

  std::lock_guard<std::mutex> lock(mu_);
  AdvanceLocked(now);
  f.id = next_fault_id_++;
  f.link = topology_.ports()[*port].link;
  f.created = now_;
  if (f.kind == FaultKind::kFlap) {
    f.flap_down = true;
    f.next_toggle = now_ + ToDuration(f.interval_s);
  }
  SettleLink(f.link, now_);
  faults_[f.id] = f;
  UpdateLink(f.link, now_);
  const Link& l = topology_.links()[f.link];
  spdlog::info("fault {} {} on link {} - {}", f.id, kind_name, topology_.ports()[l.a].name,
               topology_.ports()[l.b].name);
  return f;
}

Result<int> SimState::Repair(const std::string& port_name, TimePoint now) {
  std::optional<int> port = topology_.FindPort(port_name);
  if (!port) return Status::NotFound("unknown port '" + port_name + "'");
  std::lock_guard<std::mutex> lock(mu_);
  AdvanceLocked(now);
  const int link = topology_.ports()[*port].link;
  SettleLink(link, now_);
  size_t removed = 0;
  for (auto it = faults_.begin(); it != faults_.end();) {
    if (it->second.link == link) {
      it = faults_.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  UpdateLink(link, now_);
  spdlog::info("repaired link of {} ({} faults cleared)", topology_.ports()[*port].name, removed);
  return link;
}

Result<Job> SimState::SubmitAction(const Json& body, TimePoint now) {
  if (!body.is_object()) return Status::InvalidArgument("action body must be a JSON object");
  if (Status s = CheckKeys(
          body, {"action", "object_type", "object_ids", "params", "description", "identifier"},
          "action body");
      !s.ok()) {
    return s;
  }
  std::string action;
  std::string object_type;
  std::string description;
  std::string identifier;
  if (Status s = ReadString(body, "action", true, &action); !s.ok()) return s;
  if (action != "disable" && action != "enable") {
    return Status::InvalidArgument("unknown action '" + action + "' (expected disable or enable)");
  }
  if (Status s = ReadString(body, "object_type", true, &object_type); !s.ok()) return s;
  if (object_type != "System") {
    return Status::InvalidArgument("object_type must be \"System\", got \"" + object_type + "\"");
  }
  if (Status s = ReadString(body, "description", false, &description); !s.ok()) return s;
  if (Status s = ReadString(body, "identifier", false, &identifier); !s.ok()) return s;
  auto ids = body.find("object_ids");
  if (ids == body.end()) return Status::InvalidArgument("missing field 'object_ids'");
  if (!ids->is_array() || ids->size() != 1 || !(*ids)[0].is_string()) {
    return Status::InvalidArgument("object_ids must be a list of exactly one system GUID");
  }
  const std::string system_id = (*ids)[0].get<std::string>();
  auto params = body.find("params");
  if (params == body.end()) return Status::InvalidArgument("missing field 'params'");
  if (!params->is_object()) return Status::InvalidArgument("params must be an object");
  if (Status s = CheckKeys(*params, {"port_id"}, "params"); !s.ok()) return s;
  std::string port_name;
  if (Status s = ReadString(*params, "port_id", true, &port_name); !s.ok()) {
    return Status::InvalidArgument("params: " + s.message());
  }
  std::optional<int> port = topology_.FindPort(port_name);
  if (!port) return Status::NotFound("unknown port '" + port_name + "'");
  const Port& p = topology_.ports()[*port];
  std::string lower_id = system_id;
  for (auto& c : lower_id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower_id != p.system_guid) {
    return Status::InvalidArgument("object_ids[0] '" + system_id + "' is not the system of port " +
                                   p.name + " (systemID " + p.system_guid + ")");
  }

  std::lock_guard<std::mutex> lock(mu_);
  AdvanceLocked(now);
  Job job;
  job.id = next_job_id_++;
  job.action = action;
  job.operation = action == "disable" ? "Disable Port" : "Enable Port";
  job.port = *port;
  job.status = "Running";
  job.summary = (action == "disable" ? "Disabling port " : "Enabling port ") + p.name;
  job.description = description;
  job.created = now_;
  job.last_updated = now_;
  job.due = now_ + options_.job_delay;
  jobs_[job.id] = job;
  actions_.push_back(ActionRecord{now_, action, p.name, job.id, ""});
  spdlog::info("action {} on port {} ({}): job {}", action, p.name, p.node_description, job.id);
  AdvanceLocked(now_);  // a zero delay completes at once
  return jobs_[job.id];
}

PortStatus SimState::StatusLocked(int port) const {
  const Port& p = topology_.ports()[port];
  PortStatus s;
  s.port = port;
  s.disabled = disabled_[port];
  s.link_up = links_[p.link].up;
  s.logical_state = s.disabled ? "Disabled" : (s.link_up ? "Active" : "Inactive");
  s.physical_state = s.link_up ? "Link Up" : "Link Down";
  const Accumulators& a = counters_[port];
  s.counters.port_xmit_data = Whole(a.xmit_data);
  s.counters.port_rcv_data = Whole(a.rcv_data);
  s.counters.port_xmit_pkts = Whole(a.xmit_pkts);
  s.counters.port_rcv_pkts = Whole(a.rcv_pkts);
  s.counters.symbol_errors = Whole(a.symbol_errors);
  s.counters.link_downed = a.link_downed;
  s.counters.port_rcv_errors = Whole(a.rcv_errors);
  return s;
}

std::vector<PortStatus> SimState::Ports() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PortStatus> out;
  out.reserve(topology_.ports().size());
  for (size_t i = 0; i < topology_.ports().size(); ++i) {
    out.push_back(StatusLocked(static_cast<int>(i)));
  }
  return out;
}

std::optional<PortStatus> SimState::PortState(int port) const {
  if (port < 0 || static_cast<size_t>(port) >= topology_.ports().size()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  return StatusLocked(port);
}

bool SimState::LinkUp(int link) const {
  std::lock_guard<std::mutex> lock(mu_);
  return links_.at(link).up;
}

std::vector<Event> SimState::Events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::vector<Event>(events_.begin(), events_.end());
}

std::optional<Job> SimState::FindJob(int64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  Job job = it->second;
  if (job.status == "Running") {
    const double total = SecondsBetween(job.created, job.due);
    const double done = SecondsBetween(job.created, now_);
    job.progress = total <= 0 ? 99 : std::clamp(static_cast<int>(100 * done / total), 0, 99);
  }
  return job;
}

std::vector<ActionRecord> SimState::Actions() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ActionRecord> out = actions_;
  for (ActionRecord& a : out) a.status = jobs_.at(a.job_id).status;
  return out;
}

std::vector<Fault> SimState::Faults() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Fault> out;
  for (const auto& [id, f] : faults_) out.push_back(f);
  return out;
}

}  // namespace ufmr::sim
