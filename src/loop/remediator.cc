#include "loop/remediator.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <thread>

#include "base/crash_point.h"
#include "base/duration.h"
#include "decide/explain.h"
#include "ingest/rest_event.h"
#include "ingest/syslog_record.h"
#include "rules/rule_loader.h"

namespace ufmr {

namespace {

constexpr const char* kEventsCursor = "rest_events";
constexpr const char* kEventLogCursor = "event_log";
constexpr const char* kService = "service";
constexpr double kEvidenceThrottleS = 300;

// Cheap change detection for the rules folder: each *.yaml's name, size and modification time.
std::string RulesFingerprint(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> parts;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    auto ext = e.path().extension().string();
    if (ext != ".yaml" && ext != ".yml") continue;
    std::error_code fe;
    auto size = fs::file_size(e.path(), fe);
    auto time = fs::last_write_time(e.path(), fe).time_since_epoch().count();
    parts.push_back(e.path().filename().string() + ":" + std::to_string(size) + ":" +
                    std::to_string(time));
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += p + ";";
  return out;
}

TimePoint After(TimePoint t, double seconds) {
  return t + std::chrono::duration_cast<TimePoint::duration>(Seconds(seconds));
}

DecisionPolicy PolicyFrom(const Config::Remediation& r) {
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
  return p;
}

}  // namespace

Remediator::Remediator(const Config& config, Store& store, UfmClient& ufm, Inventory& inventory,
                       Metrics& metrics, const Clock& clock, std::shared_ptr<const RuleSet> rules,
                       SyslogReceiver* syslog)
    : config_(config),
      store_(store),
      ufm_(ufm),
      inventory_(inventory),
      metrics_(metrics),
      clock_(clock),
      engine_(std::move(rules), &inventory),
      rules_fingerprint_(RulesFingerprint(config.rules.dir)),
      rules_hash_(engine_.rules().hash),
      decider_(PolicyFrom(config.remediation)),
      executor_(
          config, store, ufm, inventory, metrics, clock,
          [this](const Ticket& t) { return SoakFor(t); },
          [this](const PortAction& a, ActionExecutor::Outcome outcome) {
            // Failed, or done by a person first: not this service's cut. Back up (by us or by a
            // person): what the link says is judged again.
            // An uncertain cut is held as ours: what its link reports is not a new fault.
            if (a.action == "disable" && outcome != ActionExecutor::Outcome::kConfirmed &&
                outcome != ActionExecutor::Outcome::kUncertain) {
              our_disables_.erase(a.port);
            }
            if (a.action == "enable" && outcome != ActionExecutor::Outcome::kFailed) {
              our_disables_.erase(a.port);
            }
            if (outcome != ActionExecutor::Outcome::kConfirmed) return;
            if (a.action == "isolate") our_isolations_.insert(a.port);
            if (a.action == "unisolate") our_isolations_.erase(a.port);
          }),
      syslog_(syslog) {
  store_.set_repeat_window_s(config.remediation.repeat_offender_window_s);
  inputs_.set_metrics(&metrics_);
  SnapshotRules();
  inputs_.Configure("ufm_events", true, config.events.poll_interval_s);
  inputs_.Configure("inventory", true, config.inventory.refresh_interval_s);
  inputs_.Configure("telemetry", !config.telemetry.url.empty(), config.telemetry.interval_s);
  inputs_.Configure("event_log", !config.event_log.path.empty(), config.event_log.poll_interval_s);
  // Syslog is pushed, not polled: quiet is not stale.
  inputs_.Configure("syslog", syslog != nullptr, 1e9);
}

std::string Remediator::rules_hash() const {
  std::lock_guard<std::mutex> lock(hash_mu_);
  return rules_hash_;
}

void Remediator::MaybeReloadRules() {
  bool forced = reload_requested_.exchange(false);
  if (!forced) {
    if (config_.rules.reload_check_interval_s <= 0) return;
    if (!Due(next_rules_check_, config_.rules.reload_check_interval_s)) return;
  }
  std::string fingerprint = RulesFingerprint(config_.rules.dir);
  if (!forced && fingerprint == rules_fingerprint_) return;
  rules_fingerprint_ = fingerprint;
  auto start = std::chrono::steady_clock::now();
  auto loaded = LoadRulesDir(config_.rules.dir);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  metrics_.Set("ufmr_rules_reload_duration_seconds", seconds);
  for (const auto& d : loaded.diagnostics) {
    (d.warning ? spdlog::warn("rules: {}", d.ToString())
               : spdlog::error("rules: {}", d.ToString()));
  }
  if (!loaded.ok()) {
    int errors = 0;
    nlohmann::json diags = nlohmann::json::array();
    for (const auto& d : loaded.diagnostics) {
      if (d.warning) continue;
      ++errors;
      diags.push_back(d.ToJson());
    }
    spdlog::error("rules reload failed with {} errors; still deciding with rules {}", errors,
                  engine_.rules().hash);
    metrics_.Add("ufmr_rules_reloads_total{result=\"error\"}");
    metrics_.Set("ufmr_rules_last_reload_success", 0);
    std::string first = diags.empty() ? ""
                                      : diags[0].value("file", "") + ":" +
                                            std::to_string(diags[0].value("line", 0)) + ": " +
                                            diags[0].value("message", "");
    alerts_.push_back({"rules_reload",
                       "Rules reload failed (" + std::to_string(errors) + " errors; first: " +
                           first + "). Still using rules " + engine_.rules().hash + ".",
                       {{"diagnostics", diags}, {"kept_hash", engine_.rules().hash}}});
    return;
  }
  metrics_.Add("ufmr_rules_reloads_total{result=\"ok\"}");
  metrics_.Set("ufmr_rules_last_reload_success", 1);
  clear_rules_alert_ = true;
  if (loaded.rules->hash == engine_.rules().hash) return;  // touched, not changed
  std::string was = engine_.rules().hash;
  RuleEngine next(loaded.rules, &inventory_);
  next.AdoptState(std::move(engine_));
  engine_ = std::move(next);
  SnapshotRules();
  metrics_.Set("ufmr_rules_loaded", static_cast<double>(engine_.rules().rules.size()));
  spdlog::info("rules reloaded from {}: {} rules, hash {} (was {}), in {:.1f} ms",
               config_.rules.dir, engine_.rules().rules.size(), engine_.rules().hash, was,
               seconds * 1000);
}

bool Remediator::Due(TimePoint& next, double interval_s) {
  TimePoint now = clock_.Now();
  if (now < next) return false;
  next = After(now, interval_s);
  return true;
}

void Remediator::set_may_act(std::function<bool()> may_act) {
  may_act_ = may_act;
  executor_.set_may_act(std::move(may_act));
}

void Remediator::RunOnce() {
  standby_ = may_act_ && !may_act_();
  acting_.store(!standby_);
  metrics_.Set("ufmr_leader", standby_ ? 0 : 1);
  if (standby_) {
    // Another instance acts: keep the inventory fresh for this one's dashboard, nothing else.
    our_disables_loaded_ = false;  // what it holds disabled is read again on taking over
    MaybeRefreshInventory();
    MaybeCountTickets();
    metrics_.Set("ufmr_inventory_ports", static_cast<double>(inventory_.size()));
    return;
  }
  MaybeReloadRules();
  metrics_.Set("ufmr_rules_loaded", static_cast<double>(engine_.rules().rules.size()));
  MaybeRefreshInventory();
  // Before events: a person's isolations, and this service's own, are known before any 702.
  // Until one reconciliation has succeeded, findings wait (ApplyQueue).
  if (!reconciled_ || Due(next_reconcile_, config_.remediation.reconcile_interval_s)) {
    if (Reconcile()) reconciled_ = true;
    if (LoadOurDisables()) our_disables_loaded_ = true;
  } else if (!our_disables_loaded_ && LoadOurDisables()) {
    our_disables_loaded_ = true;
  }
  LoadVerifyingLinks();
  // What an event is about (a link's two ends, the switch a GUID names) comes from the
  // inventory: read without it, the same event would name another subject after a restart (and
  // file a second ticket). So inputs wait, where they are, until UFM's ports have been read.
  if (inventory_loaded_) {
    if (Due(next_events_, config_.events.poll_interval_s)) PollEvents();
    if (!config_.telemetry.url.empty() && Due(next_telemetry_, config_.telemetry.interval_s)) {
      PollTelemetry();
    }
    if (!config_.event_log.path.empty() &&
        Due(next_event_log_, config_.event_log.poll_interval_s)) {
      PollEventLog();
    }
    if (syslog_) DrainSyslog();
  } else if (!waiting_for_inventory_logged_) {
    spdlog::warn(
        "inputs wait until UFM's ports have been read (the inventory names what events "
        "are about)");
    waiting_for_inventory_logged_ = true;
  }
  engine_.Tick(clock_.Now(), &queue_);
  ApplyQueue();
  executor_.RunOpen();
  executor_.AnnouncePending();
  CheckSoaks();
  MaybeCountTickets();
  metrics_.Set("ufmr_pending_holds", static_cast<double>(engine_.pending()));
  metrics_.Set("ufmr_inventory_ports", static_cast<double>(inventory_.size()));
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
  if (!Due(next_ticket_count_, 15)) return;
  auto counts = store_.TicketCounts();
  if (!counts.ok()) return;  // the gauges keep their last values; the pass reports the database
  for (const char* state :
       {ticket_state::kOpen, ticket_state::kPortDisabled, ticket_state::kTicketOnly,
        ticket_state::kAcknowledged, ticket_state::kRepairReported, ticket_state::kVerifying,
        ticket_state::kClosed, ticket_state::kEscalated}) {
    auto it = counts->find(state);
    metrics_.Set(MetricName("ufmr_tickets", {{"state", state}}),
                 it == counts->end() ? 0 : static_cast<double>(it->second));
  }
}

void Remediator::MaybeRefreshInventory() {
  if (Due(next_inventory_, config_.inventory.refresh_interval_s) || !inventory_loaded_ ||
      inventory_.size() == 0) {
    RefreshInventory();
  }
}

void Remediator::RefreshInventory() {
  auto ports = ufm_.GetPorts();
  if (!ports.ok()) {
    spdlog::warn("inventory refresh failed: {}", ports.status().ToString());
    metrics_.Add("ufmr_ufm_errors_total{call=\"ports\"}");
    inputs_.Failed("inventory", clock_.Now(), ports.status().message());
    return;
  }
  spdlog::debug("inventory: {} ports", ports->size());
  // Peers the ports list leaves out come from the links, when UFM serves them.
  auto links = ufm_.GetLinks();
  if (links.ok()) {
    int filled = FillPeersFromLinks(&ports.value(), links.value());
    if (filled > 0) spdlog::debug("inventory: {} peers filled in from the links", filled);
  } else if (links.status().code() != Status::Code::kNotFound) {
    spdlog::warn("links refresh failed: {}", links.status().ToString());
    metrics_.Add("ufmr_ufm_errors_total{call=\"links\"}");
  }
  for (const auto& c : inventory_.Replace(std::move(ports.value()))) {
    // Not an error, but worth knowing: tickets name links by their ends.
    spdlog::info("inventory: port {} now faces {} (was {})", c.port,
                 c.now.empty() ? "nothing" : c.now, c.was.empty() ? "nothing" : c.was);
    metrics_.Add("ufmr_inventory_peer_changes_total");
  }
  inputs_.Ok("inventory", clock_.Now(), std::to_string(inventory_.size()) + " ports");
  inventory_loaded_ = true;
  if (!standby_) PlaceTickets();
#if defined(__GLIBC__)
  // The answers' text and trees (tens of MB at 100,000 ports) are freed by now; glibc keeps freed
  // pages for reuse, so hand them back: the resident size stays the inventory's, not the parse's.
  malloc_trim(0);
#endif
}

void Remediator::PlaceTickets() {
  // Tickets filed before the service knew where links are (or by an older version) get their
  // place once the inventory is in.
  auto txr = store_.Begin();
  if (!txr.ok()) return;
  try {
    auto& tx = *txr.value();
    auto tickets = tx.UnplacedTickets(500);
    if (tickets.empty()) return;
    for (auto& t : tickets) {
      placer_.Place(inventory_, &t);
      tx.SetPlace(t);
    }
    tx.Commit();
  } catch (const std::exception& e) {
    spdlog::warn("cannot record where ticketed links are: {}", e.what());
  }
}

void Remediator::LoadVerifyingLinks() {
  auto tickets = store_.ListTickets(ticket_state::kVerifying, 100000);
  if (!tickets.ok()) return;  // keep the last known set
  verifying_ = std::move(tickets.value());
  std::set<std::string> now;
  for (const auto& t : verifying_) now.insert(t.link_key);
  for (const auto& link : now) {
    // A link that just came under watch is judged afresh: what the fault and our own disable
    // left in the counts is not the repaired link's. (Here, on the pipeline thread: the engine
    // belongs to it.)
    if (!verifying_links_.count(link)) engine_.Forget(link);
  }
  verifying_links_ = std::move(now);
}

void Remediator::PollEvents() {
  if (!event_cursor_) {
    auto tx = store_.Begin();
    if (!tx.ok()) {
      spdlog::warn("cannot read the event cursor: {}", tx.status().ToString());
      inputs_.Failed("ufm_events", clock_.Now(), "cannot read the event cursor");
      return;
    }
    event_cursor_ = tx.value()->Cursor(kEventsCursor);
    written_cursor_ = event_cursor_;
    written_newest_ = event_cursor_;
    auto state = tx.value()->CursorState(kEventsCursor);
    newest_event_time_ = state.value("newest_timestamp", "");
    reread_until_ = state.value("newest_id", int64_t{0});
    if (!event_cursor_) {
      // First start: the history UFM holds predates this service. Begin at its newest event.
      auto events = ufm_.GetEvents();
      if (!events.ok()) {
        spdlog::warn("event poll failed: {}", events.status().ToString());
        metrics_.Add("ufmr_ufm_errors_total{call=\"events\"}");
        inputs_.Failed("ufm_events", clock_.Now(), events.status().message());
        return;
      }
      inputs_.Ok("ufm_events", clock_.Now(), "");
      int64_t newest = events->events.empty() ? 0 : events->events.back().id;
      event_cursor_ = newest;
      if (!events->events.empty()) newest_event_time_ = events->events.back().timestamp;
      spdlog::info("first start for fabric '{}': skipping {} historical events (up to id {})",
                   config_.fabric, events->events.size(), newest);
      return;
    }
    spdlog::info("resuming events after id {}", *event_cursor_);
  }
  auto events = ufm_.GetEvents();
  if (!events.ok()) {
    spdlog::warn("event poll failed: {}", events.status().ToString());
    metrics_.Add("ufmr_ufm_errors_total{call=\"events\"}");
    inputs_.Failed("ufm_events", clock_.Now(), events.status().message());
    return;
  }
  inputs_.Ok("ufm_events", clock_.Now(),
             events->errors.empty()
                 ? ""
                 : std::to_string(events->errors.size()) + " malformed events skipped last poll");
  for (const auto& err : events->errors) {
    spdlog::warn("skipped a malformed UFM event: {}", err);
    metrics_.Add("ufmr_parse_errors_total{source=\"rest_events\"}");
  }
  const auto& list = events->events;
  const int64_t cursor = *event_cursor_;
  // After an id regression, only events stamped later than the newest one already read are new.
  std::string not_after;
  if (!list.empty() && list.back().id < cursor) {
    // UFM's ids went backwards: a reinstall, or its event store was reset or restored.
    not_after = newest_event_time_;
    size_t old = 0;
    for (const auto& e : list) old += !not_after.empty() && e.timestamp <= not_after;
    std::string message = "UFM event ids went back from " + std::to_string(cursor) + " to " +
                          std::to_string(list.back().id) +
                          " (UFM reinstalled or its event store reset): " + std::to_string(old) +
                          " events stamped at or before " + (not_after.empty() ? "?" : not_after) +
                          " were taken as already seen and not replayed; " +
                          std::to_string(list.size() - old) + " later ones are read";
    spdlog::error("{}", message);
    metrics_.Add("ufmr_event_id_regressions_total");
    alerts_.push_back({"event_id_regression",
                       message,
                       {{"cursor", cursor}, {"newest_id", list.back().id}, {"skipped", old}}});
    event_cursor_ = 0;
  } else if (cursor > 0) {
    // Ids UFM no longer holds between the cursor and the newest event: lost to this service.
    int64_t lost = 0, prev = cursor;
    std::string ranges;
    for (const auto& e : list) {
      if (e.id <= prev) continue;
      if (e.id > prev + 1) {
        lost += e.id - prev - 1;
        if (!ranges.empty()) ranges += ", ";
        ranges += std::to_string(prev + 1) +
                  (e.id - 1 > prev + 1 ? " to " + std::to_string(e.id - 1) : "");
      }
      prev = e.id;
    }
    if (lost > 0) {
      std::string message = std::to_string(lost) + " UFM events (ids " + ranges +
                            ") were gone from UFM before they could be read (UFM retention, or "
                            "the service was down); faults they reported may be missed";
      spdlog::error("{}", message);
      metrics_.Add("ufmr_event_id_gaps_total");
      metrics_.Add("ufmr_events_lost_total", static_cast<double>(lost));
      alerts_.push_back({"event_id_gap", message, {{"cursor", cursor}, {"lost", lost}}});
    }
  }
  TimePoint now = clock_.Now();
  for (const auto& e : list) {
    if (e.id <= *event_cursor_) continue;
    event_cursor_ = e.id;
    if (!not_after.empty() && e.timestamp <= not_after) continue;  // an old event, not replayed
    Observation o = ToObservation(e, now);
    o.reread = e.id <= reread_until_;
    if (o.reread) {
      // Read again after a restart, with everything since the cursor: taken as received now,
      // events minutes apart would arrive as one burst, and a count rule (three links of a
      // switch within 20 s) would see one that never was. Its time is when UFM stamped it
      // (never later than now).
      TimePoint stamped;
      if (ParseUfmTimestamp(o.ufm_timestamp, config_.ufm.utc_offset_s, &stamped) && stamped < now) {
        o.time = stamped;
      }
    }
    ConsiderEvent(o);
    if (e.timestamp > newest_event_time_) newest_event_time_ = e.timestamp;
  }
}

void Remediator::ConsiderEvent(const Observation& o) {
  // Before the dedup, so UFM's REST or event-log copy of a 336 counts even when syslog brought it
  // first; not from syslog, whose senders nobody checks: a forged 336 would hide a link's faults.
  if (o.event_type == 336 && o.source != "syslog") {
    auto ours = [this](const std::string& port) { return our_disables_.count(port) > 0; };
    for (const auto& port : hand_disables_.Note(o, engine_.PortsOf(o), ours)) {
      spdlog::info(
          "port {} was disabled in UFM, not by this service: what its link reports in the next "
          "{} s is that disable's doing",
          port, RecentDisables::kWindowS);
    }
  }
  if (!deduper_.FirstSighting(o)) {
    metrics_.Add(MetricName("ufmr_duplicate_events_total", {{"source", o.source}}));
    return;
  }
  metrics_.Add(MetricName("ufmr_events_total", {{"source", o.source}}));
  TimePoint stamped;
  if (!o.reread && ParseUfmTimestamp(o.ufm_timestamp, config_.ufm.utc_offset_s, &stamped)) {
    // UFM stamps whole seconds (and a clock a little ahead reads as no lag, not a negative one).
    metrics_.Observe(MetricName("ufmr_event_lag_seconds", {{"source", o.source}}),
                     std::max(0.0, ToEpochSeconds(o.time) - ToEpochSeconds(stamped)));
  }
  if (o.event_type == 702) {
    // This service's own isolations show up as 702 MANUAL too: those are not a person's.
    std::vector<std::string> ports;
    for (auto& p : engine_.PortsOf(o)) {
      if (!OurIsolation(p)) ports.push_back(std::move(p));
    }
    if (!ports.empty()) manual_marks_.Observe(o, ports);
  }
  if (!hand_disables_.empty()) {
    std::vector<std::string> ports = engine_.PortsOf(o);
    if (hand_disables_.Covers(o, ports, inventory_)) {
      engine_.NoteLinkDown(o, ports);  // the link's uptime starts again all the same
      metrics_.Add(MetricName("ufmr_events_after_hand_disable_total", {{"source", o.source}}));
      spdlog::info(
          "event {} ({}) follows a disable in UFM that was not this service's: not a fault",
          o.event_id, o.name);
      return;
    }
  }
  if (AboutOurDisable(o)) {
    metrics_.Add(MetricName("ufmr_events_on_held_links_total", {{"source", o.source}}));
    spdlog::debug("event {} ({}) is about a link this service holds disabled: not for the rules",
                  o.event_id, o.name);
    return;
  }
  Consider(o);
}

bool Remediator::AboutOurDisable(const Observation& o) const {
  if (our_disables_.empty() || o.ports.empty()) return false;
  // On every event: the inventory is asked for the link only when a held port is named, or when
  // the event names one end and the held one may be its peer.
  auto held = [this](const std::string& p) { return our_disables_.count(p) > 0; };
  const bool named = std::any_of(o.ports.begin(), o.ports.end(), held);
  if (!named && o.ports.size() > 1) return false;  // a link event names both ends
  std::vector<std::string> ends = inventory_.LinkEnds(o.ports);
  if (!named && !std::any_of(ends.begin(), ends.end(), held)) return false;
  return verifying_links_.count(LinkKey(ends)) == 0;
}

bool Remediator::LoadOurDisables() {
  auto txr = store_.Begin();
  if (!txr.ok()) return false;
  try {
    std::set<std::string> ports;
    for (const auto& t : txr.value()->HeldTickets()) {
      if (t.method == "disable") ports.insert(t.action_port);
    }
    our_disables_ = std::move(ports);
    return true;
  } catch (const std::exception& e) {
    spdlog::warn("cannot read the ports this service holds disabled: {}", e.what());
    return false;
  }
}

void Remediator::PollEventLog() {
  if (!tailer_) {
    std::optional<LogPosition> resume;
    auto tx = store_.Begin();
    if (!tx.ok()) {
      spdlog::warn("cannot read the event log cursor: {}", tx.status().ToString());
      return;
    }
    nlohmann::json state;
    try {
      state = tx.value()->CursorState(kEventLogCursor);
    } catch (const std::exception& e) {
      spdlog::warn("cannot read the event log cursor: {}", e.what());
      return;
    }
    if (state.contains("position")) {
      auto p = LogPosition::FromJson(state["position"].dump());
      if (p.ok()) {
        resume = p.value();
        written_log_cursor_ = state["position"];
      } else {
        spdlog::warn("event log cursor unreadable ({}); starting at the end of the file",
                     p.status().message());
      }
    }
    LogTailerOptions options;
    options.rotated_suffixes = {config_.event_log.rotated_suffix};
    options.start_at_end = !resume;  // first start: the file's history predates the service
    tailer_ = std::make_unique<LogTailer>(config_.event_log.path, resume, options);
  }
  const TimePoint now = clock_.Now();
  auto handle = [&](const RawLogEntry& raw) {
    LogEntry entry;
    Status s = ParseEventLogEntry(raw, &entry);
    if (!s.ok()) {
      metrics_.Add("ufmr_parse_errors_total{source=\"event_log\"}");
      spdlog::warn("{} at byte {}: {}", tailer_->path(), raw.offset, s.message());
      return;
    }
    ConsiderEvent(ToObservation(entry, now));
  };
  TailPoll poll = tailer_->Poll();
  for (const auto& n : poll.notices) spdlog::info("event log: {}", n.message);
  if (!poll.status.ok()) {
    spdlog::warn("event log: {}", poll.status.message());
    inputs_.Failed("event_log", now, poll.status.message());
  } else {
    inputs_.Ok("event_log", now, tailer_->path());
  }
  RawLogEntry raw;
  for (const LogLine& l : poll.lines) {
    if (assembler_.Add(l.text, l.offset, l.inode, &raw)) handle(raw);
  }
  if (poll.lines.empty() && assembler_.Flush(&raw)) handle(raw);  // the writer is idle
  std::optional<LogPosition> at;
  if (auto held = assembler_.pending()) {
    // The cursor points at the start of an entry still being assembled, not past it.
    at = tailer_->PositionAt(held->file_id, held->offset);
    if (!at && assembler_.Flush(&raw)) handle(raw);
  }
  auto cursor = nlohmann::json::parse((at ? *at : tailer_->position()).ToJson(), nullptr, false);
  if (!cursor.is_discarded()) log_cursor_ = cursor;
}

void Remediator::DrainSyslog() {
  const TimePoint now = clock_.Now();
  for (const auto& m : syslog_->Drain()) {
    LogEntry entry;
    Observation o;
    Status s = ParseSyslogRecord(m.text, now, &entry, &o);
    if (!s.ok()) {
      metrics_.Add("ufmr_parse_errors_total{source=\"syslog\"}");
      spdlog::warn("syslog from {}: {}", m.peer, s.message());
      continue;
    }
    ConsiderEvent(o);
  }
  inputs_.Ok("syslog", now,
             std::to_string(syslog_->received()) + " records received, " +
                 std::to_string(syslog_->dropped()) + " dropped");
  metrics_.Set("ufmr_syslog_received", static_cast<double>(syslog_->received()));
  metrics_.Set("ufmr_syslog_dropped", static_cast<double>(syslog_->dropped()));
}

void Remediator::PollTelemetry() {
  // Only counters some rule names become observations; the rest are tracked, not forwarded.
  telemetry_.SetInterest(engine_.rules().counters);
  auto report = telemetry_.Poll(clock_.Now(), [this](const Observation& o) { Consider(o); });
  for (const auto& failure : report.fetch_failures) {
    spdlog::warn("telemetry poll failed: {}", failure);
    metrics_.Add("ufmr_ufm_errors_total{call=\"telemetry\"}");
  }
  if (report.primary_ok) {
    inputs_.Ok(
        "telemetry", clock_.Now(),
        std::to_string(report.rows) + " port samples last poll" +
            (report.fetch_failures.empty() ? ""
                                           : " (partly: " + report.fetch_failures.front() + ")"));
  } else {
    inputs_.Failed("telemetry", clock_.Now(),
                   report.fetch_failures.empty() ? "no snapshot" : report.fetch_failures.front());
  }
  for (const auto& err : report.input_errors) {
    spdlog::warn("telemetry: skipped {}", err);
    metrics_.Add("ufmr_parse_errors_total{source=\"telemetry\"}");
  }
  if (report.ber_without_rate > 0) {
    spdlog::debug("telemetry: {} ports with symbol errors have no known speed/width: no SymbolBER",
                  report.ber_without_rate);
  }
  metrics_.Add("ufmr_telemetry_samples_total", static_cast<double>(report.rows));
  history_.MaybeRecord(store_, telemetry_.primary(), engine_.rules().counters, clock_.Now());
}

void Remediator::Consider(const Observation& o) {
  if (!verifying_links_.empty() && !o.ports.empty() && !o.reread) {
    std::vector<std::string> ends = inventory_.LinkEnds(o.ports);
    std::string key = LinkKey(ends);
    const Rule* broken = verifying_links_.count(key) ? engine_.BreaksSoak(o) : nullptr;
    if (broken) {
      // Under soak, a sign past the rule's clear level fails verification at once: no count,
      // no hold.
      Finding f;
      f.rule = broken->name;
      f.action = broken->action;
      f.mode = broken->mode;
      f.scope = broken->scope;
      f.severity = broken->severity;
      f.link_key = key;
      f.ports = ends;
      f.time = o.time;
      f.rules_hash = engine_.rules().hash;
      f.reason = "during verification: " +
                 (o.kind == Observation::Kind::kEvent ? o.name : o.counter + " increased");
      f.evidence = {{"observations", {ObservationToJson(o)}},
                    {"during_soak", true},
                    {"rules_hash", f.rules_hash}};
      queue_.push_back(std::move(f));
      return;
    }
  }
  const size_t before = queue_.size();
  engine_.Observe(o, &queue_);
  if (o.reread) {
    // Findings rebuilt from events read again after a restart: not news for a soak either.
    for (size_t i = before; i < queue_.size(); ++i) queue_[i].evidence["reread"] = true;
  }
}

void Remediator::ApplyQueue() {
  if (breaker_rearmed_.exchange(false)) acting_findings_.clear();  // a storm is judged afresh
  // Never persist past an event that only memory still holds (a hold or a count window): after a
  // restart it is read again.
  std::optional<int64_t> safe = event_cursor_;
  if (auto oldest = engine_.OldestEventInUse(); safe && oldest) safe = std::min(*safe, *oldest - 1);
  // The newest id read moves too (held below by windows, `safe` may not): a restart needs it.
  bool cursor_moved = safe && (safe != written_cursor_ || event_cursor_ != written_newest_);
  bool log_moved = log_cursor_ && log_cursor_ != written_log_cursor_;
  if (queue_.empty() && !cursor_moved && !log_moved && alerts_.empty() && !clear_rules_alert_) {
    return;
  }
  if (!queue_.empty() && !reconciled_) {
    // Not knowing which ports people isolated could act on one of theirs: wait.
    spdlog::warn("{} findings wait for a first reconciliation with UFM", queue_.size());
    return;
  }
  if (!queue_.empty()) {
    auto silences = store_.ActiveSilences();
    if (silences.ok()) {
      silences_ = SilenceSet(std::move(silences.value()));
    } else {
      // Deciding without the silences could act inside a maintenance window: wait.
      spdlog::error("cannot read silences: {}; {} findings wait", silences.status().ToString(),
                    queue_.size());
      metrics_.Add("ufmr_store_errors_total");
      return;
    }
  }
  auto tx = store_.Begin();
  if (!tx.ok()) {
    spdlog::error("cannot record {} findings: {}; no action taken, will retry", queue_.size(),
                  tx.status().ToString());
    metrics_.Add("ufmr_store_errors_total");
    return;
  }
  try {
    disabling_.clear();
    for (const auto& f : queue_) ApplyFinding(*tx.value(), f);
    if (clear_rules_alert_) tx.value()->ClearAlertsOfKind("rules_reload", kService);
    for (const auto& a : alerts_) tx.value()->AddAlert(a.kind, a.message, a.details);
    if (cursor_moved) {
      tx.value()->SetCursor(
          kEventsCursor, *safe,
          {{"newest_timestamp", newest_event_time_}, {"newest_id", event_cursor_.value_or(*safe)}});
    }
    if (log_moved) {
      tx.value()->SetCursor(kEventLogCursor, (*log_cursor_).value("offset", int64_t{0}),
                            {{"position", *log_cursor_}});
    }
    tx.value()->Commit();
    our_disables_.insert(disabling_.begin(), disabling_.end());
    if (!queue_.empty()) {
      CrashPoint("decided", "disable");
      CrashPoint("decided", "isolate");
    }
    queue_.clear();
    alerts_.clear();
    clear_rules_alert_ = false;
    if (log_moved) written_log_cursor_ = log_cursor_;
    if (cursor_moved) {
      written_cursor_ = safe;
      written_newest_ = event_cursor_;
    }
  } catch (const std::exception& e) {
    spdlog::error("cannot record {} findings: {}; no action taken, will retry", queue_.size(),
                  e.what());
    metrics_.Add("ufmr_store_errors_total");
  }
}

namespace {

// The decision stage's questions, answered from the pass's transaction and the inventory.
class TxDecisionContext final : public DecisionContext {
 public:
  TxDecisionContext(Store::Tx& tx, const Inventory& inventory, const SilenceSet& silences,
                    const ManualMarks& marks,
                    const std::map<std::string, std::string>& persons_isolated,
                    std::deque<TimePoint>& acting)
      : tx_(tx),
        inventory_(inventory),
        silences_(silences),
        marks_(marks),
        persons_isolated_(persons_isolated),
        acting_(acting) {}
  std::optional<PortInfo> Port(const std::string& name) override { return inventory_.Get(name); }
  std::optional<OpenTicketInfo> OpenTicket(const std::string& entity) override {
    open_ = tx_.OpenTicketForLink(entity);
    if (!open_) return std::nullopt;
    // Only a ticket that never asked for a port action may be upgraded by a rule that acts: a
    // ticket reopened after a repair (attempts > 0) has a history a person must judge.
    // Nor one a person took over (drift) or whose action UFM refused: not tried again by a rule.
    bool acted = open_->state != ticket_state::kTicketOnly || open_->attempts > 0 ||
                 open_->guard == "drift" || open_->guard == "action_failed";
    return OpenTicketInfo{open_->id, acted};
  }
  const Silence* Silenced(const SilenceSubject& subject, TimePoint t) override {
    return silences_.Match(subject, t);
  }
  std::string OwnedByPerson(const std::string& port) override {
    if (std::string why = marks_.Why(port); !why.empty()) return why;
    if (auto it = persons_isolated_.find(port); it != persons_isolated_.end()) return it->second;
    auto info = inventory_.Get(port);
    // No open ticket of ours covers this link (that is checked first), so a disabled port was
    // disabled by someone else.
    if (info && info->disabled()) return "disabled in UFM, not by this service";
    return "";
  }
  std::vector<std::string> HeldPorts() override { return tx_.HeldPorts(); }
  int FabricPorts() override { return static_cast<int>(inventory_.size()); }
  std::vector<PortInfo> NodePorts(const PortInfo& port) override {
    return inventory_.NodePorts(port);
  }
  int ActionsSince(TimePoint since) override { return tx_.CutActionsSince(ToEpochSeconds(since)); }
  std::optional<TimePoint> LastActionOn(const std::string& port) override {
    auto t = tx_.LastActionOn(port);
    if (!t) return std::nullopt;
    return FromEpochSeconds(*t);
  }
  bool BreakerTripped() override { return tx_.Breaker().tripped; }
  int CountActingFinding(TimePoint t, double window_s) override {
    acting_.push_back(t);
    TimePoint since = After(t, -window_s);
    while (!acting_.empty() && acting_.front() < since) acting_.pop_front();
    return static_cast<int>(acting_.size());
  }
  void TripBreaker(const Decision&, int count) override { tripped_count_ = count; }
  std::optional<Ticket>& open() { return open_; }
  // Set when this decision tripped the breaker: the findings counted in its window.
  std::optional<int> tripped_count() const { return tripped_count_; }

 private:
  Store::Tx& tx_;
  const Inventory& inventory_;
  const SilenceSet& silences_;
  const ManualMarks& marks_;
  const std::map<std::string, std::string>& persons_isolated_;
  std::deque<TimePoint>& acting_;
  std::optional<Ticket> open_;
  std::optional<int> tripped_count_;
};

// A failed soak takes the port out again through the same guards, but as a verdict on the
// ticket, not a new finding: its own open ticket, silences and the cooldown (the service's own
// enable for the soak) do not apply, and it does not count toward the breaker.
class RecutContext final : public DecisionContext {
 public:
  explicit RecutContext(DecisionContext& inner) : inner_(inner) {}
  std::optional<PortInfo> Port(const std::string& name) override { return inner_.Port(name); }
  std::optional<OpenTicketInfo> OpenTicket(const std::string&) override { return std::nullopt; }
  const Silence* Silenced(const SilenceSubject&, TimePoint) override { return nullptr; }
  std::string OwnedByPerson(const std::string& port) override { return inner_.OwnedByPerson(port); }
  std::vector<std::string> HeldPorts() override { return inner_.HeldPorts(); }
  int FabricPorts() override { return inner_.FabricPorts(); }
  std::vector<PortInfo> NodePorts(const PortInfo& port) override { return inner_.NodePorts(port); }
  int ActionsSince(TimePoint since) override { return inner_.ActionsSince(since); }
  std::optional<TimePoint> LastActionOn(const std::string&) override { return std::nullopt; }
  bool BreakerTripped() override { return inner_.BreakerTripped(); }
  int CountActingFinding(TimePoint, double) override { return 0; }
  void TripBreaker(const Decision&, int) override {}

 private:
  DecisionContext& inner_;
};

}  // namespace

int64_t Remediator::RecordAction(Store::Tx& tx, int64_t ticket_id, const std::string& port,
                                 const std::string& action, const std::string& state,
                                 const std::string& reason) {
  PortAction a;
  a.ticket_id = ticket_id;
  a.port = port;
  auto info = inventory_.Get(port);
  a.system_guid = info ? info->system_guid : "";
  a.action = action;
  a.state = state;
  a.reason = reason;
  return tx.InsertAction(a);
}

void Remediator::ForgetLink(const Finding& f) {
  // Once the service takes a link out of service, its counting starts afresh: the link-downs our
  // own action causes are not the fault's. Other decisions keep the counts (a ticket-only finding
  // may be followed by one that acts), and a fired rule stays active, so it does not repeat.
  if (f.scope == RuleScope::kPort || f.scope == RuleScope::kLink) engine_.Forget(f.link_key);
}

void Remediator::ApplyFinding(Store::Tx& tx, const Finding& f) {
  metrics_.Add(MetricName("ufmr_findings_total", {{"rule", f.rule}}));
  if (f.evidence.value("during_soak", false)) {
    // A repaired link under watch showed a bad sign: that is the verdict, whatever silences or
    // modes say about new findings.
    auto existing = tx.OpenTicketForLink(f.link_key);
    if (existing && existing->state == ticket_state::kVerifying) {
      FailSoak(tx, *existing, f.reason, f.evidence);
    } else if (existing) {
      tx.AddEvent(existing->id, "evidence", kService, "rule " + f.rule + ": " + f.reason,
                  f.evidence);
    }
    // A single sign is a verdict on a soak, never a finding of its own (no count, no hold).
    return;
  }
  TxDecisionContext ctx(tx, inventory_, silences_, manual_marks_, persons_isolated_,
                        acting_findings_);
  Decision d = decider_.Decide(f, ctx);
  metrics_.Add(MetricName("ufmr_decisions_total", {{"decision", DecisionKindName(d.kind)}}));
  if (d.kind == DecisionKind::kBlocked) {
    metrics_.Add(MetricName("ufmr_guard_vetoes_total", {{"guard", d.guard}}));
  }
  // The audit trail: every decision, with the rules hash it was made under.
  auto record = [&](std::optional<int64_t> ticket) { tx.AddDecision(d.ToJson(), ticket); };
  const std::string explanation = Explain(f, d);
  nlohmann::json evidence = f.evidence;
  evidence["decision"] = d.ToJson();
  evidence["explanation"] = explanation;
  if (d.guard == "breaker") {
    // A storm: one ticket for all of it, not one per link (even for a link with a ticket).
    if (ctx.tripped_count()) OpenStorm(tx, *ctx.tripped_count(), evidence);
    RecordStorm(tx, f, d);
    return;
  }
  if (ctx.open() && !d.acts()) {
    Ticket& existing = *ctx.open();
    record(existing.id);
    // Only a rule that would take the link out judges a repair (as BreaksSoak does for single
    // signs); a shadow, ticket-only or record-only finding adds evidence.
    bool judges = f.mode == RuleMode::kEnforce &&
                  (f.action == RuleAction::kDisablePort || f.action == RuleAction::kIsolatePort);
    if (existing.state == ticket_state::kVerifying && judges &&
        !f.evidence.value("reread", false)) {
      FailSoak(tx, existing, f.reason, f.evidence);
      return;
    }
    if (d.kind == DecisionKind::kBlocked && existing.state == ticket_state::kTicketOnly &&
        existing.guard != d.guard) {
      // A rule that acts would take the link out, and a guard says no: the ticket says so.
      existing.guard = d.guard;
      existing.explanation = explanation;
      tx.UpdateTicket(existing);
      tx.AddEvent(existing.id, "guard", kService, "no port action: " + d.note,
                  {{"guard", d.guard}, {"rule", f.rule}});
    }
    TimePoint now = clock_.Now();
    auto last = last_evidence_.find(f.link_key);
    if (last == last_evidence_.end() ||
        std::chrono::duration<double>(now - last->second).count() >= kEvidenceThrottleS) {
      tx.AddEvent(existing.id, "evidence", kService, "rule " + f.rule + ": " + f.reason, evidence);
      last_evidence_[f.link_key] = now;
    }
    return;
  }
  const char* cut = d.kind == DecisionKind::kIsolate ? "isolate" : "disable";
  if (d.acts() && ctx.open()) {
    // A stronger rule fired on a link whose ticket so far asked for no action: act now.
    Ticket& t = *ctx.open();
    record(t.id);
    t.state = ticket_state::kOpen;
    t.action_port = d.port;
    t.method = cut;
    t.guard.clear();
    t.rule = f.rule;  // the rule that acts names the ticket now; the timeline keeps the first
    t.severity = f.severity;
    t.reason = f.reason;
    t.explanation = explanation;
    tx.UpdateTicket(t);
    tx.AddEvent(t.id, "upgraded", kService, "rule " + f.rule + ": " + f.reason + "; " + d.note,
                evidence);
    RecordAction(tx, t.id, d.port, cut, action_state::kPending, "rule " + f.rule + ": " + f.reason);
    if (d.kind != DecisionKind::kIsolate) disabling_.push_back(d.port);
    ForgetLink(f);
    spdlog::info("ticket {} upgraded by rule {}: {}", t.id, f.rule, d.note);
    return;
  }
  if (d.kind == DecisionKind::kSuppressed || d.kind == DecisionKind::kFinding) {
    // Inhibited, silenced, shadow or log-only: recorded, no ticket.
    record(std::nullopt);
    spdlog::info("rule {} on {}: {} ({}); rules {}", f.rule, f.link_key, DecisionKindName(d.kind),
                 d.reason, d.rules_hash);
    return;
  }
  Ticket t;
  t.link_key = f.link_key;
  t.port_a = f.ports.empty() ? f.link_key : f.ports[0];
  t.port_b = f.ports.size() > 1 ? f.ports[1] : "";
  t.rule = f.rule;
  t.reason = f.reason;
  t.action_port = d.acts() || d.kind == DecisionKind::kBlocked ? d.port : "";
  t.method = cut;
  t.guard = d.guard;
  t.explanation = explanation;
  t.state = d.acts() ? ticket_state::kOpen : ticket_state::kTicketOnly;
  t.severity = f.severity;
  placer_.Place(inventory_, &t);
  t.id = tx.InsertTicket(t);
  history_.RecordSoon();
  record(t.id);
  tx.AddEvent(t.id, "opened", kService, "rule " + f.rule + ": " + f.reason, evidence);
  if (d.acts()) {
    RecordAction(tx, t.id, t.action_port, cut, action_state::kPending,
                 "rule " + f.rule + ": " + f.reason);
    if (d.kind != DecisionKind::kIsolate) disabling_.push_back(t.action_port);
    ForgetLink(f);
    spdlog::info("ticket {} opened for {} by rule {}; {} {}; rules {}", t.id, f.link_key, f.rule,
                 cut, t.action_port, d.rules_hash);
  } else {
    tx.AddEvent(t.id, "guard", kService, "no port action: " + d.note,
                {{"guard", d.guard}, {"decision", DecisionKindName(d.kind)}});
    spdlog::info("ticket {} opened for {} by rule {}; no port action ({}): {}; rules {}", t.id,
                 f.link_key, f.rule, d.guard, d.note, d.rules_hash);
  }
  metrics_.Add("ufmr_tickets_opened_total");
}

void Remediator::OpenStorm(Store::Tx& tx, int count, const nlohmann::json& evidence) {
  Ticket storm;
  storm.link_key = "storm";
  storm.port_a = "";
  storm.rule = "circuit_breaker";
  storm.state = ticket_state::kTicketOnly;
  storm.guard = "breaker";
  storm.severity = "critical";
  storm.reason = "circuit breaker tripped: " + std::to_string(count) +
                 " findings that would act within " +
                 FormatDuration(config_.remediation.breaker_window_s);
  storm.explanation =
      "A storm of findings: more than " + std::to_string(config_.remediation.breaker_findings) +
      " links would have been cut within " + FormatDuration(config_.remediation.breaker_window_s) +
      ". That is rarely a set of bad cables: a switch, a power feed or UFM itself is more "
      "likely. The service cuts nothing until a person re-arms the breaker (dashboard, or "
      "POST /api/breaker/rearm). The links it held back are listed below.";
  // An open storm ticket may be left from an earlier trip that was re-armed by hand in the
  // database: reuse it.
  auto open_storm = tx.OpenTicketForLink("storm");
  storm.id = open_storm ? open_storm->id : tx.InsertTicket(storm);
  tx.TripBreaker(storm.reason, storm.id);
  tx.AddEvent(storm.id, "opened", kService, storm.reason, evidence);
  metrics_.Add("ufmr_breaker_trips_total");
  metrics_.Set("ufmr_breaker_tripped", 1);
  spdlog::error("{}; ticket {}; no port is cut until a person re-arms the breaker", storm.reason,
                storm.id);
}

void Remediator::RecordStorm(Store::Tx& tx, const Finding& f, const Decision& d) {
  auto storm = tx.OpenTicketForLink("storm");
  tx.AddDecision(d.ToJson(), storm ? std::optional<int64_t>(storm->id) : std::nullopt);
  if (!storm) return;
  tx.AddEvent(storm->id, "held_back", kService,
              "held back: rule " + f.rule + " on " + (d.title.empty() ? f.link_key : d.title) +
                  ": " + f.reason,
              {{"rule", f.rule}, {"link", f.link_key}, {"port", d.port}, {"peer", d.peer}});
}

double Remediator::SoakFor(const Ticket& t) const {
  // Also called from HTTP threads (a repair report): the pipeline thread's snapshot, not the
  // engine's rules, which a reload may replace meanwhile.
  std::lock_guard<std::mutex> lock(hash_mu_);
  auto it = soak_by_rule_.find(t.rule);
  return it != soak_by_rule_.end() ? it->second : config_.remediation.soak_s;
}

void Remediator::SnapshotRules() {
  std::map<std::string, double> soaks;
  for (const auto& r : engine_.rules().rules) {
    if (r.soak_s > 0) soaks[r.name] = r.soak_s;
  }
  std::lock_guard<std::mutex> lock(hash_mu_);
  rules_hash_ = engine_.rules().hash;
  soak_by_rule_ = std::move(soaks);
}

void Remediator::FailSoak(Store::Tx& tx, Ticket& t, const std::string& why,
                          const nlohmann::json& details) {
  t.attempts += 1;
  t.soak_until.reset();
  const int max = config_.remediation.max_attempts;
  bool escalate = t.attempts >= max;
  tx.AddEvent(t.id, "soak_failed", kService,
              "verification failed (attempt " + std::to_string(t.attempts) + " of " +
                  std::to_string(max) + "): " + why,
              details);
  metrics_.Add("ufmr_soak_failures_total");
  // Take the port out again only if this service itself brought it back for the soak: its last
  // action on the ticket is a confirmed enable (or un-isolation), and no person took the port
  // over since (drift).
  bool was_ours = false;
  for (const auto& a : tx.ActionsOfTicket(t.id)) {
    if (a.state == action_state::kFailed || a.state == action_state::kSkipped) continue;
    was_ours = !a.cuts() && a.state == action_state::kConfirmed;
  }
  if (t.guard == "drift") was_ours = false;
  std::optional<Decision> recut;
  if (was_ours && !t.action_port.empty()) {
    // The same guards as any cut (a person's port, a host's last link, the breaker, the caps,
    // the rate limit, dry run).
    Finding f;
    f.rule = t.rule;
    f.action = t.method == "isolate" ? RuleAction::kIsolatePort : RuleAction::kDisablePort;
    f.mode = RuleMode::kEnforce;
    f.scope = RuleScope::kLink;
    for (const auto& p : {t.port_a, t.port_b}) {
      if (!p.empty()) f.ports.push_back(p);
    }
    f.link_key = t.link_key;
    f.time = clock_.Now();
    f.reason = "verification failed: " + why;
    f.rules_hash = engine_.rules().hash;
    TxDecisionContext base(tx, inventory_, silences_, manual_marks_, persons_isolated_,
                           acting_findings_);
    RecutContext ctx(base);
    recut = decider_.Decide(f, ctx);
    tx.AddDecision(recut->ToJson(), t.id);
  }
  if (recut && recut->acts()) {
    const std::string cut = t.method == "isolate" ? "isolate" : "disable";
    RecordAction(tx, t.id, t.action_port, cut, action_state::kPending,
                 "verification failed: " + why);
    t.state = ticket_state::kOpen;
    t.guard.clear();
    tx.AddEvent(t.id, "reopened", kService,
                "ticket back in the queue; taking " + t.action_port + " out again (" + cut + ")");
  } else {
    t.state = escalate ? ticket_state::kEscalated : ticket_state::kTicketOnly;
    if (recut) {
      t.guard = recut->guard;
      tx.AddEvent(t.id, "guard", kService, "not taken out again: " + recut->note,
                  {{"guard", recut->guard}});
    }
    tx.AddEvent(t.id, "reopened", kService,
                "ticket back in the queue; the link is still not clean");
  }
  if (escalate) {
    // Repeated repairs did not hold: the fault is likely in what was not replaced.
    auto a = inventory_.Get(t.port_a), b = inventory_.Get(t.port_b);
    bool host_link = (a && !a->is_switch()) || (b && !b->is_switch());
    tx.AddEvent(t.id, "escalated", kService,
                std::to_string(t.attempts) + " repairs did not hold: replace the switch module" +
                    std::string(host_link ? " or the host's HCA" : " at either end") +
                    ", not the cable again");
    metrics_.Add("ufmr_tickets_escalated_total");
  }
  tx.UpdateTicket(t);
  verifying_links_.erase(t.link_key);
  spdlog::warn("ticket {}: verification failed ({}), attempt {}", t.id, why, t.attempts);
}

std::string Remediator::BroughtBack(Store::Tx& tx, const Ticket& t, bool list_ok,
                                    const std::set<std::string>& isolated) {
  if (t.method == "isolate") {
    return !list_ok || isolated.count(t.action_port) ? "" : "is no longer isolated in UFM";
  }
  auto port = ufm_.GetPort(t.action_port);
  if (!port.ok()) return "";
  inventory_.Upsert(port.value());
  const AdminState state = port->admin_state();
  if (state == AdminState::kDisabled && t.guard == "uncertain") SettleUncertain(tx, t);
  // Only a port UFM plainly shows enabled was brought back: "Down" may be our disable.
  if (state != AdminState::kEnabled) return "";
  return "is " + port->logical_state + " (" + port->physical_state + ") in UFM again";
}

bool Remediator::RecordDrift(Store::Tx& tx, const Ticket& t, const std::string& now_is) {
  // Someone brought back a port this service holds out: theirs now, never undone.
  auto locked = tx.TicketById(t.id);
  if (!locked || !locked->disabled_by_us) return false;
  locked->disabled_by_us = false;
  locked->guard = "drift";
  if (locked->state == ticket_state::kPortDisabled) locked->state = ticket_state::kTicketOnly;
  tx.AddEvent(locked->id, "drift", kService,
              t.action_port + " " + now_is +
                  ", not by this service: someone brought it back by hand. The service will "
                  "not take it out again; report the repair when the link is fixed.",
              {{"port", t.action_port}, {"method", t.method}});
  tx.UpdateTicket(*locked);
  our_isolations_.erase(t.action_port);
  metrics_.Add("ufmr_drift_total");
  spdlog::warn("ticket {}: {} {} (drift; left as it is)", t.id, t.action_port, now_is);
  return true;
}

void Remediator::SettleUncertain(Store::Tx& tx, const Ticket& t) {
  auto locked = tx.TicketById(t.id);
  if (!locked || locked->guard != "uncertain") return;
  locked->guard.clear();
  tx.AddEvent(locked->id, "action", kService,
              t.action_port + " reads disabled in UFM now: the uncertain cut is confirmed",
              {{"port", t.action_port}, {"result", "confirmed"}});
  tx.UpdateTicket(*locked);
  spdlog::info("ticket {}: {} reads disabled now; uncertain cut confirmed", t.id, t.action_port);
}

bool Remediator::Reconcile() {
  auto list = ufm_.GetUnhealthyPorts();
  std::set<std::string> isolated;
  std::map<std::string, UnhealthyPort> entries;  // by port
  if (list.ok()) {
    for (const auto& u : list.value()) {
      isolated.insert(u.port);
      entries.emplace(u.port, u);
    }
  } else if (list.status().code() != Status::Code::kNotFound) {
    spdlog::warn("reconciliation: cannot read UFM's unhealthy ports: {}", list.status().ToString());
    metrics_.Add("ufmr_ufm_errors_total{call=\"unhealthy_ports\"}");
    return false;
  }
  auto txr = store_.Begin();
  if (!txr.ok()) return false;
  auto& tx = *txr.value();
  try {
    std::set<std::string> ours;  // ports we hold isolated, or are about to
    int drift = 0;
    for (auto t : tx.HeldTickets()) {
      if (t.method == "isolate") ours.insert(t.action_port);
      if (!t.disabled_by_us) continue;  // an action is on its way
      bool in_flight = false;
      for (const auto& a : tx.ActionsOfTicket(t.id)) {
        in_flight =
            in_flight || a.state == action_state::kPending || a.state == action_state::kSubmitted;
      }
      if (in_flight) continue;
      std::string now_is = BroughtBack(tx, t, list.ok(), isolated);
      if (!now_is.empty() && RecordDrift(tx, t, now_is)) ++drift;
    }
    metrics_.Set("ufmr_breaker_tripped", tx.Breaker().tripped ? 1 : 0);
    tx.Commit();
    // Isolations that are not ours are a person's: never touched.
    std::map<std::string, std::string> persons;
    for (const auto& [p, u] : entries) {
      if (ours.count(p)) continue;
      persons[p] = u.manual() ? "isolated in UFM by a person (Condition " + u.condition + ")"
                              : "isolated in UFM (Condition " +
                                    (u.condition.empty() ? std::string("?") : u.condition) +
                                    "), not by this service";
    }
    persons_isolated_ = std::move(persons);
    our_isolations_.clear();
    for (const auto& p : ours) {
      if (isolated.count(p)) our_isolations_.insert(p);
    }
    if (list.ok()) manual_marks_.Retain(isolated);
    metrics_.Set("ufmr_ports_isolated_by_people", static_cast<double>(persons_isolated_.size()));
    metrics_.Set("ufmr_reconcile_last_success_timestamp_seconds", ToEpochSeconds(clock_.Now()));
    if (drift > 0) spdlog::info("reconciliation: {} tickets drifted", drift);
    return true;
  } catch (const std::exception& e) {
    spdlog::error("reconciliation failed: {}", e.what());
    return false;
  }
}

void Remediator::CheckSoaks() {
  // The pass began by loading the tickets under soak; each verdict re-reads its ticket in the
  // transaction, so one that changed since is skipped there.
  std::vector<Ticket> due;
  const double now = ToEpochSeconds(clock_.Now());
  for (const auto& t : verifying_) {
    if (!t.soak_until || *t.soak_until > now) continue;
    // A bad sign seen during the soak and not yet recorded (the database refused it) decides
    // the verdict first: the soak is not judged clean while it waits.
    bool queued = std::any_of(queue_.begin(), queue_.end(), [&](const Finding& f) {
      return f.link_key == t.link_key && f.evidence.value("during_soak", false);
    });
    if (!queued) due.push_back(t);
  }
  for (const auto& candidate : due) {
    // The end of the window: the link must be up at both ends.
    std::string down;
    int gone = 0, ends = 0;
    nlohmann::json states = nlohmann::json::object();
    for (const auto& p : {candidate.port_a, candidate.port_b}) {
      ends += !p.empty();
      if (p.empty()) continue;
      auto info = ufm_.GetPort(p);
      if (!info.ok() && info.status().code() == Status::Code::kNotFound) {
        // Replaced hardware has new port names: the other end judges the link.
        states[p] = {{"gone", true}};
        ++gone;
        continue;
      }
      if (!info.ok()) {
        down = "cannot read " + p + " from UFM: " + info.status().message();
        break;
      }
      inventory_.Upsert(info.value());
      states[p] = {{"logical_state", info->logical_state},
                   {"physical_state", info->physical_state}};
      if (!info->link_up()) down = p + " is " + info->logical_state + "/" + info->physical_state;
    }
    if (down.empty() && gone > 0 && gone == ends)
      down = "no end of the link is known to UFM any more";
    if (down.rfind("cannot read", 0) == 0) {
      spdlog::warn("ticket {}: {}; soak verdict postponed", candidate.id, down);
      continue;
    }
    auto txr = store_.Begin();
    if (!txr.ok()) continue;
    auto& tx = *txr.value();
    try {
      auto t = tx.TicketById(candidate.id);
      if (!t || t->state != ticket_state::kVerifying) continue;
      if (down.empty()) {
        t->state = ticket_state::kClosed;
        t->resolution = resolution::kRepaired;
        t->closed_at = ToEpochSeconds(clock_.Now());
        t->soak_until.reset();
        t->guard.clear();
        tx.AddEvent(
            t->id, "soak_passed", kService,
            "link stayed up and clean for " + FormatDuration(SoakFor(*t)) + "; closed as verified",
            states);
        metrics_.Add("ufmr_tickets_closed_total");
        spdlog::info("ticket {} closed: link {} verified clean", t->id, t->link_key);
        tx.UpdateTicket(*t);
      } else {
        FailSoak(tx, *t, "link not up at the end of the soak: " + down, states);
      }
      tx.Commit();
    } catch (const std::exception& e) {
      spdlog::error("ticket {}: cannot record the soak verdict: {}", candidate.id, e.what());
    }
  }
}

Result<Ticket> Remediator::ReportRepair(int64_t id, const std::string& by, const std::string& kind,
                                        const std::string& note) {
  if (!IsKnownRepairKind(kind)) {
    return Status::InvalidArgument(
        "kind must say what was done: reseat, cable_replaced, transceiver_replaced, "
        "switch_port_replaced, hca_replaced or other");
  }
  if (kind == repair_kind::kOther && note.empty()) {
    return Status::InvalidArgument("a repair of kind 'other' needs a note saying what was done");
  }
  auto txr = store_.Begin();
  if (!txr.ok()) return txr.status();
  auto& tx = *txr.value();
  try {
    auto t = tx.TicketById(id);
    if (!t) return store_.MissingTicket(id);
    if (t->link_key == "storm") {
      return Status::Conflict("ticket " + std::to_string(id) +
                              " is a storm ticket: re-arm the breaker instead");
    }
    if (!AcceptsRepairReport(t->state)) {
      return Status::Conflict("ticket " + std::to_string(id) + " is " + t->state +
                              "; a repair can be reported when it is port_disabled, "
                              "ticket_only, acknowledged or escalated");
    }
    t->repair_kind = kind;
    std::string words = RepairKindWords(kind);
    tx.AddEvent(t->id, "repair_reported", by,
                "repair reported: " + words + (note.empty() ? "" : ": " + note),
                {{"kind", kind}, {"note", note}});
    if (t->disabled_by_us && !t->action_port.empty()) {
      RecordAction(tx, t->id, t->action_port, t->method == "isolate" ? "unisolate" : "enable",
                   action_state::kPending, "repair reported by " + by + " (" + words + ")");
      t->state = ticket_state::kRepairReported;
    } else {
      // We hold nothing out of service: watch the link as it is.
      ActionExecutor::StartSoak(tx, *t, clock_.Now(), SoakFor(*t));
    }
    tx.UpdateTicket(*t);
    tx.Commit();
    CrashPoint("decided", t->method == "isolate" ? "unisolate" : "enable");
    metrics_.Add(MetricName("ufmr_repairs_reported_total", {{"kind", kind}}));
    spdlog::info("ticket {}: repair reported by {} ({})", id, by, words);
    Wake();
    return *t;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Status Remediator::RearmBreaker(const std::string& by, const std::string& note) {
  auto txr = store_.Begin();
  if (!txr.ok()) return txr.status();
  auto& tx = *txr.value();
  try {
    auto b = tx.Breaker();
    if (!b.tripped || !tx.RearmBreaker(by)) {
      return Status::Conflict("the circuit breaker is not tripped");
    }
    if (b.ticket_id > 0) {
      if (auto t = tx.TicketById(b.ticket_id); t && t->state != ticket_state::kClosed) {
        tx.AddEvent(t->id, "rearmed", by,
                    "circuit breaker re-armed by " + by + (note.empty() ? "" : ": " + note));
        t->state = ticket_state::kClosed;
        t->resolution = resolution::kRearmed;
        t->closed_at = ToEpochSeconds(clock_.Now());
        tx.UpdateTicket(*t);
      }
    }
    tx.Commit();
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
  breaker_rearmed_.store(true);  // the pipeline thread forgets the storm's count
  metrics_.Set("ufmr_breaker_tripped", 0);
  spdlog::warn("circuit breaker re-armed by {}{}", by, note.empty() ? "" : ": " + note);
  Wake();
  return Status::Ok();
}

Result<Ticket> Remediator::Acknowledge(int64_t id, const std::string& by, const std::string& note) {
  auto txr = store_.Begin();
  if (!txr.ok()) return txr.status();
  auto& tx = *txr.value();
  try {
    auto t = tx.TicketById(id);
    if (!t) return store_.MissingTicket(id);
    if (!AcceptsAcknowledge(t->state)) {
      return Status::Conflict("ticket " + std::to_string(id) + " is " + t->state +
                              " and cannot be acknowledged");
    }
    t->acknowledged_by = by;
    if (t->assigned_to.empty()) t->assigned_to = by;  // who takes it, works it
    if (t->state != ticket_state::kOpen) t->state = ticket_state::kAcknowledged;
    tx.AddEvent(t->id, "acknowledged", by,
                "acknowledged by " + by + (note.empty() ? "" : ": " + note), {{"note", note}});
    tx.UpdateTicket(*t);
    tx.Commit();
    return *t;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

}  // namespace ufmr
