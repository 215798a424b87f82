// UfmEvent and its parser: both JSON layouts of GET /app/events (up to 6.16, where "type" holds
// the event id, and 6.17+, where "event_type" does) into one struct, and the extraction of the
// port names (<guid>_<n>) a UFM event message mentions. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/observation.h"
#include "core/status.h"

namespace ufmr {

struct UfmEvent {
  int64_t id = 0;
  int event_type = 0;
  std::string name;
  std::string severity;
  std::string timestamp;
  std::string category;
  std::string object_type;  // empty in the old layout
  std::string object_name;
  std::string object_path;
  std::string description;
};

struct ParsedEvents {
  std::vector<UfmEvent> events;     // ascending id
  std::vector<std::string> errors;  // one per element that could not be read
};

// A body that is not a JSON array is an error; bad elements are skipped and reported.
Result<ParsedEvents> ParseUfmEvents(const std::string& body);
Result<UfmEvent> ParseUfmEvent(const nlohmann::json& element);

// Port names in text: "<16 hex>_<n>" and the message forms "...)<16 hex>:<n>" and
// "<16 hex> (Switch: x) : <n>". Lower-cased, de-duplicated, in order of appearance. This is the
// definition, in RE2: the intakes use AppendPortNames (event_log.h), a hand-written scan about ten
// times faster, which the tests and the fuzz targets check against it.
std::vector<std::string> ExtractPortNames(const std::string& text);

Observation ToObservation(const UfmEvent& event, TimePoint received);

}  // namespace ufmr
