// libFuzzer target: a UFM Telemetry Prometheus text answer (any bytes) through
// ParseTelemetryPrometheus. Never a crash: a snapshot or an error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "telemetry/telemetry_prometheus.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto snapshot =
      ufmr::ParseTelemetryPrometheus(std::string_view(reinterpret_cast<const char*>(data), size));
  (void)snapshot;
  return 0;
}
