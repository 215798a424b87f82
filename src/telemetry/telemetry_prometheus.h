// The UFM Telemetry Prometheus text parser (the default format at /metrics): one sample per line,
//   PortRcvErrorsExtended{node_guid="0x...",port_guid="0x...",port_num="1",...} 0 1700000000000
// Labels identify the port (port_guid or guid; port_num, Port_Number or port; any order, any
// case, GUIDs with or without 0x); the metric name is the counter; the optional timestamp is in
// milliseconds by the format, its unit told by its magnitude all the same (TimestampMicros). Lines
// are grouped by port into the same columnar TelemetrySnapshot as the CSV parser makes. Pure;
// thread-safe.
#pragma once

#include <string_view>

#include "base/status.h"
#include "config/telemetry_columns.h"
#include "telemetry/telemetry_snapshot.h"

namespace ufmr {

// Comments (# HELP, # TYPE) and metrics without port labels are skipped. A malformed line, or a
// last line the body cuts off (no line end), is skipped and reported by line number. An empty
// body, or one where no sample names a port (all malformed, or no port labels), is an error.
Result<TelemetrySnapshot> ParseTelemetryPrometheus(std::string_view text);
// The same, with the endpoint's metric and label names mapped to ours first.
Result<TelemetrySnapshot> ParseTelemetryPrometheus(std::string_view text,
                                                   const TelemetryColumns& columns);

}  // namespace ufmr
