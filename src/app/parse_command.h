// `ufm-remediator parse`: how the service reads one input file, for rule authors and tests. It
// runs the service's own parsers (event log, syslog records, a saved GET /app/events answer,
// telemetry CSV) and, with a saved GET /resources/ports answer, the rules engine's resolution of
// ports, switches and hosts through the inventory; it prints one JSON object per observation
// (JSONL) and one {"error": ..., "line": N} object per line it cannot place. Single-threaded.
#pragma once

#include "app/cli.h"

namespace ufmr::app {

// Exit status: 0 (lines it could not place included), 1 a file could not be read, 2 a usage
// error (not exactly one input, a bad --utc-offset).
int ParseCommand(const CommandLine& cl);

}  // namespace ufmr::app
