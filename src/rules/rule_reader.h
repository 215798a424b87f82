// Rule reader: the first stage of loading rules (rule_loader.h). Finds the rules files among the
// paths given (files, or folders of *.yaml / *.yml directly inside, by name), reads their text,
// and parses each into a YAML document. Every problem (a path that is not there, an unreadable
// file, a folder without rules, a YAML syntax error) is a Diagnostic; a source that does not
// parse stays in the list, its text still part of the rule set's hash. Thread-safe (no shared
// state).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "base/diagnostic.h"

namespace ufmr {

// One rules file: its name (the path as read, or the name a text held in memory goes by) and
// text, and its YAML document once parsed.
struct RuleSource {
  std::string name;
  std::string text;
  YAML::Node doc;
  bool parsed = false;  // false until parsed, and after a syntax error
};

// Reads the files among `paths`, in order (a folder's files sorted by name). Problems are
// appended to *diagnostics: "no-such-file", "unreadable", "no-rules" (no paths at all: an error;
// a folder without rules files: a warning).
std::vector<RuleSource> ReadRuleSources(const std::vector<std::string>& paths,
                                        std::vector<Diagnostic>* diagnostics);

// Parses every source's text; a syntax error is a "yaml-syntax" diagnostic at its line and column.
void ParseRuleSources(std::vector<RuleSource>* sources, std::vector<Diagnostic>* diagnostics);

}  // namespace ufmr
