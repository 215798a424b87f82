// Covers src/rules/rule_compiler.h, the third stage of loading rules, given parsed sources and
// collected lists and macros: a rule compiled with its "@list" and `use:` expansions (which mark
// them used); a rule with errors left out while the others compile; `enabled: false`; a
// diagnostic inside a list or macro placed in the file that defines it; a template's placeholder
// placed in the rule's own text; CheckInhibits and CheckDuplicateNames after every source.
#include "rules/rule_compiler.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ufmr {
namespace {

// Sources parsed and collected, ready to compile.
struct Stage {
  std::vector<Diagnostic> diags;
  std::vector<RuleSource> sources;
  RuleCollector collector{&diags};

  explicit Stage(std::vector<RuleSource> files) : sources(std::move(files)) {
    ParseRuleSources(&sources, &diags);
    for (const auto& s : sources) collector.Collect(s);
  }
  std::vector<Rule> CompileAll(RuleCompiler* compiler) {
    std::vector<Rule> rules;
    for (const auto& s : sources) compiler->Compile(s, &rules);
    return rules;
  }
  const Diagnostic* Find(const std::string& code) const {
    for (const auto& d : diags) {
      if (d.code == code) return &d;
    }
    return nullptr;
  }
};

TEST(RuleCompilerTest, ExpandsListsAndMacrosAndMarksThemUsed) {
  Stage stage({{"defs.yaml",
                "lists:\n  ids: [329, 328]\n  spare: [1]\nmacros:\n  down: {event_id: \"@ids\"}\n",
                {},
                false},
               {"rules.yaml",
                "rules:\n  - name: r\n    match: {use: down, severity: Warning}\n"
                "    scope: port\n    action: ticket_only\n",
                {},
                false}});
  RuleCompiler compiler(&stage.collector.definitions(), &stage.diags);
  auto rules = stage.CompileAll(&compiler);
  EXPECT_TRUE(stage.diags.empty()) << RenderDiagnosticsText(stage.diags);
  ASSERT_EQ(rules.size(), 1u);
  const Rule& r = rules[0];
  EXPECT_EQ(r.name, "r");
  EXPECT_EQ(r.file, "rules.yaml");
  EXPECT_EQ(r.line, 2);
  EXPECT_EQ(r.kind, Rule::Kind::kEvent);
  EXPECT_EQ(r.scope, RuleScope::kPort);
  EXPECT_EQ(r.action, RuleAction::kTicketOnly);
  EXPECT_EQ(r.match.event_ids, (std::set<int>{328, 329}));
  EXPECT_EQ(r.match.severities, (std::set<std::string>{"warning"}));
  const RuleDefinitions& defs = stage.collector.definitions();
  EXPECT_TRUE(defs.macros.at("down").used);
  EXPECT_TRUE(defs.lists.at("ids").used);
  EXPECT_FALSE(defs.lists.at("spare").used);
}

TEST(RuleCompilerTest, RuleWithAnErrorIsLeftOutAndTheOthersCompile) {
  Stage stage({{"f.yaml",
                "rules:\n"
                "  - name: a\n    match: {event_id: 329}\n    window: soon\n    action: log_only\n"
                "  - name: b\n    match: {event_id: 328}\n    action: log_only\n"
                "  - name: c\n    match: {event_id: 1}\n    action: log_only\n    mdoe: shadow\n",
                {},
                false}});
  RuleCompiler compiler(&stage.collector.definitions(), &stage.diags);
  auto rules = stage.CompileAll(&compiler);
  ASSERT_EQ(rules.size(), 2u) << RenderDiagnosticsText(stage.diags);
  EXPECT_EQ(rules[0].name, "b");
  EXPECT_EQ(rules[1].name, "c");  // a warning does not leave a rule out
  const Diagnostic* bad = stage.Find("bad-duration");
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->path, "rules[0].window");
  const Diagnostic* typo = stage.Find("unknown-key");
  ASSERT_NE(typo, nullptr);
  EXPECT_TRUE(typo->warning);
  EXPECT_NE(typo->message.find("did you mean 'mode'?"), std::string::npos) << typo->message;
}

TEST(RuleCompilerTest, DisabledRuleIsCheckedAndLeftOutAndMayBeInhibited) {
  Stage stage({{"f.yaml",
                "rules:\n"
                "  - name: off\n    enabled: false\n    match: {event_id: 329}\n"
                "    action: log_only\n"
                "  - name: sw\n    match: {event_id: 907}\n    scope: switch\n"
                "    inhibits: {rules: [off, gone]}\n    action: log_only\n"
                "  - name: broken_off\n    enabled: false\n    match: {event_id: 0}\n"
                "    action: log_only\n",
                {},
                false}});
  RuleCompiler compiler(&stage.collector.definitions(), &stage.diags);
  auto rules = stage.CompileAll(&compiler);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].name, "sw");
  EXPECT_EQ(rules[0].inhibit_for_s, 600);
  // Still checked: a mistake in a switched-off rule is reported.
  ASSERT_NE(stage.Find("bad-event-id"), nullptr) << RenderDiagnosticsText(stage.diags);
  compiler.CheckInhibits(rules);
  int unknown = 0;
  for (const auto& d : stage.diags) {
    if (d.code != "unknown-rule") continue;
    ++unknown;
    EXPECT_EQ(d.message, "rule 'sw' inhibits 'gone', which no rules file defines");
    EXPECT_EQ(d.file, "f.yaml");
    EXPECT_EQ(d.line, 9);
    EXPECT_EQ(d.path, "rules[1].inhibits.rules[1]");
  }
  EXPECT_EQ(unknown, 1) << RenderDiagnosticsText(stage.diags);
}

TEST(RuleCompilerTest, MistakesInAListOrMacroPointIntoTheirFile) {
  Stage stage({{"a.yaml", "lists:\n  ids: [329, x]\nmacros:\n  m: {object: \"(\"}\n", {}, false},
               {"b.yaml",
                "rules:\n  - name: r\n    match: {event_id: \"@ids\"}\n    action: log_only\n"
                "  - name: s\n    match: {use: m}\n    action: log_only\n",
                {},
                false}});
  RuleCompiler compiler(&stage.collector.definitions(), &stage.diags);
  EXPECT_TRUE(stage.CompileAll(&compiler).empty());
  const Diagnostic* id = stage.Find("bad-event-id");
  ASSERT_NE(id, nullptr) << RenderDiagnosticsText(stage.diags);
  EXPECT_EQ(id->file, "a.yaml");
  EXPECT_EQ(id->line, 2);
  EXPECT_EQ(id->column, 14);
  EXPECT_EQ(id->path, "lists.ids[1]");
  const Diagnostic* re = stage.Find("bad-pattern");
  ASSERT_NE(re, nullptr);
  EXPECT_EQ(re->file, "a.yaml");
  EXPECT_EQ(re->path, "macros.m.object");
  // After an expansion, diagnostics name the rule's own file again.
  Stage after({{"a.yaml", "lists:\n  ids: [329]\n", {}, false},
               {"b.yaml",
                "rules:\n  - name: r\n    match: {event_id: \"@ids\", name: [\"@nope\"]}\n"
                "    action: log_only\n",
                {},
                false}});
  RuleCompiler second(&after.collector.definitions(), &after.diags);
  EXPECT_TRUE(after.CompileAll(&second).empty());
  const Diagnostic* list = after.Find("unknown-list");
  ASSERT_NE(list, nullptr) << RenderDiagnosticsText(after.diags);
  EXPECT_EQ(list->file, "b.yaml");
  EXPECT_EQ(list->path, "rules[0].match.name[0]");
}

TEST(RuleCompilerTest, TemplatePlaceholderIsPlacedInTheRulesOwnText) {
  Stage stage({{"t.yaml",
                "rules:\n  - name: r\n    match: {event_id: 329}\n    action: log_only\n"
                "    repair_hint: >-\n      Reseat the cable\n      on {porrt}.\n",
                {},
                false}});
  RuleCompiler compiler(&stage.collector.definitions(), &stage.diags);
  EXPECT_TRUE(stage.CompileAll(&compiler).empty());
  const Diagnostic* d = stage.Find("bad-template");
  ASSERT_NE(d, nullptr) << RenderDiagnosticsText(stage.diags);
  EXPECT_EQ(d->line, 7);
  EXPECT_EQ(d->column, 10);
  EXPECT_EQ(d->path, "rules[0].repair_hint");
}

TEST(RuleCompilerTest, CheckDuplicateNamesReportsTheSecond) {
  Stage stage({{"a.yaml",
                "rules:\n  - name: r\n    match: {event_id: 328}\n    action: log_only\n",
                {},
                false},
               {"b.yaml",
                "rules:\n  - name: r\n    match: {event_id: 329}\n    action: log_only\n",
                {},
                false}});
  RuleCompiler compiler(&stage.collector.definitions(), &stage.diags);
  auto rules = stage.CompileAll(&compiler);
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_TRUE(stage.diags.empty());
  compiler.CheckDuplicateNames(rules);
  ASSERT_EQ(stage.diags.size(), 1u);
  EXPECT_EQ(stage.diags[0].code, "duplicate-name");
  EXPECT_EQ(stage.diags[0].file, "b.yaml");
  EXPECT_EQ(stage.diags[0].line, 2);
  EXPECT_EQ(stage.diags[0].column, 1);
  EXPECT_EQ(stage.diags[0].message, "rule 'r' is also defined at a.yaml:2");
}

TEST(RuleCompilerTest, UnparsedOrRulelessSourcesCompileNothing) {
  Stage stage({{"empty.yaml", "", {}, false}, {"lists.yaml", "lists: {l: [1]}\n", {}, false}});
  RuleSource unparsed{"x.yaml", "rules: [", {}, false};
  RuleCompiler compiler(&stage.collector.definitions(), &stage.diags);
  std::vector<Rule> rules = stage.CompileAll(&compiler);
  compiler.Compile(unparsed, &rules);
  EXPECT_TRUE(rules.empty());
  EXPECT_TRUE(stage.diags.empty()) << RenderDiagnosticsText(stage.diags);
}

}  // namespace
}  // namespace ufmr
