#include "test_slurm.h"

#include <signal.h>

#include <stdexcept>

namespace ufmr::testing {

namespace {

std::string FirstLine(std::string s) {
  s = s.substr(0, s.find('\n'));
  return s;
}

// The folder the cluster's daemons live in (scripts/slurm-temp.sh keeps its name in DIR/slurmdir).
std::string ClusterDir(const std::string& dir) { return FirstLine(ReadFile(dir + "/slurmdir")); }

}  // namespace

TestSlurm::TestSlurm(std::vector<std::string> nodes) : dir_(MakeTempDir("ufmr-slurm-test")) {
  std::vector<std::string> argv{SourceDir() + "/scripts/slurm-temp.sh", "start", dir_};
  argv.insert(argv.end(), nodes.begin(), nodes.end());
  CommandResult r = RunCommand(argv);
  if (r.exit_code != 0) {
    RunCommand({SourceDir() + "/scripts/slurm-temp.sh", "stop", dir_});
    throw std::runtime_error("slurm-temp.sh start failed: " + r.err);
  }
  conf_ = FirstLine(r.out);
}

TestSlurm::~TestSlurm() { RunCommand({SourceDir() + "/scripts/slurm-temp.sh", "stop", dir_}); }

CommandResult TestSlurm::Run(const std::vector<std::string>& argv) const {
  return RunCommand(argv, "SLURM_CONF=" + conf_);
}

std::string TestSlurm::StartJob(const std::string& node, int seconds, const std::string& name) {
  CommandResult r = Run({"sbatch", "--parsable", "-w", node, "-J", name, "-o", "/dev/null",
                         "--wrap", "sleep " + std::to_string(seconds)});
  if (r.exit_code != 0) throw std::runtime_error("sbatch failed: " + r.err);
  std::string id = FirstLine(r.out);
  bool running = WaitUntil(
      [&] {
        return FirstLine(Run({"squeue", "-h", "-j", id, "-o", "%T"}).out) == "RUNNING";
      },
      std::chrono::seconds(30));
  if (!running) throw std::runtime_error("job " + id + " did not start on " + node);
  return id;
}

std::string TestSlurm::State(const std::string& node) const {
  return FirstLine(Run({"sinfo", "-h", "-N", "-n", node, "-O", "StateComplete:0"}).out);
}

std::string TestSlurm::Reason(const std::string& node) const {
  std::string r = FirstLine(Run({"sinfo", "-h", "-N", "-n", node, "-O", "Reason:0"}).out);
  while (!r.empty() && r.back() == ' ') r.pop_back();
  return r;
}

void TestSlurm::StopController() {
  std::string pid = FirstLine(ReadFile(ClusterDir(dir_) + "/slurmctld.pid"));
  RunCommand({"kill", pid});
  WaitUntil(
      [&] {
        return RunCommand({"kill", "-0", pid}).exit_code != 0;
      },
      std::chrono::seconds(10));
}

void TestSlurm::StartController() {
  CommandResult r = Run({"slurmctld", "-f", conf_});
  if (r.exit_code != 0) throw std::runtime_error("slurmctld did not start: " + r.err);
  WaitUntil([&] { return Run({"sinfo", "-h"}).exit_code == 0; }, std::chrono::seconds(30));
}

}  // namespace ufmr::testing
