// OwnDisableFilter: the filter that keeps this service's own cuts from the rules. UFM reports a
// cut as "Link went down", and a count of a switch's or host's link-downs must not count it: an
// event about a link this service holds disabled (or is disabling) is dropped and counted in
// ufmr_events_on_held_links_total{source}. A link under soak is not held: what it says then is
// judged. Counter observations pass. Pipeline thread only.
#pragma once

#include "base/metrics.h"
#include "filter/observation_filter.h"
#include "filter/our_holds.h"

namespace ufmr {

class Inventory;

class OwnDisableFilter final : public ObservationFilter {
 public:
  OwnDisableFilter(const HeldPorts& held, const SoakingLinks& soaking, const Inventory& inventory,
                   Metrics& metrics)
      : held_(held), soaking_(soaking), inventory_(inventory), metrics_(metrics) {}
  const char* name() const override { return "own_disables"; }
  FilterVerdict Check(Sifting& s) override;

 private:
  // Whether the event is about a link this service holds disabled.
  bool AboutOurDisable(const Observation& o) const;

  const HeldPorts& held_;
  const SoakingLinks& soaking_;
  const Inventory& inventory_;
  Metrics& metrics_;
};

}  // namespace ufmr
