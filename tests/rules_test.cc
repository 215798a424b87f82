// Covers src/core/rules.h: LoadRulesText on good event and counter rules (every field), on each
// kind of mistake (diagnostic file, 1-based line:column, item path and stable code; any error
// means no RuleSet), `enabled: false`; LoadRulesDir on the shipped rules/, on duplicates across
// files, on a missing or empty directory; Diagnostic::ToString.
#include "core/rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace ufmr {
namespace {

namespace fs = std::filesystem;

const Diagnostic* FindCode(const RuleLoadResult& r, const std::string& code) {
  for (const auto& d : r.diagnostics) {
    if (d.code == code) return &d;
  }
  return nullptr;
}

TEST(LoadRulesTextTest, EventRuleWithEveryField) {
  auto r = LoadRulesText(R"y(rules:
  - name: link_down
    description: Link went down and stayed down
    when:
      event_type: [329, 112]
      message: "Link went (down|away)"
    count: 2
    window: 10m
    hold: 30s
    clear_event_type: [328]
    action: disable
)y",
                         "links.yaml");
  ASSERT_TRUE(r.ok()) << r.Report();
  EXPECT_TRUE(r.diagnostics.empty()) << r.Report();
  ASSERT_EQ(r.rules->rules.size(), 1u);
  const Rule& rule = r.rules->rules[0];
  EXPECT_EQ(rule.name, "link_down");
  EXPECT_EQ(rule.description, "Link went down and stayed down");
  EXPECT_EQ(rule.file, "links.yaml");
  EXPECT_EQ(rule.line, 2);
  EXPECT_EQ(rule.kind, Rule::Kind::kEvent);
  EXPECT_EQ(rule.event_types, (std::set<int>{112, 329}));
  ASSERT_NE(rule.message, nullptr);
  EXPECT_TRUE(RE2::PartialMatch("x: Link went away", *rule.message));
  EXPECT_FALSE(RE2::PartialMatch("Link went up", *rule.message));
  EXPECT_EQ(rule.count, 2);
  EXPECT_DOUBLE_EQ(rule.window_s, 600);
  EXPECT_DOUBLE_EQ(rule.hold_s, 30);
  EXPECT_EQ(rule.clear_event_types, (std::set<int>{328}));
  EXPECT_EQ(rule.action, RuleAction::kDisable);
  EXPECT_EQ(r.rules->files, std::vector<std::string>{"links.yaml"});
  EXPECT_EQ(r.rules->hash.size(), 16u);
}

TEST(LoadRulesTextTest, EventRuleDefaultsAndScalarEventType) {
  auto r = LoadRulesText(R"y(rules:
  - name: width
    when:
      event_type: 130
    action: ticket_only
)y",
                         "f.yaml");
  ASSERT_TRUE(r.ok()) << r.Report();
  const Rule& rule = r.rules->rules.at(0);
  EXPECT_EQ(rule.event_types, std::set<int>{130});
  EXPECT_EQ(rule.message, nullptr);
  EXPECT_EQ(rule.count, 1);
  EXPECT_DOUBLE_EQ(rule.window_s, 0);
  EXPECT_DOUBLE_EQ(rule.hold_s, 0);
  EXPECT_TRUE(rule.clear_event_types.empty());
  EXPECT_EQ(rule.action, RuleAction::kTicketOnly);
  EXPECT_STREQ(RuleActionName(rule.action), "ticket_only");
  EXPECT_STREQ(RuleActionName(RuleAction::kDisable), "disable");
}

TEST(LoadRulesTextTest, CounterRuleWithEveryField) {
  auto r = LoadRulesText(R"y(rules:
  - name: symbol_errors
    description: Symbol errors above threshold
    when:
      counter: SymbolErrorCounterExtended
      rate_above: 100.5
      per: 1m
    action: ticket_only
  - name: link_downed
    when:
      counter: LinkDownedCounterExtended
      rate_above: 2
    action: disable
)y",
                         "counters.yaml");
  ASSERT_TRUE(r.ok()) << r.Report();
  ASSERT_EQ(r.rules->rules.size(), 2u);
  const Rule& a = r.rules->rules[0];
  EXPECT_EQ(a.kind, Rule::Kind::kCounter);
  EXPECT_EQ(a.name, "symbol_errors");
  EXPECT_EQ(a.counter, "SymbolErrorCounterExtended");
  EXPECT_DOUBLE_EQ(a.rate_above, 100.5);
  EXPECT_DOUBLE_EQ(a.per_s, 60);
  EXPECT_EQ(a.action, RuleAction::kTicketOnly);
  EXPECT_TRUE(a.event_types.empty());
  const Rule& b = r.rules->rules[1];
  EXPECT_EQ(b.line, 9);
  EXPECT_DOUBLE_EQ(b.rate_above, 2);
  EXPECT_DOUBLE_EQ(b.per_s, 60);  // default
  EXPECT_EQ(b.action, RuleAction::kDisable);
}

TEST(LoadRulesTextTest, EnabledAcceptsYamlBooleans) {
  for (const char* off : {"false", "no", "off", "False", "FALSE"}) {
    auto r = LoadRulesText(std::string("rules:\n  - name: x\n    enabled: ") + off +
                               "\n    when:\n      event_type: [329]\n    action: disable\n",
                           "f.yaml");
    ASSERT_TRUE(r.ok()) << off << ": " << r.Report();
    EXPECT_TRUE(r.rules->rules.empty()) << off;
  }
}

TEST(LoadRulesTextTest, UnknownTopLevelKeyPathHasNoLeadingDot) {
  auto r = LoadRulesText("rules: []\nextra: 1\n", "f.yaml");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].path, "extra");
}

TEST(LoadRulesTextTest, EnabledFalseDropsTheRule) {
  auto r = LoadRulesText(R"y(rules:
  - name: off
    enabled: false
    when:
      event_type: [329]
    action: disable
  - name: on
    enabled: true
    when:
      event_type: [329]
    action: disable
)y",
                         "f.yaml");
  ASSERT_TRUE(r.ok()) << r.Report();
  ASSERT_EQ(r.rules->rules.size(), 1u);
  EXPECT_EQ(r.rules->rules[0].name, "on");
}

TEST(LoadRulesTextTest, EmptyDocumentHoldsNoRules) {
  auto r = LoadRulesText("", "empty.yaml");
  ASSERT_TRUE(r.ok()) << r.Report();
  EXPECT_TRUE(r.rules->rules.empty());
}

TEST(LoadRulesTextTest, HashDependsOnContent) {
  const std::string a = "rules:\n  - name: a\n    when: {event_type: 329}\n    action: disable\n";
  const std::string b = "rules:\n  - name: a\n    when: {event_type: 328}\n    action: disable\n";
  auto ra = LoadRulesText(a, "f.yaml");
  auto ra2 = LoadRulesText(a, "f.yaml");
  auto rb = LoadRulesText(b, "f.yaml");
  ASSERT_TRUE(ra.ok() && ra2.ok() && rb.ok());
  EXPECT_EQ(ra.rules->hash, ra2.rules->hash);
  EXPECT_NE(ra.rules->hash, rb.rules->hash);
}

// One mistake per document: the diagnostic's code, path and position, and no RuleSet.
struct BadCase {
  std::string label;
  std::string text;
  std::string code;
  std::string path;
  int line;
  int column;
};

class LoadRulesTextErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(LoadRulesTextErrorTest, DiagnosticSaysWhereAndRulesAreNull) {
  const BadCase& c = GetParam();
  auto r = LoadRulesText(c.text, "bad.yaml");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.rules, nullptr);
  const Diagnostic* d = FindCode(r, c.code);
  ASSERT_NE(d, nullptr) << "no [" << c.code << "] in:\n" << r.Report();
  EXPECT_EQ(d->file, "bad.yaml");
  EXPECT_EQ(d->path, c.path) << d->ToString();
  EXPECT_EQ(d->line, c.line) << d->ToString();
  EXPECT_EQ(d->column, c.column) << d->ToString();
  EXPECT_FALSE(d->warning);
  EXPECT_FALSE(d->message.empty());
}

// A good first rule, so that the bad one is rules[1].
const std::string kGood =
    "rules:\n"
    "  - name: good\n"
    "    when:\n"
    "      event_type: [329]\n"
    "    action: disable\n";

INSTANTIATE_TEST_SUITE_P(
    Mistakes, LoadRulesTextErrorTest,
    ::testing::Values(
        BadCase{"YamlSyntax", "rules:\n  - name: [unclosed\n    action: disable\n", "yaml-syntax",
                "", 3, 11},
        BadCase{"UnknownRuleKey",
                kGood + "  - name: x\n    when:\n      event_type: [329]\n    action: disable\n"
                        "    holdd: 30s\n",
                "unknown-key", "rules[1].holdd", 10, 5},
        BadCase{"UnknownWhenKey",
                kGood + "  - name: x\n    when:\n      event_type: [329]\n      mesage: down\n"
                        "    action: disable\n",
                "unknown-key", "rules[1].when.mesage", 9, 7},
        BadCase{"MissingRulesList", "rule:\n  - name: x\n", "bad-document", "", 1, 1},
        BadCase{"BadAction",
                kGood + "  - name: x\n    when:\n      event_type: [329]\n    action: reboot\n",
                "bad-action", "rules[1].action", 9, 13},
        BadCase{"MissingAction", kGood + "  - name: x\n    when:\n      event_type: [329]\n",
                "bad-action", "rules[1].action", 6, 5},
        BadCase{
            "BadEventType",
            kGood + "  - name: x\n    when:\n      event_type: [329, abc]\n    action: disable\n",
            "bad-event-type", "rules[1].when.event_type[1]", 8, 25},
        BadCase{"BadEventTypeScalar",
                kGood + "  - name: x\n    when:\n      event_type: -3\n    action: disable\n",
                "bad-event-type", "rules[1].when.event_type", 8, 19},
        BadCase{"BadPattern",
                kGood +
                    "  - name: x\n    when:\n      event_type: [329]\n      message: \"(down\"\n"
                    "    action: disable\n",
                "bad-pattern", "rules[1].when.message", 9, 16},
        BadCase{"HoldWithoutClear",
                kGood + "  - name: x\n    when:\n      event_type: [329]\n    hold: 30s\n"
                        "    action: disable\n",
                "missing-clear", "rules[1].clear_event_type", 6, 5},
        BadCase{"CountWithoutWindow",
                kGood + "  - name: x\n    when:\n      event_type: [329]\n    count: 3\n"
                        "    action: disable\n",
                "missing-window", "rules[1].window", 6, 5},
        BadCase{"BadCount",
                kGood + "  - name: x\n    when:\n      event_type: [329]\n    count: 0\n"
                        "    action: disable\n",
                "bad-count", "rules[1].count", 9, 12},
        BadCase{"CountTooLarge",
                kGood + "  - name: x\n    when:\n      event_type: [329]\n    count: 1e10\n"
                        "    window: 1m\n    action: disable\n",
                "bad-count", "rules[1].count", 9, 12},
        BadCase{"MessageNotAString",
                kGood + "  - name: x\n    when:\n      event_type: [329]\n      message: [a]\n"
                        "    action: disable\n",
                "bad-pattern", "rules[1].when.message", 9, 16},
        BadCase{"RateIsNan",
                kGood + "  - name: x\n    when:\n      counter: C\n      rate_above: .nan\n"
                        "    action: disable\n",
                "bad-number", "rules[1].when.rate_above", 9, 19},
        BadCase{"EnabledNotABool",
                kGood + "  - name: x\n    enabled: maybe\n    when:\n      event_type: [329]\n"
                        "    action: disable\n",
                "bad-bool", "rules[1].enabled", 7, 14},
        BadCase{"BadWindow",
                kGood + "  - name: x\n    when:\n      event_type: [329]\n    count: 3\n"
                        "    window: 10x\n    action: disable\n",
                "bad-duration", "rules[1].window", 10, 13},
        BadCase{"CounterWithoutRate",
                kGood + "  - name: x\n    when:\n      counter: SymbolErrorCounterExtended\n"
                        "    action: disable\n",
                "missing-rate", "rules[1].when.rate_above", 8, 7},
        BadCase{"CounterRateNotNumber",
                kGood + "  - name: x\n    when:\n      counter: SymbolErrorCounterExtended\n"
                        "      rate_above: lots\n    action: disable\n",
                "bad-number", "rules[1].when.rate_above", 9, 19},
        BadCase{"CounterWithHold",
                kGood + "  - name: x\n    when:\n      counter: SymbolErrorCounterExtended\n"
                        "      rate_above: 1\n    hold: 30s\n    action: disable\n",
                "not-for-counter", "rules[1].hold", 10, 11},
        BadCase{"BothEventTypeAndCounter",
                kGood + "  - name: x\n    when:\n      event_type: [329]\n"
                        "      counter: SymbolErrorCounterExtended\n      rate_above: 1\n"
                        "    action: disable\n",
                "ambiguous-when", "rules[1].when", 8, 7},
        BadCase{"NeitherEventTypeNorCounter",
                kGood + "  - name: x\n    when:\n      message: down\n    action: disable\n",
                "ambiguous-when", "rules[1].when", 8, 7},
        BadCase{"MissingWhen", kGood + "  - name: x\n    action: disable\n", "missing-when",
                "rules[1].when", 6, 5},
        BadCase{"MissingName", kGood + "  - when:\n      event_type: [329]\n    action: disable\n",
                "missing-name", "rules[1].name", 6, 5},
        BadCase{"RuleNotAMapping", kGood + "  - just a string\n", "bad-rule", "rules[1]", 6, 5},
        BadCase{"DuplicateNameInOneFile", kGood + kGood.substr(kGood.find("  - ")),
                "duplicate-name", "", 6, 1}),
    [](const ::testing::TestParamInfo<BadCase>& param) { return param.param.label; });

TEST(LoadRulesTextTest, AllErrorsAreReportedNotJustTheFirst) {
  auto r = LoadRulesText(R"y(rules:
  - name: a
    when:
      event_type: [329]
    action: explode
  - name: b
    when:
      counter: SymbolErrorCounterExtended
    action: disable
)y",
                         "f.yaml");
  EXPECT_EQ(r.rules, nullptr);
  EXPECT_NE(FindCode(r, "bad-action"), nullptr) << r.Report();
  EXPECT_NE(FindCode(r, "missing-rate"), nullptr) << r.Report();
  // Report(): one line per diagnostic.
  const std::string report = r.Report();
  EXPECT_EQ(std::count(report.begin(), report.end(), '\n'),
            static_cast<long>(r.diagnostics.size()));
}

TEST(DiagnosticTest, ToStringHasFileLineColumnCodeAndPath) {
  Diagnostic d;
  d.file = "rules/links.yaml";
  d.line = 12;
  d.column = 7;
  d.path = "rules[1].when.event_type";
  d.code = "bad-event-type";
  d.message = "expected a positive UFM event id";
  const std::string s = d.ToString();
  EXPECT_NE(s.find("rules/links.yaml:12:7"), std::string::npos) << s;
  EXPECT_NE(s.find("[bad-event-type]"), std::string::npos) << s;
  EXPECT_NE(s.find("rules[1].when.event_type"), std::string::npos) << s;
  EXPECT_NE(s.find("error"), std::string::npos) << s;
  EXPECT_NE(s.find("expected a positive UFM event id"), std::string::npos) << s;
}

TEST(DiagnosticTest, ToStringFromALoadedFile) {
  auto r = LoadRulesText(kGood +
                             "  - name: x\n    when:\n      event_type: [0]\n"
                             "    action: disable\n",
                         "links.yaml");
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].ToString().find("links.yaml:8:20"), std::string::npos)
      << r.diagnostics[0].ToString();
}

TEST(DiagnosticTest, ToStringWithoutLineHasNoNumbers) {
  Diagnostic d;
  d.file = "/no/such/dir";
  d.code = "no-rules-dir";
  d.message = "missing";
  d.warning = true;
  EXPECT_EQ(d.ToString(), "/no/such/dir: warning [no-rules-dir]: missing");
}

// LoadRulesDir.

class RulesDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("rules_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream out(dir_ / name, std::ios::binary);
    out << text;
  }

  fs::path dir_;
};

TEST(LoadRulesDirShippedTest, ShippedRulesLoadWithoutErrors) {
  auto r = LoadRulesDir(std::string(UFMR_SOURCE_DIR) + "/rules");
  ASSERT_TRUE(r.ok()) << r.Report();
  EXPECT_TRUE(r.diagnostics.empty()) << r.Report();
  std::set<std::string> names;
  for (const auto& rule : r.rules->rules) names.insert(rule.name);
  EXPECT_TRUE(names.count("link_down"));
  EXPECT_TRUE(names.count("link_flapping"));
  EXPECT_TRUE(names.count("symbol_errors"));
  EXPECT_FALSE(r.rules->files.empty());
  EXPECT_EQ(r.rules->hash.size(), 16u);
  for (const auto& rule : r.rules->rules) {
    EXPECT_GT(rule.line, 0) << rule.name;
    EXPECT_NE(rule.file.find("rules/"), std::string::npos) << rule.file;
  }
}

TEST_F(RulesDirTest, DuplicateNamesAcrossFiles) {
  Write("a.yaml", kGood);
  Write("b.yml", "# second file\n" + kGood);
  auto r = LoadRulesDir(dir_.string());
  EXPECT_EQ(r.rules, nullptr);
  const Diagnostic* d = FindCode(r, "duplicate-name");
  ASSERT_NE(d, nullptr) << r.Report();
  EXPECT_EQ(d->file, (dir_ / "b.yml").string());
  EXPECT_EQ(d->line, 3);
  EXPECT_EQ(d->column, 1);
  EXPECT_NE(d->message.find((dir_ / "a.yaml").string() + ":2"), std::string::npos) << d->message;
}

TEST_F(RulesDirTest, LoadsYamlAndYmlSortedAndIgnoresOtherFiles) {
  Write("b.yml", "rules:\n  - name: b\n    when: {event_type: 329}\n    action: disable\n");
  Write("a.yaml", "rules:\n  - name: a\n    when: {event_type: 329}\n    action: disable\n");
  Write("notes.txt", "this is not yaml: [");
  auto r = LoadRulesDir(dir_.string());
  ASSERT_TRUE(r.ok()) << r.Report();
  ASSERT_EQ(r.rules->rules.size(), 2u);
  EXPECT_EQ(r.rules->rules[0].name, "a");
  EXPECT_EQ(r.rules->rules[1].name, "b");
  EXPECT_EQ(r.rules->files,
            (std::vector<std::string>{(dir_ / "a.yaml").string(), (dir_ / "b.yml").string()}));
}

TEST_F(RulesDirTest, ErrorInOneFileMeansNoRulesAtAll) {
  Write("a.yaml", kGood);
  Write("b.yaml", "rules:\n  - name: b\n    when: {event_type: 329}\n    action: nope\n");
  auto r = LoadRulesDir(dir_.string());
  EXPECT_EQ(r.rules, nullptr);
  const Diagnostic* d = FindCode(r, "bad-action");
  ASSERT_NE(d, nullptr) << r.Report();
  EXPECT_EQ(d->file, (dir_ / "b.yaml").string());
  EXPECT_EQ(d->line, 4);
}

TEST_F(RulesDirTest, EmptyDirIsAWarningOnly) {
  auto r = LoadRulesDir(dir_.string());
  ASSERT_TRUE(r.ok()) << r.Report();
  EXPECT_TRUE(r.rules->rules.empty());
  const Diagnostic* d = FindCode(r, "no-rules");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->warning);
}

TEST(LoadRulesDirTest, MissingDirIsAnError) {
  const std::string dir = std::string(::testing::TempDir()) + "/rules_test_no_such_dir";
  auto r = LoadRulesDir(dir);
  EXPECT_EQ(r.rules, nullptr);
  const Diagnostic* d = FindCode(r, "no-rules-dir");
  ASSERT_NE(d, nullptr) << r.Report();
  EXPECT_EQ(d->file, dir);
  EXPECT_FALSE(d->warning);
}

}  // namespace
}  // namespace ufmr
