// Covers the conventions of ufm-remediator's command line, on the real binary: every command and
// group answers --help (and -h, and `help COMMAND`) with its own usage on stdout and exit 0, with
// no config file needed; --version; an unknown command or option names itself; a missing value,
// a missing requirement, an extra argument or a bad --log-level is one line on stderr that names
// the command, and exit 2, with nothing on stdout; a single-valued option given twice takes the
// last value.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/test_env.h"

namespace ufmr {
namespace {

using testing::CommandResult;

CommandResult Cli(std::vector<std::string> args) {
  args.insert(args.begin(), testing::BinaryDir() + "/ufm-remediator");
  return testing::RunCommand(args);
}

std::vector<std::string> Words(const std::string& command) {
  std::vector<std::string> words;
  size_t start = 0;
  while (start < command.size()) {
    size_t end = command.find(' ', start);
    if (end == std::string::npos) end = command.size();
    words.push_back(command.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

std::vector<std::string> Plus(std::vector<std::string> words,
                              const std::vector<std::string>& more) {
  words.insert(words.end(), more.begin(), more.end());
  return words;
}

const std::vector<std::string> kCommands = {
    "serve",      "db",           "db migrate",  "rules",        "rules check",  "rules test",
    "replay",     "parse",        "probe",       "config",       "config check", "user",
    "user add",   "user list",    "user passwd", "user disable", "token",        "token create",
    "token list", "token revoke", "notify",      "notify test"};

// A usage error: exit 2, one line on stderr in the program's form, nothing on stdout.
void ExpectUsageError(const std::vector<std::string>& args, const std::string& command,
                      const std::string& says) {
  std::string line;
  for (const auto& a : args) line += a + " ";
  CommandResult r = Cli(args);
  EXPECT_EQ(r.exit_code, 2) << line << r.err;
  EXPECT_TRUE(r.out.empty()) << line << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << line << r.err;
  const std::string where = command.empty() ? "ufm-remediator" : "ufm-remediator " + command;
  EXPECT_EQ(r.err.rfind(where + ": ", 0), 0u) << line << r.err;
  EXPECT_NE(r.err.find("(see '" + where + " --help')"), std::string::npos) << line << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << line << r.err;
}

TEST(HelpCliTest, EveryCommandAnswersHelpWithItsOwnUsage) {
  for (const auto& command : kCommands) {
    CommandResult r = Cli(Plus(Words(command), {"--help"}));
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    EXPECT_TRUE(r.err.empty()) << command << ": " << r.err;
    EXPECT_NE(r.out.find("Usage: ufm-remediator " + command + " "), std::string::npos)
        << command << ": " << r.out;
    EXPECT_EQ(Cli(Plus(Words(command), {"-h"})).out, r.out) << command;
    EXPECT_EQ(Cli(Plus({"help"}, Words(command))).out, r.out) << command;
  }
  // The issue this convention came from: help needs no config file.
  CommandResult add = Cli({"user", "add", "--help"});
  EXPECT_NE(add.out.find("--role ROLE"), std::string::npos) << add.out;
  EXPECT_NE(add.out.find("--config FILE"), std::string::npos) << add.out;
  // A group lists its commands.
  CommandResult user = Cli({"user", "--help"});
  for (const char* sub : {"add", "list", "passwd", "disable"}) {
    EXPECT_NE(user.out.find(std::string("\n  ") + sub + " "), std::string::npos) << user.out;
  }
}

TEST(HelpCliTest, TheProgramListsItsCommandsAndVersion) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"}, {"-h"}, {"help"}}) {
    CommandResult r = Cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const char* command :
         {"serve", "db", "rules", "replay", "parse", "probe", "config", "user", "token"}) {
      EXPECT_NE(r.out.find(std::string("\n  ") + command + " "), std::string::npos)
          << command << " missing from " << r.out;
    }
  }
  CommandResult version = Cli({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("ufm-remediator ", 0), 0u) << version.out;
  EXPECT_EQ(std::count(version.out.begin(), version.out.end(), '\n'), 1) << version.out;
}

TEST(HelpCliTest, UnknownCommandsAndOptionsNameThemselves) {
  ExpectUsageError({}, "", "give a command: serve, db,");
  ExpectUsageError({"frobnicate"}, "", "unknown command 'frobnicate'");
  ExpectUsageError({"user"}, "user", "give one of its commands: add, list, passwd, disable");
  ExpectUsageError({"user", "frob"}, "user", "unknown command 'frob'");
  ExpectUsageError({"db", "--config", "x"}, "db", "give one of its commands: migrate");
  ExpectUsageError({"serve", "--config", "x", "--frob"}, "serve", "--frob");
  ExpectUsageError({"user", "add", "a", "--role", "admin", "--config", "x", "--frob", "1"},
                   "user add", "--frob");
  ExpectUsageError({"replay", "--rules", "r", "--event-log", "e", "--bogus"}, "replay", "--bogus");
  ExpectUsageError({"probe", "--config", "x", "-x"}, "probe", "-x");
  ExpectUsageError({"serve", "stray", "--config", "x"}, "serve", "stray");
}

TEST(HelpCliTest, MissingValuesAndRequirementsAreOneLine) {
  ExpectUsageError({"serve"}, "serve", "--config FILE is required");
  ExpectUsageError({"serve", "--config"}, "serve", "--config needs a value");
  ExpectUsageError({"db", "migrate"}, "db migrate", "--config FILE is required");
  ExpectUsageError({"user", "add", "--config", "x", "--role", "viewer"}, "user add",
                   "NAME is required");
  ExpectUsageError({"user", "add", "a", "--config", "x"}, "user add", "--role ROLE is required");
  ExpectUsageError({"user", "list", "extra", "--config", "x"}, "user list", "extra");
  ExpectUsageError({"token", "create", "--config", "x"}, "token create", "--user NAME is required");
  ExpectUsageError({"token", "revoke", "--config", "x"}, "token revoke", "ID is required");
  ExpectUsageError({"rules", "test"}, "rules test", "PATH is required");
  ExpectUsageError({"replay"}, "replay", "--rules PATH is required");
  ExpectUsageError({"replay", "--rules", "r"}, "replay", "give --event-log FILE");
  ExpectUsageError({"config", "check"}, "config check", "give the config file");
  ExpectUsageError({"serve", "--config", "x", "--log-level", "loud"}, "serve", "--log-level");
}

// "--event-log --help" is a missing value, not a file named "--help"; the next option is not
// taken as a value either.
TEST(HelpCliTest, AnOptionIsNotTakenAsAnotherOptionsValue) {
  ExpectUsageError({"parse", "--event-log", "--help"}, "parse", "--event-log needs a value");
  ExpectUsageError({"parse", "--event-log", "--ports", "p.json"}, "parse",
                   "--event-log needs a value");
  ExpectUsageError({"user", "add", "a", "--role", "--config", "x"}, "user add",
                   "--role needs a value");
}

// As the command line always allowed: the config's options before the command, --log-level on
// the offline commands too.
TEST(HelpCliTest, ConfigOptionsMayComeBeforeTheCommand) {
  const std::string good = testing::SourceDir() + "/services/config.example.yaml";
  CommandResult before = Cli({"--config", good, "--log-level", "warn", "config", "check"});
  EXPECT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.out.find("config.example.yaml: ok"), std::string::npos) << before.out;
  CommandResult inline_value = Cli({"--config=" + good, "config", "check"});
  EXPECT_EQ(inline_value.exit_code, 0) << inline_value.err;
  CommandResult rules =
      Cli({"rules", "check", testing::SourceDir() + "/rules", "--log-level", "error"});
  EXPECT_EQ(rules.exit_code, 0) << rules.err;
  ExpectUsageError({"--config", good}, "", "give a command");
}

TEST(HelpCliTest, ASingleValuedOptionGivenTwiceTakesTheLast) {
  const std::string good = testing::SourceDir() + "/services/config.example.yaml";
  CommandResult r = Cli({"config", "check", "--config", "/nonexistent.yaml", "--config", good});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("config.example.yaml: ok"), std::string::npos) << r.out;
  // Repeatable options keep every value, in order.
  CommandResult sets = Cli({"config", "check", good, "--set", "http.port=8081", "--set",
                            "http.port=8082", "--log-level", "warn"});
  EXPECT_EQ(sets.exit_code, 0) << sets.err;
  EXPECT_NE(sets.out.find("8082"), std::string::npos) << sets.out;
}

TEST(HelpCliTest, AFlagSetToFalseIsNotSet) {
  const std::string rules = testing::SourceDir() + "/rules";
  auto progress = [&](std::vector<std::string> flags) {
    std::vector<std::string> args = {"replay", "--rules", rules, "--event-log", "/dev/null"};
    args.insert(args.end(), flags.begin(), flags.end());
    CommandResult r = Cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.err.find("lines/s") != std::string::npos;  // the progress line
  };
  EXPECT_TRUE(progress({"--progress"}));
  EXPECT_TRUE(progress({"--progress=true"}));
  EXPECT_FALSE(progress({"--progress=false"}));
  EXPECT_FALSE(progress({"--progress", "--progress=no"}));
  EXPECT_FALSE(progress({}));
}

}  // namespace
}  // namespace ufmr
