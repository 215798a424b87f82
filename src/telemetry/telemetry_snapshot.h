// TelemetrySnapshot: one UFM Telemetry sample of many ports, parsed (from CSV or Prometheus text)
// into a columnar, flat form: a row per port (PortKey, sample time), the counter columns' names
// once, and every value in one contiguous row-major array. Also the one place that decides what a
// column (or Prometheus label/metric) name means: identifier, link speed/width, gauge or counter.
// Plain data, owned by whoever parsed it; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/telemetry_ber.h"
#include "telemetry/telemetry_port.h"

namespace ufmr {

// A value the row does not have (empty or non-numeric cell, missing column or metric). A counter
// whose value really is 2^64-1 reads as absent.
inline constexpr uint64_t kNoValue = UINT64_MAX;

struct TelemetrySnapshot {
  std::vector<std::string> counters;  // the counter columns, in this snapshot's order
  std::vector<PortKey> ports;         // one per row
  std::vector<int64_t> time_us;       // one per row: sample time, microseconds since the epoch; 0
                                      // when the source gave none
  std::vector<uint64_t> values;       // rows x counters, row-major; kNoValue = absent
  std::vector<LinkRate> links;        // one per row when the source carries speed/width, else empty
  std::vector<std::string> errors;    // "line N: ..." for each row/line skipped, and other notes
  bool truncated = false;             // the body ended mid-row; that row was skipped
  // The columns that named each row's port: "port_guid + port number", or "Node_GUID + port
  // number" when the sample has no port_guid ("" before a header is read).
  std::string keyed_by;
  // XDR rows of aggregated ports (port_type 4, keyed by sys_image_guid and aport): no IB port of
  // UFM's, not read. Counted, not errors.
  size_t aggregated_rows = 0;

  size_t rows() const { return ports.size(); }
  uint64_t value(size_t row, size_t counter) const {
    return values[row * counters.size() + counter];
  }
  // The column of `counter`, or -1.
  int Column(std::string_view counter) const;
  // Appends `other`'s rows (e.g. another shard). Columns are matched by name; a column only one
  // side has is absent (kNoValue) in the other's rows.
  void Append(TelemetrySnapshot&& other);
};

// What of a sample the service does not read, in words for `probe` and `parse`: XDR aggregated
// rows, rows keyed by Node_GUID. Empty when it reads everything.
std::vector<std::string> TelemetryNotRead(const TelemetrySnapshot& s);

// What a CSV column, Prometheus label or metric name means. Matching ignores case, '_' and '-'.
enum class ColumnRole {
  kCounter,     // a cumulative counter: anything not listed below
  kTimestamp,   // timestamp
  kPortGuid,    // port_guid
  kGuid,        // guid: the port GUID when there is no port_guid
  kPortNumber,  // Port_Number, port_num, port_number, port
  kNodeGuid,    // Node_GUID, node_guid: the port's GUID only when a row has no port_guid (a
                // switch's ports share its GUID; a host's adapter's node GUID is not its port's)
  kPortType,    // port_type: XDR rows, "4" an aggregated port (keyed by sys_image_guid + aport)
  kLinkSpeed,   // Link_speed_active, active_speed
  kLinkWidth,   // Link_width_active, active_width
  kAttribute,   // an identifier or description (source_id, tag, Node_GUID, node_description, ...)
  kGauge,       // a level, not a count (*_BER, Module_Temperature, ...): not tracked
};
ColumnRole ClassifyColumn(std::string_view name);

// A counter value: decimal digits (up to 2^64-2), or a number such as "1.5e3" or "+12" whose
// value is a non-negative integer. False for anything else (empty, "N/A", "-1", "0.5", "NaN").
bool ParseCounterValue(std::string_view text, uint64_t* out);

// A sample time as microseconds since the epoch, its unit told by its magnitude, since endpoints
// differ (the primary stamps microseconds, 16 digits; other telemetry instances milliseconds, 13
// digits; Prometheus text milliseconds; seconds have 10 digits): below 1e11 it is seconds (up to
// the year 5138), below 1e14 milliseconds, below 1e17 microseconds, else nanoseconds. Each unit
// thus covers 1973 to 5138 (seconds from 1970). 0 for a value that is not positive.
int64_t TimestampMicros(int64_t raw);
// The unit TimestampMicros takes `raw` in: "seconds", "milliseconds", "microseconds",
// "nanoseconds", or "none" for a value that is not positive (what `probe` reports).
const char* TimestampUnit(int64_t raw);
// The same for text: decimal digits, or a decimal number ("1712228785.304" seconds). False for
// anything else (empty, "N/A", "-5", "1e400"); *out is then untouched.
bool ParseTimestampMicros(std::string_view text, int64_t* out);

// Printable ASCII of `text` (at most `max` bytes), other bytes as \xNN: safe in logs and JSON.
std::string Printable(std::string_view text, size_t max = 60);

}  // namespace ufmr
