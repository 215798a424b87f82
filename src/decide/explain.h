// Explain: a finding and the decision made about it, in plain words for the people who work the
// ticket: what UFM reported or the counters showed, against which threshold of which rule (and
// rules hash), and what the service did or why it kept its hands off. Pure functions.
#pragma once

#include <string>

#include "decide/decision.h"
#include "rules/finding.h"

namespace ufmr {

std::string Explain(const Finding& f, const Decision& d);

}  // namespace ufmr
