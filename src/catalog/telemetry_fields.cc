#include "catalog/telemetry_fields.h"

#include "base/text.h"
#include "catalog/csv_records.h"

namespace ufmr {
namespace ufm_tables {
extern const std::string_view kTelemetryFieldsCsv;
}  // namespace ufm_tables

const std::vector<UfmTelemetryField>& UfmTelemetryFields() {
  static const std::vector<UfmTelemetryField> fields = [] {
    std::vector<UfmTelemetryField> out;
    for (auto& r : ReadCsvRecords(ufm_tables::kTelemetryFieldsCsv, /*skip_header=*/true)) {
      if (r.size() < 3 || r[1].empty()) continue;
      out.push_back({r[0], r[1], r[2]});
    }
    return out;
  }();
  return fields;
}

bool IsUfmTelemetryField(std::string_view name) {
  const std::string key = AsciiLower(TrimBlanks(name));
  for (const auto& f : UfmTelemetryFields()) {
    if (AsciiLower(f.field) == key) return true;
  }
  return false;
}

}  // namespace ufmr
