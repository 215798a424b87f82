#include "loop/remediator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "act/action_executor.h"
#include "act/breaker_window.h"
#include "act/drain_worker.h"
#include "act/finding_recorder.h"
#include "act/live_decider.h"
#include "act/own_ports.h"
#include "act/reconciler.h"
#include "act/soak_watch.h"
#include "act/staff_actions.h"
#include "base/metrics.h"
#include "config/config.h"
#include "filter/intake_filters.h"
#include "filter/manual_marks.h"
#include "ingest/syslog_receiver.h"
#include "loop/event_log_source.h"
#include "loop/interval.h"
#include "loop/inventory_refresh.h"
#include "loop/live_rules.h"
#include "loop/pass_record.h"
#include "loop/rest_event_source.h"
#include "loop/syslog_source.h"
#include "loop/telemetry_poller.h"
#include "scheduler/node_names.h"
#include "scheduler/slurm_cli.h"
#include "store/store.h"
#include "store/ticket_place.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"

namespace ufmr {

namespace {

DecisionPolicy PolicyFrom(const Config::Remediation& r, const Config::Scheduler& s) {
  DecisionPolicy p;
  p.dry_run = r.dry_run;
  p.max_disabled_ports = r.max_disabled_ports;
  p.max_disabled_percent = r.max_disabled_percent;
  p.max_disabled_per_switch = r.max_disabled_per_switch;
  p.max_actions_per_hour = r.max_actions_per_hour;
  p.port_cooldown_s = r.port_cooldown_s;
  p.min_active_links_host = r.min_active_links_host;
  p.min_active_links_switch = r.min_active_links_switch;
  p.breaker_findings = r.breaker_findings;
  p.breaker_window_s = r.breaker_window_s;
  p.require_system_guid = true;
  // max_drained_nodes 0: never drain, so the last link is blocked as without a scheduler.
  p.scheduler = s.backend != "none" && s.max_drained_nodes > 0;
  p.drain_on_last_link = s.drain_on_last_link;
  return p;
}

// The job scheduler's node names: the configuration was checked when loaded (an invalid pattern
// does not load).
NodeNames NodeNamesOf(const Config::Scheduler& s) {
  auto names = NodeNames::Make(s.node_pattern, s.node_name);
  if (names.ok()) return std::move(names.value());
  spdlog::error("{}: no host is drained", names.status().message());
  return std::move(NodeNames::Make("^$", "").value());
}

std::unique_ptr<Scheduler> SchedulerOf(const Config::Scheduler& s) {
  if (s.backend != "slurm") return nullptr;
  SlurmCliOptions o;
  o.scontrol = s.scontrol;
  o.sinfo = s.sinfo;
  o.squeue = s.squeue;
  std::istringstream words(s.extra_args);
  for (std::string w; words >> w;) o.extra_args.push_back(w);
  o.slurm_conf = s.slurm_conf;
  o.timeout_s = s.timeout_s;
  return std::make_unique<SlurmCli>(std::move(o));
}

}  // namespace

// Every stage of the loop, wired together in the order they depend on each other. Heap-allocated
// once: the stages hold references to each other.
struct Remediator::Stages {
  Stages(const Config& c, Store& store, UfmClient& ufm, Inventory& inv, Metrics& m,
         const Clock& clock, std::shared_ptr<const RuleSet> rule_set, SyslogReceiver* receiver)
      : rules(c, inv, m, std::move(rule_set)),
        placer(c.dashboard.rack_pattern),
        inventory({c, store, ufm, inv, m, clock, inputs, placer}),
        reconciler(store, ufm, inv, m, clock, own),
        decider(PolicyFrom(c.remediation, c.scheduler), inv, marks, reconciler.persons_isolated(),
                breaker),
        node_names(NodeNamesOf(c.scheduler)),
        scheduler(SchedulerOf(c.scheduler)),
        soaks({c.remediation, store, ufm, inv, m, clock, decider,
               [this](const Ticket& t) { return rules.SoakFor(t); },
               [this] { return rules.rules().hash; }, node_names}),
        filters({inv, m, own, soaks, marks, c.ufm.utc_offset_s}),
        recorder({c.remediation, inv, m, clock, placer, decider, soaks, node_names}),
        record(store, m, decider, recorder),
        executor(
            c, store, ufm, inv, m, clock, [this](const Ticket& t) { return rules.SoakFor(t); },
            [this](const PortAction& a, ActionExecutor::Outcome o) { own.OnOutcome(a, o); }),
        staff(store, inv, m, clock, breaker, [this](const Ticket& t) { return rules.SoakFor(t); }),
        rest({c, store, ufm, m, clock, inputs}),
        event_log({c, store, m, clock, inputs}),
        telemetry({c, store, ufm, inv, m, clock, inputs}) {
    if (receiver) syslog.emplace(*receiver, m, clock, inputs);
    if (scheduler)
      drains.emplace(DrainWorker::Parts{c.scheduler, store, *scheduler, node_names, m, clock});
  }

  InputHealth inputs;
  LiveRules rules;
  TicketPlacer placer;
  InventoryRefresh inventory;
  OwnPorts own;
  ManualMarks
      marks;  // a person's isolations, as UFM's events say: the filters write, decision reads
  BreakerWindow breaker;
  Reconciler reconciler;
  LiveDecider decider;
  NodeNames node_names;                  // hosts to the job scheduler's nodes
  std::unique_ptr<Scheduler> scheduler;  // null: scheduler.backend none
  SoakWatch soaks;
  IntakeFilters filters;
  FindingRecorder recorder;
  PassRecord record;
  ActionExecutor executor;
  StaffActions staff;
  RestEventSource rest;
  EventLogSource event_log;
  std::optional<SyslogSource> syslog;
  TelemetryPoller telemetry;
  std::optional<DrainWorker> drains;  // with a job scheduler

  Interval events_due, telemetry_due, event_log_due, reconcile_due, ticket_count_due;
  bool standby = false;     // this pass: not the leader
  bool reconciled = false;  // a reconciliation has succeeded since start
  bool waiting_for_inventory_logged = false;
  bool open_drains_checked = false;  // without a scheduler: drains left open were looked for
};

Remediator::Remediator(const Config& config, Store& store, UfmClient& ufm, Inventory& inventory,
                       Metrics& metrics, const Clock& clock, std::shared_ptr<const RuleSet> rules,
                       SyslogReceiver* syslog)
    : config_(config),
      store_(store),
      inventory_(inventory),
      metrics_(metrics),
      clock_(clock),
      s_(std::make_unique<Stages>(config, store, ufm, inventory, metrics, clock, std::move(rules),
                                  syslog)) {
  store_.set_repeat_window_s(config.remediation.repeat_offender_window_s);
  // The config check refused a bad pattern; a host named neither way keeps its whole name.
  if (auto namer = HostNamer::Make(config.inventory.host_pattern); namer.ok()) {
    inventory_.SetHostNamer(std::move(namer.value()));
  }
  InputHealth& in = s_->inputs;
  in.set_metrics(&metrics_);
  in.Configure("ufm_events", true, config.events.poll_interval_s);
  in.Configure("inventory", true, config.inventory.refresh_interval_s);
  in.Configure("telemetry", !config.telemetry.url.empty(), config.telemetry.interval_s);
  in.Configure("event_log", !config.event_log.path.empty(), config.event_log.poll_interval_s);
  // Syslog is pushed, not polled: quiet is not stale.
  in.Configure("syslog", syslog != nullptr, 1e9);
}

Remediator::~Remediator() = default;

std::string Remediator::rules_hash() const { return s_->rules.hash(); }

const InputHealth& Remediator::inputs() const { return s_->inputs; }

void Remediator::set_may_act(std::function<bool()> may_act) {
  may_act_ = may_act;
  if (s_->drains) s_->drains->set_may_act(may_act);
  s_->executor.set_may_act(std::move(may_act));
}

void Remediator::RunOnce() {
  s_->standby = may_act_ && !may_act_();
  acting_.store(!s_->standby);
  passed_.store(true);
  metrics_.Set("ufmr_leader", s_->standby ? 0 : 1);
  if (s_->standby) return RunStandby();
  RunLeader();
}

void Remediator::RunStandby() {
  s_->own.MarkStale();  // what it holds disabled is read again on taking over
  s_->inventory.MaybeRefresh(true);
  MaybeCountTickets();
  metrics_.Set("ufmr_inventory_ports", static_cast<double>(inventory_.size()));
}

void Remediator::RunLeader() {
  Stages& s = *s_;
  PendingAlert alert;
  switch (s.rules.MaybeReload(reload_requested_.exchange(false), clock_.Now(), &alert)) {
    case LiveRules::Reload::kFailed:
      s.record.alerts()->push_back(std::move(alert));
      break;
    case LiveRules::Reload::kLoaded:
      s.record.ClearRulesAlert();
      break;
    case LiveRules::Reload::kNone:
      break;
  }
  metrics_.Set("ufmr_rules_loaded", static_cast<double>(s.rules.rules().rules.size()));
  s.inventory.MaybeRefresh(false);
  ReconcileIfDue();
  // A link that just came under watch is judged afresh: what the fault and our own disable left
  // in the counts is not the repaired link's.
  for (const auto& link : s.soaks.Load()) s.rules.engine().Forget(link);
  PollInputs();
  s.rules.Tick(clock_.Now(), s.rest.reread_horizon(), s.record.findings());
  RecordPass();
  if (s.drains) s.drains->RunDue();  // a host drained: its cut is carried out below
  if (!s.drains && !s.open_drains_checked) WarnOfOpenDrains();
  s.executor.RunOpen();
  s.executor.AnnouncePending();
  s.soaks.JudgeDue(s.record.unrecorded());
  MaybeCountTickets();
  metrics_.Set("ufmr_pending_holds", static_cast<double>(s.rules.engine().pending()));
  metrics_.Set("ufmr_inventory_ports", static_cast<double>(inventory_.size()));
}

void Remediator::WarnOfOpenDrains() {
  auto txr = store_.Begin();
  if (!txr.ok()) return;  // looked for at the next pass
  try {
    const size_t open = txr.value()->OpenDrains().size();
    txr.value()->Commit();
    s_->open_drains_checked = true;
    if (open == 0) return;
    spdlog::error(
        "{} drains of hosts in the job scheduler are still open, and scheduler.backend is none: "
        "their cuts wait and their nodes are not resumed; configure the scheduler again, or "
        "close their tickets",
        open);
  } catch (const std::exception& e) {
    spdlog::error("cannot look for open drains: {}", e.what());
  }
}

void Remediator::ReconcileIfDue() {
  Stages& s = *s_;
  // Before events: a person's isolations, and this service's own, are known before any 702.
  // Until one reconciliation has succeeded, findings wait (PassRecord).
  if (!s.reconciled ||
      s.reconcile_due.Due(clock_.Now(), config_.remediation.reconcile_interval_s)) {
    std::optional<std::set<std::string>> isolated;
    if (s.reconciler.Run(&isolated)) s.reconciled = true;
    // A person who made a port healthy again has given it back.
    if (isolated) s.marks.Retain(*isolated);
    s.own.LoadDisables(store_);
  } else if (!s.own.disables_loaded()) {
    s.own.LoadDisables(store_);
  }
}

void Remediator::PollInputs() {
  Stages& s = *s_;
  // What an event is about (a link's two ends, the switch a GUID names) comes from the
  // inventory: read without it, the same event would name another subject after a restart (and
  // file a second ticket). So inputs wait, where they are, until UFM's ports have been read.
  if (!s.inventory.loaded()) {
    if (!s.waiting_for_inventory_logged) {
      spdlog::warn(
          "inputs wait until UFM's ports have been read (the inventory names what events "
          "are about)");
      s.waiting_for_inventory_logged = true;
    }
    return;
  }
  auto consider = [this](const Observation& o) { Consider(o); };
  if (s.events_due.Due(clock_.Now(), config_.events.poll_interval_s)) {
    s.rest.Poll(consider, s.record.alerts());
  }
  if (!config_.telemetry.url.empty() &&
      s.telemetry_due.Due(clock_.Now(), config_.telemetry.interval_s)) {
    s.telemetry.Poll(s.rules.rules().counters, consider);
  }
  if (!config_.event_log.path.empty() &&
      s.event_log_due.Due(clock_.Now(), config_.event_log.poll_interval_s)) {
    s.event_log.Poll(consider);
  }
  if (s.syslog) s.syslog->Drain(consider);
}

void Remediator::Consider(const Observation& o) {
  Sifting sifting(o, &inventory_);
  FilterVerdict verdict = s_->filters.Run(sifting);
  s_->rules.Observe(sifting, verdict, s_->record.findings());
}

void Remediator::RecordPass() {
  Stages& s = *s_;
  s.breaker.ForgetIfRearmed();  // a storm is judged afresh after a re-arm
  std::vector<CursorWrite> cursors;
  std::optional<CursorWrite> rest = s.rest.CursorToWrite(s.rules.engine().OldestEventInUse());
  std::optional<CursorWrite> log = s.event_log.CursorToWrite();
  if (rest) cursors.push_back(*rest);
  if (log) cursors.push_back(*log);
  RecordedFindings out;
  PassRecord::Outcome outcome = s.record.Commit(cursors, s.reconciled, &out);
  // Once the service takes a link out of service, the rules count it afresh.
  for (const auto& link : out.forget) s.rules.engine().Forget(link);
  for (const auto& [rule, link] : out.forget_rule) s.rules.engine().ForgetRule(rule, link);
  if (out.tickets_opened > 0) s.telemetry.RecordSoon();  // the new tickets' charts start at once
  if (outcome != PassRecord::Outcome::kCommitted) return;
  s.own.AddDisabling(out.disabling);
  if (rest) s.rest.Written();
  if (log) s.event_log.Written();
}

void Remediator::Run(const std::atomic<bool>& stop) {
  while (!stop.load()) {
    try {
      const auto start = std::chrono::steady_clock::now();
      RunOnce();
      metrics_.Observe(
          "ufmr_pass_duration_seconds",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      metrics_.Set("ufmr_last_pass_timestamp_seconds", ToEpochSeconds(clock_.Now()));
    } catch (const std::exception& e) {
      // A pass that throws must not end the service: log, count, and try again next pass.
      spdlog::error("pass failed: {}", e.what());
      metrics_.Add("ufmr_pass_failures_total");
    }
    std::unique_lock<std::mutex> lock(wake_mu_);
    double nap = std::min({config_.events.poll_interval_s, config_.telemetry.interval_s, 1.0});
    auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long>(nap * 1000));
    while (!woken_ && !stop.load() && std::chrono::steady_clock::now() < deadline) {
      wake_cv_.wait_for(lock, std::chrono::milliseconds(100));
    }
    woken_ = false;
  }
}

void Remediator::Wake() {
  std::lock_guard<std::mutex> lock(wake_mu_);
  woken_ = true;
  wake_cv_.notify_all();
}

void Remediator::MaybeCountTickets() {
  if (!s_->ticket_count_due.Due(clock_.Now(), 15)) return;
  auto counts = store_.TicketCounts();
  if (!counts.ok()) return;  // the gauges keep their last values; the pass reports the database
  for (const char* state :
       {ticket_state::kOpen, ticket_state::kPortDisabled, ticket_state::kTicketOnly,
        ticket_state::kAcknowledged, ticket_state::kRepairReported, ticket_state::kVerifying,
        ticket_state::kClosed, ticket_state::kEscalated, ticket_state::kDraining,
        ticket_state::kDrained}) {
    auto it = counts->find(state);
    metrics_.Set(MetricName("ufmr_tickets", {{"state", state}}),
                 it == counts->end() ? 0 : static_cast<double>(it->second));
  }
}

Result<Ticket> Remediator::ReportRepair(int64_t ticket_id, const std::string& by,
                                        const std::string& kind, const std::string& note) {
  auto t = s_->staff.ReportRepair(ticket_id, by, kind, note);
  if (t.ok()) Wake();
  return t;
}

Result<Ticket> Remediator::Acknowledge(int64_t ticket_id, const std::string& by,
                                       const std::string& note) {
  return s_->staff.Acknowledge(ticket_id, by, note);
}

Status Remediator::RearmBreaker(const std::string& by, const std::string& note) {
  Status s = s_->staff.RearmBreaker(by, note);
  if (s.ok()) Wake();
  return s;
}

}  // namespace ufmr
