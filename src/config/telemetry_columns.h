// TelemetryColumns: how one telemetry endpoint spells the columns the service reads. Collectors
// and UFM versions name counters differently (NVIDIA's fluentd sample has
// `Infiniband_SymbolErrors_u_Errors` for SymbolErrorCounterExtended), so the configuration maps
// our name to the endpoint's (`telemetry.columns`, `telemetry.secondary_columns`). The parsers ask
// Rename() what a CSV header cell, Prometheus metric or label key is called in the service before
// ClassifyColumn decides what it means. Matching ignores case. Also the catalogue of the names a
// map may use. Immutable once made; thread-safe to read.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace ufmr {

// The names a column map may map onto: UFM Telemetry's counters (PortCounters and their Extended
// forms, the secondary endpoint's Symbol_Errors, ...) and the identifier columns (timestamp,
// port_guid, port_num, node_guid, Link_speed_active, Link_width_active), as the service spells
// them.
const std::vector<std::string_view>& KnownTelemetryColumns();
// The service's spelling of `name` (any case) if it is a known column; empty otherwise.
std::string_view CanonicalTelemetryColumn(std::string_view name);

class TelemetryColumns {
 public:
  TelemetryColumns() = default;
  // From the configuration: our name -> the endpoint's column name. An error names the entry: an
  // unknown name of ours, an empty column, or one column given for two names.
  static Result<TelemetryColumns> Make(const std::map<std::string, std::string>& ours_to_theirs);

  // What the endpoint's column `name` is called in the service: the mapped name when the map
  // has it (any case), else a known column's own spelling when `name` is one but for case, else
  // `name` itself. The view lives as long as `name` and this object.
  std::string_view Rename(std::string_view name) const;
  bool empty() const { return theirs_to_ours_.empty(); }

 private:
  std::vector<std::pair<std::string, std::string>> theirs_to_ours_;  // lower-case theirs
};

}  // namespace ufmr
