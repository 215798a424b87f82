// CounterHistory: keeps the error counters of ticketed ports over time, for the ticket page's
// chart. At most every dashboard.counter_sample_interval_s (and soon after a new ticket) it records
// the last telemetry sample of each port of a ticket that is not closed, limited to error counters
// (those the rules name and the usual IB error counters); once an hour it drops samples older than
// dashboard.counter_history_s. A port it records for the first time (a new ticket's) also gets
// the lead-up: the rises of its counters that LeadUp held from before the ticket, so the chart
// shows what led to it. Belongs to the loop's thread.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "base/clock.h"
#include "store/store.h"
#include "telemetry/lead_up.h"
#include "telemetry/telemetry_tracker.h"

namespace ufmr {

class CounterHistory {
 public:
  CounterHistory(double keep_s, double every_s = 60, double lead_up_s = 3600);

  // The counters worth keeping: `used_by_rules` and the usual IB error counters.
  static bool Keeps(const std::string& counter, const std::set<std::string>& used_by_rules);
  // Records and prunes when due; database errors are logged and retried next time. Returns the
  // number of samples recorded.
  // `lead_up` (may be null) gives a new port's points of the last lead_up_s.
  int MaybeRecord(Store& store, const CounterTracker& tracker,
                  const std::set<std::string>& used_by_rules, TimePoint now,
                  LeadUp* lead_up = nullptr);
  // Records at the next call, due or not (a ticket was just filed: its chart starts at once).
  void RecordSoon() { next_record_ = TimePoint{}; }

 private:
  // Adds the lead-up of `port` (its points since now - lead_up_s_) to `samples`, by time.
  void AddLeadUp(const LeadUp& lead_up, const std::string& port,
                 const std::set<std::string>& used_by_rules, TimePoint now,
                 std::map<TimePoint, nlohmann::json>* samples) const;

  double keep_s_;
  double every_s_;
  double lead_up_s_;
  std::set<std::string> recorded_;  // the ports recorded last time
  TimePoint next_record_{};
  TimePoint next_prune_{};
};

}  // namespace ufmr
