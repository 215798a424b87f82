#include "snapshot_values.h"

#include "telemetry/telemetry_port.h"

namespace ufmr::testing {

std::optional<uint64_t> ValueOf(const TelemetrySnapshot& s, const std::string& port,
                                const std::string& counter) {
  int col = s.Column(counter);
  if (col < 0) return std::nullopt;
  for (size_t r = 0; r < s.rows(); ++r) {
    if (PortName(s.ports[r]) != port) continue;
    uint64_t v = s.value(r, static_cast<size_t>(col));
    if (v == kNoValue) return std::nullopt;
    return v;
  }
  return std::nullopt;
}

std::vector<std::string> PortNames(const TelemetrySnapshot& s) {
  std::vector<std::string> out;
  for (const auto& p : s.ports) out.push_back(PortName(p));
  return out;
}

}  // namespace ufmr::testing
