// TelemetryPoller: the counter source. Every telemetry.interval_s it polls UFM Telemetry
// (TelemetryIntake: snapshots into deltas, BER and Observations for the counters some rule names),
// reports the input's health, and keeps the error counters of ticketed ports over time for the
// dashboard (CounterHistory), with the rise before each ticket (LeadUp). Pipeline thread only; not
// thread-safe.
#pragma once

#include <functional>
#include <set>
#include <string>

#include "base/clock.h"
#include "base/metrics.h"
#include "config/config.h"
#include "ingest/input_health.h"
#include "ingest/observation.h"
#include "store/counter_history.h"
#include "store/store.h"
#include "telemetry/telemetry.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"

namespace ufmr {

class TelemetryPoller {
 public:
  struct Parts {
    const Config& config;
    Store& store;
    UfmClient& ufm;
    const Inventory& inventory;
    Metrics& metrics;
    const Clock& clock;
    InputHealth& inputs;
  };
  using Emit = std::function<void(const Observation&)>;
  explicit TelemetryPoller(const Parts& parts);
  TelemetryPoller(const TelemetryPoller&) = delete;  // intake_ points at lead_up_
  TelemetryPoller& operator=(const TelemetryPoller&) = delete;

  // One poll: an Observation for each change of a counter in `counters` (those the rules name)
  // to `emit`; every counter is tracked, and the history samples those worth keeping.
  void Poll(const std::set<std::string>& counters, const Emit& emit);
  // A ticket was just filed: the history samples at the next poll, so its chart starts at once.
  void RecordSoon() { history_.RecordSoon(); }

 private:
  void Report(const TelemetryIntake::Report& report);

  Parts p_;
  LeadUp lead_up_;  // before intake_, which notes rises in it
  TelemetryIntake intake_;
  CounterHistory history_;
};

}  // namespace ufmr
