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

int CounterHistory::RecordLeadUp(Store::Tx& tx, const LeadUp& lead_up, const std::string& port,
                                 const std::set<std::string>& used_by_rules, TimePoint now) {
  const auto back = std::chrono::duration_cast<TimePoint::duration>(Seconds(lead_up_s_));
  std::map<TimePoint, nlohmann::json> samples;  // the points of one time make one sample
  for (const LeadUp::Point& p : lead_up.Points(port, now - back)) {
    if (Keeps(p.counter, used_by_rules)) samples[p.at][p.counter] = p.value;
  }
  for (const auto& [at, counters] : samples)
    tx.AddCounterSample(port, ToEpochSeconds(at), counters);
  return static_cast<int>(samples.size());
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
      if (lead_up && !recorded_.count(port)) {
        recorded += RecordLeadUp(tx, *lead_up, port, used_by_rules, now);
      }
      PortKey key;
      if (!ParsePortName(port, &key)) continue;
      TimePoint at;
      std::map<std::string, uint64_t> values;
      if (!tracker.LastSample(key, &at, &values)) continue;
      nlohmann::json counters = nlohmann::json::object();
      for (const auto& [name, v] : values) {
        if (Keeps(name, used_by_rules)) counters[name] = v;
      }
      if (counters.empty()) continue;
      tx.AddCounterSample(port, ToEpochSeconds(at), counters);
      ++recorded;
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
