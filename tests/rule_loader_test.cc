// Covers src/rules/rule_loader.h and the RuleSet of src/rules/rules.h: every field of event,
// flapping and counter rules compiled into the right place (match fields, `use:` macros, "@list"
// expansion, scope, count/window, for, clear, delta/rate/ber/value, min_link_uptime, inhibits,
// action, mode, severity, templates); every mistake reported with its stable code at the right
// 1-based file:line:column with the source line attached (one parameterised case per error,
// warning and YAML syntax error, named after it); warnings that never block a load;
// `enabled: false`; RuleSet::Index; the shipped rules/ folder; Diagnostic::ToString's caret and
// RenderDiagnosticsJson's shape.
#include "rules/rule_loader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_env.h"

namespace ufmr {
namespace {

// Lines joined with '\n' so a test can say "line 3" and mean lines[2].
std::string Lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string LineOf(const std::string& text, int line) {
  std::istringstream in(text);
  std::string l;
  for (int i = 1; std::getline(in, l); ++i) {
    if (i == line) return l;
  }
  return "";
}

const Diagnostic* FindCode(const RuleLoadResult& r, const std::string& code) {
  for (const auto& d : r.diagnostics) {
    if (d.code == code) return &d;
  }
  return nullptr;
}

int CountCode(const RuleLoadResult& r, const std::string& code) {
  int n = 0;
  for (const auto& d : r.diagnostics) n += d.code == code ? 1 : 0;
  return n;
}

// Loads text that must load; returns its only rule set.
std::shared_ptr<RuleSet> MustLoad(const std::string& text) {
  auto r = LoadRulesText(text, "t.yaml");
  EXPECT_TRUE(r.ok()) << r.Report();
  return r.rules;
}

const Rule& Only(const std::shared_ptr<RuleSet>& set) {
  static const Rule none;
  if (!set || set->rules.size() != 1) {
    ADD_FAILURE() << "expected exactly one rule";
    return none;
  }
  return set->rules[0];
}

// A test name from a case's description: "bad template placeholder (plain)" ->
// "BadTemplatePlaceholderPlain".
std::string CaseName(const std::string& what) {
  std::string name;
  bool upper = true;
  for (char c : what) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) {
      upper = true;
      continue;
    }
    name += upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    upper = false;
  }
  return name;
}

// --- event rules ----------------------------------------------------------------------------

TEST(RuleLoaderTest, EventRuleEveryField) {
  const std::string text = Lines({
      "lists:",                                         // 1
      "  down_ids: [329, 331]",                         // 2
      "  severities: [Warning, CRITICAL]",              // 3
      "macros:",                                        // 4
      "  topology:",                                    // 5
      "    category: Fabric_Topology",                  // 6
      "rules:",                                         // 7
      "  - name: full_event",                           // 8
      "    description: Everything set",                // 9
      "    match:",                                     // 10
      "      use: topology",                            // 11
      "      event_id: \"@down_ids\"",                  // 12
      "      name: Link_Is_Down",                       // 13
      "      severity: \"@severities\"",                // 14
      "      object_type: [Link, Port]",                // 15
      "      description: \"went (down|away)\"",        // 16
      "      object: \"Source [0-9a-f]+\"",             // 17
      "      switch: \"^T3-\"",                         // 18
      "      host: \"fsgb0\\\\d+\"",                    // 19
      "    scope: port",                                // 20
      "    count: 3",                                   // 21
      "    window: 10m",                                // 22
      "    for: 30s",                                   // 23
      "    clear: {event_id: 328, severity: info}",     // 24
      "    action: isolate_port",                       // 25
      "    mode: shadow",                               // 26
      "    severity: critical",                         // 27
      "    title: \"Down: {port_node} {port_label}\"",  // 28
      "    repair_hint: Replace cable {cable_serial}",  // 29
  });
  auto r = LoadRulesText(text, "full.yaml");
  ASSERT_TRUE(r.ok()) << r.Report();
  EXPECT_TRUE(r.diagnostics.empty()) << r.Report();
  const Rule& rule = Only(r.rules);
  EXPECT_EQ(rule.name, "full_event");
  EXPECT_EQ(rule.description, "Everything set");
  EXPECT_EQ(rule.file, "full.yaml");
  EXPECT_EQ(rule.line, 8);
  EXPECT_EQ(rule.kind, Rule::Kind::kEvent);
  EXPECT_EQ(rule.match.event_ids, (std::set<int>{329, 331}));
  EXPECT_EQ(rule.match.names, (std::set<std::string>{"link is down"}));
  EXPECT_EQ(rule.match.severities, (std::set<std::string>{"warning", "critical"}));
  EXPECT_EQ(rule.match.categories, (std::set<std::string>{"fabric topology"}));
  EXPECT_EQ(rule.match.object_types, (std::set<std::string>{"link", "port"}));
  ASSERT_TRUE(rule.match.description);
  EXPECT_EQ(rule.match.description->pattern(), "went (down|away)");
  ASSERT_TRUE(rule.match.object);
  EXPECT_EQ(rule.match.object->pattern(), "Source [0-9a-f]+");
  ASSERT_TRUE(rule.match.switch_name);
  EXPECT_EQ(rule.match.switch_name->pattern(), "^T3-");
  ASSERT_TRUE(rule.match.host_name);
  EXPECT_EQ(rule.match.host_name->pattern(), "fsgb0\\d+");
  EXPECT_TRUE(rule.match.needs_topology());
  EXPECT_EQ(rule.scope, RuleScope::kPort);
  EXPECT_EQ(rule.count, 3);
  EXPECT_DOUBLE_EQ(rule.window_s, 600);
  EXPECT_DOUBLE_EQ(rule.for_s, 30);
  ASSERT_TRUE(rule.clear.has_value());
  EXPECT_EQ(rule.clear->event_ids, (std::set<int>{328}));
  EXPECT_EQ(rule.clear->severities, (std::set<std::string>{"info"}));
  EXPECT_EQ(rule.action, RuleAction::kIsolatePort);
  EXPECT_EQ(rule.mode, RuleMode::kShadow);
  EXPECT_EQ(rule.severity, "critical");
  EXPECT_EQ(rule.title, "Down: {port_node} {port_label}");
  EXPECT_EQ(rule.repair_hint, "Replace cable {cable_serial}");
  EXPECT_TRUE(rule.inhibits.empty());
  EXPECT_DOUBLE_EQ(rule.min_link_uptime_s, 0);
}

TEST(RuleLoaderTest, EventRuleDefaults) {
  auto set = MustLoad(Lines({
      "rules:",
      "  - name: minimal",
      "    match: {event_id: 329}",
      "    action: disable_port",
  }));
  const Rule& rule = Only(set);
  EXPECT_EQ(rule.kind, Rule::Kind::kEvent);
  EXPECT_EQ(rule.scope, RuleScope::kLink);
  EXPECT_EQ(rule.mode, RuleMode::kEnforce);
  EXPECT_EQ(rule.severity, "major");
  EXPECT_EQ(rule.count, 1);
  EXPECT_DOUBLE_EQ(rule.window_s, 0);
  EXPECT_DOUBLE_EQ(rule.for_s, 0);
  EXPECT_FALSE(rule.clear.has_value());
  EXPECT_FALSE(rule.match.description);
  EXPECT_FALSE(rule.match.needs_topology());
  EXPECT_TRUE(rule.title.empty());
  EXPECT_TRUE(rule.repair_hint.empty());
}

TEST(RuleLoaderTest, ActionsModesScopesAndSeverities) {
  struct Case {
    std::string action, scope, mode, severity;
    RuleAction want_action;
    RuleScope want_scope;
    RuleMode want_mode;
  };
  const std::vector<Case> cases = {
      {"disable_port", "link", "enforce", "major", RuleAction::kDisablePort, RuleScope::kLink,
       RuleMode::kEnforce},
      {"isolate_port", "port", "shadow", "minor", RuleAction::kIsolatePort, RuleScope::kPort,
       RuleMode::kShadow},
      {"drain_then_disable", "link", "enforce", "major", RuleAction::kDrainThenDisable,
       RuleScope::kLink, RuleMode::kEnforce},
      {"ticket_only", "switch", "enforce", "warning", RuleAction::kTicketOnly, RuleScope::kSwitch,
       RuleMode::kEnforce},
      {"log_only", "node", "shadow", "info", RuleAction::kLogOnly, RuleScope::kNode,
       RuleMode::kShadow},
      {"ticket_only", "link", "enforce", "critical", RuleAction::kTicketOnly, RuleScope::kLink,
       RuleMode::kEnforce},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.action + "/" + c.scope + "/" + c.mode + "/" + c.severity);
    auto set = MustLoad(Lines({
        "rules:",
        "  - name: r",
        "    match: {event_id: 1}",
        "    action: " + c.action,
        "    scope: " + c.scope,
        "    mode: " + c.mode,
        "    severity: " + c.severity,
    }));
    const Rule& rule = Only(set);
    EXPECT_EQ(rule.action, c.want_action);
    EXPECT_EQ(rule.scope, c.want_scope);
    EXPECT_EQ(rule.mode, c.want_mode);
    EXPECT_EQ(rule.severity, c.severity);
    EXPECT_STREQ(RuleActionName(rule.action), c.action.c_str());
    EXPECT_STREQ(RuleScopeName(rule.scope), c.scope.c_str());
    EXPECT_STREQ(RuleModeName(rule.mode), c.mode.c_str());
  }
}

TEST(RuleLoaderTest, MatchWordsNormalizeCaseUnderscoresAndSpaces) {
  EXPECT_EQ(NormalizeMatchWord("  Fabric_Topology "), "fabric topology");
  EXPECT_EQ(NormalizeMatchWord("LINK WENT DOWN"), "link went down");
  EXPECT_EQ(NormalizeMatchWord("\tMinor\t"), "minor");
  EXPECT_EQ(NormalizeMatchWord("   "), "");
  auto set = MustLoad(Lines({
      "rules:",
      "  - name: r",
      "    match:",
      "      name: [Link_Went_Down, 'Port  State']",
      "      category: FABRIC_NOTIFICATION",
      "      object_type: computer",
      "    action: log_only",
  }));
  const Rule& rule = Only(set);
  EXPECT_EQ(rule.match.names, (std::set<std::string>{"link went down", "port  state"}));
  EXPECT_EQ(rule.match.categories, (std::set<std::string>{"fabric notification"}));
  EXPECT_EQ(rule.match.object_types, (std::set<std::string>{"computer"}));
  EXPECT_TRUE(rule.match.event_ids.empty());
}

TEST(RuleLoaderTest, ListsExpandInListsAndNestedLists) {
  auto set = MustLoad(Lines({
      "lists:",
      "  downs: [329, \"@more_downs\"]",
      "  more_downs: [330]",
      "  sevs: [warning]",
      "rules:",
      "  - name: r",
      "    match:",
      "      event_id: [\"@downs\", 331]",
      "      severity: \"@sevs\"",
      "    action: log_only",
  }));
  const Rule& rule = Only(set);
  EXPECT_EQ(rule.match.event_ids, (std::set<int>{329, 330, 331}));
  EXPECT_EQ(rule.match.severities, (std::set<std::string>{"warning"}));
}

TEST(RuleLoaderTest, MacrosMergeAndNest) {
  auto r = LoadRulesText(Lines({
                             "macros:",
                             "  down: {event_id: 329, use: topo}",
                             "  topo: {category: Fabric_Topology}",
                             "  warn: {severity: warning}",
                             "rules:",
                             "  - name: r",
                             "    match: {use: [down, warn], description: went}",
                             "    clear: {use: topo, event_id: 328}",
                             "    action: log_only",
                         }),
                         "m.yaml");
  ASSERT_TRUE(r.ok()) << r.Report();
  EXPECT_EQ(CountCode(r, "unused-macro"), 0) << r.Report();
  const Rule& rule = Only(r.rules);
  EXPECT_EQ(rule.match.event_ids, (std::set<int>{329}));
  EXPECT_EQ(rule.match.categories, (std::set<std::string>{"fabric topology"}));
  EXPECT_EQ(rule.match.severities, (std::set<std::string>{"warning"}));
  ASSERT_TRUE(rule.match.description);
  ASSERT_TRUE(rule.clear);
  EXPECT_EQ(rule.clear->event_ids, (std::set<int>{328}));
  EXPECT_EQ(rule.clear->categories, (std::set<std::string>{"fabric topology"}));
}

TEST(RuleLoaderTest, MatchOnlyMacroIsEnough) {
  // `match: {use: m}` has no field of its own and is still a match.
  auto set = MustLoad(Lines({
      "macros:",
      "  m: {event_id: [1, 2]}",
      "rules:",
      "  - name: r",
      "    match: {use: m}",
      "    action: log_only",
  }));
  EXPECT_EQ(Only(set).match.event_ids, (std::set<int>{1, 2}));
}

TEST(RuleLoaderTest, NamesMayUseLettersDigitsAndPunctuation) {
  auto set = MustLoad(Lines({
      "rules:",
      "  - name: team.a:link-down_2",
      "    match: {event_id: 1}",
      "    action: log_only",
  }));
  EXPECT_EQ(Only(set).name, "team.a:link-down_2");
}

// --- flapping rules --------------------------------------------------------------------------

TEST(RuleLoaderTest, FlappingRuleDefaultsToLinkDownEvents) {
  auto set = MustLoad(Lines({
      "rules:",
      "  - name: flap",
      "    flapping: {downs: 3, within: 10m}",
      "    action: disable_port",
  }));
  const Rule& rule = Only(set);
  EXPECT_EQ(rule.kind, Rule::Kind::kFlapping);
  EXPECT_EQ(rule.count, 3);
  EXPECT_DOUBLE_EQ(rule.window_s, 600);
  EXPECT_EQ(rule.match.event_ids, (std::set<int>{329}));
  EXPECT_EQ(rule.scope, RuleScope::kLink);
}

TEST(RuleLoaderTest, FlappingRuleWithItsOwnMatchAndPortScope) {
  auto set = MustLoad(Lines({
      "lists:",
      "  downs: [329, 912]",
      "rules:",
      "  - name: flap",
      "    flapping: {downs: 2, within: 90s}",
      "    match: {event_id: \"@downs\"}",
      "    scope: port",
      "    action: ticket_only",
  }));
  const Rule& rule = Only(set);
  EXPECT_EQ(rule.kind, Rule::Kind::kFlapping);
  EXPECT_EQ(rule.count, 2);
  EXPECT_DOUBLE_EQ(rule.window_s, 90);
  EXPECT_EQ(rule.match.event_ids, (std::set<int>{329, 912}));
  EXPECT_EQ(rule.scope, RuleScope::kPort);
}

// --- counter rules ---------------------------------------------------------------------------

TEST(RuleLoaderTest, CounterConditions) {
  struct Case {
    std::string condition;
    std::string counter_line;  // "" for none
    CounterCondition::Measure measure;
    std::string counter;
    double above, per_s;
  };
  const std::vector<Case> cases = {
      {"delta: {above: 5}", "    counter: LinkDownedCounterExtended",
       CounterCondition::Measure::kDelta, "LinkDownedCounterExtended", 5, 60},
      {"rate: {above: 100}", "    counter: SymbolErrorCounterExtended",
       CounterCondition::Measure::kRate, "SymbolErrorCounterExtended", 100, 60},
      {"rate: {above: 2.5, per: 1s}", "    counter: PortRcvErrorsExtended",
       CounterCondition::Measure::kRate, "PortRcvErrorsExtended", 2.5, 1},
      {"rate: {above: 10, per: 1h}", "    counter: PortRcvErrorsExtended",
       CounterCondition::Measure::kRate, "PortRcvErrorsExtended", 10, 3600},
      {"ber: {above: 1e-12}", "", CounterCondition::Measure::kBer, "SymbolBER", 1e-12, 60},
      {"ber: {above: 1e-15}", "    counter: Effective_BER", CounterCondition::Measure::kBer,
       "Effective_BER", 1e-15, 60},
      {"value: {above: 70}", "    counter: Module_Temperature", CounterCondition::Measure::kValue,
       "Module_Temperature", 70, 60},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.condition);
    std::vector<std::string> lines = {"rules:", "  - name: c"};
    if (!c.counter_line.empty()) lines.push_back(c.counter_line);
    lines.push_back("    " + c.condition);
    lines.push_back("    action: ticket_only");
    auto set = MustLoad(Lines(lines));
    const Rule& rule = Only(set);
    EXPECT_EQ(rule.kind, Rule::Kind::kCounter);
    EXPECT_EQ(rule.counter, c.counter);
    EXPECT_EQ(rule.condition.measure, c.measure);
    EXPECT_DOUBLE_EQ(rule.condition.above, c.above);
    EXPECT_DOUBLE_EQ(rule.condition.per_s, c.per_s);
    // Without `clear`, the clear level is the firing threshold.
    EXPECT_DOUBLE_EQ(rule.condition.clear_below, c.above);
  }
  EXPECT_STREQ(CounterMeasureName(CounterCondition::Measure::kDelta), "delta");
  EXPECT_STREQ(CounterMeasureName(CounterCondition::Measure::kRate), "rate");
  EXPECT_STREQ(CounterMeasureName(CounterCondition::Measure::kBer), "ber");
  EXPECT_STREQ(CounterMeasureName(CounterCondition::Measure::kValue), "value");
}

TEST(RuleLoaderTest, CounterRuleEveryField) {
  auto set = MustLoad(Lines({
      "rules:",
      "  - name: symbol_errors",
      "    description: Symbol errors",
      "    counter: SymbolErrorCounterExtended",
      "    rate: {above: 100, per: 1m}",
      "    clear: {below: 10}",
      "    window: 5m",
      "    for: 2m",
      "    min_link_uptime: 125m",
      "    scope: port",
      "    action: disable_port",
      "    mode: shadow",
      "    severity: minor",
      "    title: \"{value} over {threshold} on {port}\"",
  }));
  const Rule& rule = Only(set);
  EXPECT_EQ(rule.kind, Rule::Kind::kCounter);
  EXPECT_EQ(rule.description, "Symbol errors");
  EXPECT_EQ(rule.counter, "SymbolErrorCounterExtended");
  EXPECT_EQ(rule.condition.measure, CounterCondition::Measure::kRate);
  EXPECT_DOUBLE_EQ(rule.condition.above, 100);
  EXPECT_DOUBLE_EQ(rule.condition.per_s, 60);
  EXPECT_DOUBLE_EQ(rule.condition.clear_below, 10);
  EXPECT_DOUBLE_EQ(rule.window_s, 300);
  EXPECT_DOUBLE_EQ(rule.for_s, 120);
  EXPECT_DOUBLE_EQ(rule.min_link_uptime_s, 7500);
  EXPECT_EQ(rule.scope, RuleScope::kPort);
  EXPECT_EQ(rule.action, RuleAction::kDisablePort);
  EXPECT_EQ(rule.mode, RuleMode::kShadow);
  EXPECT_EQ(rule.severity, "minor");
  EXPECT_EQ(rule.title, "{value} over {threshold} on {port}");
}

TEST(RuleLoaderTest, ClearBelowMayEqualTheThreshold) {
  auto set = MustLoad(Lines({
      "rules:",
      "  - name: c",
      "    counter: X",
      "    delta: {above: 5}",
      "    clear: {below: 5}",
      "    action: log_only",
  }));
  EXPECT_DOUBLE_EQ(Only(set).condition.clear_below, 5);
}

// --- inhibits --------------------------------------------------------------------------------

TEST(RuleLoaderTest, InhibitsWithListAndDefaultFor) {
  auto set = MustLoad(Lines({
      "lists:",
      "  link_rules: [link_down, symbol_errors]",
      "rules:",
      "  - name: switch_reboot",
      "    match: {event_id: 907}",
      "    clear: {event_id: 908}",
      "    scope: switch",
      "    inhibits: {rules: [\"@link_rules\", flap], for: 15m}",
      "    action: ticket_only",
      "  - name: node_reboot",
      "    match: {event_id: 331}",
      "    scope: node",
      "    inhibits: {rules: link_down}",
      "    action: log_only",
      "  - name: link_down",
      "    match: {event_id: 329}",
      "    action: disable_port",
      "  - name: flap",
      "    flapping: {downs: 3, within: 10m}",
      "    action: disable_port",
      "  - name: symbol_errors",
      "    counter: SymbolErrorCounterExtended",
      "    rate: {above: 100}",
      "    action: disable_port",
  }));
  ASSERT_TRUE(set);
  const Rule* sw = set->Find("switch_reboot");
  ASSERT_NE(sw, nullptr);
  EXPECT_EQ(sw->inhibits, (std::set<std::string>{"link_down", "symbol_errors", "flap"}));
  EXPECT_DOUBLE_EQ(sw->inhibit_for_s, 900);
  const Rule* node = set->Find("node_reboot");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->inhibits, (std::set<std::string>{"link_down"}));
  EXPECT_DOUBLE_EQ(node->inhibit_for_s, 600);  // the default
  EXPECT_EQ(set->Find("nosuch"), nullptr);
}

// --- enabled ---------------------------------------------------------------------------------

TEST(RuleLoaderTest, DisabledRulesAreLeftOut) {
  auto set = MustLoad(Lines({
      "rules:",
      "  - name: off",
      "    enabled: false",
      "    match: {event_id: 329}",
      "    action: disable_port",
      "  - name: on",
      "    enabled: true",
      "    match: {event_id: 328}",
      "    action: log_only",
  }));
  ASSERT_TRUE(set);
  ASSERT_EQ(set->rules.size(), 1u);
  EXPECT_EQ(set->rules[0].name, "on");
  EXPECT_EQ(set->Find("off"), nullptr);
  EXPECT_EQ(set->by_event_id.count(329), 0u);
  EXPECT_EQ(set->by_event_id.count(328), 1u);
}

TEST(RuleLoaderTest, DisabledRuleIsStillChecked) {
  // Switched off, not unchecked: switching it back on cannot bring in a mistake.
  auto r = LoadRulesText(Lines({
                             "rules:",
                             "  - name: half_written",
                             "    enabled: false",
                             "    match: {event_id: 329}",
                             "    window: soon",
                             "    action: log_only",
                             "  - name: on",
                             "    match: {event_id: 328}",
                             "    action: log_only",
                         }),
                         "t.yaml");
  EXPECT_FALSE(r.ok());
  const Diagnostic* d = FindCode(r, "bad-duration");
  ASSERT_NE(d, nullptr) << r.Report();
  EXPECT_EQ(d->line, 5);
  EXPECT_EQ(d->path, "rules[0].window");
}

TEST(RuleLoaderTest, InhibitingADisabledRuleStillLoads) {
  // Switching off a rule that a reboot rule inhibits must not break the whole load: the rule is
  // defined, only off.
  auto r = LoadRulesText(Lines({
                             "rules:",
                             "  - name: switch_reboot",
                             "    match: {event_id: 907}",
                             "    scope: switch",
                             "    inhibits: {rules: [link_down]}",
                             "    action: ticket_only",
                             "  - name: link_down",
                             "    enabled: false",
                             "    match: {event_id: 329}",
                             "    action: disable_port",
                         }),
                         "t.yaml");
  EXPECT_TRUE(r.ok()) << "disabling a rule another rule inhibits must not fail the load:\n"
                      << r.Report();
}

// --- diagnostics: errors ---------------------------------------------------------------------

struct ErrorCase {
  std::string what;
  std::vector<std::string> lines;
  std::string code;
  int line, column;
  std::string path;         // exact, "" to skip
  std::string message_has;  // substring, "" to skip
};

// A case prints as its description (gtest would print its bytes).
void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.what; }

std::vector<ErrorCase> ErrorCases() {
  return {
      {"unknown list",
       {"rules:", "  - name: r", "    match: {event_id: \"@nope\"}", "    action: log_only"},
       "unknown-list",
       3,
       23,
       "rules[0].match.event_id",
       "no list named 'nope'"},
      {"unknown list in inhibits.rules",
       {"rules:", "  - name: r", "    match: {event_id: 907}", "    scope: switch",
        "    inhibits: {rules: \"@nope\"}", "    action: log_only"},
       "unknown-list",
       5,
       23,
       "rules[0].inhibits.rules",
       "no list named 'nope'"},
      {"unknown macro",
       {"rules:", "  - name: r", "    match: {use: nope}", "    action: log_only"},
       "unknown-macro",
       3,
       18,
       "rules[0].match.use",
       "no macro named 'nope'"},
      {"macro cycle",
       {"macros:", "  a: {use: b}", "  b: {use: a}", "rules:", "  - name: r", "    match: {use: a}",
        "    action: log_only"},
       "macro-cycle",
       3,
       12,
       "macros.b.use",
       "macro 'a' uses itself"},
      {"macro using itself",
       {"macros:", "  a: {event_id: 1, use: a}", "rules:", "  - name: r", "    match: {use: a}",
        "    action: log_only"},
       "macro-cycle",
       2,
       25,
       "macros.a.use",
       "uses itself"},
      {"list cycle",
       {"lists:", "  a: [\"@b\"]", "  b: [\"@a\"]", "rules:", "  - name: r",
        "    match: {event_id: \"@a\"}", "    action: log_only"},
       "list-cycle",
       0,
       0,
       "",
       "refers to itself"},
      {"bad pattern",
       {"rules:", "  - name: r", "    match: {description: \"(unclosed\"}", "    action: log_only"},
       "bad-pattern",
       3,
       26,
       "rules[0].match.description",
       "invalid RE2 pattern"},
      {"pattern that is not a string",
       {"rules:", "  - name: r", "    match: {object: [a, b]}", "    action: log_only"},
       "bad-pattern",
       3,
       21,
       "rules[0].match.object",
       "one RE2 pattern"},
      {"bad switch pattern",
       {"rules:", "  - name: r", "    match:", "      event_id: 1", "      switch: \"[a-\"",
        "    action: log_only"},
       "bad-pattern",
       5,
       15,
       "rules[0].match.switch",
       ""},
      {"bad duration",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    window: 10 minutes",
        "    action: log_only"},
       "bad-duration",
       4,
       13,
       "rules[0].window",
       "unknown unit"},
      {"negative duration",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    clear: {event_id: 328}",
        "    for: -30s", "    action: log_only"},
       "bad-duration",
       5,
       10,
       "rules[0].for",
       "negative"},
      {"bad flapping window",
       {"rules:", "  - name: r", "    flapping: {downs: 3, within: often}", "    action: log_only"},
       "bad-duration",
       3,
       34,
       "rules[0].flapping.within",
       ""},
      {"bad inhibit duration",
       {"rules:", "  - name: r", "    match: {event_id: 907}", "    scope: switch",
        "    inhibits: {rules: [r], for: 1y}", "    action: log_only"},
       "bad-duration",
       5,
       33,
       "rules[0].inhibits.for",
       ""},
      {"rate per 0s",
       {"rules:", "  - name: r", "    counter: X", "    rate: {above: 1, per: 0s}",
        "    action: log_only"},
       "bad-duration",
       4,
       27,
       "rules[0].rate.per",
       "longer than 0s"},
      {"bad min_link_uptime",
       {"rules:", "  - name: r", "    counter: X", "    rate: {above: 1}",
        "    min_link_uptime: long", "    action: log_only"},
       "bad-duration",
       5,
       22,
       "rules[0].min_link_uptime",
       ""},
      {"bad template placeholder (plain)",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    title: Down {port} on {bogus}",
        "    action: log_only"},
       "bad-template",
       4,
       27,
       "rules[0].title",
       "unknown placeholder {bogus}"},
      {"bad template placeholder (double quoted)",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    title: \"Down {bogus}\"",
        "    action: log_only"},
       "bad-template",
       4,
       18,
       "rules[0].title",
       "unknown placeholder {bogus}"},
      {"bad template placeholder (single quoted)",
       {"rules:", "  - name: r", "    match: {event_id: 329}",
        "    repair_hint: 'Fix {port} {nope}'", "    action: log_only"},
       "bad-template",
       4,
       30,
       "rules[0].repair_hint",
       "unknown placeholder {nope}"},
      {"template brace never closed",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    title: \"Down {port\"",
        "    action: log_only"},
       "bad-template",
       4,
       18,
       "rules[0].title",
       "without a closing"},
      {"missing action",
       {"rules:", "  - name: r", "    match: {event_id: 329}"},
       "missing-action",
       2,
       5,
       "rules[0].action",
       "every rule names its action"},
      {"ambiguous: match and counter",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    counter: X",
        "    rate: {above: 1}", "    action: log_only"},
       "ambiguous-condition",
       2,
       5,
       "rules[0]",
       ""},
      {"ambiguous: flapping and counter",
       {"rules:", "  - name: r", "    flapping: {downs: 3, within: 1m}", "    counter: X",
        "    delta: {above: 1}", "    action: log_only"},
       "ambiguous-condition",
       2,
       5,
       "rules[0]",
       ""},
      {"ambiguous: two measures",
       {"rules:", "  - name: r", "    counter: X", "    rate: {above: 1}", "    delta: {above: 1}",
        "    action: log_only"},
       "ambiguous-condition",
       2,
       5,
       "rules[0]",
       "exactly one of"},
      {"missing condition",
       {"rules:", "  - name: r", "    action: log_only"},
       "missing-condition",
       2,
       5,
       "rules[0]",
       ""},
      {"counter without a measure",
       {"rules:", "  - name: r", "    counter: X", "    action: log_only"},
       "missing-condition",
       2,
       5,
       "rules[0]",
       "exactly one of"},
      {"count without window",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    count: 3",
        "    action: log_only"},
       "missing-window",
       4,
       12,
       "rules[0].window",
       "needs a window"},
      {"flapping without within",
       {"rules:", "  - name: r", "    flapping: {downs: 3}", "    action: log_only"},
       "missing-window",
       3,
       15,
       "rules[0].flapping.within",
       ""},
      {"for without clear",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    for: 30s",
        "    action: log_only"},
       "missing-clear",
       4,
       10,
       "rules[0].clear",
       "needs 'clear'"},
      {"inhibits an unknown rule",
       {"rules:", "  - name: sw", "    match: {event_id: 907}", "    scope: switch",
        "    inhibits: {rules: [link_down, nosuch]}", "    action: ticket_only",
        "  - name: link_down", "    match: {event_id: 329}", "    action: log_only"},
       "unknown-rule",
       5,
       35,
       "rules[0].inhibits.rules[1]",
       "inhibits 'nosuch'"},
      {"inhibits an unknown rule through a list",
       {"lists:", "  lr: [link_down, nosuch]", "rules:", "  - name: sw",
        "    match: {event_id: 907}", "    scope: switch", "    inhibits: {rules: \"@lr\"}",
        "    action: ticket_only", "  - name: link_down", "    match: {event_id: 329}",
        "    action: log_only"},
       "unknown-rule",
       2,
       19,
       "lists.lr[1]",
       "inhibits 'nosuch'"},
      {"bad scope word",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    scope: fabric",
        "    action: log_only"},
       "bad-scope",
       4,
       12,
       "rules[0].scope",
       "link, node, port, switch"},
      {"counter rule scoped to a switch",
       {"rules:", "  - name: r", "    counter: X", "    rate: {above: 1}", "    scope: switch",
        "    action: ticket_only"},
       "bad-scope",
       5,
       12,
       "rules[0].scope",
       "port or link"},
      {"flapping rule scoped to a node",
       {"rules:", "  - name: r", "    flapping: {downs: 3, within: 1m}", "    scope: node",
        "    action: log_only"},
       "bad-scope",
       4,
       12,
       "rules[0].scope",
       "port or link"},
      {"bad action word",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    action: explode"},
       "bad-action",
       4,
       13,
       "rules[0].action",
       "disable_port"},
      {"node rule that would drain a host and cut a port",
       {"rules:", "  - name: r", "    match: {event_id: 907}", "    scope: node",
        "    action: drain_then_disable"},
       "bad-action",
       5,
       13,
       "rules[0].action",
       "cannot act on one port"},
      {"switch rule that would act on a port",
       {"rules:", "  - name: r", "    match: {event_id: 907}", "    scope: switch",
        "    action: disable_port"},
       "bad-action",
       5,
       13,
       "rules[0].action",
       "cannot act on one port"},
      {"bad mode",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    mode: dry",
        "    action: log_only"},
       "bad-mode",
       4,
       11,
       "rules[0].mode",
       "enforce"},
      {"bad severity",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    severity: huge",
        "    action: log_only"},
       "bad-severity",
       4,
       15,
       "rules[0].severity",
       "critical"},
      {"negative threshold",
       {"rules:", "  - name: r", "    counter: X", "    rate: {above: -5}", "    action: log_only"},
       "bad-number",
       4,
       19,
       "rules[0].rate.above",
       ">= 0"},
      {"threshold not a number",
       {"rules:", "  - name: r", "    counter: X", "    value: {above: hot}",
        "    action: log_only"},
       "bad-number",
       4,
       20,
       "rules[0].value.above",
       "expected a number"},
      {"count of zero",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    count: 0", "    window: 1m",
        "    action: log_only"},
       "bad-count",
       4,
       12,
       "rules[0].count",
       "whole number"},
      {"fractional count",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    count: 2.5", "    window: 1m",
        "    action: log_only"},
       "bad-count",
       4,
       12,
       "rules[0].count",
       "whole number"},
      {"one down is not flapping",
       {"rules:", "  - name: r", "    flapping: {downs: 1, within: 1m}", "    action: log_only"},
       "bad-count",
       3,
       23,
       "rules[0].flapping.downs",
       "from 2 to 1000000"},
      {"bad event id",
       {"rules:", "  - name: r", "    match: {event_id: [329, abc]}", "    action: log_only"},
       "bad-event-id",
       3,
       29,
       "rules[0].match.event_id[1]",
       "positive UFM event id"},
      {"event id zero",
       {"rules:", "  - name: r", "    match: {event_id: 0}", "    action: log_only"},
       "bad-event-id",
       3,
       23,
       "rules[0].match.event_id",
       ""},
      {"empty list",
       {"rules:", "  - name: r", "    match: {event_id: []}", "    action: log_only"},
       "empty-list",
       3,
       23,
       "rules[0].match.event_id",
       "matches nothing"},
      {"field set twice through a macro",
       {"macros:", "  m: {event_id: 1}", "rules:", "  - name: r",
        "    match: {use: m, event_id: 2}", "    action: log_only"},
       "conflicting-match",
       5,
       31,
       "rules[0].match.event_id",
       "already set"},
      {"empty match",
       {"rules:", "  - name: r", "    match: {}", "    action: log_only"},
       "empty-match",
       3,
       12,
       "rules[0].match",
       "at least one field"},
      {"match not a mapping",
       {"rules:", "  - name: r", "    match: 329", "    action: log_only"},
       "bad-match",
       3,
       12,
       "rules[0].match",
       ""},
      {"inhibits on a link rule",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    inhibits: {rules: [r]}",
        "    action: log_only"},
       "bad-inhibit",
       4,
       15,
       "rules[0].inhibits",
       "only a switch- or node-scoped rule"},
      {"inhibits without rules",
       {"rules:", "  - name: r", "    match: {event_id: 907}", "    scope: switch",
        "    inhibits: {for: 1m}", "    action: log_only"},
       "bad-inhibit",
       5,
       15,
       "rules[0].inhibits",
       "{rules: [names]"},
      {"min_link_uptime on an event rule",
       {"rules:", "  - name: r", "    match: {event_id: 329}", "    min_link_uptime: 1m",
        "    action: log_only"},
       "not-for-events",
       4,
       22,
       "rules[0].min_link_uptime",
       ""},
      {"count on a counter rule",
       {"rules:", "  - name: r", "    counter: X", "    delta: {above: 1}", "    count: 2",
        "    action: log_only"},
       "not-for-counter",
       5,
       12,
       "rules[0]",
       ""},
      {"count on a flapping rule",
       {"rules:", "  - name: r", "    flapping: {downs: 3, within: 1m}", "    count: 2",
        "    action: log_only"},
       "not-for-flapping",
       4,
       12,
       "rules[0].count",
       "flapping.downs"},
      {"clear on a flapping rule",
       {"rules:", "  - name: r", "    flapping: {downs: 3, within: 1m}",
        "    clear: {event_id: 328}", "    action: log_only"},
       "bad-clear",
       4,
       12,
       "rules[0].clear",
       ""},
      {"counter clear above the threshold",
       {"rules:", "  - name: r", "    counter: X", "    rate: {above: 10}",
        "    clear: {below: 20}", "    action: log_only"},
       "bad-clear",
       5,
       20,
       "rules[0].clear.below",
       "must not be above"},
      {"counter clear that is an event match",
       {"rules:", "  - name: r", "    counter: X", "    rate: {above: 10}",
        "    clear: {event_id: 328}", "    action: log_only"},
       "bad-clear",
       5,
       12,
       "rules[0].clear",
       "{below: N}"},
      {"counter without its name",
       {"rules:", "  - name: r", "    rate: {above: 10}", "    action: log_only"},
       "missing-counter",
       2,
       5,
       "rules[0].counter",
       ""},
      {"condition without threshold",
       {"rules:", "  - name: r", "    counter: X", "    rate: {per: 1m}", "    action: log_only"},
       "missing-threshold",
       4,
       11,
       "rules[0].rate.above",
       ""},
      {"condition that is not a mapping",
       {"rules:", "  - name: r", "    counter: X", "    delta: 5", "    action: log_only"},
       "bad-condition",
       4,
       12,
       "rules[0].delta",
       ""},
      {"rule without a name",
       {"rules:", "  - match: {event_id: 329}", "    action: log_only"},
       "missing-name",
       2,
       5,
       "rules[0].name",
       ""},
      {"bad rule name",
       {"rules:", "  - name: link down!", "    match: {event_id: 329}", "    action: log_only"},
       "bad-name",
       2,
       11,
       "rules[0].name",
       ""},
      {"enabled not a bool",
       {"rules:", "  - name: r", "    enabled: maybe", "    match: {event_id: 329}",
        "    action: log_only"},
       "bad-bool",
       3,
       14,
       "rules[0].enabled",
       ""},
      {"rule that is not a mapping",
       {"rules:", "  - just a string"},
       "bad-rule",
       2,
       5,
       "rules[0]",
       ""},
      {"document that is a list",
       {"- name: r", "  match: {event_id: 1}"},
       "bad-document",
       1,
       1,
       "",
       "mapping with 'rules:'"},
      {"rules that is a mapping",
       {"rules:", "  r: {}"},
       "bad-document",
       2,
       3,
       "rules",
       "list of rules"},
      {"list that is not a sequence",
       {"lists:", "  l: 329", "rules: []"},
       "bad-list",
       2,
       6,
       "lists.l",
       ""},
      {"macro that is not a mapping",
       {"macros:", "  m: [1]", "rules: []"},
       "bad-macro",
       2,
       6,
       "macros.m",
       ""},
      {"duplicate rule name in one file",
       {"rules:", "  - name: r", "    match: {event_id: 1}", "    action: log_only", "  - name: r",
        "    match: {event_id: 2}", "    action: log_only"},
       "duplicate-name",
       5,
       1,
       "",
       "also defined at f.yaml:2"},
  };
}

// One case per error: the load fails, and the diagnostic has its code, file, line, column, path,
// message and source line.
class RuleLoaderErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(RuleLoaderErrorTest, HasCodeLineColumnPathAndSourceLine) {
  const ErrorCase& c = GetParam();
  SCOPED_TRACE(c.what);
  const std::string text = Lines(c.lines);
  auto r = LoadRulesText(text, "f.yaml");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.rules, nullptr);
  const Diagnostic* d = FindCode(r, c.code);
  ASSERT_NE(d, nullptr) << "no " << c.code << " in:\n" << r.Report();
  EXPECT_FALSE(d->warning);
  EXPECT_EQ(d->file, "f.yaml");
  if (c.line > 0) {
    EXPECT_EQ(d->line, c.line) << r.Report();
    EXPECT_EQ(d->column, c.column) << r.Report();
    EXPECT_EQ(d->source_line, LineOf(text, c.line));
  } else {
    EXPECT_GT(d->line, 0) << r.Report();
    EXPECT_GT(d->column, 0) << r.Report();
    EXPECT_EQ(d->source_line, LineOf(text, d->line));
  }
  if (!c.path.empty()) {
    EXPECT_EQ(d->path, c.path);
  }
  if (!c.message_has.empty()) {
    EXPECT_NE(d->message.find(c.message_has), std::string::npos) << d->message;
  }
  EXPECT_TRUE(HasErrors(r.diagnostics));
}

INSTANTIATE_TEST_SUITE_P(Diagnostics, RuleLoaderErrorTest, ::testing::ValuesIn(ErrorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& test) {
                           return CaseName(test.param.what);
                         });

struct SyntaxCase {
  std::string what;
  std::vector<std::string> lines;
  int line;
};

void PrintTo(const SyntaxCase& c, std::ostream* os) { *os << c.what; }

// One case per YAML syntax error: the only diagnostic, at its line.
class RuleLoaderSyntaxTest : public ::testing::TestWithParam<SyntaxCase> {};

TEST_P(RuleLoaderSyntaxTest, YamlSyntaxError) {
  const SyntaxCase& c = GetParam();
  const std::string text = Lines(c.lines);
  auto r = LoadRulesText(text, "bad.yaml");
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u) << r.Report();
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.code, "yaml-syntax");
  EXPECT_EQ(d.file, "bad.yaml");
  EXPECT_EQ(d.line, c.line) << r.Report();
  EXPECT_GE(d.column, 1);
  EXPECT_FALSE(d.message.empty());
  EXPECT_EQ(d.source_line, LineOf(text, d.line));
}

INSTANTIATE_TEST_SUITE_P(
    Diagnostics, RuleLoaderSyntaxTest,
    ::testing::ValuesIn(std::vector<SyntaxCase>{
        {"unclosed flow sequence",
         {"rules:", "  - name: r", "    match: {event_id: [329}", "    action: log_only"},
         3},
        {"tab indentation", {"rules:", "  - name: r", "\tmatch: {event_id: 329}"}, 3},
        {"a mapping inside a plain value",
         {"rules:", "  - name: r", "    match: {event_id: 329}", "    title: a: b"},
         4},
    }),
    [](const ::testing::TestParamInfo<SyntaxCase>& test) { return CaseName(test.param.what); });

TEST(RuleLoaderTest, TemplatePlaceholderInBlockScalarPointsAtThePlaceholder) {
  // A folded block (as the shipped rules write repair hints): the placeholder is on line 5, at
  // column 15; the block's indicator ('>-') is on line 4.
  const std::string text = Lines({
      "rules:",                      // 1
      "  - name: r",                 // 2
      "    match: {event_id: 329}",  // 3
      "    repair_hint: >-",         // 4
      "      Replace {bogus} now",   // 5
      "    action: log_only",        // 6
  });
  auto r = LoadRulesText(text, "f.yaml");
  EXPECT_FALSE(r.ok());
  const Diagnostic* d = FindCode(r, "bad-template");
  ASSERT_NE(d, nullptr) << r.Report();
  EXPECT_EQ(d->line, 5) << r.Report();
  EXPECT_EQ(d->column, 15) << "the caret must sit under {bogus}, not past the '>-' line:\n"
                           << r.Report();
  EXPECT_EQ(d->source_line, "      Replace {bogus} now");
  // A double-quoted value with escapes before the placeholder: still the placeholder's column.
  const std::string escaped = Lines({
      "rules:",
      "  - name: r",
      "    match: {event_id: 329}",
      "    title: \"a\\tb\\\"c {bogus}\"",
      "    action: log_only",
  });
  r = LoadRulesText(escaped, "f.yaml");
  d = FindCode(r, "bad-template");
  ASSERT_NE(d, nullptr) << r.Report();
  EXPECT_EQ(d->line, 4);
  EXPECT_EQ(LineOf(escaped, 4).substr(d->column - 1, 7), "{bogus}") << r.Report();
}

TEST(RuleLoaderTest, EveryKnownPlaceholderIsAccepted) {
  std::string title;
  for (const auto& p : TemplatePlaceholders()) title += "{" + p + "} ";
  auto set = MustLoad(Lines({
      "rules:",
      "  - name: r",
      "    match: {event_id: 329}",
      "    title: \"" + title + "\"",
      "    repair_hint: \"" + title + "\"",
      "    action: log_only",
  }));
  ASSERT_TRUE(set);
  EXPECT_EQ(Only(set).title, title);
  const std::vector<std::string> want = {"rule",       "reason",     "port",         "peer",
                                         "port_label", "peer_label", "port_node",    "peer_node",
                                         "switch",     "node",       "cable_serial", "count",
                                         "window",     "value",      "threshold",    "severity"};
  EXPECT_EQ(TemplatePlaceholders(), want);
}

TEST(RuleLoaderTest, EveryBadPlaceholderIsReported) {
  auto r = LoadRulesText(Lines({
                             "rules:",
                             "  - name: r",
                             "    match: {event_id: 329}",
                             "    title: \"{a} {port} {b}\"",
                             "    action: log_only",
                         }),
                         "f.yaml");
  ASSERT_EQ(CountCode(r, "bad-template"), 2) << r.Report();
  EXPECT_EQ(r.diagnostics[0].column, 13);  // {a}
  EXPECT_EQ(r.diagnostics[1].column, 24);  // {b}
}

TEST(RuleLoaderTest, OneBadRuleFailsTheLoadAndOthersAreStillChecked) {
  auto r = LoadRulesText(Lines({
                             "rules:",
                             "  - name: a",
                             "    match: {event_id: 329}",
                             "    window: bad",
                             "    action: log_only",
                             "  - name: b",
                             "    match: {event_id: 329}",
                             "    scope: everywhere",
                             "    action: log_only",
                         }),
                         "f.yaml");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(CountCode(r, "bad-duration"), 1);
  EXPECT_EQ(CountCode(r, "bad-scope"), 1);
  EXPECT_EQ(FindCode(r, "bad-scope")->path, "rules[1].scope");
}

TEST(RuleLoaderTest, ErrorsInAListOrMacroPointIntoThatFile) {
  const std::string dir = testing::MakeTempDir("rule_loader_test");
  testing::WriteFile(dir + "/a_common.yaml", Lines({
                                                 "lists:",
                                                 "  ids: [329, x]",
                                                 "macros:",
                                                 "  m: {description: \"(\"}",
                                             }));
  testing::WriteFile(dir + "/b_rules.yaml", Lines({
                                                "rules:",
                                                "  - name: r",
                                                "    match: {event_id: \"@ids\"}",
                                                "    action: log_only",
                                                "  - name: s",
                                                "    match: {use: m}",
                                                "    action: log_only",
                                            }));
  auto r = LoadRules({dir});
  EXPECT_FALSE(r.ok());
  const Diagnostic* id = FindCode(r, "bad-event-id");
  ASSERT_NE(id, nullptr) << r.Report();
  EXPECT_EQ(id->file, dir + "/a_common.yaml");
  EXPECT_EQ(id->line, 2);
  EXPECT_EQ(id->column, 14);
  EXPECT_EQ(id->path, "lists.ids[1]");
  EXPECT_EQ(id->source_line, "  ids: [329, x]");
  const Diagnostic* re = FindCode(r, "bad-pattern");
  ASSERT_NE(re, nullptr) << r.Report();
  EXPECT_EQ(re->file, dir + "/a_common.yaml");
  EXPECT_EQ(re->line, 4);
  EXPECT_EQ(re->column, 20);
  EXPECT_EQ(re->path, "macros.m.description");
  testing::RemoveTree(dir);
}

TEST(RuleLoaderTest, DuplicateNamesAcrossFiles) {
  const std::string dir = testing::MakeTempDir("rule_loader_test");
  testing::WriteFile(dir + "/a.yaml", Lines({
                                          "lists:",
                                          "  ids: [329]",
                                          "macros:",
                                          "  m: {event_id: 1}",
                                          "rules:",
                                          "  - name: link_down",
                                          "    match: {event_id: \"@ids\"}",
                                          "    action: log_only",
                                      }));
  const std::string b_text = Lines({
      "lists:",
      "  ids: [330]",
      "macros:",
      "  m: {event_id: 2}",
      "rules:",
      "  - name: other",
      "    match: {use: m}",
      "    action: log_only",
      "  - name: link_down",
      "    match: {event_id: 329}",
      "    action: log_only",
  });
  testing::WriteFile(dir + "/b.yaml", b_text);
  auto r = LoadRules({dir + "/a.yaml", dir + "/b.yaml"});
  EXPECT_FALSE(r.ok());
  std::vector<const Diagnostic*> dups;
  for (const auto& d : r.diagnostics) {
    if (d.code == "duplicate-name") dups.push_back(&d);
  }
  ASSERT_EQ(dups.size(), 3u) << r.Report();
  // The list, the macro, then the rule; each in b.yaml, naming where a.yaml has it.
  EXPECT_EQ(dups[0]->file, dir + "/b.yaml");
  EXPECT_EQ(dups[0]->line, 2);
  EXPECT_EQ(dups[0]->column, 3);
  EXPECT_EQ(dups[0]->path, "lists.ids");
  EXPECT_NE(dups[0]->message.find("list 'ids' is also defined in " + dir + "/a.yaml at line 2"),
            std::string::npos)
      << dups[0]->message;
  EXPECT_EQ(dups[1]->line, 4);
  EXPECT_EQ(dups[1]->path, "macros.m");
  EXPECT_NE(dups[1]->message.find("macro 'm'"), std::string::npos);
  EXPECT_EQ(dups[2]->file, dir + "/b.yaml");
  EXPECT_EQ(dups[2]->line, 9);
  EXPECT_GE(dups[2]->column, 1);
  EXPECT_EQ(dups[2]->source_line, LineOf(b_text, 9));
  EXPECT_NE(dups[2]->message.find("rule 'link_down' is also defined at " + dir + "/a.yaml:6"),
            std::string::npos)
      << dups[2]->message;
  testing::RemoveTree(dir);
}

TEST(RuleLoaderTest, FilesAndFoldersThatAreNotThere) {
  const std::string dir = testing::MakeTempDir("rule_loader_test");
  auto missing = LoadRules({dir + "/nope.yaml"});
  EXPECT_FALSE(missing.ok());
  ASSERT_NE(FindCode(missing, "no-such-file"), nullptr) << missing.Report();
  EXPECT_EQ(FindCode(missing, "no-such-file")->file, dir + "/nope.yaml");

  auto none = LoadRules({});
  EXPECT_FALSE(none.ok());
  EXPECT_NE(FindCode(none, "no-rules"), nullptr);

  // An empty folder is a warning (no rules, but nothing wrong): the load gives an empty set.
  auto empty = LoadRulesDir(dir);
  ASSERT_TRUE(empty.ok()) << empty.Report();
  ASSERT_NE(FindCode(empty, "no-rules"), nullptr);
  EXPECT_TRUE(FindCode(empty, "no-rules")->warning);
  EXPECT_TRUE(empty.rules->rules.empty());

  // Only *.yaml and *.yml directly inside count, in name order.
  testing::WriteFile(dir + "/b.yml", Lines({"rules:", "  - name: b", "    match: {event_id: 2}",
                                            "    action: log_only"}));
  testing::WriteFile(dir + "/a.yaml", Lines({"rules:", "  - name: a", "    match: {event_id: 1}",
                                             "    action: log_only"}));
  testing::WriteFile(dir + "/c.txt", "not: [rules");
  testing::WriteFile(dir + "/empty.yaml", "");
  auto two = LoadRulesDir(dir);
  ASSERT_TRUE(two.ok()) << two.Report();
  ASSERT_EQ(two.rules->rules.size(), 2u);
  EXPECT_EQ(two.rules->rules[0].name, "a");
  EXPECT_EQ(two.rules->rules[1].name, "b");
  EXPECT_EQ(two.rules->files,
            (std::vector<std::string>{dir + "/a.yaml", dir + "/b.yml", dir + "/empty.yaml"}));
  testing::RemoveTree(dir);
}

// --- diagnostics: warnings -------------------------------------------------------------------

// One document with one of each warning (line numbers on the right).
std::string WarningsText() {
  return Lines({
      "version: 2",                                         // 1
      "lists:",                                             // 2
      "  spare: [1, 2]",                                    // 3
      "macros:",                                            // 4
      "  unused_macro: {event_id: 3}",                      // 5
      "rules:",                                             // 6
      "  - name: r",                                        // 7
      "    priority: high",                                 // 8
      "    match: {event_id: 329, colour: red}",            // 9
      "    action: log_only",                               // 10
      "  - name: c",                                        // 11
      "    counter: X",                                     // 12
      "    rate: {above: 1, every: 1m}",                    // 13
      "    action: log_only",                               // 14
      "  - name: f",                                        // 15
      "    flapping: {downs: 2, within: 1m, after: 1s}",    // 16
      "    action: log_only",                               // 17
      "  - name: sw",                                       // 18
      "    match: {event_id: 907}",                         // 19
      "    scope: switch",                                  // 20
      "    inhibits: {rules: [r], for: 1m, also: [c]}",     // 21
      "    action: log_only",                               // 22
      "  - name: u",                                        // 23
      "    match: {event_id: 3290, name: Link went down}",  // 24
      "    action: log_only",                               // 25
  });
}

struct WarningCase {
  std::string code, path;
  int line, column;
};

void PrintTo(const WarningCase& w, std::ostream* os) { *os << w.code << " at " << w.path; }

std::vector<WarningCase> WarningCases() {
  return {
      {"unknown-key", "version", 1, 1},
      {"unknown-key", "rules[0].priority", 8, 5},
      {"unknown-key", "rules[0].match.colour", 9, 28},
      {"unknown-key", "rules[1].rate.every", 13, 22},
      {"unknown-key", "rules[2].flapping.after", 16, 38},
      {"unknown-key", "rules[3].inhibits.also", 21, 37},
      {"unused-list", "lists.spare", 3, 10},
      {"unused-macro", "macros.unused_macro", 5, 17},
      {"unknown-counter", "rules[1].counter", 12, 14},
      {"unknown-event-id", "rules[4].match.event_id", 24, 23},
      {"unknown-event-name", "rules[4].match.name", 24, 35},
  };
}

TEST(RuleLoaderTest, WarningsNeverBlockALoad) {
  const std::string text = WarningsText();
  auto r = LoadRulesText(text, "w.yaml");
  ASSERT_TRUE(r.ok()) << r.Report();
  EXPECT_FALSE(HasErrors(r.diagnostics));
  EXPECT_EQ(r.rules->rules.size(), 5u);
  EXPECT_EQ(r.diagnostics.size(), WarningCases().size()) << r.Report();
  const Diagnostic* key = FindCode(r, "unknown-key");
  ASSERT_NE(key, nullptr) << r.Report();
  EXPECT_NE(key->message.find("unknown key 'version' is ignored"), std::string::npos);
  EXPECT_NE(r.Report().find("0 errors, 11 warnings"), std::string::npos) << r.Report();
}

// One case per warning of WarningsText: a warning with its code, line, column and source line.
class RuleLoaderWarningTest : public ::testing::TestWithParam<WarningCase> {};

TEST_P(RuleLoaderWarningTest, HasCodeLineColumnAndSourceLine) {
  const WarningCase& w = GetParam();
  const std::string text = WarningsText();
  auto r = LoadRulesText(text, "w.yaml");
  const Diagnostic* found = nullptr;
  for (const auto& d : r.diagnostics) {
    if (d.code == w.code && d.path == w.path) found = &d;
  }
  ASSERT_NE(found, nullptr) << r.Report();
  EXPECT_TRUE(found->warning);
  EXPECT_EQ(found->line, w.line);
  EXPECT_EQ(found->column, w.column);
  EXPECT_EQ(found->source_line, LineOf(text, w.line));
}

INSTANTIATE_TEST_SUITE_P(Diagnostics, RuleLoaderWarningTest, ::testing::ValuesIn(WarningCases()),
                         [](const ::testing::TestParamInfo<WarningCase>& test) {
                           return CaseName(test.param.code + " " + test.param.path);
                         });

TEST(RuleLoaderTest, ListUsedOnlyByInhibitsOrAMacroIsUsed) {
  auto r = LoadRulesText(Lines({
                             "lists:",
                             "  names: [r]",
                             "  ids: [329]",
                             "macros:",
                             "  m: {event_id: \"@ids\"}",
                             "rules:",
                             "  - name: r",
                             "    match: {use: m}",
                             "    action: log_only",
                             "  - name: sw",
                             "    match: {event_id: 907}",
                             "    scope: switch",
                             "    inhibits: {rules: \"@names\"}",
                             "    action: log_only",
                         }),
                         "u.yaml");
  ASSERT_TRUE(r.ok()) << r.Report();
  EXPECT_TRUE(r.diagnostics.empty()) << r.Report();
}

TEST(RuleLoaderTest, EmptyDocumentLoadsNoRules) {
  for (const std::string text : {"", "# only a comment\n", "rules: []\n"}) {
    auto r = LoadRulesText(text, "e.yaml");
    ASSERT_TRUE(r.ok()) << r.Report();
    EXPECT_TRUE(r.rules->rules.empty());
    EXPECT_TRUE(r.diagnostics.empty()) << r.Report();
  }
}

// --- RuleSet::Index ---------------------------------------------------------------------------

TEST(RuleSetIndexTest, EventIdsAnyEventCountersAndDescriptions) {
  auto set = MustLoad(Lines({
      "rules:",
      "  - name: link_down",
      "    match: {event_id: 329, description: went}",
      "    for: 30s",
      "    clear: {event_id: 328}",
      "    action: disable_port",
      "  - name: also_329",
      "    match: {event_id: [329, 330]}",
      "    action: log_only",
      "  - name: by_severity",
      "    match: {severity: critical, description: \"is down\"}",
      "    action: log_only",
      "  - name: clear_any",
      "    match: {event_id: 1}",
      "    clear: {severity: info}",
      "    action: log_only",
      "  - name: flap",
      "    flapping: {downs: 3, within: 10m}",
      "    action: disable_port",
      "  - name: symbol_errors",
      "    counter: SymbolErrorCounterExtended",
      "    rate: {above: 100}",
      "    action: disable_port",
      "  - name: ber",
      "    ber: {above: 1e-12}",
      "    min_link_uptime: 125m",
      "    action: disable_port",
      "  - name: rcv",
      "    counter: PortRcvErrorsExtended",
      "    rate: {above: 100}",
      "    action: ticket_only",
  }));
  ASSERT_TRUE(set);
  auto names = [](const std::vector<const Rule*>& rules) {
    std::vector<std::string> out;
    for (const Rule* r : rules) out.push_back(r->name);
    return out;
  };
  EXPECT_EQ(names(set->by_event_id[329]),
            (std::vector<std::string>{"link_down", "also_329", "flap"}));
  EXPECT_EQ(names(set->by_event_id[328]), (std::vector<std::string>{"link_down"}));
  EXPECT_EQ(names(set->by_event_id[330]), (std::vector<std::string>{"also_329"}));
  EXPECT_EQ(set->by_event_id.count(1), 0u);  // clear_any is a candidate for every event
  EXPECT_EQ(names(set->any_event), (std::vector<std::string>{"by_severity", "clear_any"}));
  EXPECT_EQ(names(set->counter_rules), (std::vector<std::string>{"symbol_errors", "ber", "rcv"}));
  EXPECT_EQ(names(set->by_counter["SymbolErrorCounterExtended"]),
            (std::vector<std::string>{"symbol_errors"}));
  EXPECT_EQ(names(set->by_counter["SymbolBER"]), (std::vector<std::string>{"ber"}));
  // Flapping rules also count LinkDownedCounterExtended; min_link_uptime needs it too.
  EXPECT_EQ(names(set->by_counter["LinkDownedCounterExtended"]),
            (std::vector<std::string>{"flap"}));
  EXPECT_EQ(set->counters,
            (std::set<std::string>{"LinkDownedCounterExtended", "PortRcvErrorsExtended",
                                   "SymbolBER", "SymbolErrorCounterExtended"}));
  ASSERT_TRUE(set->descriptions);
  EXPECT_EQ(set->Find("link_down")->match.description_set_index, 0);
  EXPECT_EQ(set->Find("by_severity")->match.description_set_index, 1);
  EXPECT_EQ(set->Find("also_329")->match.description_set_index, -1);
  std::vector<int> hits;
  set->descriptions->Match("Node is down", &hits);
  EXPECT_EQ(hits, std::vector<int>{1});
}

TEST(RuleSetIndexTest, MinLinkUptimeAloneNeedsTheLinkDownCounter) {
  auto set = MustLoad(Lines({
      "rules:",
      "  - name: ber",
      "    ber: {above: 1e-12}",
      "    min_link_uptime: 10m",
      "    action: ticket_only",
      "  - name: plain",
      "    counter: PortRcvErrorsExtended",
      "    rate: {above: 100}",
      "    action: ticket_only",
  }));
  ASSERT_TRUE(set);
  EXPECT_EQ(set->counters, (std::set<std::string>{"LinkDownedCounterExtended",
                                                  "PortRcvErrorsExtended", "SymbolBER"}));
  // It is watched for uptime, but no rule counts it.
  EXPECT_EQ(set->by_counter.count("LinkDownedCounterExtended"), 0u);
  EXPECT_TRUE(set->any_event.empty());
  EXPECT_TRUE(set->by_event_id.empty());
  EXPECT_FALSE(set->descriptions);
}

TEST(RuleSetIndexTest, HashAndFiles) {
  auto a = LoadRulesText("rules: []\n", "a.yaml");
  auto a2 = LoadRulesText("rules: []\n", "a.yaml");
  auto b = LoadRulesText("rules: [] # changed\n", "a.yaml");
  ASSERT_TRUE(a.ok() && a2.ok() && b.ok());
  EXPECT_EQ(a.rules->hash.size(), 16u);
  EXPECT_EQ(a.rules->hash, a2.rules->hash);
  EXPECT_NE(a.rules->hash, b.rules->hash);
  EXPECT_EQ(a.rules->files, std::vector<std::string>{"a.yaml"});
}

// --- the shipped rules -----------------------------------------------------------------------

TEST(ShippedRulesTest, LoadWithoutErrors) {
  auto r = LoadRules({testing::SourceDir() + "/rules"});
  ASSERT_TRUE(r.ok()) << r.Report();
  EXPECT_FALSE(HasErrors(r.diagnostics)) << r.Report();
  EXPECT_FALSE(r.rules->rules.empty());
  for (const auto& rule : r.rules->rules) {
    SCOPED_TRACE(rule.name);
    EXPECT_FALSE(rule.name.empty());
    EXPECT_GT(rule.line, 0);
    EXPECT_EQ(rule.file.rfind(testing::SourceDir() + "/rules/", 0), 0u) << rule.file;
  }
  // Test files live in rules/tests, not directly in rules/: they are not rules.
  for (const auto& f : r.rules->files) EXPECT_EQ(f.find("/tests/"), std::string::npos) << f;
}

// --- rendering -------------------------------------------------------------------------------

TEST(DiagnosticTest, ToStringPutsTheCaretUnderTheColumn) {
  struct Case {
    Diagnostic d;
    std::string want;
  };
  Diagnostic base;
  base.file = "rules/links.yaml";
  base.line = 4;
  base.column = 12;
  base.path = "rules[0].scope";
  base.code = "bad-scope";
  base.message = "expected one of: link, node, port, switch";
  base.source_line = "    scope: fabric";
  Diagnostic warn = base;
  warn.warning = true;
  warn.code = "unknown-key";
  warn.path = "";
  warn.source_line = "";
  Diagnostic tabs = base;
  tabs.source_line = "\tscope:\tfabric";
  tabs.column = 9;
  Diagnostic nowhere;
  nowhere.code = "no-rules";
  nowhere.message = "no rules files given";
  Diagnostic col0 = base;
  col0.column = 0;
  const std::vector<Case> cases = {
      {base,
       "rules/links.yaml:4:12: error[bad-scope]: expected one of: link, node, port, switch (at "
       "rules[0].scope)\n"
       "      scope: fabric\n"
       "             ^"},
      {warn,
       "rules/links.yaml:4:12: warning[unknown-key]: expected one of: link, node, port, switch"},
      {tabs,
       "rules/links.yaml:4:9: error[bad-scope]: expected one of: link, node, port, switch (at "
       "rules[0].scope)\n"
       "  \tscope:\tfabric\n"
       "  \t      \t^"},
      {nowhere, "<input>: error[no-rules]: no rules files given"},
      {col0,
       "rules/links.yaml:4:1: error[bad-scope]: expected one of: link, node, port, switch (at "
       "rules[0].scope)\n"
       "      scope: fabric\n"
       "  ^"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.want);
    EXPECT_EQ(c.d.ToString(), c.want);
  }
}

TEST(DiagnosticTest, ToStringOfARealLoad) {
  const std::string text = Lines({
      "rules:",
      "  - name: r",
      "    match: {event_id: 329}",
      "    window: 10 minutes",
      "    action: log_only",
  });
  auto r = LoadRulesText(text, "x.yaml");
  ASSERT_EQ(r.diagnostics.size(), 1u) << r.Report();
  std::string s = r.diagnostics[0].ToString();
  EXPECT_EQ(s.rfind("x.yaml:4:13: error[bad-duration]: ", 0), 0u) << s;
  EXPECT_NE(
      s.find("(at rules[0].window)\n      window: 10 minutes\n  " + std::string(12, ' ') + "^"),
      std::string::npos)
      << s;
  EXPECT_EQ(r.Report(), s + "\n1 error, 0 warnings\n");
}

TEST(DiagnosticTest, RenderTextSummary) {
  EXPECT_EQ(RenderDiagnosticsText({}), "");
  Diagnostic e;
  e.code = "x";
  Diagnostic w = e;
  w.warning = true;
  std::string text = RenderDiagnosticsText({e, e, w});
  EXPECT_NE(text.find("\n2 errors, 1 warning\n"), std::string::npos) << text;
  text = RenderDiagnosticsText({w, w});
  EXPECT_NE(text.find("\n0 errors, 2 warnings\n"), std::string::npos) << text;
}

TEST(DiagnosticTest, RenderJsonShape) {
  const std::string text = Lines({
      "rules:",
      "  - name: r",
      "    match: {event_id: 329}",
      "    scope: fabric",
      "    colour: red",
      "    action: log_only",
  });
  auto r = LoadRulesText(text, "j.yaml");
  nlohmann::json j = RenderDiagnosticsJson(r.diagnostics);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["errors"], 1);
  EXPECT_EQ(j["warnings"], 1);
  ASSERT_TRUE(j["diagnostics"].is_array());
  ASSERT_EQ(j["diagnostics"].size(), 2u);
  const auto& warn = j["diagnostics"][0];
  EXPECT_EQ(warn["file"], "j.yaml");
  EXPECT_EQ(warn["line"], 5);
  EXPECT_EQ(warn["column"], 5);
  EXPECT_EQ(warn["path"], "rules[0].colour");
  EXPECT_EQ(warn["code"], "unknown-key");
  EXPECT_EQ(warn["severity"], "warning");
  EXPECT_EQ(warn["source_line"], "    colour: red");
  EXPECT_TRUE(warn["message"].is_string());
  const auto& err = j["diagnostics"][1];
  EXPECT_EQ(err["code"], "bad-scope");
  EXPECT_EQ(err["severity"], "error");
  EXPECT_EQ(err["line"], 4);
  EXPECT_EQ(err["column"], 12);
  EXPECT_EQ(err.size(), 8u) << err.dump();  // file line column path code message severity source

  nlohmann::json clean = RenderDiagnosticsJson({});
  EXPECT_EQ(
      clean,
      (nlohmann::json{
          {"ok", true}, {"errors", 0}, {"warnings", 0}, {"diagnostics", nlohmann::json::array()}}));
  Diagnostic bare;
  bare.code = "no-rules";
  bare.message = "m";
  bare.warning = true;
  nlohmann::json one = RenderDiagnosticsJson({bare});
  EXPECT_EQ(one["ok"], true);  // warnings only
  EXPECT_FALSE(one["diagnostics"][0].contains("source_line"));
  EXPECT_EQ(one["diagnostics"][0]["line"], 0);
}

TEST(DiagnosticTest, AttachSourceLinesOnlyForItsFileAndKnownLines) {
  std::vector<Diagnostic> ds(4);
  ds[0].file = "a";
  ds[0].line = 2;
  ds[1].file = "b";
  ds[1].line = 2;
  ds[2].file = "a";
  ds[2].line = 9;
  ds[3].file = "a";
  ds[3].line = 1;
  ds[3].source_line = "kept";
  AttachSourceLines("a", "one\r\ntwo\r\n", &ds);
  EXPECT_EQ(ds[0].source_line, "two");  // CR dropped
  EXPECT_EQ(ds[1].source_line, "");
  EXPECT_EQ(ds[2].source_line, "");
  EXPECT_EQ(ds[3].source_line, "kept");
}

// Found in review: values that would overflow the engine's arithmetic are errors.
TEST(RuleLoaderTest, OutOfRangeDownsAndDurationsAreErrors) {
  auto downs = LoadRulesText(
      "rules:\n  - {name: r, flapping: {downs: 1e10, within: 10m}, action: disable_port}\n",
      "f.yaml");
  EXPECT_FALSE(downs.ok());
  auto held = LoadRulesText(
      "rules:\n  - {name: r, match: {event_id: 329}, for: 200000000000d, clear: {event_id: 328}, "
      "action: disable_port}\n",
      "f.yaml");
  EXPECT_FALSE(held.ok());
  bool duration = false;
  for (const auto& d : held.diagnostics) duration = duration || d.code == "bad-duration";
  EXPECT_TRUE(duration) << held.Report();
}

}  // namespace
}  // namespace ufmr
