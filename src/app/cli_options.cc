#include "app/cli_options.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace ufmr::app {

bool CliOptions::Has(const std::string& name) const {
  for (const auto& [n, v] : given) {
    if (n == name) return true;
  }
  return false;
}

std::string CliOptions::Get(const std::string& name, const std::string& fallback) const {
  std::string value = fallback;
  for (const auto& [n, v] : given) {
    if (n == name) value = v;
  }
  return value;
}

std::string ParseCliOptions(const std::vector<std::string>& args,
                            const std::set<std::string>& valued, CliOptions* out) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      out->help = true;
      continue;
    }
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      out->positional.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    size_t eq = name.find('=');
    bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (!valued.count(name)) return "unknown option --" + name;
    if (!inline_value) {
      // "--event-log --help" is a missing value, not a file named "--help".
      if (i + 1 >= args.size() || (args[i + 1].rfind("--", 0) == 0 && args[i + 1].size() > 2)) {
        return "option --" + name + " needs a value";
      }
      value = args[++i];
    }
    out->given.emplace_back(name, value);
  }
  return "";
}

void LogWarningsToStderr() {
  auto logger = spdlog::stderr_color_mt("cli");
  logger->set_level(spdlog::level::warn);
  logger->set_pattern("%^%l%$: %v");
  spdlog::set_default_logger(logger);
}

}  // namespace ufmr::app
