// Test support for telemetry: look up one counter of one port in a parsed TelemetrySnapshot,
// and list a snapshot's ports by name. Pure functions over the snapshot.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/telemetry_snapshot.h"

namespace ufmr::testing {

// The value of `counter` on `port` ("<16 hex>_<n>"), if the snapshot has it.
std::optional<uint64_t> ValueOf(const TelemetrySnapshot& s, const std::string& port,
                                const std::string& counter);
std::vector<std::string> PortNames(const TelemetrySnapshot& s);

}  // namespace ufmr::testing
