// Remediator: the service's loop, and only its orchestration: it owns no stage's logic. Each pass
// hands every observation one way through the stages, each handing its output to the next:
//   sources   RestEventSource, EventLogSource, SyslogSource, TelemetryPoller (loop/)
//   filters   IntakeFilters (filter/): duplicates, a person's disables and marks, our own cuts,
//             links under soak
//   rules     LiveRules (loop/): the rules engine and its hot reload
//   decision and record  PassRecord (loop/) with FindingRecorder and LiveDecider (act/): tickets,
//             decisions, port-action intents and input cursors in one transaction
//   act       ActionExecutor (act/): the recorded intents carried out against UFM
// Around them, each pass: the inventory (InventoryRefresh), reconciliation with UFM (Reconciler),
// repaired links under watch (SoakWatch), the ticket gauges. Nothing is done to the fabric that is
// not first recorded. RunOnce/Run belong to one thread (the pipeline thread); the LoopControl
// members (the staff actions go to StaffActions), Wake and RequestReload may be called from
// others.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "loop/loop_control.h"

namespace ufmr {

struct Config;
struct Observation;
struct RuleSet;
class Clock;
class Inventory;
class Metrics;
class Store;
class SyslogReceiver;
class UfmClient;

class Remediator final : public LoopControl {
 public:
  // `syslog` may be null (no syslog source); it must outlive the Remediator.
  Remediator(const Config& config, Store& store, UfmClient& ufm, Inventory& inventory,
             Metrics& metrics, const Clock& clock, std::shared_ptr<const RuleSet> rules,
             SyslogReceiver* syslog = nullptr);
  ~Remediator() override;

  // Whether this instance may act (the leader of its fabric; LeaderLock). Asked at the start of
  // each pass and before each request that acts; a standby only keeps its inventory fresh (for
  // the dashboard). Unset: always (one instance).
  void set_may_act(std::function<bool()> may_act);
  bool acting() const override { return acting_.load(); }
  // Whether a pass has found this instance the leader (false before the first pass): for work
  // on other threads that only the leader does (notifications).
  bool leading() const { return passed_.load() && acting_.load(); }
  // One pass of every stage that is due.
  void RunOnce();
  // Passes until `stop` is set; sleeps between passes unless woken.
  void Run(const std::atomic<bool>& stop);
  void Wake();
  // Asks the loop to reload the rules on its next pass (SIGHUP). Async-signal-safe.
  void RequestReload() { reload_requested_.store(true); }
  std::string rules_hash() const override;
  const InputHealth& inputs() const override;

  // Staff actions, from the API. They record; the loop acts.
  Result<Ticket> ReportRepair(int64_t ticket_id, const std::string& by, const std::string& kind,
                              const std::string& note) override;
  Result<Ticket> Acknowledge(int64_t ticket_id, const std::string& by,
                             const std::string& note) override;
  Status RearmBreaker(const std::string& by, const std::string& note) override;

 private:
  struct Stages;  // every stage, wired together (remediator.cc)

  // Another instance acts: keep the inventory fresh for this one's dashboard, nothing else.
  void RunStandby();
  void RunLeader();
  // Reconciliation with UFM and the ports this service holds, before any event is read.
  void ReconcileIfDue();
  // Without a job scheduler: says, once, that drains recorded with one are still open.
  void WarnOfOpenDrains();
  // The sources that are due, each observation on to Consider.
  void PollInputs();
  // One observation: through the filters, into the rules (findings queue for the record).
  void Consider(const Observation& o);
  // The pass's findings, alerts and cursors recorded; what that leaves handed to other stages.
  void RecordPass();
  // ufmr_tickets{state} from the database, at most every 15 s (leader and standby alike).
  void MaybeCountTickets();

  const Config& config_;
  Store& store_;
  Inventory& inventory_;
  Metrics& metrics_;
  const Clock& clock_;
  std::unique_ptr<Stages> s_;
  std::function<bool()> may_act_;
  std::atomic<bool> acting_{true};
  std::atomic<bool> passed_{false};  // a pass has decided leader or standby
  std::atomic<bool> reload_requested_{false};

  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  bool woken_ = false;
};

}  // namespace ufmr
