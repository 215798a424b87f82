// HandDisableFilter: the filter that keeps a person's disable from reading as a fault. For a minute
// after a 336 that HandDisableNotes noted, an event about that port's link is the disable's doing:
// it goes no further than the rules noting that the link went down (its uptime starts again), and
// is counted in ufmr_events_after_hand_disable_total{source}. Counter observations pass. Pipeline
// thread only.
#pragma once

#include "base/metrics.h"
#include "filter/observation_filter.h"
#include "filter/recent_disables.h"

namespace ufmr {

class Inventory;

class HandDisableFilter final : public ObservationFilter {
 public:
  // `disables` is shared with HandDisableNotes; `inventory` finds the peer of an event's one port.
  HandDisableFilter(RecentDisables& disables, const Inventory& inventory, Metrics& metrics)
      : disables_(disables), inventory_(inventory), metrics_(metrics) {}
  const char* name() const override { return "hand_disables"; }
  FilterVerdict Check(Sifting& s) override;

 private:
  RecentDisables& disables_;
  const Inventory& inventory_;
  Metrics& metrics_;
};

}  // namespace ufmr
