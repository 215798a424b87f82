// DuplicateFilter: one UFM event is one observation, whichever sources bring it (REST, the event
// log, syslog): the first arrival goes on, later ones are dropped (EventDeduper) and counted in
// ufmr_duplicate_events_total{source}. Each event that goes on is counted in
// ufmr_events_total{source}, and its lag (intake time against UFM's stamp, in UFM's zone) observed
// in ufmr_event_lag_seconds{source} unless it was read again after a restart. Counter
// observations pass uncounted. Pipeline thread only.
#pragma once

#include "base/metrics.h"
#include "filter/event_dedup.h"
#include "filter/observation_filter.h"

namespace ufmr {

class DuplicateFilter final : public ObservationFilter {
 public:
  // `utc_offset_s`: UFM's zone (ufm.utc_offset_s), to read its timestamps.
  DuplicateFilter(Metrics& metrics, int utc_offset_s)
      : metrics_(metrics), utc_offset_s_(utc_offset_s) {}
  const char* name() const override { return "duplicates"; }
  FilterVerdict Check(Sifting& s) override;

 private:
  Metrics& metrics_;
  int utc_offset_s_;
  EventDeduper deduper_;
};

}  // namespace ufmr
