// Remediator: the service's loop. Each pass refreshes the inventory, polls UFM events and
// telemetry, runs observations through the rules engine, records findings (tickets, port-action
// intents, the event cursor) in one transaction, then carries out recorded intents against UFM
// and judges links under soak. Nothing is done to the fabric that is not first recorded.
// RunOnce/Run belong to one thread; ReportRepair/Acknowledge/Wake may be called from others.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "act/action_executor.h"
#include "base/clock.h"
#include "base/metrics.h"
#include "config/config.h"
#include "decide/decision.h"
#include "decide/silence.h"
#include "filter/event_dedup.h"
#include "filter/manual_marks.h"
#include "filter/recent_disables.h"
#include "ingest/event_log.h"
#include "ingest/input_health.h"
#include "ingest/log_tailer.h"
#include "ingest/syslog_receiver.h"
#include "rules/finding.h"
#include "rules/rule_engine.h"
#include "store/counter_history.h"
#include "store/store.h"
#include "store/ticket_place.h"
#include "telemetry/telemetry.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"

namespace ufmr {

class Remediator {
 public:
  // `syslog` may be null (no syslog source); it must outlive the Remediator.
  Remediator(const Config& config, Store& store, UfmClient& ufm, Inventory& inventory,
             Metrics& metrics, const Clock& clock, std::shared_ptr<const RuleSet> rules,
             SyslogReceiver* syslog = nullptr);

  // Whether this instance may act (the leader of its fabric; LeaderLock). Asked at the start of
  // each pass and before each request that acts; a standby only keeps its inventory fresh (for
  // the dashboard). Unset: always (one instance).
  void set_may_act(std::function<bool()> may_act);
  // True when the last pass acted (this instance leads).
  bool acting() const { return acting_.load(); }
  // One pass of every stage that is due.
  void RunOnce();
  // Passes until `stop` is set; sleeps between passes unless woken.
  void Run(const std::atomic<bool>& stop);
  void Wake();
  // Asks the loop to reload the rules on its next pass (SIGHUP). Async-signal-safe.
  void RequestReload() { reload_requested_.store(true); }
  // The rules the loop decides with now.
  std::string rules_hash() const;
  // How each input is doing (GET /api/inputs).
  const InputHealth& inputs() const { return inputs_; }

  // Staff actions, from the API. They record; the loop acts.
  // `kind` is what was done (repair_kind::, required); `note` is required for "other".
  Result<Ticket> ReportRepair(int64_t ticket_id, const std::string& by, const std::string& kind,
                              const std::string& note);
  // Takes the ticket (and assigns it to `by` if nobody works it yet).
  Result<Ticket> Acknowledge(int64_t ticket_id, const std::string& by,
                             const std::string& note = "");
  // Re-arms the circuit breaker after a storm; closes the storm ticket. Conflict if not tripped.
  Status RearmBreaker(const std::string& by, const std::string& note);

 private:
  bool Due(TimePoint& next, double interval_s);
  // Hot reload: on request, or when the rules folder changed. The whole load runs first, side
  // effect free; only a clean result replaces the rules (keeping the state of unchanged rules).
  // A failed load keeps the old rules, logs the diagnostics, and raises a dashboard alert.
  void MaybeReloadRules();
  void RefreshInventory();
  // When due, or while the inventory is empty.
  void MaybeRefreshInventory();
  // Records where ticketed links are for tickets filed without it (TicketPlacer).
  void PlaceTickets();
  bool standby_ = false;  // this pass: not the leader (RefreshInventory writes nothing)
  void PollEvents();
  void PollTelemetry();
  void PollEventLog();
  void DrainSyslog();
  // Every UFM event, whatever its source, passes here: duplicates across sources are dropped.
  void ConsiderEvent(const Observation& o);
  void Consider(const Observation& o);
  void ApplyQueue();
  void ApplyFinding(Store::Tx& tx, const Finding& f);
  void ForgetLink(const Finding& f);
  // Records a port action intent (the executor carries it out); returns its id.
  int64_t RecordAction(Store::Tx& tx, int64_t ticket_id, const std::string& port,
                       const std::string& action, const std::string& state,
                       const std::string& reason);
  // A finding the circuit breaker held back: evidence on the one storm ticket (filed when the
  // breaker trips).
  void RecordStorm(Store::Tx& tx, const Finding& f, const Decision& d);
  // The breaker trips: the storm ticket (`count` findings in the window) and the breaker's row.
  void OpenStorm(Store::Tx& tx, int count, const nlohmann::json& evidence);
  void FailSoak(Store::Tx& tx, Ticket& t, const std::string& why, const nlohmann::json& details);
  void CheckSoaks();
  // The soak of a ticket's link: its rule's `soak`, else remediation.soak_s.
  double SoakFor(const Ticket& t) const;
  // After a (re)load: what HTTP threads may read of the rules (hash, soaks).
  void SnapshotRules();
  void LoadVerifyingLinks();
  // UFM's disabled and isolated ports against this service's records: drift (a port we hold
  // that someone brought back) is reported on its ticket; isolations not ours are a person's.
  // True when UFM and the database were read and compared.
  bool Reconcile();
  // What reconciliation finds of a port this service holds out ("is Active (Link Up) in UFM
  // again"), or "" when it is still held (or cannot be read).
  std::string BroughtBack(Store::Tx& tx, const Ticket& t, bool list_ok,
                          const std::set<std::string>& isolated);
  // Records that someone brought the port back (drift); false when the ticket changed meanwhile.
  bool RecordDrift(Store::Tx& tx, const Ticket& t, const std::string& now_is);
  // Reconciliation read a port held as an uncertain cut as disabled: the cut is confirmed.
  void SettleUncertain(Store::Tx& tx, const Ticket& t);
  // Whether this service holds the port isolated (its own 702 MANUAL is not a person's).
  bool OurIsolation(const std::string& port) const { return our_isolations_.count(port) > 0; }
  // The ports this service holds disabled, or is disabling, from the database (at start and with
  // each reconciliation). False when the database could not be read.
  bool LoadOurDisables();
  // Whether an event is about a link this service holds disabled: UFM reports the cut as "Link
  // went down", and a count of a switch's or host's link-downs must not count it. (A link under
  // soak is not held: what it says then is judged.)
  bool AboutOurDisable(const Observation& o) const;
  // ufmr_tickets{state} from the database, at most every 15 s (leader and standby alike).
  void MaybeCountTickets();

  const Config& config_;
  Store& store_;
  UfmClient& ufm_;
  Inventory& inventory_;
  Metrics& metrics_;
  const Clock& clock_;
  RuleEngine engine_;
  std::atomic<bool> reload_requested_{false};
  std::function<bool()> may_act_;
  std::atomic<bool> acting_{true};
  TimePoint next_rules_check_{};
  std::string rules_fingerprint_;  // names, sizes and times of the rules files last loaded
  bool clear_rules_alert_ = false;
  mutable std::mutex hash_mu_;  // guards rules_hash_ and soak_by_rule_ (read by HTTP threads)
  std::string rules_hash_;
  std::map<std::string, double> soak_by_rule_;  // rules with their own `soak`
  Decider decider_;
  SilenceSet silences_;  // the silences in force, reloaded each pass
  // Ports UFM's events say a person isolated (702 ... MANUAL): never acted on. In memory.
  ManualMarks manual_marks_;
  // Isolated in UFM (GET /app/unhealthy_ports) and not by this service: a person's. Port -> why.
  std::map<std::string, std::string> persons_isolated_;
  std::set<std::string> our_isolations_;  // ports this service holds isolated
  std::set<std::string> our_disables_;    // ports this service holds disabled, or is disabling
  // Ports UFM said someone else disabled, for a minute: their links' events are not faults.
  RecentDisables hand_disables_;
  bool our_disables_loaded_ = false;
  std::vector<std::string> disabling_;  // disables this pass records (held once it commits)
  TimePoint next_reconcile_{};
  bool reconciled_ = false;        // a reconciliation has succeeded since start
  bool inventory_loaded_ = false;  // UFM's ports have been read since start
  bool waiting_for_inventory_logged_ = false;
  std::deque<TimePoint> acting_findings_;  // findings that reached the breaker, in its window
  std::atomic<bool> breaker_rearmed_{false};
  ActionExecutor executor_;
  TicketPlacer placer_{config_.dashboard.rack_pattern};
  InputHealth inputs_;
  CounterHistory history_{config_.dashboard.counter_history_s,
                          config_.dashboard.counter_sample_interval_s};
  TelemetryIntake telemetry_{config_.telemetry, ufm_, inventory_};

  std::optional<int64_t> event_cursor_;    // newest event id consumed, in memory
  std::optional<int64_t> written_cursor_;  // what the database holds
  std::optional<int64_t> written_newest_;  // the newest id read, as the database holds it
  std::string newest_event_time_;          // UFM timestamp of the newest event read
  int64_t reread_until_ = 0;  // events up to this id were read before a restart (not news)
  struct PendingAlert {
    std::string kind;
    std::string message;
    nlohmann::json details;
  };
  std::vector<PendingAlert> alerts_;  // recorded with the cursor

  EventDeduper deduper_;
  std::unique_ptr<LogTailer> tailer_;  // when event_log.path is set; opened on first use
  EventLogAssembler assembler_;
  std::optional<nlohmann::json> log_cursor_;  // position to resume the event log at
  std::optional<nlohmann::json> written_log_cursor_;
  TimePoint next_event_log_{};
  SyslogReceiver* syslog_;

  std::vector<Finding> queue_;             // findings not yet recorded
  std::vector<Ticket> verifying_;          // tickets under soak, loaded at the start of a pass
  std::set<std::string> verifying_links_;  // their links, for Consider()
  std::map<std::string, TimePoint> last_evidence_;

  TimePoint next_inventory_{}, next_events_{}, next_telemetry_{};
  TimePoint next_ticket_count_{};

  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  bool woken_ = false;
};

}  // namespace ufmr
