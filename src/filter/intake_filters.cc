#include "filter/intake_filters.h"

#include <memory>

#include "filter/duplicate_filter.h"
#include "filter/hand_disable_filter.h"
#include "filter/hand_disable_notes.h"
#include "filter/manual_mark_filter.h"
#include "filter/own_disable_filter.h"
#include "filter/soak_filter.h"

namespace ufmr {

IntakeFilters::IntakeFilters(const Parts& p) {
  chain_.Add(std::make_unique<HandDisableNotes>(hand_disables_, p.held));
  chain_.Add(std::make_unique<DuplicateFilter>(p.metrics, p.utc_offset_s));
  chain_.Add(std::make_unique<ManualMarkFilter>(p.marks, p.held));
  chain_.Add(std::make_unique<HandDisableFilter>(hand_disables_, p.inventory, p.metrics));
  chain_.Add(std::make_unique<OwnDisableFilter>(p.held, p.soaking, p.inventory, p.metrics));
  chain_.Add(std::make_unique<SoakFilter>(p.soaking, p.inventory));
}

}  // namespace ufmr
