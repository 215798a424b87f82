// Covers src/rules/rule_collector.h, the second stage of loading rules: the named lists and
// macros of several files collected into one table (file, path, not yet used); a name defined
// twice; every shape mistake of a document (not a mapping, 'rules' not a list, a section not a
// mapping, a list not a sequence, a macro not a mapping, an unknown top-level key); unparsed and
// empty sources; and WarnUnused, in the file that defines each list or macro.
#include "rules/rule_collector.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace ufmr {
namespace {

RuleSource Parsed(const std::string& name, const std::string& text) {
  RuleSource s{name, text, {}, false};
  std::vector<Diagnostic> diags;
  std::vector<RuleSource> one = {s};
  ParseRuleSources(&one, &diags);
  EXPECT_TRUE(diags.empty()) << RenderDiagnosticsText(diags);
  return one[0];
}

const Diagnostic* FindCode(const std::vector<Diagnostic>& diags, const std::string& code) {
  for (const auto& d : diags) {
    if (d.code == code) return &d;
  }
  return nullptr;
}

TEST(RuleCollectorTest, CollectsListsAndMacrosOfEveryFile) {
  std::vector<Diagnostic> diags;
  RuleCollector collector(&diags);
  collector.Collect(
      Parsed("a.yaml", "lists:\n  ids: [329, 328]\nmacros:\n  down: {event_id: 329}\n"));
  collector.Collect(Parsed("b.yaml", "lists:\n  names: [r]\nrules: []\n"));
  EXPECT_TRUE(diags.empty()) << RenderDiagnosticsText(diags);
  const RuleDefinitions& defs = collector.definitions();
  ASSERT_EQ(defs.lists.size(), 2u);
  ASSERT_EQ(defs.macros.size(), 1u);
  const NamedNode& ids = defs.lists.at("ids");
  EXPECT_EQ(ids.file, "a.yaml");
  EXPECT_EQ(ids.path, "lists.ids");
  EXPECT_TRUE(ids.node.IsSequence());
  EXPECT_EQ(ids.node.size(), 2u);
  EXPECT_FALSE(ids.used);
  EXPECT_EQ(defs.lists.at("names").file, "b.yaml");
  const NamedNode& down = defs.macros.at("down");
  EXPECT_EQ(down.file, "a.yaml");
  EXPECT_EQ(down.path, "macros.down");
  EXPECT_TRUE(down.node.IsMap());
}

TEST(RuleCollectorTest, NameDefinedTwiceAcrossFilesIsAnErrorAtTheSecond) {
  std::vector<Diagnostic> diags;
  RuleCollector collector(&diags);
  collector.Collect(Parsed("a.yaml", "rules: []\nmacros:\n  m: {event_id: 1}\n"));
  collector.Collect(Parsed("b.yaml", "macros:\n  m: {event_id: 2}\n"));
  ASSERT_EQ(diags.size(), 1u) << RenderDiagnosticsText(diags);
  EXPECT_EQ(diags[0].code, "duplicate-name");
  EXPECT_EQ(diags[0].file, "b.yaml");
  EXPECT_EQ(diags[0].line, 2);
  EXPECT_EQ(diags[0].column, 3);
  EXPECT_EQ(diags[0].path, "macros.m");
  EXPECT_EQ(diags[0].message, "macro 'm' is also defined in a.yaml at line 3");
  // The first definition stands.
  EXPECT_EQ(collector.definitions().macros.at("m").file, "a.yaml");
}

struct ShapeCase {
  std::string what, text, code, path;
  int line, column;
  bool warning;
};

void PrintTo(const ShapeCase& c, std::ostream* os) { *os << c.what; }

class RuleCollectorShapeTest : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(RuleCollectorShapeTest, ReportsTheShapeMistake) {
  const ShapeCase& c = GetParam();
  std::vector<Diagnostic> diags;
  RuleCollector collector(&diags);
  collector.Collect(Parsed("s.yaml", c.text));
  const Diagnostic* d = FindCode(diags, c.code);
  ASSERT_NE(d, nullptr) << RenderDiagnosticsText(diags);
  EXPECT_EQ(d->file, "s.yaml");
  EXPECT_EQ(d->path, c.path);
  EXPECT_EQ(d->line, c.line);
  EXPECT_EQ(d->column, c.column);
  EXPECT_EQ(d->warning, c.warning);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, RuleCollectorShapeTest,
    ::testing::Values(
        ShapeCase{"DocumentIsAList", "- a\n- b\n", "bad-document", "", 1, 1, false},
        ShapeCase{"RulesIsAMapping", "rules: {a: 1}\n", "bad-document", "rules", 1, 8, false},
        ShapeCase{"ListsIsAList", "lists: [a]\n", "bad-document", "lists", 1, 8, false},
        ShapeCase{"MacrosIsAScalar", "macros: m\n", "bad-document", "macros", 1, 9, false},
        ShapeCase{"ListIsNotASequence", "lists:\n  l: x\n", "bad-list", "lists.l", 2, 6, false},
        ShapeCase{"MacroIsNotAMapping", "macros:\n  m: [1]\n", "bad-macro", "macros.m", 2, 6,
                  false},
        ShapeCase{"UnknownTopLevelKey", "rules: []\nrulez: []\n", "unknown-key", "rulez", 2, 1,
                  true}),
    [](const ::testing::TestParamInfo<ShapeCase>& test) { return test.param.what; });

TEST(RuleCollectorTest, UnparsedAndEmptySourcesHoldNothing) {
  std::vector<Diagnostic> diags;
  RuleCollector collector(&diags);
  collector.Collect(RuleSource{"unparsed.yaml", "lists: {l: [1]}\n", {}, false});
  collector.Collect(Parsed("empty.yaml", ""));
  collector.Collect(Parsed("comment.yaml", "# nothing\n"));
  EXPECT_TRUE(diags.empty()) << RenderDiagnosticsText(diags);
  EXPECT_TRUE(collector.definitions().lists.empty());
  EXPECT_TRUE(collector.definitions().macros.empty());
}

TEST(RuleCollectorTest, WarnUnusedReportsEachUnusedNameInItsOwnFile) {
  std::vector<Diagnostic> diags;
  RuleCollector collector(&diags);
  collector.Collect(Parsed("a.yaml", "lists:\n  used: [1]\n  spare: [2]\n"));
  collector.Collect(Parsed("b.yaml", "macros:\n  idle: {event_id: 3}\n"));
  collector.definitions().lists.at("used").used = true;  // as the compile stage marks it
  collector.WarnUnused();
  ASSERT_EQ(diags.size(), 2u) << RenderDiagnosticsText(diags);
  EXPECT_EQ(diags[0].code, "unused-list");
  EXPECT_EQ(diags[0].file, "a.yaml");
  EXPECT_EQ(diags[0].path, "lists.spare");
  EXPECT_EQ(diags[0].line, 3);
  EXPECT_EQ(diags[0].message, "list 'spare' is not used by any rule");
  EXPECT_TRUE(diags[0].warning);
  EXPECT_EQ(diags[1].code, "unused-macro");
  EXPECT_EQ(diags[1].file, "b.yaml");
  EXPECT_EQ(diags[1].path, "macros.idle");
  EXPECT_TRUE(diags[1].warning);
  EXPECT_FALSE(HasErrors(diags));
}

}  // namespace
}  // namespace ufmr
