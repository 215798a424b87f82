#include "store/counter_history.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "telemetry/telemetry_port.h"

namespace ufmr {

namespace {

// Counters that say a link is unwell, under the names UFM Telemetry uses.
const std::set<std::string>& ErrorCounters() {
  static const std::set<std::string> k = {"SymbolErrorCounter",
                                          "SymbolErrorCounterExtended",
                                          "LinkDownedCounter",
                                          "LinkDownedCounterExtended",
                                          "LinkErrorRecoveryCounter",
                                          "LinkErrorRecoveryCounterExtended",
                                          "PortRcvErrors",
                                          "PortRcvErrorsExtended",
                                          "PortXmitDiscards",
                                          "PortXmitDiscardsExtended",
                                          "LocalLinkIntegrityErrors",
                                          "ExcessiveBufferOverrunErrors",
                                          "PortRcvRemotePhysicalErrors",
                                          "UnknownBlockCounter",
                                          "phy_effective_errors",
                                          "phy_symbol_errors",
                                          "link_down_events",
                                          "raw_ber"};
  return k;
}

}  // namespace

CounterHistory::CounterHistory(double keep_s, double every_s)
    : keep_s_(keep_s), every_s_(every_s) {}

bool CounterHistory::Keeps(const std::string& counter, const std::set<std::string>& used_by_rules) {
  return used_by_rules.count(counter) > 0 || ErrorCounters().count(counter) > 0;
}

int CounterHistory::MaybeRecord(Store& store, const CounterTracker& tracker,
                                const std::set<std::string>& used_by_rules, TimePoint now) {
  if (now < next_record_) return 0;
  next_record_ = now + std::chrono::duration_cast<TimePoint::duration>(Seconds(every_s_));
  auto txr = store.Begin();
  if (!LogIfError(txr.status(), "counter history: recording samples")) return 0;
  auto& tx = *txr.value();
  int recorded = 0;
  try {
    for (const std::string& port : tx.OpenTicketPorts()) {
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
  } catch (const std::exception& e) {
    spdlog::warn("counter history: cannot record samples: {}", e.what());
    return 0;
  }
  return recorded;
}

}  // namespace ufmr
