#include "filter/hand_disable_notes.h"

#include <spdlog/spdlog.h>

namespace ufmr {

FilterVerdict HandDisableNotes::Check(Sifting& s) {
  const Observation& o = s.observation();
  if (o.event_type != 336 || o.source == "syslog") return FilterVerdict::kPass;
  auto ours = [this](const std::string& port) { return held_.HoldsDisabled(port); };
  for (const auto& port : disables_.Note(o, s.ports(), ours)) {
    spdlog::info(
        "port {} was disabled in UFM, not by this service: what its link reports in the next "
        "{} s is that disable's doing",
        port, RecentDisables::kWindowS);
  }
  return FilterVerdict::kPass;
}

}  // namespace ufmr
