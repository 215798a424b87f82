// DrainWorker: the job scheduler's side of the outbox (node_drains rows, store/node_drain.h). Each
// pass it carries every open drain a step further, asking the scheduler (Slurm) outside any
// transaction and recording what it found in one:
//   pending   -> asks the scheduler to drain the node (unless the breaker is tripped or the cap of
//                nodes the service drains is reached: it waits, and says so once); a node the
//                service drained already is adopted; a person's drain is waited for (by_person),
//                never claimed, counted under the cap or resumed -> draining
//   draining  -> once the node's jobs have ended: the ticket's cut is released (waiting ->
//                pending, for the ActionExecutor) -> drained; jobs still running past
//                scheduler.drain_deadline_s escalate the ticket; a node resumed meanwhile by a
//                person calls the cut off (drift, never undone)
//   drained   -> watched: a person who resumes the node is reported, not undone; a ticket
//                closed without a passed soak leaves the node drained, and says so
//   resuming  -> resumes the node only while its drain reason still names one of this
//                service's tickets on it -> resumed; otherwise released, left as it is
// A scheduler that does not answer delays the step (retried after scheduler.retry_s, said once
// on the ticket); the cut never happens without the drain. It also records the jobs running on
// the host of each new ticket (scheduler.record_jobs). Steps are idempotent, so a crash at any
// point is resumed from the rows and the scheduler's state. Pipeline thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "base/clock.h"
#include "base/metrics.h"
#include "config/config.h"
#include "scheduler/node_names.h"
#include "scheduler/scheduler.h"
#include "store/store.h"

namespace ufmr {

class DrainWorker {
 public:
  struct Parts {
    const Config::Scheduler& config;
    Store& store;
    Scheduler& scheduler;
    const NodeNames& node_names;
    Metrics& metrics;
    const Clock& clock;
  };
  explicit DrainWorker(const Parts& parts) : p_(parts) {}

  // One pass: every open drain whose time has come, then the jobs of new tickets' hosts.
  void RunDue();
  // Asked before each step: false (leadership lost, ha) ends the pass.
  void set_may_act(std::function<bool()> may_act) { may_act_ = std::move(may_act); }

 private:
  // What the pass knows before its steps: the breaker, the nodes held drained, the cap.
  struct PassState {
    bool breaker_tripped = false;
    std::set<std::string> held_nodes;    // the service's drains: draining, drained or resuming
    std::set<std::string> person_nodes;  // a person's drains the service waits for
    int cap = 0;                         // nodes the service may hold drained at once
    Status cap_unknown;                  // why the cap is not known (the scheduler did not answer)
    std::map<std::string, std::set<int64_t>> holding;  // node: tickets whose drain holds it
  };
  // What a step concluded, recorded in one transaction (Record).
  struct Change;

  PassState ReadPassState(const std::vector<NodeDrain>& open);
  // The cap of drained nodes; Unavailable while the scheduler's node count is not known.
  Result<int> Cap();
  void Step(NodeDrain& d, PassState& pass);
  void StepPending(NodeDrain& d, PassState& pass);
  // Why a drain waits for the cap.
  static std::string CapWords(const PassState& pass, const std::string& node);
  void StepDraining(NodeDrain& d, const PassState& pass);
  void StepDrained(NodeDrain& d);
  void StepResuming(NodeDrain& d, const PassState& pass);
  // The step's scheduler error: a refusal or an unknown node fails the drain, anything else is
  // retried.
  void Trouble(NodeDrain& d, const Status& why);
  // The drain cannot happen: the cut is skipped and the ticket says why (guard last_link).
  void Fail(NodeDrain& d, const std::string& why);
  // The drain waits (breaker, cap): said once on the ticket.
  void Wait(NodeDrain& d, const std::string& why);
  // The drain ends without the service resuming the node, and why.
  void Release(NodeDrain& d, const std::string& kind, const std::string& why, bool skip_cut);
  // Whether the node's reason names a ticket this service drained it for.
  bool OursReason(const std::string& reason, const std::string& node);
  // Records the step in one transaction, under the ticket's lock (Recheck).
  void Record(const Change& step);
  static bool WaitsForDrain(const std::string& ticket_state);
  // The step as it may be recorded on a ticket now in `ticket_state`: one that would move a
  // ticket no longer waiting for the drain (a repair reported, closed meanwhile) calls the cut
  // off instead, or, when the drain ends anyway, leaves the ticket as it is.
  static Change Recheck(const Change& c, const std::string& ticket_state);
  // The waiting cut skipped and the node to be resumed, if still ours.
  static Change CalledOff(const Change& c, const std::string& ticket_state);
  // The step could not reach the scheduler: try again after retry_s, said once on the ticket.
  void Retry(NodeDrain& d, const Status& why);
  void RecordJobs();
  bool Due(const NodeDrain& d) const;

  Parts p_;
  std::function<bool()> may_act_;
  std::map<int64_t, TimePoint> next_look_;               // per drain: when its node is read again
  std::optional<std::pair<TimePoint, int>> node_count_;  // the scheduler's nodes, and when read
};

}  // namespace ufmr
