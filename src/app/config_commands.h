// `ufm-remediator config check FILE`: loads a config file as `serve` would (environment
// overrides and --set flags included) and says whether it is good, without connecting to anything.
// Prints what the service would use (never a secret) and warnings for things that would stop it at
// start.
#pragma once

#include <string>
#include <vector>

namespace ufmr::app {

// Exit status: 0 good (warnings allowed), 1 the config has errors.
int ConfigCheck(const std::string& path, const std::vector<std::string>& sets = {});

}  // namespace ufmr::app
