#include "filter/hand_disable_notes.h"

#include <spdlog/spdlog.h>

namespace ufmr {

FilterVerdict HandDisableNotes::Check(Sifting& s) {
  const Observation& o = s.observation();
  if (o.event_type != 336 || o.source == "syslog") return FilterVerdict::kPass;
  // Ours: a port this service holds disabled, or, for a 336 read again after a restart (its
  // ticket may be closed since), had disabled when UFM stamped it. A fresh 336 is judged as the
  // port is held now: a person's disable just after the service's enable is the person's.
  auto ours = [this, &o](const std::string& port) {
    return held_.HoldsDisabled(port) || (o.reread && held_.DisabledAt(port, o.time));
  };
  for (const auto& port : disables_.Note(o, s.ports(), ours)) {
    spdlog::info(
        "port {} was disabled in UFM, not by this service: what its link reports in the next "
        "{} s is that disable's doing",
        port, RecentDisables::kWindowS);
  }
  return FilterVerdict::kPass;
}

}  // namespace ufmr
