// Rule tests: engineers test a rules change offline, the way `promtool test rules` does. A test
// file names the rules files it tests, an inline fabric (ports), and tests: events and counter
// series at given times in, the decisions expected at given times out. Each test runs the whole
// decision path (ReplayPipeline) and compares every decision it makes with the expected ones: a
// decision expected but not made, or made but not expected, fails the test with a readable diff.
// Format: rules/README.md. Thread-safe (no shared state).
#pragma once

#include <string>
#include <vector>

#include "base/diagnostic.h"

namespace ufmr {

struct RuleTestReport {
  int files = 0;
  int tests = 0;
  int failed = 0;
  std::vector<Diagnostic> diagnostics;  // test files or rules that could not be loaded
  std::string text;                     // what to print: one line per test, diffs for failures
  bool ok() const { return failed == 0 && !HasErrors(diagnostics) && tests > 0; }
};

// Runs every test file among `paths` (files, or folders of *.yaml / *.yml). A test file's
// `rule_files` are relative to the test file.
RuleTestReport RunRuleTests(const std::vector<std::string>& paths);

// Expands a promtool-style series: "0+100x3" -> 0 100 200 300, "5x2" -> 5 5 5, "_" -> missing
// (nullopt), "1 2 3" as written; numbers may carry exponents ("1e-12+1e-13x2"). False (with *error)
// on anything else.
bool ExpandSeries(const std::string& text, std::vector<std::optional<double>>* out,
                  std::string* error);

}  // namespace ufmr
