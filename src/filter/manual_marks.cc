#include "filter/manual_marks.h"

#include <re2/re2.h>

#include "base/clock.h"

namespace ufmr {

void ManualMarks::Observe(const Observation& o, const std::vector<std::string>& ports) {
  if (o.kind != Observation::Kind::kEvent || o.event_type != kUnhealthyEvent) return;
  static const RE2 manual(R"((?i)unhealthy\s+due\s+to\s+MANUAL)");
  if (!RE2::PartialMatch(o.description, manual)) return;
  for (const auto& p : ports) {
    marks_[p] = "marked unhealthy by a person (UFM event 702, MANUAL) at " + FormatIsoTime(o.time);
  }
}

std::string ManualMarks::Why(const std::string& port) const {
  auto it = marks_.find(port);
  return it == marks_.end() ? "" : it->second;
}

}  // namespace ufmr
