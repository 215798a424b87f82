#include "act/drain_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/crash_point.h"
#include "base/duration.h"

namespace ufmr {

namespace {

constexpr int kJobsPerPass = 10;         // tickets whose host's jobs are looked up in one pass
constexpr double kNodeCountTtlS = 3600;  // the scheduler's node count is read again after this

nlohmann::json JobsJson(const std::vector<SchedulerJob>& jobs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& j : jobs) {
    out.push_back(
        {{"id", j.id}, {"user", j.user}, {"name", j.name}, {"nodes", j.nodes}, {"state", j.state}});
  }
  return out;
}

// "3 jobs still run: 17 (alice, pretrain), ..." for a timeline.
std::string JobsWords(const std::vector<SchedulerJob>& jobs) {
  if (jobs.empty()) return "no jobs run on it";
  std::string s =
      std::to_string(jobs.size()) + (jobs.size() == 1 ? " job runs" : " jobs run") + " on it:";
  for (size_t i = 0; i < jobs.size() && i < 5; ++i) {
    s += (i ? ", " : " ") + jobs[i].id + " (" + jobs[i].user + ", " + jobs[i].name + ")";
  }
  if (jobs.size() > 5) s += ", ...";
  return s;
}

}  // namespace

struct DrainWorker::Change {
  explicit Change(const NodeDrain& d) : drain(d) {}
  NodeDrain drain;           // as it is to be recorded
  std::string ticket_state;  // the ticket's new state, "" unchanged
  std::string guard;         // with ticket_state: the ticket's guard word
  std::string cut_state;     // the waiting cut's new state (pending, skipped), "" unchanged
  std::string event_kind;    // a timeline entry, "" none
  std::string event;
  nlohmann::json details = nlohmann::json::object();
};

void DrainWorker::RunDue() {
  std::vector<NodeDrain> open;
  {
    auto txr = p_.store.Begin();
    if (!txr.ok()) return;
    try {
      open = txr.value()->OpenDrains();
      txr.value()->Commit();
    } catch (const std::exception& e) {
      spdlog::error("drains: cannot read them: {}", e.what());
      return;
    }
  }
  PassState pass = ReadPassState(open);
  for (auto& d : open) {
    if (may_act_ && !may_act_()) return;  // not the leader any more: the new one carries on
    if (Due(d)) Step(d, pass);
  }
  p_.metrics.Set("ufmr_nodes_drained", static_cast<double>(pass.held_nodes.size()));
  if (p_.config.record_jobs) RecordJobs();
}

bool DrainWorker::Due(const NodeDrain& d) const {
  const TimePoint now = p_.clock.Now();
  if (d.next_try_at && *d.next_try_at > ToEpochSeconds(now)) return false;
  auto look = next_look_.find(d.id);
  return look == next_look_.end() || look->second <= now || d.state == drain_state::kPending ||
         d.state == drain_state::kResuming;
}

DrainWorker::PassState DrainWorker::ReadPassState(const std::vector<NodeDrain>& open) {
  PassState pass;
  for (const auto& d : open) {
    if (d.state != drain_state::kPending) {
      (d.by_person ? pass.person_nodes : pass.held_nodes).insert(d.node);
    }
    if (d.state != drain_state::kResuming) pass.holding[d.node].insert(d.ticket_id);
  }
  if (open.empty()) return pass;
  auto txr = p_.store.Begin();
  if (txr.ok()) {
    try {
      pass.breaker_tripped = txr.value()->Breaker().tripped;
      txr.value()->Commit();
    } catch (const std::exception& e) {
      pass.breaker_tripped = true;  // unknown: no new drain this pass
    }
  } else {
    pass.breaker_tripped = true;
  }
  if (std::any_of(open.begin(), open.end(),
                  [](const NodeDrain& d) { return d.state == drain_state::kPending; })) {
    auto cap = Cap();
    if (cap.ok()) {
      pass.cap = cap.value();
    } else {
      pass.cap_unknown = cap.status();
    }
  }
  return pass;
}

Result<int> DrainWorker::Cap() {
  int cap = p_.config.max_drained_nodes;
  if (p_.config.max_drained_percent <= 0 || cap == 0) return cap;
  const TimePoint now = p_.clock.Now();
  if (!node_count_ ||
      std::chrono::duration<double>(now - node_count_->first).count() > kNodeCountTtlS) {
    auto count = p_.scheduler.NodeCount();
    if (!count.ok() && !node_count_) return count.status();  // no drain until it answers
    if (count.ok()) node_count_ = {now, count.value()};
  }
  int of_nodes = std::max(
      1, static_cast<int>(std::floor(p_.config.max_drained_percent * node_count_->second / 100)));
  return std::min(cap, of_nodes);
}

void DrainWorker::Step(NodeDrain& d, PassState& pass) {
  next_look_[d.id] = p_.clock.Now() + std::chrono::duration_cast<TimePoint::duration>(
                                          Seconds(p_.config.poll_interval_s));
  try {
    if (d.state == drain_state::kPending) return StepPending(d, pass);
    if (d.state == drain_state::kDraining) return StepDraining(d, pass);
    if (d.state == drain_state::kDrained) return StepDrained(d);
    if (d.state == drain_state::kResuming) return StepResuming(d, pass);
  } catch (const std::exception& e) {
    spdlog::error("drain {} of node {}: {}", d.id, d.node, e.what());
  }
}

void DrainWorker::Retry(NodeDrain& d, const Status& why) {
  Change c(d);
  c.drain.tries += 1;
  c.drain.next_try_at = ToEpochSeconds(p_.clock.Now()) + p_.config.retry_s;
  p_.metrics.Add(MetricName("ufmr_scheduler_requests_total", {{"result", "unavailable"}}));
  spdlog::warn("drain {} of node {}: the job scheduler did not answer: {}", d.id, d.node,
               why.message());
  if (d.tries == 0) {
    c.event_kind = "scheduler";
    c.event = "the job scheduler did not answer (" + why.message() + "); the " +
              (d.state == drain_state::kResuming ? std::string("resume") : std::string("cut")) +
              " waits, and the service asks again every " + FormatDuration(p_.config.retry_s);
  }
  Record(c);
}

void DrainWorker::Record(const Change& step) {
  auto txr = p_.store.Begin();
  if (!txr.ok()) {
    spdlog::error("drain {}: cannot record its step ({}); will look again", step.drain.id,
                  txr.status().message());
    next_look_.erase(step.drain.id);
    return;
  }
  auto& tx = *txr.value();
  try {
    auto t = tx.TicketById(step.drain.ticket_id);  // locked: a person's action waits, or came first
    const Change c = Recheck(step, t ? t->state : std::string("gone"));
    tx.UpdateDrain(c.drain);
    if (!c.cut_state.empty() && c.drain.cut_action != 0) {
      tx.SetCutState(c.drain.cut_action, c.cut_state, c.cut_state == "skipped" ? c.event : "");
    }
    if (t && !c.ticket_state.empty()) {
      t->state = c.ticket_state;
      if (c.ticket_state == ticket_state::kTicketOnly) t->guard = c.guard;
      tx.UpdateTicket(*t);
    }
    if (t && !c.event_kind.empty()) {
      nlohmann::json details = c.details;
      details["drain_id"] = c.drain.id;
      details["node"] = c.drain.node;
      tx.AddEvent(t->id, c.event_kind, kServiceActor, c.event, details);
    }
    tx.Commit();
  } catch (const std::exception& e) {
    spdlog::error("drain {}: cannot record its step: {}", step.drain.id, e.what());
    next_look_.erase(step.drain.id);
  }
}

bool DrainWorker::WaitsForDrain(const std::string& ticket_state) {
  return ticket_state == ticket_state::kDraining || ticket_state == ticket_state::kEscalated;
}

DrainWorker::Change DrainWorker::Recheck(const Change& c, const std::string& ticket_state) {
  if (c.ticket_state.empty() || WaitsForDrain(ticket_state)) return c;
  if (c.drain.state == drain_state::kFailed || c.drain.state == drain_state::kReleased) {
    Change ends = c;  // the drain ends either way; the ticket is left as a person made it
    ends.ticket_state.clear();
    return ends;
  }
  return CalledOff(c, ticket_state);
}

DrainWorker::Change DrainWorker::CalledOff(const Change& c, const std::string& ticket_state) {
  Change off(c.drain);
  off.drain.state = drain_state::kResuming;
  off.drain.tries = 0;
  off.drain.next_try_at.reset();
  off.cut_state = action_state::kSkipped;
  off.event_kind = "resuming";
  off.event = "the ticket no longer waits for the drain (it is " + ticket_state +
              "): the cut is off, and node " + c.drain.node +
              " is to be resumed if its drain is still this ticket's";
  spdlog::info("drain {} of node {}: {}", c.drain.id, c.drain.node, off.event);
  return off;
}

void DrainWorker::Trouble(NodeDrain& d, const Status& why) {
  if (why.code() == Status::Code::kNotFound || why.code() == Status::Code::kInvalidArgument) {
    return Fail(d, why.message());
  }
  Retry(d, why);
}

void DrainWorker::Fail(NodeDrain& d, const std::string& why) {
  Change c(d);
  c.drain.state = drain_state::kFailed;
  c.drain.note = why;
  c.cut_state = action_state::kSkipped;
  c.ticket_state = ticket_state::kTicketOnly;
  c.guard = "drain_failed";  // not tried again by a rule: a person judges the host
  c.event_kind = "guard";
  c.event = "no port action: host " + d.host + " could not be drained (" + why +
            "), and its link is not cut without the drain";
  p_.metrics.Add(MetricName("ufmr_drains_total", {{"result", "failed"}}));
  spdlog::warn("drain {} of node {} failed: {}", d.id, d.node, why);
  Record(c);
}

void DrainWorker::Wait(NodeDrain& d, const std::string& why) {
  if (d.note == why) return;  // said already
  Change c(d);
  c.drain.note = why;
  c.event_kind = "drain_waits";
  c.event = why;
  Record(c);
}

void DrainWorker::Release(NodeDrain& d, const std::string& kind, const std::string& why,
                          bool skip_cut) {
  Change c(d);
  c.drain.state = drain_state::kReleased;
  c.drain.note = why;
  if (skip_cut) c.cut_state = action_state::kSkipped;
  c.event_kind = kind;
  c.event = why;
  spdlog::info("drain {} of node {} released: {}", d.id, d.node, why);
  Record(c);
}

bool DrainWorker::OursReason(const std::string& reason, const std::string& node) {
  static const std::string kPrefix = "ufm-remediator #";
  if (reason.rfind(kPrefix, 0) != 0) return false;
  size_t end = reason.find(':', kPrefix.size());
  if (end == std::string::npos || end == kPrefix.size()) return false;
  int64_t ticket = 0;
  for (size_t i = kPrefix.size(); i < end; ++i) {
    if (reason[i] < '0' || reason[i] > '9') return false;
    ticket = ticket * 10 + (reason[i] - '0');
  }
  auto txr = p_.store.Begin();
  if (!txr.ok()) return false;
  bool ours = false;
  for (const auto& d : txr.value()->DrainsOfTicket(ticket)) {
    // Only a drain the service still holds, or handed to another of its tickets on the node: a
    // reason left on a node the service gave up (left drained for a person) is not its own.
    ours = ours || (d.node == node &&
                    (d.state == drain_state::kDraining || d.state == drain_state::kDrained ||
                     d.state == drain_state::kResuming || d.state == drain_state::kPending ||
                     d.state == drain_state::kHandedOver));
  }
  txr.value()->Commit();
  return ours;
}

void DrainWorker::StepPending(NodeDrain& d, PassState& pass) {
  auto t = p_.store.GetTicket(d.ticket_id);
  if (t.ok() && !WaitsForDrain(t->state)) {
    return Release(d, "drain_left",
                   "the ticket no longer waits for the drain (it is " + t->state + "): node " +
                       d.node + " is not drained",
                   true);
  }
  if (d.node.empty()) {
    return Fail(d,
                "the job scheduler has no node for host " + d.host + " (scheduler.node_pattern)");
  }
  if (pass.breaker_tripped) {
    return Wait(d, "the circuit breaker is tripped: no host is drained until a person re-arms it");
  }
  if (!pass.cap_unknown.ok()) return Retry(d, pass.cap_unknown);
  const bool over_cap =
      !pass.held_nodes.count(d.node) && static_cast<int>(pass.held_nodes.size()) >= pass.cap;
  // Over the cap, only a node a person drained (as this pass began) is looked at: its drain is
  // waited for, not sent.
  if (over_cap && !pass.person_nodes.count(d.node)) return Wait(d, CapWords(pass, d.node));
  auto node = p_.scheduler.Node(d.node);
  if (!node.ok()) return Trouble(d, node.status());
  Change c(d);
  if (over_cap && !node->drain) return Wait(d, CapWords(pass, d.node));  // resumed meanwhile
  if (node->drain && !OursReason(node->reason, d.node)) {
    c.drain.by_person = true;  // a person's: waited for, never the service's
    c.drain.note = "was drained by a person already (reason: " + node->reason +
                   "); the service waits for it and will not resume it";
  } else if (node->drain) {
    c.drain.note = "was drained for this service already (" + node->reason + ")";
  } else if (Status s = p_.scheduler.Drain(d.node, d.reason); !s.ok()) {
    return Trouble(d, s);
  }
  CrashPoint("drain_sent", "drain");
  auto jobs = p_.scheduler.Jobs(d.node);
  (c.drain.by_person ? pass.person_nodes : pass.held_nodes).insert(d.node);
  c.drain.state = drain_state::kDraining;
  c.drain.sent_at = ToEpochSeconds(p_.clock.Now());  // or found: the deadline counts from now
  c.drain.tries = 0;
  c.drain.next_try_at.reset();
  c.event_kind = "drain";
  c.event = "node " + d.node +
            (c.drain.note.empty() ? " drained in the job scheduler (reason: " + d.reason + ")"
                                  : " " + c.drain.note) +
            "; " + (jobs.ok() ? JobsWords(jobs.value()) : "its jobs are not known") +
            "; the link is cut once they have ended";
  if (jobs.ok()) c.details["jobs"] = JobsJson(jobs.value());
  p_.metrics.Add(
      MetricName("ufmr_drains_total", {{"result", c.drain.by_person ? "person" : "sent"}}));
  if (c.drain.by_person) {
    spdlog::info("ticket {}: node {} was drained by a person already ({}); waiting for its jobs",
                 d.ticket_id, d.node, node->reason);
  } else {
    spdlog::info("ticket {}: node {} draining ({})", d.ticket_id, d.node, d.reason);
  }
  Record(c);
}

std::string DrainWorker::CapWords(const PassState& pass, const std::string& node) {
  const size_t held = pass.held_nodes.size();
  return std::to_string(held) + (held == 1 ? " node is" : " nodes are") +
         " drained by the service already (at most " + std::to_string(pass.cap) +
         ": scheduler.max_drained_nodes, max_drained_percent; a person's drains are not "
         "counted): the drain of " +
         node + " waits";
}

void DrainWorker::StepDraining(NodeDrain& d, const PassState& pass) {
  auto t = p_.store.GetTicket(d.ticket_id);
  if (t.ok() && !WaitsForDrain(t->state)) return Record(CalledOff(Change(d), t->state));
  auto node = p_.scheduler.Node(d.node);
  if (!node.ok()) return Trouble(d, node.status());
  const TimePoint now = p_.clock.Now();
  Change c(d);
  c.drain.tries = 0;
  c.drain.next_try_at.reset();
  if (!node->drain) {
    c.drain.state = drain_state::kReleased;
    c.drain.note = "resumed by someone before its jobs ended";
    c.cut_state = action_state::kSkipped;
    c.ticket_state = ticket_state::kTicketOnly;
    c.guard = "drift";  // a person's resume: no rule drains it again
    c.event_kind = "drift";
    c.event = "node " + d.node + " was resumed in the job scheduler (" + node->state +
              ") before its jobs ended: the cut is off and the service does not drain it "
              "again; drain the host and take the link out by hand, or report the repair";
    p_.metrics.Add("ufmr_drift_total");
  } else if (node->drained()) {
    if (pass.breaker_tripped) {
      return Wait(d, "node " + d.node +
                         " is drained, but the circuit breaker is tripped: the "
                         "cut waits until a person re-arms it");
    }
    c.drain.state = drain_state::kDrained;
    c.drain.note.clear();
    c.cut_state = action_state::kPending;
    c.ticket_state = ticket_state::kDrained;
    c.event_kind = "drained";
    c.event = "node " + d.node + " is drained (no jobs left): taking the link out of service";
    p_.metrics.Add(MetricName("ufmr_drains_total", {{"result", "drained"}}));
    Record(c);
    CrashPoint("drain_released", "drain");
    return;
  } else if (!d.escalated && d.sent_at &&
             ToEpochSeconds(now) - *d.sent_at >= p_.config.drain_deadline_s) {
    auto jobs = p_.scheduler.Jobs(d.node);
    c.drain.escalated = true;
    c.ticket_state = ticket_state::kEscalated;
    c.event_kind = "escalated";
    c.event = "node " + d.node + " is still draining after " +
              FormatDuration(p_.config.drain_deadline_s) + " (" +
              (jobs.ok() ? JobsWords(jobs.value()) : "its jobs are not known") +
              "): the cut waits for the drain; end the jobs, or take the ticket";
    if (jobs.ok()) c.details["jobs"] = JobsJson(jobs.value());
    p_.metrics.Add("ufmr_tickets_escalated_total");
  } else {
    if (d.tries == 0) return;  // nothing new
  }
  Record(c);
}

void DrainWorker::StepDrained(NodeDrain& d) {
  auto node = p_.scheduler.Node(d.node);
  if (!node.ok()) {
    if (node.status().code() != Status::Code::kNotFound) return;  // looked at again later
    return Release(d, "drain_left", "node " + d.node + " is no longer known to the job scheduler",
                   false);
  }
  if (!node->drain) {
    p_.metrics.Add("ufmr_drift_total");
    return Release(d, "drift",
                   "node " + d.node +
                       " was resumed in the job scheduler by someone while its "
                       "link is out of service: left as it is",
                   false);
  }
  auto t = p_.store.GetTicket(d.ticket_id);
  if (t.ok() && t->state == ticket_state::kClosed && t->resolution != resolution::kRepaired) {
    return Release(d, "drain_left",
                   "the ticket closed without a passed soak (" + t->resolution + "): node " +
                       d.node + " is left drained; resume it in the job scheduler when it is fit",
                   false);
  }
}

void DrainWorker::StepResuming(NodeDrain& d, const PassState& pass) {
  auto node = p_.scheduler.Node(d.node);
  if (!node.ok() && node.status().code() == Status::Code::kNotFound) {
    return Release(d, "drain_left", "node " + d.node + " is no longer known to the job scheduler",
                   false);
  }
  if (!node.ok()) return Retry(d, node.status());
  if (!node->drain) {
    return Release(d, "resumed", "node " + d.node + " was back in service already", false);
  }
  if (d.by_person) {
    return Release(d, "drain_left",
                   "node " + d.node +
                       " was drained by a person before the service asked (reason: " +
                       node->reason + "): left drained, as they left it",
                   false);
  }
  if (!OursReason(node->reason, d.node)) {
    return Release(d, "drain_left",
                   "node " + d.node + " was drained again by someone else (reason: " +
                       node->reason + "): left drained",
                   false);
  }
  auto holding = pass.holding.find(d.node);
  if (holding != pass.holding.end()) {
    for (int64_t other : holding->second) {
      if (other == d.ticket_id) continue;
      Change c(d);
      c.drain.state = drain_state::kHandedOver;
      c.drain.note = "node " + d.node + " stays drained for ticket #" + std::to_string(other);
      c.event_kind = "drain_left";
      c.event = c.drain.note;
      return Record(c);
    }
  }
  if (Status s = p_.scheduler.Resume(d.node); !s.ok()) {
    if (s.code() == Status::Code::kInvalidArgument) {
      return Release(d, "drain_left",
                     "the job scheduler refused to resume " + d.node + ": " + s.message(), false);
    }
    return Retry(d, s);
  }
  Change c(d);
  c.drain.state = drain_state::kResumed;
  c.drain.note.clear();
  c.drain.tries = 0;
  c.drain.next_try_at.reset();
  c.event_kind = "resumed";
  c.event = "node " + d.node + " resumed in the job scheduler: jobs may run on it again";
  p_.metrics.Add(MetricName("ufmr_drains_total", {{"result", "resumed"}}));
  spdlog::info("ticket {}: node {} resumed", d.ticket_id, d.node);
  Record(c);
}

void DrainWorker::RecordJobs() {
  std::vector<Ticket> tickets;
  {
    auto txr = p_.store.Begin();
    if (!txr.ok()) return;
    tickets = txr.value()->TicketsWithoutHostJobs(kJobsPerPass);
    txr.value()->Commit();
  }
  for (const auto& t : tickets) {
    nlohmann::json record{{"at", ToEpochSeconds(p_.clock.Now())}};
    std::optional<std::string> node = p_.node_names.Of(t.host_name);
    record["node"] = node.value_or("");
    if (!node) {
      record["jobs"] = nlohmann::json::array();
      record["note"] = "the job scheduler has no node for this host";
    } else {
      auto jobs = p_.scheduler.Jobs(*node);
      if (!jobs.ok() && jobs.status().code() != Status::Code::kNotFound) return;  // next pass
      record["jobs"] = jobs.ok() ? JobsJson(jobs.value()) : nlohmann::json::array();
      if (!jobs.ok()) record["note"] = "not a node of the job scheduler";
    }
    auto txr = p_.store.Begin();
    if (!txr.ok()) return;
    txr.value()->SetHostJobs(t.id, record);
    txr.value()->Commit();
  }
}

}  // namespace ufmr
