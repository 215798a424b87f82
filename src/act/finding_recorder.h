// FindingRecorder: the record stage. Each finding is decided (LiveDecider) and recorded in the
// pass's transaction: the decision (the audit trail, with the rules hash it was made under), then
// by what was decided a new ticket, an upgrade of a ticket that so far asked for no action,
// evidence on an open ticket (at most every five minutes per link), a verdict on a soak, the
// storm ticket, or nothing more; a decision that acts records a port-action intent, which the
// ActionExecutor carries out once the transaction commits (or, when the host is to be drained in
// the job scheduler first, a drain and a cut that waits for it: the ticket is `draining`). What the
// loop must hand on to other stages (ports now being disabled, links the rules count afresh) it
// returns. Pipeline thread only; not thread-safe.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "act/live_decider.h"
#include "act/soak_watch.h"
#include "base/clock.h"
#include "base/metrics.h"
#include "config/config.h"
#include "rules/finding.h"
#include "scheduler/node_names.h"
#include "store/store.h"
#include "store/ticket_place.h"
#include "ufm/inventory.h"

namespace ufmr {

// What recording findings leaves for the loop to hand on.
struct RecordedFindings {
  std::vector<std::string> disabling;  // ports with a disable intent (held once it commits)
  std::vector<std::string> forget;     // links taken out of service: the rules count them afresh
  // (rule, link) of findings decided already: that rule counts the link afresh
  std::vector<std::pair<std::string, std::string>> forget_rule;
  int tickets_opened = 0;
};

class FindingRecorder {
 public:
  struct Parts {
    const Config::Remediation& remediation;
    const Inventory& inventory;
    Metrics& metrics;
    const Clock& clock;
    const TicketPlacer& placer;
    LiveDecider& decider;
    SoakWatch& soaks;
    const NodeNames& node_names;  // hosts to the job scheduler's nodes (drains)
  };
  explicit FindingRecorder(const Parts& parts) : p_(parts) {}

  void Record(Store::Tx& tx, const Finding& f, RecordedFindings* out);

 private:
  // A finding and what the decision stage made of it.
  struct Judged {
    const Finding& f;
    const Decision& d;
    std::string explanation;
    std::string trigger;  // act/decided_once.h
    // The finding's evidence (EvidenceJson), with the decision and its explanation: made where it
    // is written, not for a finding an open ticket already covers.
    nlohmann::json Evidence() const;
  };
  // A sign during a soak: a verdict on the soak, never a finding of its own.
  void RecordSoakSign(Store::Tx& tx, const Finding& f);
  // A decision that does not act, on a link with an open ticket.
  void OnOpenTicket(Store::Tx& tx, const Judged& j, Ticket& existing);
  // A stronger rule fired on a link whose ticket so far asked for no action: act now.
  void Upgrade(Store::Tx& tx, const Judged& j, Ticket& t, RecordedFindings* out);
  void OpenTicket(Store::Tx& tx, const Judged& j, RecordedFindings* out);
  // A decision that acts: its intent, and what the loop hands on.
  void RecordCut(Store::Tx& tx, const Judged& j, int64_t ticket_id, const std::string& port,
                 RecordedFindings* out);

  Parts p_;
  std::map<std::string, TimePoint> last_evidence_;  // per link: evidence added to its ticket
};

}  // namespace ufmr
