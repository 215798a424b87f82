// Command: runs a program (no shell) with its arguments and a deadline, and gives back its exit
// status and what it wrote. How the service drives tools such as Slurm's scontrol, the way their
// operators do. Thread-safe (each call is its own child process).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace ufmr {

struct CommandOutput {
  int exit_code = -1;  // the program's exit status; -1 when it was killed or did not run
  std::string out;     // standard output
  std::string err;     // standard error
};

struct CommandOptions {
  double timeout_s = 10;
  // Variables set in the child's environment on top of the service's own ("SLURM_CONF", path).
  std::vector<std::pair<std::string, std::string>> env;
  size_t max_output_bytes = 16 << 20;  // per stream; more is an error, not memory
};

// RunProgram: runs argv[0] (looked up in PATH when it has no '/') with the rest as its arguments.
// Unavailable when the program cannot be started, does not finish within the timeout (it is
// killed), or writes more than max_output_bytes; otherwise the output, whatever the exit status.
Result<CommandOutput> RunProgram(const std::vector<std::string>& argv,
                                 const CommandOptions& options = {});

}  // namespace ufmr
