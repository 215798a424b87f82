// Rule loader: reads engineer-owned YAML rules files into a RuleSet, in three stages that can
// each be used and tested alone (as Falco's loader does): read and parse every file
// (rule_reader.h); check each document's shape and collect the named lists and macros of all
// files (rule_collector.h); compile each rule, expanding "@list" references and `use:` macros,
// compiling RE2 patterns, parsing durations and checking templates (rule_compiler.h). Every
// problem is a Diagnostic with file:line:column; warnings (an unknown key, an unused list) never
// block. A load is side effect free: it builds a whole RuleSet or none, so a reload can run it
// as a dry run. Thread-safe (no shared state).
#pragma once

#include <string>
#include <vector>

#include "rules/rules.h"

namespace ufmr {

// Loads rules from files and directories (every *.yaml / *.yml directly inside, by name).
// Rule, list and macro names are global across all the files of one load.
RuleLoadResult LoadRules(const std::vector<std::string>& paths);
// One directory (the service's `rules.dir`).
RuleLoadResult LoadRulesDir(const std::string& dir);
// One document held in memory; `file` names it in diagnostics.
RuleLoadResult LoadRulesText(const std::string& text, const std::string& file);

}  // namespace ufmr
