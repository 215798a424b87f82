// Reading UFM's ports answer (GET /resources/ports, or a saved ports.json) in one pass, without a
// document tree: each element's 12 fields worth keeping go straight into a PortTable row through
// one reused PortInfo, and the other 20 or so are checked and skipped (JsonScan). A 100,000-port
// answer (some 50 MB) reads in about a fifth of a second. Odd bytes become U+FFFD first (one odd
// byte costs a character, not the answer). Pure; thread-safe.
#pragma once

#include <string_view>

#include "base/status.h"
#include "ufm/port_table.h"

namespace ufmr {

// A list (or {"data": [...]}); elements that are no port (not an object, no name) are skipped and
// counted in *skipped. InvalidArgument for text that is not JSON, or holds no list.
Result<PortTable> ParsePortTable(std::string_view body, int* skipped);

}  // namespace ufmr
