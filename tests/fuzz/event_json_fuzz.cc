// libFuzzer target: a UFM REST GET /app/events answer (any bytes) through ParseUfmEvents and
// ToObservation, as the REST intake takes it. Every answer must come back as events or errors,
// never a crash; every event's ports must be what ExtractPortNames (RE2) finds in its text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "base/clock.h"
#include "ingest/port_names.h"
#include "ingest/rest_event.h"
#include "ufm/ufm_event.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  auto parsed = ufmr::ParseUfmEvents(body);
  if (!parsed.ok()) return 0;
  const ufmr::TimePoint received = ufmr::FromEpochSeconds(1.7e9);
  for (const auto& e : parsed->events) {
    ufmr::Observation o = ufmr::ToObservation(e, received);
    // The hand-written scan the intake uses must agree with the RE2 definition.
    if (o.ports !=
        ufmr::ExtractPortNames(e.object_name + " " + e.object_path + " " + e.description)) {
      std::abort();
    }
  }
  return 0;
}
