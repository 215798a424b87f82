// The UFM Telemetry CSV parser (/csv/metrics, /csv/xcset/<name>, /labels/csv/metrics): a header
// row, then a row per port, `timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,<counters>`.
// Columns are found by name in any order (see ClassifyColumn); unknown columns are counters,
// non-numeric cells are absent values. The timestamp's unit is told by its magnitude
// (TimestampMicros). Pure; thread-safe.
#pragma once

#include <string_view>

#include "base/status.h"
#include "config/telemetry_columns.h"
#include "telemetry/telemetry_snapshot.h"

namespace ufmr {

// An empty body, or a header without port_guid (or guid) and Port_Number columns, is an error.
// A bad row (cell count, GUID, port number) is skipped and reported by line number; so is a last
// row the body cuts off (no line end), which could otherwise hold a cut-down number.
Result<TelemetrySnapshot> ParseTelemetryCsv(std::string_view text);
// The same, with the endpoint's column names mapped to ours first (header cells only).
Result<TelemetrySnapshot> ParseTelemetryCsv(std::string_view text, const TelemetryColumns& columns);

}  // namespace ufmr
