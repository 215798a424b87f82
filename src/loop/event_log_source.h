// EventLogSource: UFM's event log on disk (event_log.path), tailed every
// event_log.poll_interval_s across rotations (LogTailer), its multi-line entries assembled and
// parsed into Observations. Its cursor (a file position) is recorded with the pass's findings;
// while an entry is still being assembled the cursor points at its start, not past it. On first
// start the file's history predates the service and reading begins at its end. A bad entry is
// counted and logged, never fatal. Pipeline thread only; not thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/clock.h"
#include "base/metrics.h"
#include "config/config.h"
#include "ingest/event_log.h"
#include "ingest/input_health.h"
#include "ingest/log_tailer.h"
#include "ingest/observation.h"
#include "loop/cursor_write.h"
#include "store/store.h"

namespace ufmr {

class EventLogSource {
 public:
  struct Parts {
    const Config& config;
    Store& store;
    Metrics& metrics;
    const Clock& clock;
    InputHealth& inputs;
  };
  using Emit = std::function<void(const Observation&)>;
  explicit EventLogSource(const Parts& parts) : p_(parts) {}

  // One poll: each complete entry to `emit`.
  void Poll(const Emit& emit);
  // The cursor to record with this pass, when it moved since it was last recorded.
  std::optional<CursorWrite> CursorToWrite() const;
  // The pass recorded what CursorToWrite returned.
  void Written() { written_ = cursor_; }

 private:
  // Opens the tailer at the recorded position (first poll). False when the cursor could not be
  // read from the database.
  bool Open();
  void Handle(const RawLogEntry& raw, TimePoint now, const Emit& emit);
  // Where the next poll resumes: past what was read, or at an entry still being assembled.
  void Advance(TimePoint now, const Emit& emit, RawLogEntry* raw);

  Parts p_;
  std::unique_ptr<LogTailer> tailer_;  // opened on first use
  EventLogAssembler assembler_;
  std::optional<nlohmann::json> cursor_;  // position to resume the event log at
  std::optional<nlohmann::json> written_;
};

}  // namespace ufmr
