// ActionExecutor: the worker of the port-action outbox. The decision stage records an intent
// (a port_actions row, `pending`) in the same transaction as its ticket and the input cursor; the
// executor carries it out against UFM and moves the ticket by the outcome:
//   disable / enable: POST /actions, follow the job (GET /jobs/<id>), confirm the port's state;
//   isolate / unisolate: PUT /app/unhealthy_ports, confirm in GET /app/unhealthy_ports.
// The row is marked `submitted` before UFM is called. A `submitted` row without a job id (a crash,
// or an answer lost on the wire) is reconciled before anything is sent again: the port already in
// the wanted state is confirmed; a job UFM holds whose description carries the action's marker is
// adopted; only otherwise is the request sent again. Transient failures (transport, 5xx) are
// retried after remediation.action_retry_s, up to remediation.action_max_tries; permanent ones
// (UFM rejected the request, no such port) fail at once with the reason on the ticket.
// Confirmed actions are announced in UFM's own log as external events (ufm.external_events),
// once: an event already carrying the action's marker is not posted again.
// Used by the pipeline thread only.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "base/clock.h"
#include "base/metrics.h"
#include "config/config.h"
#include "store/store.h"
#include "store/ticket.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"

namespace ufmr {

class ActionExecutor {
 public:
  // kUncertain: UFM accepted a cut (it made a job) and the job ended, but UFM's port state says
  // neither disabled nor enabled ("Down" / "Link Down"). The port is held as this service's, and
  // the ticket says so, until reconciliation reads it or a person settles it: a cut is never left
  // untracked.
  enum class Outcome { kConfirmed, kFailed, kAlreadyDoneByHand, kUncertain };
  // How long a ticket's link soaks after its port is back (the rule's soak, or the default).
  using SoakFor = std::function<double(const Ticket&)>;
  // Told of every recorded outcome (after its transaction committed).
  using OnOutcome = std::function<void(const PortAction&, Outcome)>;

  ActionExecutor(const Config& config, Store& store, UfmClient& ufm, Inventory& inventory,
                 Metrics& metrics, const Clock& clock, SoakFor soak_for, OnOutcome on_outcome);

  // Asked before each UFM request that acts (an action, an external event): false stops the pass
  // (this instance is not the leader any more). Unset: always.
  void set_may_act(std::function<bool()> may_act) { may_act_ = std::move(may_act); }
  // Carries out every open action that is due, oldest first.
  void RunOpen();
  // Posts UFM external events for confirmed actions not yet announced.
  void AnnouncePending();

  // "[ufm-remediator action 17]": in the job description and the external event, so either can
  // be found again after a crash.
  static std::string Marker(int64_t action_id);
  // The ticket's link is live again: it soaks for `soak_s` from `now` (the caller writes it).
  static void StartSoak(Store::Tx& tx, Ticket& t, TimePoint now, double soak_s);

 private:
  void Execute(PortAction a);
  // Sends the request to UFM (the row is already `submitted`), then follows it.
  void Send(PortAction& a, const PortInfo& port);
  void Follow(PortAction& a);
  // A failed request: permanent (UFM said no) fails the action; transient waits and retries.
  void SendFailed(PortAction& a, const Status& s);
  bool Write(const PortAction& a);
  // What UFM shows of the port against what the action wants.
  enum class Verdict { kDone, kNotDone, kAmbiguous, kUnreadable };
  Verdict Check(const PortAction& a);
  // The verdict on a port as read (disable / enable; isolation has no ambiguity).
  static Verdict VerdictOf(const PortAction& a, const PortInfo& port);
  // A failed request or job: confirmed after all if UFM shows the port done, left for the next
  // pass if the port cannot be read, held as uncertain if UFM accepted it (a job) and the
  // port's state does not say, failed otherwise.
  void FailAfterChecking(PortAction& a, const std::string& note);
  // Whether UFM's jobs hold one carrying this action's marker (a request whose answer was
  // lost); records its id in `a`.
  bool UfmHoldsJobOf(PortAction& a);
  // A job that ended: how the port reads decides.
  void JudgeFinishedJob(PortAction& a, const JobStatus& status);
  void Finish(PortAction& a, Outcome outcome, const std::string& note);
  void FinishUncertain(PortAction& a, const std::string& note);

  const Config& config_;
  Store& store_;
  UfmClient& ufm_;
  Inventory& inventory_;
  Metrics& metrics_;
  const Clock& clock_;
  SoakFor soak_for_;
  OnOutcome on_outcome_;
  std::map<int64_t, long> polls_;  // job polls so far, by action id (this process's lifetime)
  std::function<bool()> may_act_;
};

}  // namespace ufmr
