// Rules: the engineer-owned rules, compiled. A RuleSet is what the loader (rule_loader.h) builds
// from YAML files: every list and macro expanded, every pattern compiled once, every duration in
// seconds. A RuleSet is immutable once built and safe to share between threads; the engine reads
// it, and a reload swaps in a whole new one.
#pragma once

#include <re2/re2.h>
#include <re2/set.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"

namespace ufmr {

// What a rule asks for when it fires. The remediator's guards may still veto an action.
// kDrainThenDisable: disable the port, but drain the host of a host's link in the job scheduler
// first (scheduler:), whether or not it is the host's last link.
enum class RuleAction { kDisablePort, kIsolatePort, kDrainThenDisable, kTicketOnly, kLogOnly };
const char* RuleActionName(RuleAction a);
// Whether the action takes a port out of service (disable, isolate, drain then disable).
bool TakesPortOut(RuleAction a);
// enforce: act as the action says. shadow: decide and record the decision, never act.
enum class RuleMode { kEnforce, kShadow };
const char* RuleModeName(RuleMode m);
// What one finding is about; counts and windows are kept per scope entity.
enum class RuleScope { kPort, kLink, kSwitch, kNode };
const char* RuleScopeName(RuleScope s);

// The facts of one UFM event a match looks at. Every field given must hold (AND); within a list
// field, any value (OR). Names, severities, categories and object types compare without case
// (and with '_' and ' ' alike); patterns are RE2, searched (partial match).
struct EventMatch {
  std::set<int> event_ids;
  std::set<std::string> names;  // normalized: lower case, '_' -> ' '
  std::set<std::string> severities;
  std::set<std::string> categories;
  std::set<std::string> object_types;
  std::shared_ptr<const RE2> description;
  std::shared_ptr<const RE2> object;
  std::shared_ptr<const RE2> switch_name;  // any switch the event implicates
  std::shared_ptr<const RE2> host_name;    // any host the event implicates
  // Index of `description` in the RuleSet's description RE2::Set, or -1.
  int description_set_index = -1;

  bool needs_topology() const { return switch_name || host_name; }
};
// Lower case, '_' -> ' ', trimmed: how names/severities/categories/object types compare.
std::string NormalizeMatchWord(const std::string& s);

// The placeholders a title or repair hint may use.
const std::vector<std::string>& TemplatePlaceholders();

// A rule's title or repair hint parsed once into literal runs and {placeholders}
// (TemplatePlaceholders), shared by every finding of the rule, so the decision stage renders each
// decision's text by walking the parts instead of searching the text for braces and comparing
// placeholder names again. Immutable once parsed; safe to share between threads.
struct MessageTemplate {
  enum class Field : uint8_t {
    kText,  // a literal run
    kRule,
    kReason,
    kPort,
    kPeer,
    kPortLabel,
    kPeerLabel,
    kPortNode,
    kPeerNode,
    kSwitch,
    kNode,
    kCableSerial,
    kSeverity,
    kCount,
    kWindow,
    kThreshold,
    kValue,
    kUnknown,  // a name no placeholder has: written back as "{name}"
  };
  struct Part {
    Field field = Field::kText;
    std::string text;  // the literal (kText) or the unknown name (kUnknown)
  };

  // Splits `text` as rendering always read it: from each '{' to the next '}' is a placeholder
  // (an unknown name is written back with its braces); a '{' with no '}' after it, and all after
  // it, is literal.
  static MessageTemplate Parse(std::string_view text);

  std::vector<Part> parts;
  size_t literal_bytes = 0;  // of the literal runs: what a rendering needs at least
};

// A counter condition over a sliding window of one port's samples.
struct CounterCondition {
  enum class Measure { kDelta, kRate, kBer, kValue };
  Measure measure = Measure::kRate;
  double above = 0;   // fires when the measure is above this
  double per_s = 60;  // kRate: the rate's unit ("100 per 1m")
  // Hysteresis: the condition clears (and a soak passes) only below this. Defaults to `above`.
  double clear_below = 0;
};
const char* CounterMeasureName(CounterCondition::Measure m);

struct Rule {
  int index = 0;  // position in RuleSet::rules (set by Index)
  std::string name;
  std::string description;
  std::string file;
  int line = 0;
  RuleScope scope = RuleScope::kLink;
  RuleAction action = RuleAction::kDisablePort;
  RuleMode mode = RuleMode::kEnforce;
  std::string severity = "major";  // critical, major, minor, warning, info
  std::string title;               // templates with {placeholders}; see RenderTemplate
  std::string repair_hint;
  // The same, parsed once when the rule is compiled (null when empty, or for a rule built in
  // code): shared by the rule's findings.
  std::shared_ptr<const MessageTemplate> title_template, hint_template;

  enum class Kind { kEvent, kCounter, kFlapping };
  Kind kind = Kind::kEvent;
  // A switch or node rule: it counts distinct ports across a node, not one link.
  bool wide_scope() const { return scope == RuleScope::kSwitch || scope == RuleScope::kNode; }

  // kEvent, kFlapping: which events count.
  EventMatch match;
  // kEvent: `count` matching events within `window_s` (per port or link; distinct ports per
  // switch or node); kFlapping: `count` down transitions within `window_s`, from the matching
  // events and the link's LinkDownedCounterExtended, whichever saw more.
  int count = 1;
  double window_s = 0;
  // kEvent: a clear event cancels a finding held by `for_s` and ends an active one.
  std::optional<EventMatch> clear;

  // kCounter: the counter (a telemetry column, or "SymbolBER" for the derived BER).
  std::string counter;
  CounterCondition condition;
  // Samples on a link that went down less than this long ago are ignored (BER is meaningless on
  // a link that just trained).
  double min_link_uptime_s = 0;

  // The condition must hold this long before the rule fires (events: no clear within it).
  double for_s = 0;

  // How long a link this rule took out soaks after its repair; 0: remediation.soak_s.
  double soak_s = 0;

  // While this rule's finding is active for a switch or node, findings of these rules on that
  // switch's or node's ports are suppressed; it stays active `inhibit_for_s` after the last
  // matching or clearing observation.
  std::set<std::string> inhibits;
  double inhibit_for_s = 0;
};

// What a rule's state depends on (kind, scope, match, clear, counts, windows, counter and
// measure, thresholds): a reload keeps a rule's state only if this is unchanged.
std::string ConditionSignature(const Rule& r);

struct RuleSet {
  std::vector<Rule> rules;
  std::string hash;  // of the files' contents, recorded with every decision
  std::vector<std::string> files;

  // Compiled once for the engine: event id -> rules whose match or clear names it; rules with no
  // event id condition; and every description pattern in one RE2::Set.
  std::map<int, std::vector<const Rule*>> by_event_id;
  std::vector<const Rule*> any_event;
  std::vector<const Rule*> counter_rules;
  std::map<std::string, std::vector<const Rule*>> by_counter;
  std::shared_ptr<RE2::Set> descriptions;  // null when no rule has a description pattern
  std::set<std::string> counters;          // every counter a rule needs

  const Rule* Find(const std::string& name) const;
  // Builds the indexes above; call once after `rules` is final (rule pointers must not move).
  void Index();
};

struct RuleLoadResult {
  std::shared_ptr<RuleSet> rules;  // null when any error
  std::vector<Diagnostic> diagnostics;
  bool ok() const { return rules != nullptr; }
  std::string Report() const;  // the diagnostics as text
};

}  // namespace ufmr
