// UfmEvent and its parser: both JSON layouts of GET /app/events (up to 6.16, where "type" holds
// the event id, and 6.17+, where "event_type" does) into one struct. What an event means for the
// loop (its ports, its Observation) is ingest/rest_event.h. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"

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

}  // namespace ufmr
