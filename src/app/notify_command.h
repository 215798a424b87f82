// `ufm-remediator notify test --config FILE [--receiver NAME]`: sends a test message to each
// receiver of the config's notify.receivers (or to the one named) and says, per receiver, whether
// it was delivered. Loads the config as `serve` does; touches neither UFM nor the database.
#pragma once

#include "app/cli.h"

namespace ufmr::app {

// Exit status: 0 every receiver took its message, 1 one did not (or the config cannot be loaded,
// or it has no receivers), 2 a usage error (no receiver of that name).
int NotifyTest(const CommandLine& cl);

}  // namespace ufmr::app
