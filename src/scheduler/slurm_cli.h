// SlurmCli: the Slurm backend of Scheduler, driven the way Slurm's operators drive it: scontrol
// to drain and resume a node, sinfo for a node's state and reason, squeue for its jobs. The
// commands' paths, extra arguments (e.g. "-M gpu") and SLURM_CONF are configurable; each command
// has a deadline. Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "scheduler/command.h"
#include "scheduler/scheduler.h"

namespace ufmr {

struct SlurmCliOptions {
  std::string scontrol = "scontrol";
  std::string sinfo = "sinfo";
  std::string squeue = "squeue";
  std::vector<std::string> extra_args;  // given to every command, before its own
  std::string slurm_conf;               // SLURM_CONF for the commands; empty: Slurm's default
  double timeout_s = 10;
};

class SlurmCli final : public Scheduler {
 public:
  explicit SlurmCli(SlurmCliOptions options);

  Result<SchedulerNode> Node(const std::string& name) override;
  Status Drain(const std::string& name, const std::string& reason) override;
  Status Resume(const std::string& name) override;
  Result<std::vector<SchedulerJob>> Jobs(const std::string& node) override;
  Result<int> NodeCount() override;

 private:
  // Runs `program` with the extra arguments and `args`; a non-zero exit is an error in the
  // scheduler's words (NotFound for an unknown node, Unavailable for a controller that did not
  // answer, InvalidArgument for a refusal).
  Result<std::string> Run(const std::string& program, const std::vector<std::string>& args,
                          const std::string& node);

  SlurmCliOptions options_;
  CommandOptions command_;
};

}  // namespace ufmr
