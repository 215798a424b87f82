#include "sim/sim_state.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "sim/sim_requests.h"

namespace ufmr::sim {

namespace {

using Json = nlohmann::json;

// NDR 4x moves 400 Gb/s = 12.5e9 four-byte words per second.
constexpr double kNdrWordsPerSecond = 12.5e9;

TimePoint::duration ToDuration(double seconds) {
  return std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(seconds));
}

double SecondsBetween(TimePoint from, TimePoint to) {
  return std::chrono::duration<double>(to - from).count();
}

// Counters are whole numbers; the epsilon keeps 499.9999999 (from many 0.1 s steps) at 500.
uint64_t Whole(double v) { return v <= 0 ? 0 : static_cast<uint64_t>(std::floor(v + 1e-6)); }

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
  // 328 "Link is Up" (`Link is up: %s `), 329 "Link is Down" (`Link went down: %s `), the ends
  // and the cable as newer UFMs write them.
  FromEventTable(up ? kEventLinkUp : kEventLinkDown,
                 {DescribePort(l.a) + " - " + DescribePort(l.b) + ", cable S/N: " + l.cable_serial},
                 &e);
  e.type = "Link";
  e.object_name = a.name + ":" + b.name;
  e.object_path = e.object_name;
  e.write_to_syslog = true;
  e.time = t;
  Emit(std::move(e));
}

void SimState::EmitPortActionEvent(int port, bool disabled, TimePoint t) {
  const Port& p = topology_.ports()[port];
  Event e;
  // 336 "Port Action Succeeded", `Port %s action %s succeeded`, category Maintenance.
  FromEventTable(kEventPortActionSucceeded, {p.name, disabled ? "disable" : "enable"}, &e);
  e.type = "Port";
  e.object_name = p.name;
  e.object_path = p.name;
  e.write_to_syslog = true;
  e.time = t;
  Emit(std::move(e));
}

void SimState::EmitUnhealthyEvent(int port, const std::string& condition, TimePoint t) {
  const Port& p = topology_.ports()[port];
  Event e;
  Port described = p;
  described.node_description = NodeDescriptionLocked(port);
  // 702 "Unhealthy IB Port", `Peer Port %s is considered by SM as unhealthy due to %s.`
  FromEventTable(kEventPortUnhealthy, {PeerPortRef(described), condition}, &e);
  e.type = "Port";
  e.object_name = p.name;
  e.object_path = p.name;
  SetIbPortObject(p, described.node_description, options_.ufm_version, &e);
  e.write_to_syslog = true;
  e.time = t;
  Emit(std::move(e));
}

void SimState::EmitRebootEvent(const Fault& f, bool up, TimePoint t) {
  const Node& node = topology_.nodes()[f.node];
  Event e;
  e.write_to_syslog = true;
  e.time = t;
  if (f.kind == FaultKind::kSwitchReboot) {
    // 907 "Switch is Down" / 908 "Switch is Up": `Site configuration changes: %s Switch is Down`.
    FromEventTable(up ? kEventSwitchUp : kEventSwitchDown, {node.name}, &e);
    e.type = "Switch";
    e.object_name = node.system_guid;
    e.object_path = "default / Switch: " + node.name;
    e.log_object = e.object_path;
    e.dev_id = node.system_guid;
  } else {
    // 331 "Node is Down" / 332 "Node is Up": `Site configuration changes: %s node is Down`.
    FromEventTable(up ? kEventNodeUp : kEventNodeDown, {node.name}, &e);
    e.type = "Computer";
    e.object_name = node.name;
    e.object_path = "default / Computer: " + node.name;
    e.log_object = "Computer: " + node.name;
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
  Result<Fault> read = ReadFault(body, topology_);
  if (!read.ok()) return read.status();
  Fault f = std::move(read.value());
  std::lock_guard<std::mutex> lock(mu_);
  if (IsReboot(f.kind)) return AddRebootLocked(std::move(f), now);
  AdvanceLocked(now);
  f.id = next_fault_id_++;
  f.created = now_;
  if (f.kind == FaultKind::kFlap) {
    f.flap_down = true;
    f.next_toggle = now_ + ToDuration(f.interval_s);
  }
  SettleLink(f.link, now_);
  faults_[f.id] = f;
  UpdateLink(f.link, now_);
  const Link& l = topology_.links()[f.link];
  spdlog::info("fault {} {} on link {} - {}", f.id, FaultKindName(f.kind),
               topology_.ports()[l.a].name, topology_.ports()[l.b].name);
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
  Result<ActionRequest> request = ReadAction(body, topology_);
  if (!request.ok()) return request.status();
  const std::string& action = request->action;
  const Port& p = topology_.ports()[request->port];
  std::lock_guard<std::mutex> lock(mu_);
  AdvanceLocked(now);
  Job job;
  job.id = next_job_id_++;
  job.action = action;
  job.operation = action == "disable" ? "Disable Port" : "Enable Port";
  job.port = request->port;
  job.status = "Running";
  job.summary = (action == "disable" ? "Disabling port " : "Enabling port ") + p.name;
  job.description = request->description;
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
  Result<HealthRequest> request = ReadPortsHealth(body, topology_);
  if (!request.ok()) return request.status();
  HealthChange change;
  change.policy = request->policy;
  const bool isolate = change.policy == "UNHEALTHY";
  std::lock_guard<std::mutex> lock(mu_);
  AdvanceLocked(now);
  for (int port : request->ports) {
    const std::string& name = topology_.ports()[port].name;
    change.ports.push_back(name);
    const bool changed = isolate ? IsolateLocked(port, "MANUAL", now_) : HealLocked(port);
    if (changed) change.changed.push_back(name);
    actions_.push_back(ActionRecord{now_, isolate ? "isolate" : "healthy", name, 0, "Completed"});
  }
  return change;
}

Result<OperatorRecord> SimState::OperatorAction(const Json& body, TimePoint now) {
  Result<OperatorRequest> request = ReadOperatorAction(body, topology_);
  if (!request.ok()) return request.status();
  const int port = request->port;
  OperatorRecord record;
  record.action = request->action;
  std::lock_guard<std::mutex> lock(mu_);
  AdvanceLocked(now);
  record.time = now_;
  record.port = topology_.ports()[port].name;
  if (record.action == "disable" || record.action == "enable") {
    record.changed = SetDisabledLocked(port, record.action == "disable", now_);
  } else if (record.action == "isolate") {
    record.changed = IsolateLocked(port, "MANUAL", now_);
  } else {
    record.changed = HealLocked(port);
  }
  spdlog::info("operator: {} port {} ({})", record.action, record.port,
               record.changed ? "changed" : "nothing to change");
  operator_actions_.push_back(record);
  return record;
}

Result<Event> SimState::AddExternalEvent(const Json& body, TimePoint now) {
  Result<Event> read = ReadExternalEvent(body);
  if (!read.ok()) return read.status();
  Event e = std::move(read.value());
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
