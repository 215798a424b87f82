// LiveRules: the rules the loop decides with. It owns the rules engine (the rules stage: what
// passed the filters goes in, findings come out), reloads the rules when asked (SIGHUP) or when
// the rules folder changed, and keeps what other threads may read of them (the hash, each rule's
// soak). A reload runs the whole load first, side-effect free; only a clean result replaces the
// rules (keeping the state of unchanged rules). A failed load keeps the old rules, logs the
// diagnostics, and returns an alert for the dashboard. The engine and MaybeReload belong to the
// pipeline thread; hash() and SoakFor() are thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/metrics.h"
#include "config/config.h"
#include "filter/observation_filter.h"
#include "loop/interval.h"
#include "loop/pending_alert.h"
#include "rules/rule_engine.h"
#include "store/ticket.h"

namespace ufmr {

class LiveRules {
 public:
  LiveRules(const Config& config, const Inventory& inventory, Metrics& metrics,
            std::shared_ptr<const RuleSet> rules);

  RuleEngine& engine() { return engine_; }
  const RuleSet& rules() const { return engine_.rules(); }

  enum class Reload { kNone, kFailed, kLoaded };
  // Reloads when `forced`, or when due and the rules folder changed. kFailed fills `alert`;
  // kLoaded (also when the files were touched but the rules are the same) clears the last one.
  Reload MaybeReload(bool forced, TimePoint now, PendingAlert* alert);
  // What the filters made of an observation, handed to the engine: findings go to `out`.
  void Observe(Sifting& s, FilterVerdict verdict, std::vector<Finding>* out);
  // Held findings due by `now` (RuleEngine::Tick). One made from events read again after a
  // restart that ran out well before `horizon` (the newest event the last leader read; none: no
  // restart) ran out while that leader was reading on: it fired it or saw it cleared, and its
  // judgment stands (the finding is marked read again, Observation::reread, and not decided).
  void Tick(TimePoint now, std::optional<TimePoint> horizon, std::vector<Finding>* out);

  // The hash of the rules in force. Thread-safe.
  std::string hash() const;
  // The soak of a ticket's link: its rule's `soak`, else remediation.soak_s. Thread-safe.
  double SoakFor(const Ticket& t) const;

 private:
  // After a (re)load: what other threads may read of the rules.
  void Snapshot();
  // A finding made again from events read again (the last leader judged them): marked so, and its
  // link's counts dropped.
  void MarkReadAgain(Finding* f);
  void ReportFailure(const RuleLoadResult& loaded, PendingAlert* alert);
  // A sign on a link under soak past the clear level of `broken`: the finding that fails it.
  Finding SoakSign(const Rule& broken, const Observation& o, const std::vector<std::string>& ends);

  const Config& config_;
  const Inventory& inventory_;
  Metrics& metrics_;
  RuleEngine engine_;
  Interval check_;
  std::string fingerprint_;  // names, sizes and times of the rules files last loaded
  mutable std::mutex mu_;    // guards hash_ and soak_by_rule_
  std::string hash_;
  std::map<std::string, double> soak_by_rule_;  // rules with their own `soak`
};

}  // namespace ufmr
