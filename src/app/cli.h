// The command line of ufm-remediator, read with CLI11 from a table of commands (their words,
// arguments, options and help): every command answers --help with its own usage on stdout and
// exit 0; an unknown command or option names itself; a usage error is one line on stderr,
// "ufm-remediator <command>: <what is wrong> (see 'ufm-remediator <command> --help')", and exit 2.
// What the commands do with their options lives beside each command. Not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ufmr::app {

// What a command was given: options as --name VALUE (repeatable ones keep every value in order; a
// flag given holds "1"), and the plain arguments in order.
struct CommandLine {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> options;
  bool Has(const std::string& name) const { return options.count(name) != 0; }
  std::string One(const std::string& name, const std::string& fallback = "") const {
    auto it = options.find(name);
    return it == options.end() || it->second.empty() ? fallback : it->second.back();
  }
  std::vector<std::string> All(const std::string& name) const {
    auto it = options.find(name);
    return it == options.end() ? std::vector<std::string>{} : it->second;
  }
};

struct OptionSpec {
  std::string name;     // without the dashes: "config"
  std::string value{};  // what it takes, as help shows it ("FILE"); empty for a flag
  std::string help{};
  bool required = false;
  bool repeatable = false;  // else the last one given wins
};

struct ArgumentSpec {
  std::string name;  // as help shows it: "NAME", "PATH"
  std::string help{};
  bool required = true;
  bool many = false;  // takes every remaining word
};

// A command, or a group of commands (`user`: its words only, the commands under it have more).
struct CommandSpec {
  std::vector<std::string> words;  // {"user", "add"}
  std::string summary;             // one line, shown in the group's list and atop the help
  std::vector<ArgumentSpec> arguments{};
  std::vector<OptionSpec> options{};
  std::string footer{};  // more help, after the options
};

struct Invocation {
  std::vector<std::string> words;  // the command chosen
  CommandLine line;                // what it was given
  std::optional<int> exit_code;    // set when the line is answered already (help, version, error)
};

// Reads `args` (argv without the program's name) against `commands`. Help and the version go to
// `out`, usage errors to `err`; both set exit_code. `help COMMAND...` is COMMAND... --help.
Invocation ReadCommandLine(const std::vector<CommandSpec>& commands,
                           const std::vector<std::string>& args, const std::string& version,
                           std::ostream& out, std::ostream& err);

// A command's own usage error (a bad value, a missing choice), in the same one-line form as the
// parser's; returns 2, the exit status.
int UsageError(const std::vector<std::string>& words, const std::string& message);

// Sends the service's log lines (spdlog) to stderr, warnings and worse only: for commands whose
// output is on stdout.
void LogWarningsToStderr();

}  // namespace ufmr::app
