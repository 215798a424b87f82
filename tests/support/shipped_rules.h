// Test support: a copy of the shipped rules (rules/*.yaml) in a test's folder, with edits, so a
// test of the service runs the rules a site gets, in seconds. Use from the test's main thread (a
// failed edit is a test failure).
#pragma once

#include <string>
#include <vector>

namespace ufmr::testing {

// One change to one shipped rules file: the first `from` at or after the first `after` (from the
// start when `after` is empty) becomes `to`.
struct RulesEdit {
  std::string file;  // e.g. "links.yaml"
  std::string after;
  std::string from;
  std::string to;
};

// link_down's 30 s hold made 1 s.
RulesEdit ShortHold();

// Copies the shipped rules into `dir` (created if need be) with `edits` made in order. False, with
// a test failure naming it, when an edit finds nothing to change.
bool ShippedRules(const std::string& dir, const std::vector<RulesEdit>& edits);

// The shipped rules with link_down's hold made 1 s: ShippedRules(dir, {ShortHold()}).
bool ShippedRulesWithShortHold(const std::string& dir);

}  // namespace ufmr::testing
