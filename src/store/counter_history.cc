#include "store/counter_history.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "telemetry/error_counters.h"
#include "telemetry/telemetry_port.h"

namespace ufmr {

CounterHistory::CounterHistory(double keep_s, double every_s, double lead_up_s)
    : keep_s_(keep_s), every_s_(every_s), lead_up_s_(lead_up_s) {}

bool CounterHistory::Keeps(const std::string& counter, const std::set<std::string>& used_by_rules) {
  return used_by_rules.count(counter) > 0 || ErrorCounters().count(counter) > 0;
}

void CounterHistory::AddLeadUp(const LeadUp& lead_up, const std::string& port,
                               const std::set<std::string>& used_by_rules, TimePoint now,
                               std::map<TimePoint, nlohmann::json>* samples) const {
  const auto back = std::chrono::duration_cast<TimePoint::duration>(Seconds(lead_up_s_));
  for (const LeadUp::Point& p : lead_up.Points(port, now - back)) {
    if (Keeps(p.counter, used_by_rules)) (*samples)[p.at][p.counter] = p.value;
  }
}

int CounterHistory::MaybeRecord(Store& store, const CounterTracker& tracker,
                                const std::set<std::string>& used_by_rules, TimePoint now,
                                LeadUp* lead_up) {
  if (now < next_record_) return 0;
  next_record_ = now + std::chrono::duration_cast<TimePoint::duration>(Seconds(every_s_));
  auto txr = store.Begin();
  if (!LogIfError(txr.status(), "counter history: recording samples")) return 0;
  auto& tx = *txr.value();
  int recorded = 0;
  try {
    std::set<std::string> ports;
    for (const std::string& port : tx.OpenTicketPorts()) {
      ports.insert(port);
      // By time: a lead-up point at the last sample's time joins that sample (one row a time).
      std::map<TimePoint, nlohmann::json> samples;
      if (lead_up && !recorded_.count(port)) {
        AddLeadUp(*lead_up, port, used_by_rules, now, &samples);
      }
      PortKey key;
      TimePoint at;
      std::map<std::string, uint64_t> values;
      if (ParsePortName(port, &key) && tracker.LastSample(key, &at, &values)) {
        for (const auto& [name, v] : values) {
          if (Keeps(name, used_by_rules)) samples[at][name] = v;
        }
      }
      for (const auto& [when, counters] : samples) {
        tx.AddCounterSample(port, ToEpochSeconds(when), counters);
        ++recorded;
      }
    }
    if (now >= next_prune_) {
      next_prune_ = now + std::chrono::hours(1);
      int pruned = tx.PruneCounterSamples(ToEpochSeconds(now) - keep_s_);
      if (pruned > 0) spdlog::debug("counter history: dropped {} old samples", pruned);
    }
    tx.Commit();
    if (lead_up) {
      for (const std::string& port : ports) {
        if (!recorded_.count(port)) lead_up->Forget(port);  // in the database now
      }
    }
    recorded_ = std::move(ports);
  } catch (const std::exception& e) {
    spdlog::warn("counter history: cannot record samples: {}", e.what());
    return 0;
  }
  return recorded;
}

}  // namespace ufmr
