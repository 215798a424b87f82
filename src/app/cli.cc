#include "app/cli.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <list>
#include <set>

#include "base/text.h"
#include "config/secret_mask.h"
namespace ufmr::app {
namespace {

constexpr const char* kProgram = "ufm-remediator";

std::string Where(const std::vector<std::string>& words) {
  std::string where = kProgram;
  for (const auto& w : words) where += " " + w;
  return where;
}

void PrintError(std::ostream& err, const std::vector<std::string>& words,
                const std::string& message) {
  err << Where(words) << ": " << message << " (see '" << Where(words) << " --help')\n";
}

bool StartsWith(const std::vector<std::string>& words, const std::vector<std::string>& prefix) {
  return words.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), words.begin());
}

// The commands right under `words`, by name.
std::vector<std::string> Children(const std::vector<CommandSpec>& commands,
                                  const std::vector<std::string>& words) {
  std::vector<std::string> names;
  for (const auto& c : commands) {
    if (c.words.size() == words.size() + 1 && StartsWith(c.words, words)) {
      names.push_back(c.words.back());
    }
  }
  return names;
}

// Options of every command that reads the config, given before the command's words, as the
// command line has always allowed (`ufm-remediator --config FILE serve`): taken out of `args`,
// with their values.
std::vector<std::string> LeadingOptions(std::vector<std::string>* args) {
  static const std::set<std::string> kBefore = {"--config", "--set", "--log-level"};
  size_t i = 0;
  while (i < args->size() && kBefore.count((*args)[i].substr(0, (*args)[i].find('=')))) {
    const bool inline_value = (*args)[i].find('=') != std::string::npos;
    i += inline_value || i + 1 == args->size() ? 1 : 2;
  }
  std::vector<std::string> leading(args->begin(), args->begin() + static_cast<std::ptrdiff_t>(i));
  args->erase(args->begin(), args->begin() + static_cast<std::ptrdiff_t>(i));
  return leading;
}

const CommandSpec* Find(const std::vector<CommandSpec>& commands,
                        const std::vector<std::string>& words) {
  for (const auto& c : commands) {
    if (c.words == words) return &c;
  }
  return nullptr;
}

// "--event-log --help", "--role --config x": an option that takes a value followed by another
// option (CLI11 would take that option as the value). Empty when there is none.
std::string MissingValue(const CommandSpec& spec, const std::vector<std::string>& args,
                         size_t from) {
  for (size_t i = from; i < args.size(); ++i) {
    if (args[i] == "--") break;
    for (const OptionSpec& o : spec.options) {
      if (o.value.empty() || args[i] != "--" + o.name) continue;
      const bool next_is_option =
          i + 1 < args.size() && args[i + 1].size() > 2 && args[i + 1].rfind("--", 0) == 0;
      if (next_is_option) return "--" + o.name + " needs a value";
    }
  }
  return "";
}

bool AsksForHelp(const std::string& arg) {
  return arg == "--help" || arg == "-h" || arg == "--version";
}

// The command the leading words name (a group only when help is asked of it); else "" and the
// error in *error.
std::vector<std::string> Chosen(const std::vector<CommandSpec>& commands,
                                const std::vector<std::string>& args, std::string* error) {
  std::vector<std::string> words;
  for (size_t i = 0;; ++i) {
    std::vector<std::string> under = Children(commands, words);
    if (under.empty()) return words;
    if (i < args.size() && AsksForHelp(args[i])) return words;
    if (i >= args.size() || args[i].rfind('-', 0) == 0) {
      std::string list;
      for (const auto& n : under) list += (list.empty() ? "" : ", ") + n;
      *error = (words.empty() ? "give a command: " : "give one of its commands: ") + list;
      return words;
    }
    if (std::find(under.begin(), under.end(), args[i]) == under.end()) {
      *error = "unknown command '" + args[i] + "'";
      return words;
    }
    words.push_back(args[i]);
  }
}

// CLI11's message as one line in this program's voice.
std::string Plain(const CLI::ParseError& e) {
  std::string m = e.what();
  for (char& c : m) {
    if (c == '\n') c = ' ';
  }
  // "--event-log: 1 required FILE missing"
  const size_t required = m.find(": 1 required ");
  if (required != std::string::npos && m.size() > 8 && m.substr(m.size() - 8) == " missing") {
    return m.substr(0, required) + " needs a value";
  }
  if (m.size() > 1 && std::isupper(static_cast<unsigned char>(m[0])) &&
      std::islower(static_cast<unsigned char>(m[1]))) {
    m[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(m[0])));
  }
  return m;
}

std::string Described(const OptionSpec& o) {
  std::string help = o.help;
  if (o.required) help += " (required)";
  if (o.repeatable) help += " (repeatable)";
  return help;
}

// A flag given as --flag=false (or 0, off, no) is not set; the last one given counts.
bool FlagSet(const std::vector<std::string>& results) {
  if (results.empty()) return true;
  const std::string v = AsciiLower(results.back());
  return v != "false" && v != "0" && v != "off" && v != "no" && v != "-1";
}

// The chosen command's options and arguments as CLI11 sees them, read back after the parse.
class Reader {
 public:
  void Add(CLI::App* app, const CommandSpec& spec) {
    for (const auto& a : spec.arguments) {
      // One word binds to a string, so a second one is an extra that names itself.
      CLI::Option* opt = a.many ? app->add_option(a.name, many_.emplace_back(), a.help)
                                : app->add_option(a.name, one_.emplace_back(), a.help);
      opt->type_name("");
      arguments_.emplace_back(&a, opt);
    }
    for (const auto& o : spec.options) {
      CLI::Option* opt = o.value.empty()
                             ? app->add_flag("--" + o.name)->description(Described(o))
                             : app->add_option("--" + o.name)->description(Described(o));
      if (!o.value.empty()) opt->type_name(o.value);
      opt->multi_option_policy(o.repeatable ? CLI::MultiOptionPolicy::TakeAll
                                            : CLI::MultiOptionPolicy::TakeLast);
      options_.emplace_back(&o, opt);
    }
  }

  // What was given, or the first missing requirement in *error.
  CommandLine Read(std::string* error) const {
    CommandLine line;
    for (const auto& [spec, opt] : arguments_) {
      if (opt->count() == 0) {
        if (spec->required && error->empty()) *error = spec->name + " is required";
        continue;
      }
      for (const auto& v : opt->results()) line.positional.push_back(v);
    }
    for (const auto& [spec, opt] : options_) {
      if (spec->value.empty() && opt->count() > 0 && !FlagSet(opt->results())) continue;
      if (opt->count() == 0) {
        if (spec->required && error->empty()) {
          *error = "--" + spec->name + " " + spec->value + " is required";
        }
        continue;
      }
      std::vector<std::string> values =
          spec->value.empty() ? std::vector<std::string>(opt->count(), "1") : opt->results();
      for (const auto& v : values) {
        // "--event-log --help": CLI11 takes the next word whatever it is.
        if (!spec->value.empty() && v.size() > 2 && v.rfind("--", 0) == 0 && error->empty()) {
          *error = "--" + spec->name + " needs a value";
        }
      }
      if (!spec->repeatable) values.erase(values.begin(), values.end() - 1);
      line.options[spec->name] = std::move(values);
    }
    return line;
  }

 private:
  // What CLI11 binds positional arguments to (lists: their elements stay put).
  std::list<std::vector<std::string>> many_;
  std::list<std::string> one_;
  std::vector<std::pair<const ArgumentSpec*, CLI::Option*>> arguments_;
  std::vector<std::pair<const OptionSpec*, CLI::Option*>> options_;
};

// The CLI11 tree of every command, with the chosen one's options and arguments.
void Build(CLI::App& root, const std::vector<CommandSpec>& commands,
           const std::vector<std::string>& chosen, Reader* reader) {
  std::map<std::vector<std::string>, CLI::App*> apps = {{{}, &root}};
  for (const auto& c : commands) {
    if (c.words.empty()) {
      root.description(c.summary);
      root.footer(c.footer);
      continue;
    }
    CLI::App* parent = apps.at({c.words.begin(), c.words.end() - 1});
    CLI::App* app = parent->add_subcommand(c.words.back(), c.summary);
    app->footer(c.footer);
    if (!Children(commands, c.words).empty()) app->require_subcommand(1);
    apps[c.words] = app;
    if (c.words == chosen) reader->Add(app, c);
  }
}

}  // namespace

Invocation ReadCommandLine(const std::vector<CommandSpec>& commands,
                           const std::vector<std::string>& given, const std::string& version,
                           std::ostream& out, std::ostream& err) {
  std::vector<std::string> args = given;
  if (!args.empty() && args[0] == "help") {
    args.erase(args.begin());
    args.push_back("--help");
  }
  Invocation inv;
  std::string error;
  const std::vector<std::string> leading = LeadingOptions(&args);
  inv.words = Chosen(commands, args, &error);
  // After the command's words, where its options go.
  args.insert(args.begin() + static_cast<std::ptrdiff_t>(std::min(inv.words.size(), args.size())),
              leading.begin(), leading.end());
  if (!error.empty()) {
    PrintError(err, inv.words, error);
    inv.exit_code = 2;
    return inv;
  }
  if (const CommandSpec* spec = Find(commands, inv.words)) {
    error = MissingValue(*spec, args, inv.words.size());
    if (!error.empty()) {
      PrintError(err, inv.words, error);
      inv.exit_code = 2;
      return inv;
    }
  }
  CLI::App root("", kProgram);
  root.set_version_flag("--version", std::string(kProgram) + " " + version);
  root.get_formatter()->column_width(30);
  root.require_subcommand(1);
  Reader reader;
  Build(root, commands, inv.words, &reader);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    root.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    inv.exit_code = root.exit(e, out, err);
    return inv;
  } catch (const CLI::CallForVersion& e) {
    inv.exit_code = root.exit(e, out, err);
    return inv;
  } catch (const CLI::ParseError& e) {
    PrintError(err, inv.words, Plain(e));
    inv.exit_code = 2;
    return inv;
  }
  inv.line = reader.Read(&error);
  if (!error.empty()) {
    PrintError(err, inv.words, error);
    inv.exit_code = 2;
  }
  return inv;
}

int UsageError(const std::vector<std::string>& words, const std::string& message) {
  PrintError(std::cerr, words, message);
  return 2;
}

void LogWarningsToStderr() {
  auto logger = spdlog::stderr_color_mt("cli");
  logger->set_level(spdlog::level::warn);
  logger->set_formatter(std::make_unique<MaskedLogFormatter>(  // secrets masked, as everywhere
      std::make_unique<spdlog::pattern_formatter>("%^%l%$: %v")));
  spdlog::set_default_logger(logger);
}

}  // namespace ufmr::app
