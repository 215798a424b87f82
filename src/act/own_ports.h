// OwnPorts: the ports this service holds out of service: disabled (or being disabled: intents
// recorded this pass count once they commit) and isolated, and when it had each port disabled
// over the last day. Read from the database (the tickets that hold ports, the confirmed port
// actions), kept up to date by each action's outcome and by reconciliation. The filter
// stage reads it through HeldPorts: what a held link reports is not a fault. Pipeline thread only;
// not thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "act/action_executor.h"
#include "filter/our_holds.h"
#include "store/store.h"

namespace ufmr {

class OwnPorts final : public HeldPorts {
 public:
  bool AnyDisabled() const override { return !disables_.empty(); }
  bool HoldsDisabled(const std::string& port) const override { return disables_.count(port) > 0; }
  bool HoldsIsolated(const std::string& port) const override { return isolations_.count(port) > 0; }
  bool DisabledAt(const std::string& port, TimePoint at) const override {
    return HeldAt("disable", port, at);
  }
  bool IsolatedAt(const std::string& port, TimePoint at) const override {
    return HeldAt("isolate", port, at);
  }

  // Reads the ports held disabled from the database (at start, with each reconciliation, and
  // again after a spell as standby). False when it could not be read (the last set stays).
  bool LoadDisables(Store& store);
  // Whether LoadDisables succeeded since start (or since MarkStale).
  bool disables_loaded() const { return disables_loaded_; }
  // Another instance acts: what this one holds is read again on taking over.
  void MarkStale() { disables_loaded_ = false; }

  // Disables a pass recorded (its transaction committed): held from now on.
  void AddDisabling(const std::vector<std::string>& ports);
  // An action's recorded outcome (ActionExecutor::OnOutcome).
  void OnOutcome(const PortAction& a, ActionExecutor::Outcome outcome);
  // Reconciliation: the ports held isolated, as UFM lists them.
  void SetIsolations(std::set<std::string> ports) { isolations_ = std::move(ports); }
  // Someone brought an isolated port back (drift): not held any more.
  void DropIsolation(const std::string& port) { isolations_.erase(port); }

 private:
  bool HeldAt(const std::string& action, const std::string& port, TimePoint at) const;

  std::set<std::string> disables_;    // held disabled, or being disabled
  std::set<std::string> isolations_;  // held isolated
  // The spans this service had each port disabled or isolated (by "disable|port" or
  // "isolate|port"; epoch seconds, `to` 0 while it still does) over the last day.
  std::map<std::string, std::vector<std::pair<double, double>>> spans_;
  bool disables_loaded_ = false;
};

}  // namespace ufmr
