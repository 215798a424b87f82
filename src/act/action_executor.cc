#include "act/action_executor.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "base/crash_point.h"
#include "base/duration.h"

namespace ufmr {

namespace {

bool IsIsolation(const PortAction& a) { return a.action == "isolate" || a.action == "unisolate"; }

// "disabled", "isolated", ...: what the action makes of the port, for people.
std::string Done(const std::string& action) {
  if (action == "disable") return "disabled";
  if (action == "enable") return "enabled";
  if (action == "isolate") return "isolated";
  return "made healthy (no longer isolated)";
}

bool Permanent(const Status& s) {
  return s.code() == Status::Code::kInvalidArgument || s.code() == Status::Code::kNotFound;
}

}  // namespace

ActionExecutor::ActionExecutor(const Config& config, Store& store, UfmClient& ufm,
                               Inventory& inventory, Metrics& metrics, const Clock& clock,
                               SoakFor soak_for, OnOutcome on_outcome)
    : config_(config),
      store_(store),
      ufm_(ufm),
      inventory_(inventory),
      metrics_(metrics),
      clock_(clock),
      soak_for_(std::move(soak_for)),
      on_outcome_(std::move(on_outcome)) {}

std::string ActionExecutor::Marker(int64_t action_id) {
  return "[ufm-remediator action " + std::to_string(action_id) + "]";
}

void ActionExecutor::StartSoak(Store::Tx& tx, Ticket& t, TimePoint now, double soak_s) {
  t.state = ticket_state::kVerifying;
  t.soak_until = ToEpochSeconds(now) + soak_s;
  tx.AddEvent(t.id, "soak_started", kServiceActor,
              "port back in service; watching the link for " + FormatDuration(soak_s) +
                  ": it must stay up with no sign past the rule's clear level");
}

void ActionExecutor::RunOpen() {
  std::vector<PortAction> actions;
  {
    auto tx = store_.Begin();
    if (!tx.ok()) return;
    try {
      actions = tx.value()->OpenActions();
    } catch (const std::exception& e) {
      spdlog::warn("cannot read open port actions: {}", e.what());
      return;
    }
  }
  metrics_.Set("ufmr_port_actions_open", static_cast<double>(actions.size()));
  for (auto& a : actions) {
    if (may_act_ && !may_act_()) return;  // not the leader any more: act on nothing
    Execute(std::move(a));
  }
}

bool ActionExecutor::Write(const PortAction& a) {
  auto tx = store_.Begin();
  if (!tx.ok()) {
    spdlog::error("action {}: cannot record its progress: {}", a.id, tx.status().ToString());
    metrics_.Add("ufmr_store_errors_total");
    return false;
  }
  try {
    tx.value()->UpdateAction(a);
    tx.value()->Commit();
    return true;
  } catch (const std::exception& e) {
    spdlog::error("action {}: cannot record its progress: {}", a.id, e.what());
    metrics_.Add("ufmr_store_errors_total");
    return false;
  }
}

void ActionExecutor::Execute(PortAction a) {
  if (a.next_try_at && *a.next_try_at > ToEpochSeconds(clock_.Now())) return;  // waits
  const bool cut = a.cuts();
  auto port = ufm_.GetPort(a.port);
  if (!port.ok()) {
    metrics_.Add("ufmr_ufm_errors_total{call=\"port\"}");
    if (port.status().code() == Status::Code::kNotFound) {
      return Finish(a, Outcome::kFailed, "UFM does not know port " + a.port);
    }
    spdlog::warn("action {} ({} {}): cannot read the port from UFM: {}; will retry", a.id, a.action,
                 a.port, port.status().ToString());
    return;
  }
  inventory_.Upsert(port.value());
  // Is the port already as the action wants it? (A port whose state does not say is not.)
  bool in_wanted = VerdictOf(a, port.value()) == Verdict::kDone;
  if (IsIsolation(a)) {
    auto list = ufm_.GetUnhealthyPorts();
    if (!list.ok()) {
      metrics_.Add("ufmr_ufm_errors_total{call=\"unhealthy_ports\"}");
      if (Permanent(list.status())) {
        // This UFM does not serve the list (or refuses it): isolation cannot be confirmed.
        return Finish(a, Outcome::kFailed,
                      "cannot read UFM's unhealthy ports: " + list.status().message());
      }
      spdlog::warn("action {} ({} {}): cannot read UFM's unhealthy ports: {}; will retry", a.id,
                   a.action, a.port, list.status().ToString());
      return;
    }
    bool isolated = std::any_of(list->begin(), list->end(),
                                [&](const UnhealthyPort& u) { return u.port == a.port; });
    in_wanted = isolated == cut;
  }
  if (a.state == action_state::kPending) {
    if (in_wanted) {
      // Already so before this service touched it: a person did it, and it is theirs.
      return Finish(a, Outcome::kAlreadyDoneByHand,
                    "port was already " + Done(a.action) + " in UFM, not by this service");
    }
    a.state = action_state::kSubmitted;  // before UFM hears of it
    if (a.system_guid.empty()) a.system_guid = port->system_guid;
    if (!Write(a)) return;
    CrashPoint("submitted_marked", a.action);
    return Send(a, port.value());
  }
  // Submitted earlier (this process or one before it).
  if (!a.job_id.empty()) return Follow(a);
  if (in_wanted) {
    return Finish(a, Outcome::kConfirmed,
                  "found " + Done(a.action) + " when resuming (a restart or a lost answer)");
  }
  if (!IsIsolation(a)) {
    // Did UFM take the request before the answer was lost? Its jobs carry our marker.
    auto jobs = ufm_.GetJobs();
    if (jobs.ok()) {
      for (const auto& j : jobs.value()) {
        if (j.description.find(Marker(a.id)) == std::string::npos) continue;
        spdlog::info("action {}: resuming UFM job {} it had started", a.id, j.id);
        a.job_id = j.id;
        if (!Write(a)) return;
        return Follow(a);
      }
    } else if (jobs.status().code() != Status::Code::kNotFound) {
      metrics_.Add("ufmr_ufm_errors_total{call=\"jobs\"}");
      spdlog::warn("action {}: cannot list UFM's jobs to resume it: {}; will retry", a.id,
                   jobs.status().ToString());
      return;
    }
  }
  // UFM never got it: send it now.
  Send(a, port.value());
}

void ActionExecutor::Send(PortAction& a, const PortInfo& port) {
  const std::string description = "ufm-remediator: " + a.action + " for ticket " +
                                  std::to_string(a.ticket_id) + ": " + a.reason + " " +
                                  Marker(a.id);
  if (IsIsolation(a)) {
    Status s = ufm_.SetPortHealth(a.port, a.cuts(), description);
    CrashPoint("sent", a.action);
    if (!s.ok()) return SendFailed(a, s);
    spdlog::info("action {}: {} {} sent to UFM", a.id, a.action, a.port);
    // UFM answers the PUT when the SM has the new policy: confirm against its list.
    auto list = ufm_.GetUnhealthyPorts();
    if (!list.ok()) return;  // confirmed on the next pass (the row stays submitted)
    bool isolated = std::any_of(list->begin(), list->end(),
                                [&](const UnhealthyPort& u) { return u.port == a.port; });
    if (isolated != a.cuts()) {
      return Finish(a, Outcome::kFailed,
                    "UFM accepted the request but its unhealthy ports list says otherwise");
    }
    return Finish(a, Outcome::kConfirmed, "UFM's unhealthy ports list confirms it");
  }
  PortInfo target = port;
  target.system_guid = a.system_guid;
  auto job = ufm_.SubmitPortAction(a.action, target, description);
  if (!job.ok()) return SendFailed(a, job.status());
  CrashPoint("sent", a.action);
  a.job_id = job.value();
  if (!Write(a)) return;  // the next pass finds the job by its marker
  CrashPoint("job_recorded", a.action);
  spdlog::info("action {}: {} {} submitted as UFM job {}", a.id, a.action, a.port, a.job_id);
  Follow(a);
}

void ActionExecutor::SendFailed(PortAction& a, const Status& s) {
  metrics_.Add("ufmr_ufm_errors_total{call=\"action\"}");
  if (Permanent(s)) return Finish(a, Outcome::kFailed, "UFM rejected the action: " + s.message());
  a.tries += 1;
  if (a.tries >= config_.remediation.action_max_tries) {
    return FailAfterChecking(
        a, "gave up after " + std::to_string(a.tries) + " failed tries: " + s.message());
  }
  // Left `submitted` without a job: the next try first checks whether UFM got it after all.
  a.next_try_at = ToEpochSeconds(clock_.Now()) + config_.remediation.action_retry_s;
  a.error = s.message();
  metrics_.Add("ufmr_action_retries_total");
  spdlog::warn("action {} ({} {}): try {} failed: {}; retrying in {}", a.id, a.action, a.port,
               a.tries, s.message(), FormatDuration(config_.remediation.action_retry_s));
  Write(a);
}

void ActionExecutor::Follow(PortAction& a) {
  // Bounded by a count of polls rather than the clock, so a stalled clock cannot hang the loop;
  // a job still running after this pass's share of polls is followed again on the next pass.
  const double interval = config_.remediation.job_poll_interval_s;
  const long max_polls = std::max(1L, std::lround(config_.remediation.job_timeout_s / interval));
  const long this_pass =
      std::max(1L, std::lround(std::min(10.0, config_.remediation.job_timeout_s) / interval));
  JobStatus status;
  bool done = false;
  for (long i = 0; i < this_pass; ++i) {
    auto s = ufm_.GetJob(a.job_id);
    if (s.ok()) {
      status = s.value();
      if (status.done()) {
        done = true;
        break;
      }
    } else if (s.status().code() == Status::Code::kNotFound) {
      // UFM answers [] for a job it does not know (purged, or UFM restarted): the port decides.
      polls_.erase(a.id);
      return FailAfterChecking(a, "UFM does not know job " + a.job_id + " any more");
    } else {
      spdlog::warn("job {}: {}", a.job_id, s.status().ToString());
    }
    if (++polls_[a.id] >= max_polls) {
      polls_.erase(a.id);
      return FailAfterChecking(a, "UFM job " + a.job_id + " did not complete within " +
                                      FormatDuration(config_.remediation.job_timeout_s));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long>(interval * 1000)));
  }
  if (!done) return;
  polls_.erase(a.id);
  CrashPoint("job_done", a.action);
  JudgeFinishedJob(a, status);
}

void ActionExecutor::JudgeFinishedJob(PortAction& a, const JobStatus& status) {
  const std::string ended = "UFM job " + a.job_id + " ended '" + status.status + "'";
  if (!status.ok()) return FailAfterChecking(a, ended + ": " + status.summary);
  auto after = ufm_.GetPort(a.port);
  if (!after.ok()) {
    spdlog::warn("action {}: job done but the port cannot be read: {}; will re-check", a.id,
                 after.status().ToString());
    return;
  }
  inventory_.Upsert(after.value());
  const std::string states = "logical_state '" + after->logical_state + "', physical_state '" +
                             after->physical_state + "'";
  switch (VerdictOf(a, after.value())) {
    case Verdict::kDone:
      return Finish(a, Outcome::kConfirmed, "UFM job " + a.job_id + " " + status.status);
    case Verdict::kNotDone:
      return Finish(a, Outcome::kFailed, ended + " but the port reports " + states);
    default:
      // An enable that UFM completed is judged by the soak; a cut is held, never left untracked.
      if (!a.cuts()) {
        return Finish(a, Outcome::kConfirmed, ended + "; the port reports " + states);
      }
      return Finish(a, Outcome::kUncertain,
                    ended + " but the port reports " + states +
                        ", which says neither disabled "
                        "nor enabled");
  }
}

ActionExecutor::Verdict ActionExecutor::VerdictOf(const PortAction& a, const PortInfo& port) {
  switch (port.admin_state()) {
    case AdminState::kDisabled:
      return a.cuts() ? Verdict::kDone : Verdict::kNotDone;
    case AdminState::kEnabled:
      return a.cuts() ? Verdict::kNotDone : Verdict::kDone;
    default:
      return Verdict::kAmbiguous;
  }
}

ActionExecutor::Verdict ActionExecutor::Check(const PortAction& a) {
  if (IsIsolation(a)) {
    auto list = ufm_.GetUnhealthyPorts();
    if (!list.ok()) return Verdict::kUnreadable;
    bool isolated = std::any_of(list->begin(), list->end(),
                                [&](const UnhealthyPort& u) { return u.port == a.port; });
    return isolated == a.cuts() ? Verdict::kDone : Verdict::kNotDone;
  }
  auto port = ufm_.GetPort(a.port);
  if (!port.ok()) return Verdict::kUnreadable;
  inventory_.Upsert(port.value());
  return VerdictOf(a, port.value());
}

bool ActionExecutor::UfmHoldsJobOf(PortAction& a) {
  if (IsIsolation(a)) return false;
  auto jobs = ufm_.GetJobs();
  if (!jobs.ok()) return false;
  for (const auto& j : jobs.value()) {
    if (j.description.find(Marker(a.id)) == std::string::npos) continue;
    a.job_id = j.id;
    return true;
  }
  return false;
}

void ActionExecutor::FailAfterChecking(PortAction& a, const std::string& note) {
  // What UFM did decides, not what it said: a job that timed out or an answer that was lost may
  // still have done the work.
  switch (Check(a)) {
    case Verdict::kDone:
      return Finish(a, Outcome::kConfirmed, "UFM reports it done (" + note + ")");
    case Verdict::kUnreadable:
      spdlog::warn("action {} ({} {}): {}; the port cannot be read to check: will re-check", a.id,
                   a.action, a.port, note);
      return;
    case Verdict::kAmbiguous:
      // UFM took the cut (it made a job, maybe one whose answer was lost): it may have done it.
      // Held, and said so.
      if (a.cuts() && (!a.job_id.empty() || UfmHoldsJobOf(a))) {
        return Finish(a, Outcome::kUncertain,
                      note + "; the port's state says neither disabled nor enabled");
      }
      [[fallthrough]];
    default:
      Finish(a, Outcome::kFailed, note);
  }
}

void ActionExecutor::Finish(PortAction& a, Outcome outcome, const std::string& note) {
  if (outcome == Outcome::kUncertain) return FinishUncertain(a, note);
  const bool ok = outcome == Outcome::kConfirmed;
  auto txr = store_.Begin();
  if (!txr.ok()) {
    spdlog::error("action {}: cannot record its outcome ({}); will re-check", a.id, note);
    return;
  }
  auto& tx = *txr.value();
  try {
    a.state = ok ? action_state::kConfirmed : action_state::kFailed;
    a.error = ok ? "" : note;
    a.next_try_at.reset();
    tx.UpdateAction(a);
    const char* result = ok                                       ? "confirmed"
                         : outcome == Outcome::kAlreadyDoneByHand ? "done_by_hand"
                                                                  : "failed";
    metrics_.Add(MetricName("ufmr_port_actions_total", {{"action", a.action}, {"result", result}}));
    auto t = tx.TicketById(a.ticket_id);
    if (t) {
      std::string verb = a.action + " " + a.port;
      tx.AddEvent(t->id, "action", kServiceActor,
                  ok ? verb + " confirmed: " + note
                  : outcome == Outcome::kAlreadyDoneByHand
                      ? verb + " not done: " + note + "; that is a person's, and stays theirs"
                      : verb + " failed: " + note,
                  {{"action_id", a.id}, {"job_id", a.job_id}, {"result", result}});
      if (a.cuts()) {
        if (ok) {
          t->disabled_by_us = true;
          t->method = a.action;
          t->guard.clear();
          t->state = t->attempts >= config_.remediation.max_attempts ? ticket_state::kEscalated
                                                                     : ticket_state::kPortDisabled;
        } else {
          t->state = ticket_state::kTicketOnly;
          t->guard = outcome == Outcome::kAlreadyDoneByHand ? "manual" : "action_failed";
        }
      } else if (ok || outcome == Outcome::kAlreadyDoneByHand) {
        // The link is live again (by us, or by a person before us): verify it.
        t->disabled_by_us = false;
        StartSoak(tx, *t, clock_.Now(), soak_for_(*t));
      } else if (note.rfind("UFM does not know port", 0) == 0) {
        // Replaced hardware renames ports (<guid>_<n>): there is nothing left to bring back.
        t->disabled_by_us = false;
        t->state = ticket_state::kTicketOnly;
        t->guard = "action_failed";
        tx.AddEvent(t->id, "guard", kServiceActor,
                    a.port +
                        " is gone from UFM (replaced hardware has new port names): nothing "
                        "to bring back; check the link and close the ticket by hand");
      } else {
        t->state = ticket_state::kPortDisabled;  // still held out; staff may report again
      }
      tx.UpdateTicket(*t);
    }
    tx.Commit();
    if (ok) {
      spdlog::info("action {}: {} {} confirmed", a.id, a.action, a.port);
    } else {
      spdlog::warn("action {}: {} {} not done: {}", a.id, a.action, a.port, note);
    }
  } catch (const std::exception& e) {
    spdlog::error("action {}: cannot record its outcome: {}", a.id, e.what());
    return;
  }
  CrashPoint("confirmed", a.action);
  if (on_outcome_) on_outcome_(a, outcome);
}

void ActionExecutor::FinishUncertain(PortAction& a, const std::string& note) {
  auto txr = store_.Begin();
  if (!txr.ok()) {
    spdlog::error("action {}: cannot record its outcome ({}); will re-check", a.id, note);
    return;
  }
  auto& tx = *txr.value();
  try {
    // The row is done (nothing more to send); the ticket holds the port as this service's.
    a.state = action_state::kConfirmed;
    a.error = "uncertain: " + note;
    a.next_try_at.reset();
    tx.UpdateAction(a);
    metrics_.Add(
        MetricName("ufmr_port_actions_total", {{"action", a.action}, {"result", "uncertain"}}));
    if (auto t = tx.TicketById(a.ticket_id)) {
      tx.AddEvent(t->id, "action", kServiceActor,
                  a.action + " " + a.port + " uncertain: " + note +
                      ". The service holds the port as its own, so a repair report brings it "
                      "back; reconciliation settles it when UFM reports the port disabled (or "
                      "enabled, then it is a person's). Check the port in UFM before working on "
                      "the cable.",
                  {{"action_id", a.id}, {"job_id", a.job_id}, {"result", "uncertain"}});
      t->disabled_by_us = true;
      t->method = a.action;
      t->guard = "uncertain";
      t->state = t->attempts >= config_.remediation.max_attempts ? ticket_state::kEscalated
                                                                 : ticket_state::kPortDisabled;
      tx.UpdateTicket(*t);
    }
    tx.Commit();
    spdlog::warn("action {}: {} {} uncertain: {}; held as this service's", a.id, a.action, a.port,
                 note);
  } catch (const std::exception& e) {
    spdlog::error("action {}: cannot record its outcome: {}", a.id, e.what());
    return;
  }
  CrashPoint("confirmed", a.action);
  if (on_outcome_) on_outcome_(a, Outcome::kUncertain);
}

void ActionExecutor::AnnouncePending() {
  if (!config_.ufm.external_events) return;
  std::vector<PortAction> due;
  {
    auto tx = store_.Begin();
    if (!tx.ok()) return;
    try {
      due = tx.value()->UnannouncedActions();
    } catch (const std::exception& e) {
      spdlog::warn("cannot read actions to announce: {}", e.what());
      return;
    }
  }
  if (due.empty()) return;
  // An event UFM already holds with the action's marker was posted before a crash: not again.
  auto events = ufm_.GetEvents();
  if (!events.ok()) return;  // next pass
  for (auto& a : due) {
    if (may_act_ && !may_act_()) return;
    const std::string marker = Marker(a.id);
    bool posted = std::any_of(events->events.begin(), events->events.end(), [&](const auto& e) {
      return e.description.find(marker) != std::string::npos;
    });
    if (!posted) {
      auto info = inventory_.Get(a.port);
      std::string where = info ? " (" + info->node_description + ")" : "";
      Status s = ufm_.PostExternalEvent(
          a.cuts() ? config_.ufm.external_event_id_cut : config_.ufm.external_event_id_restore,
          "Port " + Done(a.action) + " by ufm-remediator",
          "ufm-remediator " + Done(a.action) + " port " + a.port + where + " for ticket " +
              std::to_string(a.ticket_id) + ": " + a.reason + " " + marker);
      if (!s.ok() && !Permanent(s)) {
        metrics_.Add("ufmr_external_events_total{result=\"retry\"}");
        spdlog::warn("action {}: cannot post the UFM external event: {}; will retry", a.id,
                     s.message());
        return;
      }
      if (!s.ok()) {
        // This UFM does not take external events: say so once per action, do not insist.
        metrics_.Add("ufmr_external_events_total{result=\"rejected\"}");
        spdlog::warn("action {}: UFM refused the external event: {}", a.id, s.message());
      } else {
        metrics_.Add("ufmr_external_events_total{result=\"posted\"}");
      }
      CrashPoint("announced", a.action);
    }
    a.announced = true;
    Write(a);
  }
}

}  // namespace ufmr
