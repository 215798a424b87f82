// `ufm-remediator probe --config FILE`: a read-only first contact with a UFM (see probe.h). Loads
// the config as `serve` does, runs the probe, prints the report as text for a person or as JSON
// for tools (--format json; fields in docs/PROBE.md). Never writes to UFM. Single-threaded.
#pragma once

#include "app/cli.h"

namespace ufmr::app {

// Exit status: 0 when everything the service needs is
// there, 1 when something is missing (or the config cannot be loaded), 2 on a usage error.
int ProbeCommand(const CommandLine& cl);

}  // namespace ufmr::app
