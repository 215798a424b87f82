// Covers `ufm-remediator config check FILE` as SREs run it: the shipped example config
// (services/config.example.yaml) passes; errors name the key and exit 1; environment variables
// (UFM_REMEDIATOR_DB_URL, UFM_REMEDIATOR_UFM_PASSWORD) fill in or override the file, and their
// values are never printed; the UFM server's UTC offset is shown, and a bad one is an error.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/test_env.h"

namespace ufmr {
namespace {

using CliRun = testing::CommandResult;

// Runs `ufm-remediator config check ARGS...` with `env` ("NAME=value" words) in front.
CliRun ConfigCheck(const std::vector<std::string>& args, const std::string& env = "") {
  std::vector<std::string> argv = {testing::BinaryDir() + "/ufm-remediator", "config", "check"};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::RunCommand(argv, env);
}

std::string WriteConfig(const std::string& text) {
  std::string dir = testing::MakeTempDir("config-cli-file");
  testing::WriteFile(dir + "/config.yaml", text);
  return dir + "/config.yaml";
}

TEST(ConfigCliTest, TheExampleConfigPasses) {
  CliRun r = ConfigCheck({testing::SourceDir() + "/services/config.example.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("config.example.yaml: ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fabric:    cluster-a"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dry run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("UTC offset +00:00"), std::string::npos) << r.out;
}

TEST(ConfigCliTest, WarnsWhenUfmCredentialsWouldCrossTheNetworkInTheClear) {
  CliRun remote = ConfigCheck({WriteConfig("ufm: {url: http://ufm-a:80}\ndatabase: {url: x}\n")});
  EXPECT_EQ(remote.exit_code, 0) << remote.out << remote.err;
  EXPECT_NE(remote.err.find("warning: ufm.url is plain http:// to ufm-a: UFM's credentials"),
            std::string::npos)
      << remote.err;
  for (const char* url : {"https://ufm-a", "http://127.0.0.1:8000"}) {
    CliRun quiet =
        ConfigCheck({WriteConfig(std::string("ufm: {url: '") + url + "'}\ndatabase: {url: x}\n")});
    EXPECT_EQ(quiet.exit_code, 0) << quiet.out << quiet.err;
    EXPECT_EQ(quiet.err.find("plain http"), std::string::npos) << url << ": " << quiet.err;
  }
}

TEST(ConfigCliTest, SaysWhetherHostsAreDrainedAndWarnsWhenSlurmsCommandsAreMissing) {
  CliRun none = ConfigCheck({WriteConfig("ufm: {url: https://u}\ndatabase: {url: x}\n")});
  EXPECT_EQ(none.exit_code, 0) << none.out << none.err;
  EXPECT_NE(none.out.find("scheduler: none"), std::string::npos) << none.out;
  CliRun missing =
      ConfigCheck({WriteConfig("ufm: {url: https://u}\ndatabase: {url: x}\n"
                               "scheduler: {backend: slurm, scontrol: /nonexistent/scontrol, "
                               "sinfo: no-such-sinfo-here}\n")});
  EXPECT_EQ(missing.exit_code, 0) << missing.out << missing.err;
  EXPECT_NE(missing.out.find("scheduler: slurm"), std::string::npos) << missing.out;
  EXPECT_NE(missing.err.find("warning: scheduler: /nonexistent/scontrol is not found here"),
            std::string::npos)
      << missing.err;
  EXPECT_NE(missing.err.find("scheduler: no-such-sinfo-here is not found here"), std::string::npos)
      << missing.err;
  // sh stands for a program that is there (squeue: PATH is searched for a bare name).
  CliRun found = ConfigCheck(
      {WriteConfig("ufm: {url: https://u}\ndatabase: {url: x}\n"
                   "scheduler: {backend: slurm, scontrol: /bin/sh, sinfo: sh, squeue: sh}\n")});
  EXPECT_EQ(found.err.find("scheduler:"), std::string::npos) << found.err;
  CliRun bad = ConfigCheck({WriteConfig(
      "ufm: {url: https://u}\ndatabase: {url: x}\nscheduler: {node_pattern: '^(node'}\n")});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("scheduler.node_pattern: not an RE2 pattern"), std::string::npos)
      << bad.err;
}

TEST(ConfigCliTest, ShowsTheUfmUtcOffsetAndRejectsABadOne) {
  CliRun r = ConfigCheck(
      {WriteConfig("ufm: {url: http://u, utc_offset: \"-05:30\"}\ndatabase: {url: x}\n")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("UTC offset -05:30"), std::string::npos) << r.out;
  CliRun bad =
      ConfigCheck({WriteConfig("ufm:\n  url: http://u\n  utc_offset: +2x\ndatabase: {url: x}\n")});
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("config.yaml:3:15: ufm.utc_offset: must be an offset from UTC"),
            std::string::npos)
      << bad.err;
}

TEST(ConfigCliTest, ErrorsNameTheKeyAndExitOne) {
  struct Case {
    std::string text;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {"fabric: x\n", "ufm.url: is required"},
           {"ufm: {url: http://u}\ndatabase: {url: x}\nremediation: {max_attempts: 0}\n",
            "remediation.max_attempts"},
           {"ufm: {url: http://u}\ndatabase: {url: x}\ndashboard: {rack_pattern: \"([a\"}\n",
            "dashboard.rack_pattern"},
           {"ufm: {url: http://u}\ndatabase: {url: x}\ndashboard: {rack_pattern: \"^rack\"}\n",
            "capture group"},
           {"ufm: {url: ftp://u}\ndatabase: {url: x}\n", "ufm.url must start with"},
           {"ufm: {url: http://u}\ndatabase: {url: x}\nsurprise: 1\n", "surprise"},
       }) {
    CliRun r = ConfigCheck({WriteConfig(c.text)});
    EXPECT_EQ(r.exit_code, 1) << c.text << r.out << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.text << " -> " << r.err;
  }
  CliRun missing = ConfigCheck({"/nonexistent/config.yaml"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot read config file"), std::string::npos) << missing.err;
  EXPECT_EQ(ConfigCheck({}).exit_code, 2) << "no file is a usage error";
}

// --set KEY=VALUE replaces one key of the file (one file for every fabric's instance, say), is
// checked like the file's own keys, and an error names the flag.
TEST(ConfigCliTest, SetFlagsOverrideTheFileAndAreChecked) {
  const std::string file = WriteConfig("fabric: alpha\nufm: {url: http://u}\ndatabase: {url: x}\n");
  CliRun r = ConfigCheck({file, "--set", "fabric=beta", "--set=ufm.url=http://ufm-b:80"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("fabric:    beta"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("http://ufm-b:80"), std::string::npos) << r.out;
  struct Case {
    std::string set;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {"http.prot=8081", "--set http.prot: unknown key"},
           {"http.port=eighty", "--set http.port: expected an integer"},
           {"remediation.max_attempts=0", "--set remediation.max_attempts: must be between"},
           {"nokeyvalue", "--set: expected KEY=VALUE"},
           {"ufm.password=hunter2-secret", "--set ufm.password: secrets are not taken"},
           {"ufm.token=tok-secret", "--set ufm.token: secrets are not taken"},
           {"database.url=postgresql://u:db-secret@h/x", "--set database.url: secrets are not"},
       }) {
    CliRun bad = ConfigCheck({file, "--set", c.set});
    EXPECT_EQ(bad.exit_code, 1) << c.set << bad.out << bad.err;
    EXPECT_NE(bad.err.find(c.says), std::string::npos) << c.set << " -> " << bad.err;
    for (const char* secret : {"hunter2-secret", "tok-secret", "db-secret"}) {
      EXPECT_EQ((bad.out + bad.err).find(secret), std::string::npos) << c.set << " echoed";
    }
  }
  // A mistyped flag is not echoed (it may hold a secret).
  CliRun typo = ConfigCheck({file, "--set", "ufm.password:hunter2-secret"});
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_EQ((typo.out + typo.err).find("hunter2-secret"), std::string::npos) << typo.err;
  // A database URL without a password may be set; --set beats the environment for the same key
  // (one instance per fabric must not be pointed at another's UFM by a shared environment file).
  CliRun ok = ConfigCheck(
      {file, "--set", "database.url=host=db dbname=x", "--set", "ufm.url=http://ufm-b:80"},
      "UFM_REMEDIATOR_UFM_URL=http://shared-ufm:80");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("http://ufm-b:80"), std::string::npos) << ok.out;
  EXPECT_EQ(ok.out.find("shared-ufm"), std::string::npos) << ok.out;
}

TEST(ConfigCliTest, EnvironmentFillsInSecretsAndNeverShowsThem) {
  std::string path = WriteConfig("ufm: {url: http://ufm.example, auth: basic}\n");
  CliRun without = ConfigCheck({path});
  EXPECT_EQ(without.exit_code, 1);
  EXPECT_NE(without.err.find("database.url: is required"), std::string::npos) << without.err;

  CliRun with = ConfigCheck({path},
                            "UFM_REMEDIATOR_DB_URL='host=db password=db-secret-1' "
                            "UFM_REMEDIATOR_UFM_PASSWORD=ufm-secret-2");
  EXPECT_EQ(with.exit_code, 0) << with.out << with.err;
  EXPECT_NE(with.out.find("database:  set (from UFM_REMEDIATOR_DB_URL)"), std::string::npos)
      << with.out;
  EXPECT_NE(with.out.find("password set (from UFM_REMEDIATOR_UFM_PASSWORD)"), std::string::npos)
      << with.out;
  for (const std::string& text : {with.out, with.err}) {
    EXPECT_EQ(text.find("db-secret-1"), std::string::npos) << text;
    EXPECT_EQ(text.find("ufm-secret-2"), std::string::npos) << text;
  }
  // Without a password, basic auth is a warning, not an error.
  CliRun warned = ConfigCheck({path}, "UFM_REMEDIATOR_DB_URL=x");
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("no password is set"), std::string::npos) << warned.err;
}

}  // namespace
}  // namespace ufmr
