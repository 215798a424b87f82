// The Slurm backend (SlurmCli) against a real Slurm: slurmctld, slurmd and munge from Debian's
// packages, started privately by the test (support/test_slurm.h). A node is drained while a real
// job runs on it, and is drained only once the job has ended; jobs are listed; a node is resumed;
// an unknown node and a controller that does not answer are told apart.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "scheduler/slurm_cli.h"
#include "support/test_env.h"
#include "support/test_slurm.h"

namespace ufmr {
namespace {

using testing::TestSlurm;
using testing::WaitUntil;

SlurmCliOptions Options(const TestSlurm& slurm) {
  SlurmCliOptions o;
  o.slurm_conf = slurm.conf();
  o.timeout_s = 10;
  return o;
}

TEST(SchedulerSlurmTest, ADrainWaitsForTheJobAndAResumeGivesTheNodeBack) {
  TestSlurm slurm({"gpu-node-0001", "gpu-node-0002"});
  SlurmCli cli(Options(slurm));

  auto idle = cli.Node("gpu-node-0001");
  ASSERT_TRUE(idle.ok()) << idle.status().message();
  EXPECT_FALSE(idle->drain);
  EXPECT_EQ(idle->reason, "");
  auto count = cli.NodeCount();
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(count.value(), 2);

  std::string job = slurm.StartJob("gpu-node-0001", 4, "pretrain-llm");
  auto jobs = cli.Jobs("gpu-node-0001");
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ(jobs.value()[0].id, job);
  EXPECT_EQ(jobs.value()[0].name, "pretrain-llm");
  EXPECT_EQ(jobs.value()[0].nodes, 1);
  EXPECT_EQ(jobs.value()[0].state, "RUNNING");
  EXPECT_FALSE(jobs.value()[0].user.empty());
  auto none = cli.Jobs("gpu-node-0002");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  const std::string reason = "ufm-remediator #42: symbol_errors on gpu-node-0001 HCA-1/1";
  ASSERT_TRUE(cli.Drain("gpu-node-0001", reason).ok());
  auto draining = cli.Node("gpu-node-0001");
  ASSERT_TRUE(draining.ok());
  EXPECT_TRUE(draining->draining()) << draining->state;
  EXPECT_EQ(draining->reason, reason);
  // The job is not killed: the node is drained once it has ended.
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto n = cli.Node("gpu-node-0001");
        return n.ok() && n->drained();
      },
      std::chrono::seconds(60)))
      << slurm.State("gpu-node-0001");
  EXPECT_EQ(slurm.Reason("gpu-node-0001"), reason);

  ASSERT_TRUE(cli.Resume("gpu-node-0001").ok());
  auto back = cli.Node("gpu-node-0001");
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->drain) << back->state;
  // A node that is not drained cannot be resumed: a refusal, not a retry.
  Status again = cli.Resume("gpu-node-0001");
  EXPECT_EQ(again.code(), Status::Code::kInvalidArgument) << again.message();
}

TEST(SchedulerSlurmTest, AnUnknownNodeIsNotFoundAndASilentControllerUnavailable) {
  TestSlurm slurm({"gpu-node-0001"});
  SlurmCli cli(Options(slurm));
  EXPECT_EQ(cli.Node("gpu-node-9999").status().code(), Status::Code::kNotFound);
  Status drain = cli.Drain("gpu-node-9999", "ufm-remediator #1: x");
  EXPECT_EQ(drain.code(), Status::Code::kNotFound) << drain.message();
  EXPECT_EQ(cli.Jobs("gpu-node-9999").status().code(), Status::Code::kNotFound);

  slurm.StopController();
  SlurmCliOptions quick = Options(slurm);
  quick.timeout_s = 3;  // the commands retry a silent controller for longer than this
  SlurmCli silent(quick);
  auto start = std::chrono::steady_clock::now();
  Status s = silent.Drain("gpu-node-0001", "ufm-remediator #1: x");
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(silent.Node("gpu-node-0001").status().code(), Status::Code::kUnavailable);

  slurm.StartController();
  auto n = cli.Node("gpu-node-0001");
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_FALSE(n->drain);  // the drain never reached Slurm
}

TEST(SchedulerSlurmTest, TheCommandsAndTheirExtraArgumentsAreConfigurable) {
  // A stand-in sinfo that says how it was called.
  std::string dir = testing::MakeTempDir("ufmr-sinfo");
  testing::WriteFile(dir + "/sinfo", "#!/bin/sh\necho \"n1|idle|args: $*|\"\n");
  testing::RunCommand({"chmod", "+x", dir + "/sinfo"});
  SlurmCliOptions o;
  o.sinfo = dir + "/sinfo";
  o.extra_args = {"-M", "gpu"};
  SlurmCli cli(o);
  auto n = cli.Node("n1");
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(n->reason, "args: -M gpu -h -N -n n1 -O NodeList:0|,StateComplete:0|,Reason:0|");
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace ufmr
