// Rule collector: the second stage of loading rules (rule_loader.h). Checks the shape of each
// parsed rules file (a mapping of 'rules:', 'lists:' and 'macros:') and collects the named lists
// and macros of all the files of one load into one table: names are global across the files.
// The compile stage (rule_compiler.h) expands them and marks those it uses; WarnUnused then
// reports the rest. Not thread-safe; one per load.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "rules/rule_fields.h"
#include "rules/rule_reader.h"

namespace ufmr {

// A named list or macro: where it is defined, and whether a rule used it.
struct NamedNode {
  std::string file;
  YAML::Node node;
  std::string path;  // "lists.<name>" / "macros.<name>"
  bool used = false;
};

// Every list and macro of one load, by name.
struct RuleDefinitions {
  std::map<std::string, NamedNode> lists;   // each a YAML sequence
  std::map<std::string, NamedNode> macros;  // each a mapping of match fields
};

class RuleCollector {
 public:
  // Diagnostics are appended to *diagnostics, which must outlive the collector.
  explicit RuleCollector(std::vector<Diagnostic>* diagnostics) : reader_(diagnostics) {}

  // Checks a parsed source's shape and adds its lists and macros. An unparsed or empty source
  // holds nothing; a name defined twice is an error at the second definition.
  void Collect(const RuleSource& source);
  // After the compile stage: warns about every list and macro no rule used.
  void WarnUnused();

  RuleDefinitions& definitions() { return definitions_; }

 private:
  void CollectSection(const YAML::Node& doc, const std::string& section);

  FieldReader reader_;
  RuleDefinitions definitions_;
};

}  // namespace ufmr
