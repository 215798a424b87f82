// RestEventSource: UFM's events over REST (GET /app/events), polled every events.poll_interval_s
// and handed on as Observations, oldest first. Its cursor (the newest id consumed) is recorded
// with the pass's findings, but never past an event the rules' memory still holds (a hold or a
// count window), so a restart reads such events again (marked `reread`, stamped with UFM's time).
// On first start UFM's history predates the service and is skipped. Ids that went back (UFM
// reinstalled, its event store reset) and ids gone before they were read are reported as alerts.
// Pipeline thread only; not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/metrics.h"
#include "config/config.h"
#include "ingest/input_health.h"
#include "ingest/observation.h"
#include "loop/cursor_write.h"
#include "loop/pending_alert.h"
#include "store/store.h"
#include "ufm/ufm_client.h"

namespace ufmr {

class RestEventSource {
 public:
  struct Parts {
    const Config& config;
    Store& store;
    UfmClient& ufm;
    Metrics& metrics;
    const Clock& clock;
    InputHealth& inputs;
  };
  using Emit = std::function<void(const Observation&)>;
  explicit RestEventSource(const Parts& parts) : p_(parts) {}

  // One poll: each new event to `emit`; what went wrong with the ids to `alerts`.
  void Poll(const Emit& emit, std::vector<PendingAlert>* alerts);
  // The cursor to record with this pass, kept below `oldest_in_use` (the oldest event id the
  // rules still hold), when it moved since it was last recorded.
  std::optional<CursorWrite> CursorToWrite(std::optional<int64_t> oldest_in_use);
  // The pass recorded what CursorToWrite returned.
  void Written();
  // UFM's stamp of the newest event the last leader read (and committed what it made of), when
  // this instance resumed: a hold read again that ran out before it was that leader's to fire.
  std::optional<TimePoint> reread_horizon() const { return reread_horizon_; }

 private:
  // Reads the cursor from the database (first poll). False when this poll goes no further: the
  // database could not be read, or on first start (UFM's history is skipped).
  bool Resume();
  void SkipHistory();
  // GET /app/events; a failure is logged, counted and reported as the input's health.
  Result<ParsedEvents> Fetch();
  // Ids that went back or were lost: alerts. Returns, after ids went back, the UFM time up to
  // which events are taken as already seen ("" otherwise).
  std::string CheckIds(const std::vector<UfmEvent>& list, std::vector<PendingAlert>* alerts);
  void ReportGap(const std::vector<UfmEvent>& list, int64_t cursor,
                 std::vector<PendingAlert>* alerts);
  void EmitNew(const std::vector<UfmEvent>& list, const std::string& not_after, const Emit& emit);

  Parts p_;
  std::optional<int64_t> cursor_;          // newest event id consumed, in memory
  std::optional<int64_t> written_cursor_;  // what the database holds
  std::optional<int64_t> written_newest_;  // the newest id read, as the database holds it
  std::optional<int64_t> to_write_;        // what CursorToWrite returned
  std::string newest_time_;                // UFM timestamp of the newest event read
  int64_t reread_until_ = 0;  // events up to this id were read before a restart (not news)
  std::optional<TimePoint> reread_horizon_;  // UFM's stamp of that newest event
};

}  // namespace ufmr
