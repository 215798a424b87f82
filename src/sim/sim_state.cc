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
constexpr double kMinDownS = 0.1;
constexpr double kMaxDownS = 86400;
constexpr double kDefaultDownS = 20;

std::string LowerAscii(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string UpperAscii(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

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
    case FaultKind::kSwitchReboot:
      return "switch_reboot";
    case FaultKind::kNodeReboot:
      return "node_reboot";
  }
  return "unknown";
}

std::string UnhealthyPortDescription(const Port& port, const std::string& condition) {
  // A switch port's node description already ends in its label; an HCA's gets ":<label>".
  const std::string ref =
      port.is_switch ? port.node_description : port.node_description + ":" + port.label;
  return "Peer Port " + ref + " is considered by SM as unhealthy due to " + condition + ".";
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

namespace {

// The event log names a port as an IBPort object in UFM's older form, "<site> / <kind>: <name> /
// <label or NA> / <number>", with the node's GUID as dev_id: a switch port
// ("default(1) / Switch: ib-leaf-01 / 1/17/1 / 33", its name "<dev_id>_33" as a switch's ports are
// named by its GUID, so the REST copy of the event, which names the port, is recognised as the same
// event), a host port ("default(1) / Computer: gpu-node-001 HCA-1 / NA / 1": the dev_id is the
// node's GUID, not the port's; a reader takes the port from the description).
void SetIbPortObject(const Port& p, const std::string& node_description, Event* e) {
  e->log_type = "IBPort";
  e->dev_id = p.system_guid;
  const std::string number = std::to_string(p.number);
  e->log_object = p.is_switch
                      ? "default(1) / Switch: " + p.system_name + " / " + p.label + " / " + number
                      : "default(1) / Computer: " + node_description + " / NA / " + number;
}

}  // namespace

std::string FormatEventLogLine(const Event& e) {
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(e.time.time_since_epoch()).count();
  char frac[8];
  std::snprintf(frac, sizeof(frac), ".%03d", static_cast<int>(((ms % 1000) + 1000) % 1000));
  std::string severity = e.severity;
  for (auto& c : severity) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string category = e.category;
  std::replace(category.begin(), category.end(), ' ', '_');
  std::string object = e.log_object.empty() ? e.object_name : e.log_object;
  size_t colon = object.find(':');
  if (e.type == "Link" && e.log_object.empty() && colon != std::string::npos) {
    object = "Source " + object.substr(0, colon) + "  TO Dest: " + object.substr(colon + 1);
  }
  const std::string dev_id = e.dev_id.empty() ? "" : " [dev_id: " + e.dev_id + "]";
  const std::string& type = e.log_type.empty() ? e.type : e.log_type;
  return FormatUfmTime(e.time) + frac + " [" + std::to_string(e.id) + "] [" + e.event_type + "] " +
         severity + " [" + category + "] " + type + " [" + object + "]" + dev_id + ": " +
         e.description;
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
    Fault* reboot = nullptr;
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
    for (auto& [id, f] : faults_) {
      if (IsReboot(f.kind) && f.ends <= now && (!best || f.ends < *best)) {
        best = f.ends;
        reboot = &f;
        flap = nullptr;
        job = nullptr;
      }
    }
    if (flap == nullptr && job == nullptr && reboot == nullptr) break;
    const TimePoint at = Clamp(*best);
    now_ = at;
    if (flap != nullptr) {
      const int link = flap->link;
      SettleLink(link, at);
      flap->flap_down = !flap->flap_down;
      flap->next_toggle += ToDuration(flap->interval_s);
      UpdateLink(link, at);
    } else if (job != nullptr) {
      CompleteJob(*job, at);
    } else {
      EndRebootLocked(reboot->id, at);
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
    if (IsReboot(f.kind) && std::find(f.links.begin(), f.links.end(), link) != f.links.end()) {
      return false;
    }
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
  return std::string("(") + (p.is_switch ? "Switch:" : "Computer:") + NodeDescriptionLocked(port) +
         ")" + p.guid + ":" + std::to_string(p.number);
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
                  (p.is_switch ? p.system_name : NodeDescriptionLocked(port)) + " port " + p.label +
                  ")";
  e.write_to_syslog = true;
  e.time = t;
  Emit(std::move(e));
}

void SimState::EmitUnhealthyEvent(int port, const std::string& condition, TimePoint t) {
  const Port& p = topology_.ports()[port];
  Event e;
  e.name = "Port is considered unhealthy";
  e.type = "Port";
  e.event_type = kEventPortUnhealthy;
  e.severity = "Warning";
  e.category = "Fabric Notification";
  e.object_name = p.name;
  e.object_path = p.name;
  Port described = p;
  described.node_description = NodeDescriptionLocked(port);
  e.description = UnhealthyPortDescription(described, condition);
  SetIbPortObject(p, described.node_description, &e);
  e.write_to_syslog = true;
  e.time = t;
  Emit(std::move(e));
}

void SimState::EmitRebootEvent(const Fault& f, bool up, TimePoint t) {
  const Node& node = topology_.nodes()[f.node];
  Event e;
  e.category = "Fabric Topology";
  e.write_to_syslog = true;
  e.time = t;
  e.severity = up ? "Info" : "Critical";
  if (f.kind == FaultKind::kSwitchReboot) {
    // As UFM: "Switch [default / Switch: T3-E22-N-U48] [dev_id: 9c05...]: Switch is down".
    e.name = up ? "Switch is up" : "Switch is down";
    e.type = "Switch";
    e.event_type = up ? kEventSwitchUp : kEventSwitchDown;
    e.object_name = node.system_guid;
    e.object_path = "default / Switch: " + node.name;
    e.log_object = e.object_path;
    e.dev_id = node.system_guid;
    e.description = e.name;
  } else {
    // As UFM: "Computer [Computer: fsgb002]: Node is down: fsgb002".
    e.name = up ? "Node is up" : "Node is down";
    e.type = "Computer";
    e.event_type = up ? kEventNodeUp : kEventNodeDown;
    e.object_name = node.name;
    e.object_path = "default / Computer: " + node.name;
    e.log_object = "Computer: " + node.name;
    e.description = e.name + ": " + node.name;
  }
  Emit(std::move(e));
}

bool SimState::SetDisabledLocked(int port, bool disable, TimePoint t) {
  if (disabled_[port] == disable) return false;
  const Port& p = topology_.ports()[port];
  SettleLink(p.link, t);
  disabled_[port] = disable;
  EmitPortActionEvent(port, disable, t);
  UpdateLink(p.link, t);
  return true;
}

bool SimState::IsolateLocked(int port, const std::string& condition, TimePoint t) {
  if (isolated_.count(port)) return false;
  isolated_[port] = Isolation{port, condition, t};
  EmitUnhealthyEvent(port, condition, t);
  spdlog::info("port {} isolated ({})", topology_.ports()[port].name, condition);
  return true;
}

bool SimState::HealLocked(int port) {
  if (isolated_.erase(port) == 0) return false;
  spdlog::info("port {} healthy again", topology_.ports()[port].name);
  return true;
}

void SimState::CompleteJob(Job& job, TimePoint t) {
  const Port& p = topology_.ports()[job.port];
  const bool disable = job.action == "disable";
  job.progress = 100;
  job.last_updated = t;
  if (!SetDisabledLocked(job.port, disable, t)) {
    job.status = "Completed With Warnings";
    job.summary = "Port " + p.name + " is already " + (disable ? "disabled" : "enabled") +
                  "; nothing was changed";
  } else {
    job.status = "Completed";
    job.summary = "Port " + p.name + " (" + NodeDescriptionLocked(job.port) + ") " +
                  (disable ? "disabled" : "enabled");
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
  if (kind_name == "switch_reboot" || kind_name == "node_reboot") {
    const bool is_switch = kind_name == "switch_reboot";
    const std::string key = is_switch ? "switch" : "node";
    f.kind = is_switch ? FaultKind::kSwitchReboot : FaultKind::kNodeReboot;
    f.down_s = kDefaultDownS;
    if (Status s = ReadNumber(body, "down_s", kMinDownS, kMaxDownS, &f.down_s); !s.ok()) return s;
    std::string name;
    if (Status s = ReadString(body, key, true, &name); !s.ok()) return s;
    if (Status s = CheckKeys(body, {"kind", key, "down_s"}, kind_name + " fault"); !s.ok()) {
      return s;
    }
    // A switch by system_name or system GUID (any case, "0x" or not); a host by name.
    std::string want = LowerAscii(name);
    if (is_switch && want.rfind("0x", 0) == 0) want = want.substr(2);
    const std::vector<Node>& nodes = topology_.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
      const bool node_is_switch = nodes[i].kind != NodeKind::kHost;
      if (node_is_switch != is_switch) continue;
      if (LowerAscii(nodes[i].name) == want || (is_switch && nodes[i].system_guid == want)) {
        f.node = static_cast<int>(i);
        break;
      }
    }
    if (f.node < 0) return Status::NotFound("unknown " + key + " '" + name + "'");
    std::lock_guard<std::mutex> lock(mu_);
    return AddRebootLocked(std::move(f), now);
  }
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
    return Status::InvalidArgument(
        "unknown fault kind '" + kind_name +
        "' (expected link_down, flap, symbol_errors, switch_reboot or node_reboot)");
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
  std::vector<int64_t> reboots;
  for (auto it = faults_.begin(); it != faults_.end();) {
    const Fault& f = it->second;
    if (IsReboot(f.kind) && std::find(f.links.begin(), f.links.end(), link) != f.links.end()) {
      reboots.push_back(f.id);
      ++removed;
      ++it;
    } else if (f.link == link) {
      it = faults_.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  for (int64_t id : reboots) EndRebootLocked(id, now_);
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
  s.node_description = NodeDescriptionLocked(port);
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

const std::string& SimState::NodeDescriptionLocked(int port) const {
  auto it = node_descriptions_.find(port);
  return it == node_descriptions_.end() ? topology_.ports()[port].node_description : it->second;
}

Result<int> SimState::SetNodeDescription(const std::string& port_name,
                                         const std::string& description) {
  std::optional<int> port = topology_.FindPort(port_name);
  if (!port) return Status::NotFound("unknown port '" + port_name + "'");
  std::lock_guard<std::mutex> lock(mu_);
  if (description.empty()) {
    node_descriptions_.erase(*port);
  } else {
    node_descriptions_[*port] = description;
  }
  return *port;
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

Job SimState::WithProgress(Job job) const {
  if (job.status == "Running") {
    const double total = SecondsBetween(job.created, job.due);
    const double done = SecondsBetween(job.created, now_);
    job.progress = total <= 0 ? 99 : std::clamp(static_cast<int>(100 * done / total), 0, 99);
  }
  return job;
}

std::optional<Job> SimState::FindJob(int64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  return WithProgress(it->second);
}

std::vector<Job> SimState::Jobs() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Job> out;
  out.reserve(jobs_.size());
  for (const auto& [id, job] : jobs_) out.push_back(WithProgress(job));
  return out;
}

std::vector<ActionRecord> SimState::Actions() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ActionRecord> out = actions_;
  for (ActionRecord& a : out) {
    if (a.job_id != 0) a.status = jobs_.at(a.job_id).status;
  }
  return out;
}

std::vector<Isolation> SimState::UnhealthyPorts() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Isolation> out;
  for (const auto& [port, isolation] : isolated_) out.push_back(isolation);
  return out;
}

std::vector<OperatorRecord> SimState::OperatorActions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return operator_actions_;
}

std::vector<ExternalEventRecord> SimState::ExternalEvents() const {
  std::lock_guard<std::mutex> lock(mu_);
  return external_events_;
}

Result<Fault> SimState::AddRebootLocked(Fault f, TimePoint now) {
  AdvanceLocked(now);
  const Node& node = topology_.nodes()[f.node];
  for (const auto& [id, other] : faults_) {
    if (IsReboot(other.kind) && other.node == f.node) {
      return Status::Conflict(node.name + " is already rebooting (fault " +
                              std::to_string(other.id) + ")");
    }
  }
  f.id = next_fault_id_++;
  f.created = now_;
  f.ends = now_ + ToDuration(f.down_s);
  for (int port : node.ports) f.links.push_back(topology_.ports()[port].link);
  for (int link : f.links) SettleLink(link, now_);
  faults_[f.id] = f;
  EmitRebootEvent(f, /*up=*/false, now_);
  for (int link : f.links) UpdateLink(link, now_);
  spdlog::info("fault {} {} of {}: {} links down for {} s", f.id, FaultKindName(f.kind), node.name,
               f.links.size(), f.down_s);
  return f;
}

void SimState::EndRebootLocked(int64_t fault_id, TimePoint t) {
  auto it = faults_.find(fault_id);
  if (it == faults_.end()) return;
  const Fault f = it->second;
  for (int link : f.links) SettleLink(link, t);
  faults_.erase(it);
  EmitRebootEvent(f, /*up=*/true, t);
  for (int link : f.links) UpdateLink(link, t);
  spdlog::info("fault {} {} of {} ended", f.id, FaultKindName(f.kind),
               topology_.nodes()[f.node].name);
}

Result<HealthChange> SimState::SetPortsHealth(const Json& body, TimePoint now) {
  if (!body.is_object()) return Status::InvalidArgument("body must be a JSON object");
  if (Status s = CheckKeys(body, {"ports", "ports_policy", "action"}, "unhealthy_ports body");
      !s.ok()) {
    return s;
  }
  HealthChange change;
  std::string policy;
  if (Status s = ReadString(body, "ports_policy", true, &policy); !s.ok()) return s;
  change.policy = UpperAscii(policy);
  if (change.policy != "UNHEALTHY" && change.policy != "HEALTHY") {
    return Status::InvalidArgument("unknown ports_policy '" + policy +
                                   "' (expected UNHEALTHY or HEALTHY)");
  }
  std::string action;
  if (Status s = ReadString(body, "action", false, &action); !s.ok()) return s;
  if (body.contains("action") && action != "isolate") {
    return Status::InvalidArgument("unknown action '" + action + "' (expected isolate)");
  }
  auto list = body.find("ports");
  if (list == body.end()) return Status::InvalidArgument("missing field 'ports'");
  if (!list->is_array() || list->empty()) {
    return Status::InvalidArgument("ports must be a non-empty list of port names");
  }
  std::vector<int> ports;
  for (const Json& item : *list) {
    if (!item.is_string()) return Status::InvalidArgument("ports must be a list of port names");
    const std::string name = item.get<std::string>();
    std::optional<int> port = topology_.FindPort(name);
    if (!port) return Status::NotFound("unknown port '" + name + "'");
    if (std::find(ports.begin(), ports.end(), *port) == ports.end()) ports.push_back(*port);
  }
  const bool isolate = change.policy == "UNHEALTHY";
  std::lock_guard<std::mutex> lock(mu_);
  AdvanceLocked(now);
  for (int port : ports) {
    const std::string& name = topology_.ports()[port].name;
    change.ports.push_back(name);
    const bool changed = isolate ? IsolateLocked(port, "MANUAL", now_) : HealLocked(port);
    if (changed) change.changed.push_back(name);
    actions_.push_back(ActionRecord{now_, isolate ? "isolate" : "healthy", name, 0, "Completed"});
  }
  return change;
}

Result<OperatorRecord> SimState::OperatorAction(const Json& body, TimePoint now) {
  if (!body.is_object()) return Status::InvalidArgument("body must be a JSON object");
  if (Status s = CheckKeys(body, {"port", "action"}, "operator body"); !s.ok()) return s;
  OperatorRecord record;
  std::string port_name;
  if (Status s = ReadString(body, "action", true, &record.action); !s.ok()) return s;
  if (record.action != "disable" && record.action != "enable" && record.action != "isolate" &&
      record.action != "healthy") {
    return Status::InvalidArgument("unknown action '" + record.action +
                                   "' (expected disable, enable, isolate or healthy)");
  }
  if (Status s = ReadString(body, "port", true, &port_name); !s.ok()) return s;
  std::optional<int> port = topology_.FindPort(port_name);
  if (!port) return Status::NotFound("unknown port '" + port_name + "'");
  std::lock_guard<std::mutex> lock(mu_);
  AdvanceLocked(now);
  record.time = now_;
  record.port = topology_.ports()[*port].name;
  if (record.action == "disable" || record.action == "enable") {
    record.changed = SetDisabledLocked(*port, record.action == "disable", now_);
  } else if (record.action == "isolate") {
    record.changed = IsolateLocked(*port, "MANUAL", now_);
  } else {
    record.changed = HealLocked(*port);
  }
  spdlog::info("operator: {} port {} ({})", record.action, record.port,
               record.changed ? "changed" : "nothing to change");
  operator_actions_.push_back(record);
  return record;
}

Result<Event> SimState::AddExternalEvent(const Json& body, TimePoint now) {
  if (!body.is_object()) return Status::InvalidArgument("body must be a JSON object");
  if (Status s = CheckKeys(body,
                           {"event_id", "description", "external_event_name", "external_event_type",
                            "external_event_source"},
                           "external event");
      !s.ok()) {
    return s;
  }
  auto id = body.find("event_id");
  if (id == body.end()) return Status::InvalidArgument("missing field 'event_id'");
  if (!id->is_number_integer()) {
    return Status::InvalidArgument("event_id must be an integer from 551 to 554");
  }
  const int64_t event_id = id->get<int64_t>();
  static const char* const kSeverities[] = {"Info", "Warning", "Minor", "Critical"};
  if (event_id < 551 || event_id > 554) {
    return Status::InvalidArgument(
        "event_id must be 551 (Info), 552 (Warning), 553 (Minor) or "
        "554 (Critical), got " +
        std::to_string(event_id));
  }
  Event e;
  std::string name, type, source;
  if (Status s = ReadString(body, "description", true, &e.description); !s.ok()) return s;
  if (Status s = ReadString(body, "external_event_name", false, &name); !s.ok()) return s;
  if (Status s = ReadString(body, "external_event_type", false, &type); !s.ok()) return s;
  if (Status s = ReadString(body, "external_event_source", false, &source); !s.ok()) return s;
  e.name = name.empty() ? "External Event" : name;
  e.type = type.empty() ? "External" : type;
  e.event_type = std::to_string(event_id);
  e.severity = kSeverities[event_id - 551];
  e.category = "External";
  e.object_name = source;
  e.object_path = source;
  e.write_to_syslog = true;
  std::lock_guard<std::mutex> lock(mu_);
  AdvanceLocked(now);
  e.time = now_;
  Emit(e);
  e.id = next_event_id_ - 1;
  external_events_.push_back(ExternalEventRecord{now_, body, e.id});
  spdlog::info("external event {} [{}] {}: {}", e.id, e.event_type, e.name, e.description);
  return e;
}

std::vector<Fault> SimState::Faults() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Fault> out;
  for (const auto& [id, f] : faults_) out.push_back(f);
  return out;
}

}  // namespace ufmr::sim
