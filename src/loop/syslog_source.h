// SyslogSource: UFM's events pushed over syslog (SyslogReceiver, its own thread), drained each
// pass on the pipeline thread and parsed into Observations. A record that does not parse is
// counted and logged. Syslog is pushed, not polled: a quiet one is not stale. Pipeline thread
// only.
#pragma once

#include <functional>

#include "base/clock.h"
#include "base/metrics.h"
#include "ingest/input_health.h"
#include "ingest/observation.h"
#include "ingest/syslog_receiver.h"

namespace ufmr {

class SyslogSource {
 public:
  using Emit = std::function<void(const Observation&)>;
  SyslogSource(SyslogReceiver& receiver, Metrics& metrics, const Clock& clock, InputHealth& inputs)
      : receiver_(receiver), metrics_(metrics), clock_(clock), inputs_(inputs) {}

  // Every record received since the last drain to `emit`.
  void Drain(const Emit& emit);

 private:
  SyslogReceiver& receiver_;
  Metrics& metrics_;
  const Clock& clock_;
  InputHealth& inputs_;
};

}  // namespace ufmr
