// UFM Telemetry's documented fields (schema/ufm/telemetry_fields.csv: each endpoint's column
// names as NVIDIA's manuals and plugins spell them, with the source of each), compiled in, for
// "did you mean" on a rule's counter. The documented lists are partial (see the file's README):
// a name missing from them is worth a warning, never an error. Immutable after first use;
// thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ufmr {

struct UfmTelemetryField {
  std::string endpoint;  // "primary", "secondary", "xdr"
  std::string field;     // "SymbolErrorCounterExtended", "Node_GUID", ...
  std::string source;
};

const std::vector<UfmTelemetryField>& UfmTelemetryFields();
// Whether any endpoint documents `name` (case ignored).
bool IsUfmTelemetryField(std::string_view name);

}  // namespace ufmr
