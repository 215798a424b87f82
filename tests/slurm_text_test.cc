// The scheduler stage's pure parts: Slurm's output read into nodes and jobs (slurm_text.h), UFM's
// host names mapped to Slurm's node names (node_names.h), and the program runner the Slurm
// backend uses (command.h).
#include "scheduler/slurm_text.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "scheduler/command.h"
#include "scheduler/node_names.h"
#include "support/test_env.h"

namespace ufmr {
namespace {

TEST(SlurmTextTest, NodesAreReadOnceWithTheirStateAndReason) {
  // sinfo -N lists a node once per partition it is in.
  auto nodes = slurm_text::ParseNodes(
      "gpu-node-0001|mixed+drain|ufm-remediator #42: symbol_errors on a|b|\n"
      "gpu-node-0002|idle|none|\n"
      "gpu-node-0001|mixed+drain|ufm-remediator #42: symbol_errors on a|b|\n"
      "\n");
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  ASSERT_EQ(nodes->size(), 2u);
  const SchedulerNode& a = nodes.value()[0];
  EXPECT_EQ(a.name, "gpu-node-0001");
  EXPECT_EQ(a.state, "mixed+drain");
  // The reason may hold '|': everything up to the last field separator is the reason.
  EXPECT_EQ(a.reason, "ufm-remediator #42: symbol_errors on a|b");
  EXPECT_TRUE(a.draining());
  EXPECT_FALSE(a.drained());
  const SchedulerNode& b = nodes.value()[1];
  EXPECT_EQ(b.reason, "");
  EXPECT_FALSE(b.drain);
  EXPECT_FALSE(b.busy);
}

TEST(SlurmTextTest, DrainedIsADrainWithNoJobsLeft) {
  struct Case {
    const char* state;
    bool drained, draining;
  } cases[] = {
      {"idle+drain", true, false},
      {"down+drain", true, false},
      {"drained*", true, false},  // the short form, not responding
      {"mixed+drain", false, true},
      {"allocated+drain", false, true},
      {"idle+completing+drain", false, true},  // a job still ending
      {"draining", false, true},
      {"idle", false, false},
      {"mixed", false, false},
      {"down+not_responding", false, false},
  };
  for (const auto& c : cases) {
    SchedulerNode n;
    slurm_text::ReadState(c.state, &n);
    EXPECT_EQ(n.drained(), c.drained) << c.state;
    EXPECT_EQ(n.draining(), c.draining) << c.state;
  }
}

TEST(SlurmTextTest, ALineWithoutTheFieldsIsAnError) {
  auto nodes = slurm_text::ParseNodes("gpu-node-0001 idle\n");
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.status().message().find("gpu-node-0001 idle"), std::string::npos);
}

TEST(SlurmTextTest, JobsKeepANameWithBars) {
  auto jobs = slurm_text::ParseJobs("17|alice|8|RUNNING|llm|pretrain\n18|bob|1|COMPLETING|x\n");
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ(jobs.value()[0].id, "17");
  EXPECT_EQ(jobs.value()[0].user, "alice");
  EXPECT_EQ(jobs.value()[0].nodes, 8);
  EXPECT_EQ(jobs.value()[0].state, "RUNNING");
  EXPECT_EQ(jobs.value()[0].name, "llm|pretrain");
  EXPECT_EQ(jobs.value()[1].state, "COMPLETING");
  EXPECT_FALSE(slurm_text::ParseJobs("17|alice|many|RUNNING|x\n").ok());
  EXPECT_FALSE(slurm_text::ParseJobs("17|alice\n").ok());
}

TEST(NodeNamesTest, TheSameNameUnlessAPatternRewritesIt) {
  auto same = NodeNames::Make("", "\\1");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->Of("gpu-node-0001"), "gpu-node-0001");
  EXPECT_EQ(same->Of(""), std::nullopt);

  auto short_name = NodeNames::Make("^([^.]+)\\.cluster\\.example$", "\\1");
  ASSERT_TRUE(short_name.ok()) << short_name.status().message();
  EXPECT_EQ(short_name->Of("gpu-node-0001.cluster.example"), "gpu-node-0001");
  EXPECT_EQ(short_name->Of("gpu-node-0001"), std::nullopt);  // not matched: no node

  auto prefixed = NodeNames::Make("^node-(\\d+)$", "gpu\\1");
  ASSERT_TRUE(prefixed.ok());
  EXPECT_EQ(prefixed->Of("node-17"), "gpu17");
}

TEST(NodeNamesTest, ABadPatternOrRewriteIsAnError) {
  auto bad = NodeNames::Make("^(unclosed", "\\1");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("scheduler.node_pattern"), std::string::npos);
  auto no_group = NodeNames::Make("^node$", "\\1");
  ASSERT_FALSE(no_group.ok());
  EXPECT_NE(no_group.status().message().find("scheduler.node_name"), std::string::npos);
}

TEST(RunProgramTest, GivesTheExitStatusAndBothStreams) {
  auto r = RunProgram({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
}

TEST(RunProgramTest, ArgumentsAreNotInterpretedByAShell) {
  auto r = RunProgram({"printf", "%s|", "a b", "$HOME", "; rm -rf /"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out, "a b|$HOME|; rm -rf /|");
}

TEST(RunProgramTest, SetsTheVariablesItIsGiven) {
  CommandOptions o;
  o.env = {{"SLURM_CONF", "/etc/other/slurm.conf"}, {"HOME", "/nowhere"}};
  auto r = RunProgram({"sh", "-c", "echo $SLURM_CONF $HOME"}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out, "/etc/other/slurm.conf /nowhere\n");
}

TEST(RunProgramTest, AProgramThatIsNotThereIsUnavailable) {
  auto r = RunProgram({"/nonexistent/scontrol", "show", "node"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(r.status().message().find("/nonexistent/scontrol"), std::string::npos);
}

TEST(RunProgramTest, AProgramPastItsDeadlineIsKilled) {
  CommandOptions o;
  o.timeout_s = 0.3;
  auto start = std::chrono::steady_clock::now();
  auto r = RunProgram({"sleep", "30"}, o);
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(r.status().message().find("did not finish"), std::string::npos);
  EXPECT_LT(took, std::chrono::seconds(10));
}

// Whether process `pid` has ended (gone, or a zombie nobody reaped yet).
bool Ended(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

TEST(RunProgramTest, ATimeoutKillsWhatTheProgramStartedToo) {
  const std::string dir = testing::MakeTempDir("run-program");
  CommandOptions o;
  o.timeout_s = 0.5;
  auto r = RunProgram({"sh", "-c", "sleep 30 & echo $! > " + dir + "/child; wait"}, o);
  ASSERT_FALSE(r.ok());
  std::ifstream in(dir + "/child");
  std::string child;
  ASSERT_TRUE(std::getline(in, child));
  bool ended = false;
  for (int i = 0; i < 40 && !ended; ++i) {
    ended = Ended(child);
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(ended) << "the program's child " << child << " outlived its timeout";
  testing::RemoveTree(dir);
}

TEST(RunProgramTest, TooMuchOutputIsAnErrorNotMemory) {
  CommandOptions o;
  o.max_output_bytes = 1000;
  auto r = RunProgram({"sh", "-c", "yes | head -c 100000"}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more than 1000 bytes"), std::string::npos);
}

}  // namespace
}  // namespace ufmr
