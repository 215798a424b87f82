// Test support: a real Slurm cluster for the scheduler tests (scripts/slurm-temp.sh): munged,
// slurmctld and one slurmd per node, all on this machine in a folder of their own, stopped (its
// jobs cancelled) when the object goes. Nodes have one CPU each, in partition "gpu". Use from the
// test's main thread.
#pragma once

#include <string>
#include <vector>

#include "test_env.h"

namespace ufmr::testing {

class TestSlurm {
 public:
  // Starts the cluster; throws (failing the test) when it does not come up.
  explicit TestSlurm(std::vector<std::string> nodes);
  ~TestSlurm();
  TestSlurm(const TestSlurm&) = delete;
  TestSlurm& operator=(const TestSlurm&) = delete;

  // Its slurm.conf, for SLURM_CONF.
  const std::string& conf() const { return conf_; }
  // A Slurm command (scontrol, sbatch, ...) against this cluster.
  CommandResult Run(const std::vector<std::string>& argv) const;
  // Submits `sleep <seconds>` on `node` as a batch job; returns its job id; waits until it runs.
  std::string StartJob(const std::string& node, int seconds, const std::string& name = "train");
  // The node's state as sinfo writes it ("mixed+drain") and its reason.
  std::string State(const std::string& node) const;
  std::string Reason(const std::string& node) const;
  // Stops the controller (the cluster no longer answers) and starts it again.
  void StopController();
  void StartController();

 private:
  std::string dir_;
  std::string conf_;
};

}  // namespace ufmr::testing
