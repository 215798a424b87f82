// Covers src/offline/rule_tests.h: ExpandSeries (promtool's series notation and its errors) and
// RunRuleTests over test files written to a temporary folder: a passing test, a failing one whose
// report shows the "- expected, not made" / "+ made, not expected" diff, test files with errors
// (diagnostics at line:column), and the shipped rules/tests.
#include "offline/rule_tests.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "support/test_env.h"

namespace ufmr {
namespace {

using Series = std::vector<std::optional<double>>;

TEST(ExpandSeriesTest, Notation) {
  struct Case {
    std::string text;
    Series want;
  };
  const std::vector<Case> cases = {
      {"0+100x3", {0, 100, 200, 300}},
      {"5x2", {5, 5, 5}},
      {"_", {std::nullopt}},
      {"1 2 3", {1, 2, 3}},
      {"10-2x2", {10, 8, 6}},
      {"-5", {-5}},
      {"-5+1x1", {-5, -4}},
      {"0+10x0", {0}},
      {"1.5+0.5x2", {1.5, 2, 2.5}},
      {"_ 1 _", {std::nullopt, 1, std::nullopt}},
      {"  1\t2\n", {1, 2}},
      {"0+600x2 _ 5x1", {0, 600, 1200, std::nullopt, 5, 5}},
      {"5000000 5000010 0 0 5 10", {5000000, 5000010, 0, 0, 5, 10}},
      // Exponents are part of the number, not the operator.
      {"1e-12", {1e-12}},
      {"2E+3x1", {2000, 2000}},
      {"1e-12+1e-12x2", {1e-12, 2e-12, 3e-12}},
      {"1e3-1e2x1", {1000, 900}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    Series got;
    std::string error;
    EXPECT_TRUE(ExpandSeries(c.text, &got, &error)) << error;
    EXPECT_EQ(got, c.want);
    EXPECT_EQ(error, "");
  }
}

TEST(ExpandSeriesTest, Errors) {
  struct Case {
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"", "empty series"},
      {"   ", "empty series"},
      {"abc", "cannot read 'abc' (expected a, a+bxn, a-bxn, axn or _)"},
      {"1 two 3", "cannot read 'two' (expected a, a+bxn, a-bxn, axn or _)"},
      {"1+2", "'1+2' needs a repeat count, e.g. 0+10x5"},
      {"1x", "bad repeat in '1x'"},
      {"1xa", "bad repeat in '1xa'"},
      {"1x2a", "bad repeat in '1x2a'"},
      {"1x-1", "bad repeat in '1x-1'"},
      {"1x100001", "bad repeat in '1x100001'"},
      {"1+x3", "cannot read '1+x3' (expected a, a+bxn, a-bxn, axn or _)"},
      {"x3", "cannot read 'x3' (expected a, a+bxn, a-bxn, axn or _)"},
      {"1a+2x3", "cannot read '1a+2x3' (expected a, a+bxn, a-bxn, axn or _)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("'" + c.text + "'");
    Series got;
    std::string error;
    EXPECT_FALSE(ExpandSeries(c.text, &got, &error));
    EXPECT_EQ(error, c.error);
  }
  // The largest repeat is allowed.
  Series got;
  std::string error;
  EXPECT_TRUE(ExpandSeries("0x100000", &got, &error)) << error;
  EXPECT_EQ(got.size(), 100001u);
}

// --- RunRuleTests on files --------------------------------------------------------------------

const char* kRules = R"(rules:
  - name: link_down
    description: Link went down and stayed down
    match: {event_id: 329}
    for: 30s
    clear: {event_id: 328}
    action: disable_port
  - name: symbol_errors
    counter: SymbolErrorCounterExtended
    rate: {above: 100, per: 1m}
    action: disable_port
  - name: width
    match: {event_id: 130}
    action: ticket_only
)";

// Two switch ports facing each other, as /resources/ports names them.
const char* kPorts = R"(ports:
  - {name: 9c0591030090e000_33, systemID: 9c0591030090e000, system_name: T3-E21-N-U47, node_description: "T3-E21-N-U47:1/17/1", description: Switch IB Port, label: 1/17/1, peer: fc6a1c0300244e00_8}
  - {name: fc6a1c0300244e00_8, systemID: fc6a1c0300244e00, system_name: T4-E45-L-U51, node_description: "T4-E45-L-U51:1/4/2", description: Switch IB Port, label: 1/4/2, peer: 9c0591030090e000_33}
)";

const char* kDown =
    "\"[329] WARNING Site [default] [Fabric_Topology] Link [Source 9c0591030090e000_33  TO Dest: "
    "fc6a1c0300244e00_8]: Link went down: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - "
    "(Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8, cable S/N: MT2330FT09118\"";
const char* kUp =
    "\"[328] INFO Site [default] [Fabric_Topology] Link [Source 9c0591030090e000_33  TO Dest: "
    "fc6a1c0300244e00_8]: Link is up: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - "
    "(Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8\"";

class RuleTestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("rule_tests_test");
    testing::WriteFile(dir_ + "/rules.yaml", kRules);
  }
  void TearDown() override { testing::RemoveTree(dir_); }

  // Writes a test file (rule_files and ports given) and returns its path.
  std::string TestFile(const std::string& name, const std::string& tests) {
    std::string path = dir_ + "/" + name;
    testing::WriteFile(path, std::string("rule_files: [rules.yaml]\n") + kPorts + tests);
    return path;
  }

  std::string dir_;
};

TEST_F(RuleTestsTest, PassingTests) {
  std::string path = TestFile("pass.yaml", std::string(R"(tests:
  - name: a link that stays down is disabled on its switch side
    events:
      - {at: 0s, line: )") + kDown + R"(}
    expect:
      - {at: 30s, rule: link_down, decision: disable, port: 9c0591030090e000_33, peer: fc6a1c0300244e00_8}
  - name: a link that comes back is left alone
    events:
      - {at: 0s, line: )" + kDown + R"(}
      - {at: 12s, line: )" + kUp + R"(}
    expect: []
  - name: a test that stops early does not see the hold end
    events:
      - {at: 0s, line: )" + kDown + R"(}
    until: 29s
    expect: []
  - name: a symbol-error ramp
    counters:
      - {port: 9c0591030090e000_33, counter: SymbolErrorCounterExtended, interval: 1m, values: "0+600x3"}
    expect:
      - {at: 1m, rule: symbol_errors, decision: disable}
  - name: a counter series with gaps and a later start
    counters:
      - {port: 9c0591030090e000_33, counter: SymbolErrorCounterExtended, interval: 30s, start: 2m, values: "0 _ 10 _ 20"}
    expect: []
  - name: events by id with their own ports
    events:
      - {at: 0s, event_id: 130, name: Non-optimal link width, severity: WARNING, ports: [9c0591030090e000_33, fc6a1c0300244e00_8]}
      - {at: 10s, line: )" + kDown + R"(}
    expect:
      - {at: 0s, rule: width, decision: ticket, port: 9c0591030090e000_33, guard: ticket_only}
      - {at: 40s, rule: link_down, decision: disable}
)");
  RuleTestReport r = RunRuleTests({path});
  EXPECT_TRUE(r.ok()) << r.text << RenderDiagnosticsText(r.diagnostics);
  EXPECT_EQ(r.files, 1);
  EXPECT_EQ(r.tests, 6);
  EXPECT_EQ(r.failed, 0);
  EXPECT_TRUE(r.diagnostics.empty()) << RenderDiagnosticsText(r.diagnostics);
  EXPECT_EQ(r.text, "PASS " + path + ": a link that stays down is disabled on its switch side\n" +
                        "PASS " + path + ": a link that comes back is left alone\n" + "PASS " +
                        path + ": a test that stops early does not see the hold end\n" + "PASS " +
                        path + ": a symbol-error ramp\n" + "PASS " + path +
                        ": a counter series with gaps and a later start\n" + "PASS " + path +
                        ": events by id with their own ports\n");
}

TEST_F(RuleTestsTest, FailingTestShowsTheDiff) {
  std::string path = TestFile("fail.yaml", std::string(R"(tests:
  - name: wrong time and wrong port
    events:
      - {at: 0s, line: )") + kDown + R"(}
    expect:
      - {at: 20s, rule: link_down, decision: disable}
      - {at: 30s, rule: link_down, decision: disable, port: fc6a1c0300244e00_8}
  - name: passes
    events:
      - {at: 0s, line: )" + kDown + R"(}
    expect:
      - {at: 30s, rule: link_down, decision: disable}
)");
  RuleTestReport r = RunRuleTests({path});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.tests, 2);
  EXPECT_EQ(r.failed, 1);
  EXPECT_TRUE(r.diagnostics.empty()) << RenderDiagnosticsText(r.diagnostics);
  // The expectations sit on lines 10 and 11 (rule_files and ports take lines 1 to 4).
  const std::string want =
      "FAIL " + path + ": wrong time and wrong port\n" +
      "  - expected, not made (line 10): at 20s: link_down -> disable\n" +
      "  - expected, not made (line 11): at 30s: link_down -> disable port=fc6a1c0300244e00_8\n" +
      "  + made, not expected: at 30s: link_down -> disable peer=fc6a1c0300244e00_8 "
      "port=9c0591030090e000_33\n" +
      "      reason: Link went down and stayed down (Link is Down, not cleared within 30s); "
      "disable 9c0591030090e000_33\n" +
      "PASS " + path + ": passes\n";
  EXPECT_EQ(r.text, want);
}

TEST_F(RuleTestsTest, ADecisionMatchesOneExpectationOnly) {
  std::string path = TestFile("twice.yaml", std::string(R"(tests:
  - name: expected twice, made once
    events:
      - {at: 0s, line: )") + kDown + R"(}
    expect:
      - {at: 30s, rule: link_down, decision: disable}
      - {at: 30s, rule: link_down, decision: disable}
)");
  RuleTestReport r = RunRuleTests({path});
  EXPECT_EQ(r.failed, 1);
  EXPECT_NE(r.text.find("  - expected, not made (line 11): at 30s: link_down -> disable\n"),
            std::string::npos)
      << r.text;
  EXPECT_EQ(r.text.find("+ made, not expected"), std::string::npos) << r.text;
}

TEST_F(RuleTestsTest, TestFileErrorsAreDiagnosticsWithLineAndColumn) {
  struct Case {
    std::string what;
    std::string tests;  // after rule_files (line 1) and ports (lines 2-4)
    std::string code;
    int line, column;
    std::string path;
  };
  const std::vector<Case> cases = {
      {"a bad time offset",
       "tests:\n  - name: t\n    events:\n      - {at: soon, event_id: 329}\n    expect: []\n",
       "bad-duration", 8, 14, "tests[0].events[0].at"},
      {"an event log line that does not parse",
       "tests:\n  - name: t\n    events:\n      - {at: 0s, line: \"garbage\"}\n    expect: []\n",
       "bad-event", 8, 24, "tests[0].events[0].line"},
      {"an event with neither line nor event_id",
       "tests:\n  - name: t\n    events:\n      - {at: 0s, ports: [a]}\n    expect: []\n",
       "bad-event", 8, 9, "tests[0].events[0]"},
      {"a bad series",
       "tests:\n  - name: t\n    counters:\n      - {port: 9c0591030090e000_33, counter: X, "
       "values: \"1+2\"}\n    expect: []\n",
       "bad-series", 8, 57, "tests[0].counters[0]"},
      {"a series without its counter",
       "tests:\n  - name: t\n    counters:\n      - {port: 9c0591030090e000_33, values: \"1 2\"}\n"
       "    expect: []\n",
       "bad-series", 8, 45, "tests[0].counters[0]"},
      {"a bad port name",
       "tests:\n  - name: t\n    counters:\n      - {port: nope, counter: X, values: \"1 2\"}\n"
       "    expect: []\n",
       "bad-port", 8, 16, "tests[0].counters[0].port"},
      {"a bad interval",
       "tests:\n  - name: t\n    counters:\n      - {port: 9c0591030090e000_33, counter: X, "
       "interval: often, values: \"1 2\"}\n    expect: []\n",
       "bad-duration", 8, 59, "tests[0].counters[0].interval"},
      {"an expectation without a decision",
       "tests:\n  - name: t\n    expect:\n      - {at: 0s, rule: link_down}\n", "bad-expect", 8, 9,
       "tests[0].expect[0]"},
      {"a bad until", "tests:\n  - name: t\n    until: later\n    expect: []\n", "bad-duration", 7,
       12, "tests[0].until"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    std::string path = TestFile("errors.yaml", c.tests);
    RuleTestReport r = RunRuleTests({path});
    EXPECT_FALSE(r.ok());
    const Diagnostic* d = nullptr;
    for (const auto& x : r.diagnostics) {
      if (x.code == c.code) d = &x;
    }
    ASSERT_NE(d, nullptr) << RenderDiagnosticsText(r.diagnostics) << r.text;
    EXPECT_EQ(d->file, path);
    EXPECT_EQ(d->line, c.line) << d->ToString();
    EXPECT_EQ(d->column, c.column) << d->ToString();
    EXPECT_EQ(d->path, c.path);
    EXPECT_FALSE(d->source_line.empty());
    EXPECT_FALSE(d->warning);
    if (c.code != "bad-duration" || c.path != "tests[0].until") {
      // A test with errors is counted as failed, and said so.
      EXPECT_EQ(r.failed, 1);
      EXPECT_NE(r.text.find("FAIL " + path + ": t (the test itself has errors)"), std::string::npos)
          << r.text;
    }
  }
}

TEST_F(RuleTestsTest, BrokenFiles) {
  // Broken YAML.
  std::string broken = dir_ + "/broken.yaml";
  testing::WriteFile(broken, "tests:\n  - name: t\n    expect: [\n");
  RuleTestReport r = RunRuleTests({broken});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.tests, 0);
  ASSERT_EQ(r.diagnostics.size(), 1u) << RenderDiagnosticsText(r.diagnostics);
  EXPECT_EQ(r.diagnostics[0].code, "yaml-syntax");
  EXPECT_EQ(r.diagnostics[0].file, broken);
  EXPECT_GE(r.diagnostics[0].line, 3);
  EXPECT_GE(r.diagnostics[0].column, 1);

  // Not a test file.
  std::string shape = dir_ + "/shape.yaml";
  testing::WriteFile(shape, "rule_files: [rules.yaml]\ntests: {a: 1}\n");
  r = RunRuleTests({shape});
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, "bad-test-file");
  EXPECT_EQ(r.diagnostics[0].line, 1);
  EXPECT_EQ(r.diagnostics[0].column, 1);

  // Rules with errors: their diagnostics, then the test file's.
  testing::WriteFile(dir_ + "/bad_rules.yaml",
                     "rules:\n  - name: r\n    match: {event_id: 329}\n    window: soon\n"
                     "    action: log_only\n");
  std::string uses_bad = dir_ + "/uses_bad.yaml";
  testing::WriteFile(uses_bad,
                     "rule_files: [bad_rules.yaml]\ntests:\n  - name: t\n    expect: []\n");
  r = RunRuleTests({uses_bad});
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 2u) << RenderDiagnosticsText(r.diagnostics);
  EXPECT_EQ(r.diagnostics[0].code, "bad-duration");
  EXPECT_EQ(r.diagnostics[0].file, dir_ + "/bad_rules.yaml");
  EXPECT_EQ(r.diagnostics[0].line, 4);
  EXPECT_EQ(r.diagnostics[0].column, 13);
  EXPECT_EQ(r.diagnostics[1].code, "rules-not-loaded");
  EXPECT_EQ(r.diagnostics[1].file, uses_bad);
  EXPECT_EQ(r.diagnostics[1].line, 1);
  EXPECT_EQ(r.diagnostics[1].column, 13);

  // Missing paths.
  r = RunRuleTests({dir_ + "/nope.yaml"});
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, "no-such-file");

  // A file with no tests is not a passing run.
  std::string empty = dir_ + "/empty_tests.yaml";
  testing::WriteFile(empty, "rule_files: [rules.yaml]\ntests: []\n");
  r = RunRuleTests({empty});
  EXPECT_EQ(r.tests, 0);
  EXPECT_TRUE(r.diagnostics.empty());
  EXPECT_FALSE(r.ok());
}

TEST_F(RuleTestsTest, FoldersRunEveryTestFileInNameOrder) {
  const std::string tests = dir_ + "/tests";
  std::filesystem::create_directory(tests);
  const std::string body = std::string("rule_files: [../rules.yaml]\n") + kPorts +
                           "tests:\n  - name: quiet\n    expect: []\n";
  testing::WriteFile(tests + "/b.yml", body);
  testing::WriteFile(tests + "/a.yaml", body);
  testing::WriteFile(tests + "/notes.txt", "not a test");
  RuleTestReport r = RunRuleTests({tests});
  EXPECT_TRUE(r.ok()) << r.text << RenderDiagnosticsText(r.diagnostics);
  EXPECT_EQ(r.files, 2);
  EXPECT_EQ(r.tests, 2);
  EXPECT_EQ(r.text, "PASS " + tests + "/a.yaml: quiet\nPASS " + tests + "/b.yml: quiet\n");

  // Without rule_files, the rules are the folder above the test file.
  testing::WriteFile(tests + "/a.yaml", std::string(kPorts) +
                                            "tests:\n  - name: default rules\n    events:\n"
                                            "      - {at: 0s, line: " +
                                            kDown +
                                            "}\n    expect:\n      - {at: 30s, rule: link_down, "
                                            "decision: disable}\n");
  r = RunRuleTests({tests + "/a.yaml"});
  EXPECT_TRUE(r.ok()) << r.text << RenderDiagnosticsText(r.diagnostics);
}

TEST(ShippedRuleTestsTest, AllPass) {
  RuleTestReport r = RunRuleTests({testing::SourceDir() + "/rules/tests"});
  EXPECT_TRUE(r.ok()) << r.text << RenderDiagnosticsText(r.diagnostics);
  EXPECT_GT(r.files, 0);
  EXPECT_GT(r.tests, 0);
  EXPECT_EQ(r.failed, 0) << r.text;
  EXPECT_FALSE(HasErrors(r.diagnostics)) << RenderDiagnosticsText(r.diagnostics);
}

}  // namespace
}  // namespace ufmr
