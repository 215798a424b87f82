// DecidedOnce: a finding is decided once, though its events are read again. After a restart or a
// change of leader the REST event source reads again the events a rule's window or hold still
// held (so the window is rebuilt: loop/rest_event_source.h), and the rules make again the
// findings those events made before. Each decision records its trigger (the rule, the entity and
// the event that completed the finding: its type, UFM's stamp to the second and its ports or
// object, the same from every source); a finding made from events read again whose trigger has
// a decision already is not decided again. FindingRecorder also skips, whatever its trigger, a
// finding marked read again (its own event was, or its hold ran out before the last leader
// stopped reading: LiveRules): that leader's judgment of those events stands. Stateless.
#pragma once

#include <string>

#include "rules/finding.h"

namespace ufmr {

// The finding's trigger; "" when none of its observations is an event UFM stamped.
std::string DecisionTrigger(const Finding& f);
// Whether the finding was made from an event read again (Observation::reread).
bool FromEventsReadAgain(const Finding& f);

}  // namespace ufmr
