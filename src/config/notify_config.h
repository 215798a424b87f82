// The notify: section of the config (docs/CONFIG.md#notify, docs/NOTIFY.md): the receivers, each
// checked for its type's keys; the route tree, each node's receiver known, its labels known and
// its patterns RE2, its children inheriting what they do not set; and, once the file is read,
// the secrets receivers name in files or environment variables. Private to src/config/.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "base/status.h"
#include "config/config.h"
#include "config/config_reader.h"

namespace ufmr {

// The labels a route may match and group on (each notification carries those it knows).
const std::vector<std::string>& NotifyLabelNames();

// Reads the notify section `n` into *out (errors go to the reader).
void ReadNotifyConfig(config_internal::Reader* r, const YAML::Node& n, Config::Notify* out);
// The receivers' URLs and passwords from the files and variables they name. The error names the
// key, never the value.
Status ReadNotifySecrets(const std::string& name, Config::Notify* n);

}  // namespace ufmr
