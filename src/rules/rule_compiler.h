// Rule compiler: the third stage of loading rules (rule_loader.h). Compiles each rule of a parsed
// rules file into a Rule: expands "@list" references and `use:` macros (rule_collector.h),
// compiles RE2 patterns, parses durations and numbers, checks templates, and checks that the rule
// is exactly one of an event, a flapping or a counter rule, with the fields its kind takes. A
// rule with any error is left out, and so is one switched off with `enabled: false` (still
// checked, so switching it back on cannot bring in a mistake). After every file: inhibits must
// name rules that exist, and rule names must be unique. Not thread-safe; one per load.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/diagnostic.h"
#include "rules/rule_collector.h"
#include "rules/rule_fields.h"
#include "rules/rule_reader.h"
#include "rules/rules.h"

namespace ufmr {

class RuleCompiler {
 public:
  // `definitions` (the collected lists and macros; marked as used here) and `diagnostics` must
  // outlive the compiler.
  RuleCompiler(RuleDefinitions* definitions, std::vector<Diagnostic>* diagnostics)
      : reader_(diagnostics), definitions_(definitions), diagnostics_(diagnostics) {}

  // Appends the rules of one parsed source that compile without errors to *rules.
  void Compile(const RuleSource& source, std::vector<Rule>* rules);
  // After every source: each name a rule's inhibits lists must be a rule of `rules` or one
  // switched off ("unknown-rule").
  void CheckInhibits(const std::vector<Rule>& rules);
  // After every source: a rule name defined twice is a "duplicate-name" at the second.
  void CheckDuplicateNames(const std::vector<Rule>& rules);

 private:
  // Called for each value of a list field, with the node it came from (for diagnostics).
  using ValueFn = std::function<void(const YAML::Node&, const std::string&)>;

  void CompileRule(const YAML::Node& node, const std::string& path, std::vector<Rule>* out);
  // `enabled:`; false on a malformed value (the rule is not compiled further).
  bool CompileEnabled(const YAML::Node& node, const std::string& path, bool* switched_off);
  void CompileName(const YAML::Node& node, const std::string& path, Rule* r);
  // What a firing asks for: scope, action, mode, severity, title, repair hint, soak.
  void CompileOutcome(const YAML::Node& node, const std::string& path, Rule* r);
  // The condition: exactly one kind, then its fields. False when the kind is unclear.
  bool CompileCondition(const YAML::Node& node, const std::string& path, Rule* r);
  void CompileEventRule(const YAML::Node& node, const std::string& path, Rule* r, bool is_event,
                        bool is_flapping);
  void CompileEventCount(const YAML::Node& node, const std::string& path, Rule* r);
  void CompileEventClear(const YAML::Node& node, const std::string& path, Rule* r);
  void CompileCounter(const YAML::Node& node, const std::string& path, Rule* r, int measures);
  // The one measure (delta, rate, ber, value) of a counter rule; false after a shape error.
  bool CompileMeasure(const YAML::Node& node, const std::string& path, Rule* r);
  void CompileCounterClear(const YAML::Node& node, const std::string& path, Rule* r);
  void CompileFlapping(const YAML::Node& node, const std::string& path, Rule* r);
  void CompileInhibits(const YAML::Node& node, const std::string& path, Rule* r);

  EventMatch Match(const YAML::Node& node, const std::string& path);
  // Merges the match fields of `node` (and the macros it uses) into *m.
  void CompileMatch(const YAML::Node& node, const std::string& path, EventMatch* m,
                    std::set<std::string>* seen_fields, std::vector<std::string>* stack);
  // Warnings for what UFM's event table does not have (catalog/event_types.h), with the nearest
  // it has: a rule on an id or a name UFM never sends can never fire.
  void WarnUnknownEventId(const YAML::Node& n, const std::string& path, int id);
  void WarnUnknownEventName(const YAML::Node& n, const std::string& path);
  // A counter UFM Telemetry does not document (catalog/telemetry_fields.h) nor a column map knows.
  void WarnUnknownCounter(const YAML::Node& n, const std::string& path, const std::string& counter);
  void UseMacros(const YAML::Node& node, const std::string& path, EventMatch* m,
                 std::set<std::string>* seen_fields, std::vector<std::string>* stack);
  // A list field: a scalar or a sequence; "@name" items expand a named list.
  void Values(const YAML::Node& node, const std::string& path, const ValueFn& one, int depth = 0);
  void Value(const YAML::Node& n, const std::string& p, const ValueFn& one, int depth);

  FieldReader reader_;
  RuleDefinitions* definitions_;
  std::vector<Diagnostic>* diagnostics_;
  // rule -> the names its inhibits lists, each with where it was written.
  std::map<std::string, std::vector<std::pair<std::string, Diagnostic>>> inhibit_refs_;
  std::set<std::string> disabled_;  // rules switched off with `enabled: false`
};

}  // namespace ufmr
