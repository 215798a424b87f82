// SoakWatch: repaired links under watch (tickets in `verifying`). After a repair the link soaks:
// it must stay up with no sign past its rule's clear level for the soak (the rule's `soak`, else
// remediation.soak_s). At the end of the window both ends are read from UFM: up, the ticket
// closes as verified; not, the soak fails (Fail). A failed soak takes the port out again through
// the same guards when this service itself brought it back, or leaves the ticket to a person, and
// escalates after remediation.max_attempts. A host the service drained in the job scheduler for
// the ticket is to be resumed once the soak passes (its drain made `resuming`), and stays drained
// when it fails. The filter stage asks it which links are under soak
// (SoakingLinks). Pipeline thread only; not thread-safe.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "act/live_decider.h"
#include "base/clock.h"
#include "base/metrics.h"
#include "config/config.h"
#include "filter/our_holds.h"
#include "rules/finding.h"
#include "scheduler/node_names.h"
#include "store/store.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"

namespace ufmr {

class SoakWatch final : public SoakingLinks {
 public:
  // How long a ticket's link soaks; the hash of the rules in force (for a re-cut's decision).
  using SoakFor = std::function<double(const Ticket&)>;
  using RulesHash = std::function<std::string()>;
  struct Parts {
    const Config::Remediation& remediation;
    Store& store;
    UfmClient& ufm;
    Inventory& inventory;
    Metrics& metrics;
    const Clock& clock;
    LiveDecider& decider;
    SoakFor soak_for;
    RulesHash rules_hash;
    const NodeNames& node_names;  // hosts to the job scheduler's nodes (a re-cut's drain)
  };
  explicit SoakWatch(Parts parts) : p_(std::move(parts)) {}

  bool AnyUnderSoak() const override { return !links_.empty(); }
  bool UnderSoak(const std::vector<std::string>& ends) const override {
    return links_.count(LinkKey(ends)) > 0;
  }

  // Loads the tickets under soak (at the start of a pass). Returns the links that came under
  // watch since the last load: they are judged afresh (what the fault and the service's own
  // disable left in the rules' counts is not the repaired link's). When the database cannot be
  // read the last known set stays.
  std::vector<std::string> Load();
  // Judges every soak whose window has ended. A bad sign seen during a soak and not yet
  // recorded (in `unrecorded`) decides that soak first: it is not judged clean while it waits.
  void JudgeDue(const std::vector<Finding>& unrecorded);
  // The soak of `t` failed (`why`, with `details` for its timeline), in the caller's transaction.
  void Fail(Store::Tx& tx, Ticket& t, const std::string& why, const nlohmann::json& details);

 private:
  // What the end of the window finds of the link: "" when it is up at both ends, else why not.
  // States of the ends go to `states`.
  std::string ReadEnds(const Ticket& t, nlohmann::json* states);
  void RecordVerdict(const Ticket& candidate, const std::string& down,
                     const nlohmann::json& states);
  // The re-cut's decision when this service itself brought the port back for the soak.
  std::optional<Decision> DecideRecut(Store::Tx& tx, const Ticket& t, const std::string& why);
  void Escalate(Store::Tx& tx, const Ticket& t);
  // The ticket's drains still drained hand the node over to the new drain of its re-cut.
  static void HandOverDrained(Store::Tx& tx, int64_t ticket_id);
  // The soak passed: the ticket's drained hosts are to be resumed.
  void ResumeDrained(Store::Tx& tx, const Ticket& t);

  Parts p_;
  std::vector<Ticket> tickets_;  // under soak, loaded at the start of a pass
  std::set<std::string> links_;  // their links
};

}  // namespace ufmr
