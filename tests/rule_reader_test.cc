// Covers src/rules/rule_reader.h, the first stage of loading rules: which files a list of paths
// names (files as given, a folder's *.yaml / *.yml sorted by name, nothing else), what a missing
// path, an empty folder or no paths at all report, and parsing: a document per source, a syntax
// error at its line and column with the source kept unparsed.
#include "rules/rule_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/test_env.h"

namespace ufmr {
namespace {

std::vector<std::string> Names(const std::vector<RuleSource>& sources) {
  std::vector<std::string> out;
  for (const auto& s : sources) out.push_back(s.name);
  return out;
}

TEST(RuleReaderTest, ReadsFilesAsGivenAndFoldersByName) {
  const std::string dir = testing::MakeTempDir("rule_reader_test");
  testing::WriteFile(dir + "/b.yaml", "rules: []\n");
  testing::WriteFile(dir + "/a.yml", "lists: {}\n");
  testing::WriteFile(dir + "/notes.txt", "not rules\n");
  std::filesystem::create_directories(dir + "/sub");
  testing::WriteFile(dir + "/sub/c.yaml", "rules: []\n");  // not read: one level only
  testing::WriteFile(dir + "/sub/d.yaml", "rules: [x]\n");
  std::vector<Diagnostic> diags;
  auto sources = ReadRuleSources({dir + "/sub/d.yaml", dir}, &diags);
  EXPECT_TRUE(diags.empty()) << RenderDiagnosticsText(diags);
  EXPECT_EQ(Names(sources),
            (std::vector<std::string>{dir + "/sub/d.yaml", dir + "/a.yml", dir + "/b.yaml"}));
  ASSERT_EQ(sources.size(), 3u);
  EXPECT_EQ(sources[0].text, "rules: [x]\n");
  EXPECT_EQ(sources[1].text, "lists: {}\n");
  for (const auto& s : sources) EXPECT_FALSE(s.parsed);  // reading does not parse
  testing::RemoveTree(dir);
}

TEST(RuleReaderTest, MissingPathIsAnErrorAndTheRestIsRead) {
  const std::string dir = testing::MakeTempDir("rule_reader_test");
  testing::WriteFile(dir + "/a.yaml", "rules: []\n");
  std::vector<Diagnostic> diags;
  auto sources = ReadRuleSources({dir + "/nope.yaml", dir + "/a.yaml"}, &diags);
  EXPECT_EQ(Names(sources), (std::vector<std::string>{dir + "/a.yaml"}));
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "no-such-file");
  EXPECT_EQ(diags[0].file, dir + "/nope.yaml");
  EXPECT_FALSE(diags[0].warning);
  EXPECT_TRUE(HasErrors(diags));
  testing::RemoveTree(dir);
}

TEST(RuleReaderTest, FolderWithoutRulesIsAWarning) {
  const std::string dir = testing::MakeTempDir("rule_reader_test");
  testing::WriteFile(dir + "/readme.md", "no rules here\n");
  std::vector<Diagnostic> diags;
  auto sources = ReadRuleSources({dir}, &diags);
  EXPECT_TRUE(sources.empty());
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "no-rules");
  EXPECT_EQ(diags[0].file, dir);
  EXPECT_TRUE(diags[0].warning);
  EXPECT_FALSE(HasErrors(diags));
  testing::RemoveTree(dir);
}

TEST(RuleReaderTest, NoPathsIsAnError) {
  std::vector<Diagnostic> diags;
  auto sources = ReadRuleSources({}, &diags);
  EXPECT_TRUE(sources.empty());
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "no-rules");
  EXPECT_EQ(diags[0].file, "");
  EXPECT_FALSE(diags[0].warning);
}

TEST(RuleReaderTest, ParseMakesADocumentPerSource) {
  std::vector<RuleSource> sources = {{"a.yaml", "rules:\n  - name: r\n", {}, false},
                                     {"empty.yaml", "", {}, false}};
  std::vector<Diagnostic> diags;
  ParseRuleSources(&sources, &diags);
  EXPECT_TRUE(diags.empty()) << RenderDiagnosticsText(diags);
  ASSERT_TRUE(sources[0].parsed);
  ASSERT_TRUE(sources[0].doc.IsMap());
  EXPECT_EQ(sources[0].doc["rules"][0]["name"].Scalar(), "r");
  EXPECT_TRUE(sources[1].parsed);
  EXPECT_TRUE(sources[1].doc.IsNull());
}

TEST(RuleReaderTest, SyntaxErrorAtItsLineAndColumnLeavesTheSourceUnparsed) {
  std::vector<RuleSource> sources = {{"bad.yaml", "rules:\n  - name: [r\n", {}, false},
                                     {"good.yaml", "rules: []\n", {}, false}};
  std::vector<Diagnostic> diags;
  ParseRuleSources(&sources, &diags);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "yaml-syntax");
  EXPECT_EQ(diags[0].file, "bad.yaml");
  EXPECT_GE(diags[0].line, 2);
  EXPECT_GE(diags[0].column, 1);
  EXPECT_FALSE(diags[0].message.empty());
  EXPECT_FALSE(sources[0].parsed);
  EXPECT_EQ(sources[0].text, "rules:\n  - name: [r\n");  // kept: it still counts in the hash
  EXPECT_TRUE(sources[1].parsed);
}

}  // namespace
}  // namespace ufmr
