// A UFM REST event (ufm/ufm_event.h) as the loop sees it: the Observation it becomes, with the
// port names its text mentions (port_names.h). Pure functions; thread-safe.
#pragma once

#include "base/clock.h"
#include "ingest/observation.h"
#include "ufm/ufm_event.h"

namespace ufmr {

// The event's ports are the names AppendPortNames (port_names.h) finds in its object, else in its
// description.
Observation ToObservation(const UfmEvent& event, TimePoint received);

}  // namespace ufmr
