// Rules: the engineer-owned YAML rules files, read into plain structs and compiled (re2 patterns,
// durations) into a RuleSet. Loading is side-effect free: a RuleSet is built whole or not at all,
// and every problem is a Diagnostic that says where (file:line:column and the item's path).
// A loaded RuleSet is immutable and safe to share between threads.
#pragma once

#include <re2/re2.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"

namespace ufmr {

enum class RuleAction { kDisable, kTicketOnly };
const char* RuleActionName(RuleAction a);

struct Rule {
  std::string name;
  std::string description;
  std::string file;
  int line = 0;
  RuleAction action = RuleAction::kDisable;

  enum class Kind { kEvent, kCounter };
  Kind kind = Kind::kEvent;

  // kEvent: which events match, and how many within `window_s` make the rule fire.
  std::set<int> event_types;
  std::shared_ptr<const RE2> message;  // optional, searched in the event description
  int count = 1;
  double window_s = 0;
  // Debounce: the rule fires only if no clear event for the same link arrives within `hold_s`.
  double hold_s = 0;
  std::set<int> clear_event_types;

  // kCounter: fires when `counter` grows faster than `rate_above` per `per_s` seconds.
  std::string counter;
  double rate_above = 0;
  double per_s = 60;
  // Or, for a level or a ratio (e.g. SymbolBER, errors per bit): fires when the observation's
  // value exceeds this, with no rate arithmetic.
  std::optional<double> value_above;
};

struct Diagnostic {
  std::string file;
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based
  std::string path;  // e.g. rules[2].when.event_type
  std::string code;  // stable, e.g. "unknown-key"
  std::string message;
  bool warning = false;

  std::string ToString() const;
};

struct RuleSet {
  std::vector<Rule> rules;
  std::string hash;  // of the files' contents, recorded with every finding
  std::vector<std::string> files;
};

struct RuleLoadResult {
  std::unique_ptr<RuleSet> rules;  // null when any error
  std::vector<Diagnostic> diagnostics;
  bool ok() const { return rules != nullptr; }
  std::string Report() const;  // one line per diagnostic
};

// Loads every *.yaml / *.yml file in `dir` (sorted by name). Rule names must be unique.
RuleLoadResult LoadRulesDir(const std::string& dir);
// Loads one document; `file` names it in diagnostics.
RuleLoadResult LoadRulesText(const std::string& text, const std::string& file);

}  // namespace ufmr
