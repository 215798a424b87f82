// SoakFilter: the filter that marks what is said about a link under soak (a repaired link being
// watched). Such an observation goes on to the rules marked with the link's ends (Sifting::
// soak_ends): a sign past a rule's clear level fails the verification at once, with no count and
// no hold. An observation read again after a restart is not news and is not marked. Passes every
// observation. Pipeline thread only.
#pragma once

#include "filter/observation_filter.h"
#include "filter/our_holds.h"

namespace ufmr {

class Inventory;

class SoakFilter final : public ObservationFilter {
 public:
  SoakFilter(const SoakingLinks& soaking, const Inventory& inventory)
      : soaking_(soaking), inventory_(inventory) {}
  const char* name() const override { return "soak"; }
  FilterVerdict Check(Sifting& s) override;

 private:
  const SoakingLinks& soaking_;
  const Inventory& inventory_;
};

}  // namespace ufmr
