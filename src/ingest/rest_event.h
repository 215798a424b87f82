// A UFM REST event (ufm/ufm_event.h) as the loop sees it: the port names its text mentions and
// the Observation it becomes. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/clock.h"
#include "ingest/observation.h"
#include "ufm/ufm_event.h"

namespace ufmr {

// Port names in text: "<16 hex>_<n>" and the message forms "...)<16 hex>:<n>" and
// "<16 hex> (Switch: x) : <n>". Lower-cased, de-duplicated, in order of appearance. This is the
// definition, in RE2: the intakes use AppendPortNames (event_log.h), a hand-written scan about ten
// times faster, which the tests and the fuzz targets check against it.
std::vector<std::string> ExtractPortNames(const std::string& text);

Observation ToObservation(const UfmEvent& event, TimePoint received);

}  // namespace ufmr
