// The command line of the commands that read their own options (`parse`, `probe`): --name VALUE,
// --name=VALUE and --help, nothing else, so a mistake is one clear line and exit status 2. Also
// where their log lines go (stderr: stdout carries their output). Plain data; not thread-safe.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ufmr::app {

struct CliOptions {
  std::vector<std::pair<std::string, std::string>> given;  // in order, repeats kept
  std::vector<std::string> positional;
  bool help = false;

  bool Has(const std::string& name) const;
  // The last value given for `name`, or `fallback`.
  std::string Get(const std::string& name, const std::string& fallback = "") const;
};

// Reads `args` (the words after the command). Every option takes a value and must be in `valued`.
// Returns "" when the line is good, else the one-line error to print.
std::string ParseCliOptions(const std::vector<std::string>& args,
                            const std::set<std::string>& valued, CliOptions* out);

// Sends the service's log lines (spdlog) to stderr, warnings and worse only.
void LogWarningsToStderr();

}  // namespace ufmr::app
