// Parsing of human durations used in config and rules files: "500ms", "30s", "10m", "2h", "1d",
// or a bare number of seconds. Pure functions; thread-safe.
#pragma once

#include <string>

#include "base/status.h"

namespace ufmr {

// Returns seconds. Rejects negatives, empty strings and unknown units with a message.
Result<double> ParseDuration(const std::string& text);
// "90s" -> "1m30s"; for messages and the dashboard.
std::string FormatDuration(double seconds);

}  // namespace ufmr
