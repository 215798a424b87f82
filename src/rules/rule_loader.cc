#include "rules/rule_loader.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>

#include "rules/rule_collector.h"
#include "rules/rule_compiler.h"
#include "rules/rule_reader.h"

namespace ufmr {

namespace {

std::string FnvHex(const std::string& data) {
  // FNV-1a 64: a content fingerprint for evidence, not a security measure.
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Collects and compiles parsed sources; the rules that compiled, in file order.
std::vector<Rule> CompileSources(const std::vector<RuleSource>& sources,
                                 std::vector<Diagnostic>* diags) {
  RuleCollector collector(diags);
  for (const auto& source : sources) collector.Collect(source);
  RuleCompiler compiler(&collector.definitions(), diags);
  std::vector<Rule> rules;
  for (const auto& source : sources) compiler.Compile(source, &rules);
  collector.WarnUnused();
  compiler.CheckInhibits(rules);
  compiler.CheckDuplicateNames(rules);
  return rules;
}

// The three stages over sources already read; `diags` holds what reading them found.
RuleLoadResult LoadSources(std::vector<RuleSource> sources, std::vector<Diagnostic> diags) {
  ParseRuleSources(&sources, &diags);
  std::vector<Rule> rules = CompileSources(sources, &diags);
  std::string all;
  for (const auto& source : sources) {
    AttachSourceLines(source.name, source.text, &diags);
    // Names without their folder: the same files hash the same wherever they are read from.
    all += std::filesystem::path(source.name).filename().string() + "\n" + source.text;
  }
  RuleLoadResult result;
  if (!HasErrors(diags)) {
    auto set = std::make_shared<RuleSet>();
    set->rules = std::move(rules);
    set->hash = FnvHex(all);
    for (const auto& source : sources) set->files.push_back(source.name);
    set->Index();
    result.rules = std::move(set);
  }
  result.diagnostics = std::move(diags);
  return result;
}

}  // namespace

RuleLoadResult LoadRulesText(const std::string& text, const std::string& file) {
  return LoadSources({RuleSource{file, text, {}, false}}, {});
}

RuleLoadResult LoadRules(const std::vector<std::string>& paths) {
  std::vector<Diagnostic> diags;
  std::vector<RuleSource> sources = ReadRuleSources(paths, &diags);
  return LoadSources(std::move(sources), std::move(diags));
}

RuleLoadResult LoadRulesDir(const std::string& dir) { return LoadRules({dir}); }

}  // namespace ufmr
