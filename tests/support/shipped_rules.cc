#include "shipped_rules.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_env.h"

namespace ufmr::testing {
namespace {

// Makes `edit` in `text`; false (with a test failure) when there is nothing to change.
bool Apply(const RulesEdit& edit, std::string* text) {
  const size_t after = edit.after.empty() ? 0 : text->find(edit.after);
  const size_t at = after == std::string::npos ? after : text->find(edit.from, after);
  if (at == std::string::npos) {
    ADD_FAILURE() << "rules/" << edit.file << ": no \"" << edit.from << "\""
                  << (edit.after.empty() ? "" : " after \"" + edit.after + "\"");
    return false;
  }
  text->replace(at, edit.from.size(), edit.to);
  return true;
}

}  // namespace

RulesEdit ShortHold() { return {"links.yaml", "name: link_down", "for: 30s", "for: 1s"}; }

bool ShippedRules(const std::string& dir, const std::vector<RulesEdit>& edits) {
  std::filesystem::create_directories(dir);
  size_t made = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SourceDir() + "/rules")) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string file = entry.path().filename().string();
    std::string rules = ReadFile(entry.path().string());
    for (const RulesEdit& edit : edits) {
      if (edit.file != file) continue;
      if (!Apply(edit, &rules)) return false;
      ++made;
    }
    WriteFile(dir + "/" + file, rules);
  }
  if (made != edits.size()) {
    ADD_FAILURE() << "an edit names a file the shipped rules do not have";
    return false;
  }
  return true;
}

bool ShippedRulesWithShortHold(const std::string& dir) { return ShippedRules(dir, {ShortHold()}); }

}  // namespace ufmr::testing
