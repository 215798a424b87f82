// Covers src/rules/rule_fields.h, the field reader the collect and compile stages share: where a
// diagnostic is placed (the file set, 1-based line and column, unplaced for a missing node);
// errors counted apart from warnings; unknown keys with "did you mean" or the expected keys;
// durations (units, negatives, the 366-day cap), numbers, words, RE2 patterns and templates
// (placeholders placed in the file's text, an unclosed brace); EditDistance.
#include "rules/rule_fields.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ufmr {
namespace {

struct Fixture {
  std::vector<Diagnostic> diags;
  FieldReader reader{&diags};
  std::string text;
  YAML::Node doc;

  explicit Fixture(std::string yaml) : text(std::move(yaml)), doc(YAML::Load(text)) {
    reader.SetFile("f.yaml", &text);
  }
};

TEST(FieldReaderTest, DiagnosticsNameTheFileLineAndColumn) {
  Fixture f("a:\n  b: x\n");
  f.reader.Error(f.doc["a"]["b"], "a.b", "bad-b", "no");
  f.reader.Warn(f.doc["a"], "a", "odd-a", "hm");
  ASSERT_EQ(f.diags.size(), 2u);
  EXPECT_EQ(f.diags[0].file, "f.yaml");
  EXPECT_EQ(f.diags[0].line, 2);
  EXPECT_EQ(f.diags[0].column, 6);
  EXPECT_EQ(f.diags[0].path, "a.b");
  EXPECT_EQ(f.diags[0].code, "bad-b");
  EXPECT_EQ(f.diags[0].message, "no");
  EXPECT_FALSE(f.diags[0].warning);
  EXPECT_TRUE(f.diags[1].warning);
  EXPECT_EQ(f.reader.errors(), 1);  // warnings do not count
  // A node that is not in the file: the diagnostic is unplaced.
  Diagnostic d = f.reader.Make(f.doc["nope"], "nope", "missing", "");
  EXPECT_EQ(d.line, 0);
  EXPECT_EQ(d.column, 0);
  f.reader.SetFile("other.yaml");
  EXPECT_EQ(f.reader.Make(f.doc["a"], "a", "x", "").file, "other.yaml");
}

TEST(FieldReaderTest, UnknownKeysAreWarningsWithASuggestion) {
  Fixture f("mdoe: shadow\ncolour: red\nmode: enforce\n");
  f.reader.CheckKeys(f.doc, "", {"mode", "name"});
  ASSERT_EQ(f.diags.size(), 2u);
  EXPECT_EQ(f.diags[0].code, "unknown-key");
  EXPECT_TRUE(f.diags[0].warning);
  EXPECT_EQ(f.diags[0].path, "mdoe");
  EXPECT_EQ(f.diags[0].message, "unknown key 'mdoe' is ignored; did you mean 'mode'?");
  EXPECT_EQ(f.diags[1].message, "unknown key 'colour' is ignored (expected one of: mode, name)");
  EXPECT_EQ(f.reader.errors(), 0);
  Fixture nested("m: {x: 1}\n");
  nested.reader.CheckKeys(nested.doc["m"], "rules[0].m", {"y"});
  ASSERT_EQ(nested.diags.size(), 1u);
  EXPECT_EQ(nested.diags[0].path, "rules[0].m.x");
}

TEST(FieldReaderTest, Durations) {
  Fixture f("ok: 10m\nbad: soon\nlong: 367d\nlist: [1s]\nmost: 366d\n");
  double s = -1;
  EXPECT_TRUE(f.reader.Duration(f.doc["ok"], "ok", &s));
  EXPECT_EQ(s, 600);
  EXPECT_TRUE(f.reader.Duration(f.doc["most"], "most", &s));
  EXPECT_EQ(s, 366.0 * 86400);
  s = -1;
  EXPECT_FALSE(f.reader.Duration(f.doc["bad"], "bad", &s));
  EXPECT_FALSE(f.reader.Duration(f.doc["long"], "long", &s));
  EXPECT_FALSE(f.reader.Duration(f.doc["list"], "list", &s));
  EXPECT_EQ(s, -1);  // untouched on error
  ASSERT_EQ(f.diags.size(), 3u);
  for (const auto& d : f.diags) EXPECT_EQ(d.code, "bad-duration");
  EXPECT_EQ(f.diags[1].message, "at most 366d: longer windows and holds are not rules");
  EXPECT_EQ(f.diags[2].message, "expected a duration like 30s, 10m, 2h");
  EXPECT_EQ(f.reader.errors(), 3);
}

TEST(FieldReaderTest, Numbers) {
  Fixture f("ok: 2.5\nzero: 0\nneg: -1\nword: many\ninf: .inf\nmap: {a: 1}\n");
  double v = -1;
  EXPECT_TRUE(f.reader.Number(f.doc["ok"], "ok", &v));
  EXPECT_EQ(v, 2.5);
  EXPECT_TRUE(f.reader.Number(f.doc["zero"], "zero", &v));
  EXPECT_EQ(v, 0);
  EXPECT_FALSE(f.reader.Number(f.doc["neg"], "neg", &v));
  EXPECT_FALSE(f.reader.Number(f.doc["word"], "word", &v));
  EXPECT_FALSE(f.reader.Number(f.doc["inf"], "inf", &v));
  EXPECT_FALSE(f.reader.Number(f.doc["map"], "map", &v));
  ASSERT_EQ(f.diags.size(), 4u);
  EXPECT_EQ(f.diags[0].message, "expected a finite number >= 0");
  EXPECT_EQ(f.diags[1].message, "expected a number");
  EXPECT_EQ(f.diags[2].message, "expected a finite number >= 0");
  EXPECT_EQ(f.diags[3].message, "expected a number");
  for (const auto& d : f.diags) EXPECT_EQ(d.code, "bad-number");
}

TEST(FieldReaderTest, WordsTakeTheirCodeFromTheField) {
  Fixture f("mode: shadow\nscope: everywhere\n");
  std::string w;
  EXPECT_TRUE(f.reader.Word(f.doc["mode"], "rules[0].mode", {"enforce", "shadow"}, &w));
  EXPECT_EQ(w, "shadow");
  EXPECT_FALSE(f.reader.Word(f.doc["scope"], "rules[0].scope", {"port", "link"}, &w));
  EXPECT_EQ(w, "shadow");
  ASSERT_EQ(f.diags.size(), 1u);
  EXPECT_EQ(f.diags[0].code, "bad-scope");
  EXPECT_EQ(f.diags[0].message, "expected one of: link, port");
}

TEST(FieldReaderTest, Patterns) {
  Fixture f("ok: \"^sw-[0-9]+$\"\nbad: \"(unclosed\"\nlist: [a]\n");
  auto re = f.reader.Pattern(f.doc["ok"], "ok");
  ASSERT_NE(re, nullptr);
  EXPECT_TRUE(RE2::FullMatch("sw-12", *re));
  EXPECT_EQ(f.reader.Pattern(f.doc["bad"], "bad"), nullptr);
  EXPECT_EQ(f.reader.Pattern(f.doc["list"], "list"), nullptr);
  ASSERT_EQ(f.diags.size(), 2u);
  EXPECT_EQ(f.diags[0].code, "bad-pattern");
  EXPECT_NE(f.diags[0].message.find("invalid RE2 pattern"), std::string::npos);
  EXPECT_EQ(f.diags[1].message, "expected one RE2 pattern (a string)");
}

TEST(FieldReaderTest, TemplatesPlaceEachBadPlaceholder) {
  Fixture f("t: \"{port} {nope} and {bogus}\"\nu: \"Down {port\"\nv: [a]\nw: Down on {port}\n");
  std::string out;
  f.reader.Template(f.doc["t"], "t", &out);
  EXPECT_EQ(out, "{port} {nope} and {bogus}");  // kept: the load fails on the errors anyway
  ASSERT_EQ(f.diags.size(), 2u);
  EXPECT_EQ(f.diags[0].code, "bad-template");
  EXPECT_EQ(f.diags[0].line, 1);
  EXPECT_EQ(f.diags[0].column, 12);
  EXPECT_NE(f.diags[0].message.find("unknown placeholder {nope} (known: rule, reason"),
            std::string::npos)
      << f.diags[0].message;
  EXPECT_EQ(f.diags[1].column, 23);
  f.reader.Template(f.doc["u"], "u", &out);
  ASSERT_EQ(f.diags.size(), 3u);
  EXPECT_EQ(f.diags[2].message, "'{' without a closing '}'");
  EXPECT_EQ(f.diags[2].line, 2);
  EXPECT_EQ(f.diags[2].column, 10);
  f.reader.Template(f.doc["v"], "v", &out);
  ASSERT_EQ(f.diags.size(), 4u);
  EXPECT_EQ(f.diags[3].message, "expected a string");
  f.reader.Template(f.doc["w"], "w", &out);
  EXPECT_EQ(out, "Down on {port}");
  EXPECT_EQ(f.diags.size(), 4u);
  EXPECT_EQ(f.reader.errors(), 4);
}

TEST(FieldReaderTest, TemplateWithoutTheFilesTextStaysAtTheScalar) {
  Fixture f("t: \"a {nope}\"\n");
  f.reader.SetFile("f.yaml");  // no text to search
  std::string out;
  f.reader.Template(f.doc["t"], "t", &out);
  ASSERT_EQ(f.diags.size(), 1u);
  EXPECT_EQ(f.diags[0].line, 1);
  EXPECT_EQ(f.diags[0].column, 4);
}

TEST(FieldReaderTest, EditDistance) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("mode", "mode"), 0u);
  EXPECT_EQ(EditDistance("mdoe", "mode"), 2u);
  EXPECT_EQ(EditDistance("windw", "window"), 1u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

}  // namespace
}  // namespace ufmr
