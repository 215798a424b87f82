// Reconciler: UFM's disabled and isolated ports against this service's records. Drift (a port this
// service holds out that someone brought back) is recorded on its ticket, and the port is the
// person's from then on; an uncertain cut UFM now reads disabled is confirmed; isolations that are
// not this service's are a person's (the decision stage never touches them). Runs before the
// first findings are recorded and every remediation.reconcile_interval_s. Pipeline thread only;
// not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "act/own_ports.h"
#include "base/clock.h"
#include "base/metrics.h"
#include "store/store.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"

namespace ufmr {

class Reconciler {
 public:
  Reconciler(Store& store, UfmClient& ufm, Inventory& inventory, Metrics& metrics,
             const Clock& clock, OwnPorts& own)
      : store_(store),
        ufm_(ufm),
        inventory_(inventory),
        metrics_(metrics),
        clock_(clock),
        own_(own) {}

  // True when UFM and the database were read and compared. `isolated` gets UFM's isolated ports
  // when its list was read (a person who made a port healthy again has given it back).
  bool Run(std::optional<std::set<std::string>>* isolated);
  // Isolated in UFM and not by this service: a person's. Port -> why.
  const std::map<std::string, std::string>& persons_isolated() const { return persons_isolated_; }

 private:
  // The held tickets against UFM; returns the ports held isolated (or about to be) and counts
  // drift in `drift`.
  std::set<std::string> CheckHeld(Store::Tx& tx, bool list_ok,
                                  const std::set<std::string>& isolated, int* drift);
  // What reconciliation finds of a port this service holds out ("is Active (Link Up) in UFM
  // again"), or "" when it is still held (or cannot be read).
  std::string BroughtBack(Store::Tx& tx, const Ticket& t, bool list_ok,
                          const std::set<std::string>& isolated);
  // Records that someone brought the port back (drift); false when the ticket changed meanwhile.
  bool RecordDrift(Store::Tx& tx, const Ticket& t, const std::string& now_is);
  // Reconciliation read a port held as an uncertain cut as disabled: the cut is confirmed.
  void SettleUncertain(Store::Tx& tx, const Ticket& t);
  // After a reconciliation that committed: whose isolations are whose.
  void Adopt(const std::map<std::string, UnhealthyPort>& entries, const std::set<std::string>& ours,
             const std::set<std::string>& isolated);

  Store& store_;
  UfmClient& ufm_;
  Inventory& inventory_;
  Metrics& metrics_;
  const Clock& clock_;
  OwnPorts& own_;
  std::map<std::string, std::string> persons_isolated_;
};

}  // namespace ufmr
