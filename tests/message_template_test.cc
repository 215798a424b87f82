// MessageTemplate: a title or repair hint split once into literal runs and placeholders, as
// rendering reads it; a compiled rule carries its templates parsed and its findings share them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decide/decision.h"
#include "rules/rule_loader.h"
#include "rules/rule_state.h"
#include "rules/rules.h"
#include "rules/subject_resolver.h"

namespace ufmr {
namespace {

using Field = MessageTemplate::Field;

// The parts as "T:text" / "F:<field number>" / "U:name", for comparing.
std::vector<std::string> Parts(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& p : MessageTemplate::Parse(text).parts) {
    if (p.field == Field::kText) {
      out.push_back("T:" + p.text);
    } else if (p.field == Field::kUnknown) {
      out.push_back("U:" + p.text);
    } else {
      out.push_back("F:" + std::to_string(static_cast<int>(p.field)));
    }
  }
  return out;
}

std::string F(Field f) { return "F:" + std::to_string(static_cast<int>(f)); }

TEST(MessageTemplateTest, SplitsLiteralsAndPlaceholders) {
  EXPECT_TRUE(Parts("").empty());
  EXPECT_EQ(Parts("plain text"), std::vector<std::string>{"T:plain text"});
  EXPECT_EQ(Parts("{port_node} {port_label} <-> {peer}"),
            (std::vector<std::string>{F(Field::kPortNode), "T: ", F(Field::kPortLabel), "T: <-> ",
                                      F(Field::kPeer)}));
  // Every placeholder name has its field; TemplatePlaceholders lists the same names.
  for (const auto& name : TemplatePlaceholders()) {
    auto parts = MessageTemplate::Parse("{" + name + "}").parts;
    ASSERT_EQ(parts.size(), 1u) << name;
    EXPECT_NE(parts[0].field, Field::kText) << name;
    EXPECT_NE(parts[0].field, Field::kUnknown) << name;
  }
}

TEST(MessageTemplateTest, OddBracesReadAsRenderingAlwaysDid) {
  // An unknown name is kept, to be written back with its braces; so is an empty one.
  EXPECT_EQ(Parts("a {nope} b"), (std::vector<std::string>{"T:a ", "U:nope", "T: b"}));
  EXPECT_EQ(Parts("{}"), std::vector<std::string>{"U:"});
  // A '{' before the closing one belongs to the name.
  EXPECT_EQ(Parts("{a{b}c"), (std::vector<std::string>{"U:a{b", "T:c"}));
  // A '{' with no '}' after it, and the rest, is literal; a lone '}' is literal.
  EXPECT_EQ(Parts("x {port} {tail"),
            (std::vector<std::string>{"T:x ", F(Field::kPort), "T: {tail"}));
  EXPECT_EQ(Parts("a } b"), std::vector<std::string>{"T:a } b"});
  EXPECT_EQ(MessageTemplate::Parse("ab{rule}cd").literal_bytes, 4u);
}

TEST(MessageTemplateTest, ACompiledRulesFindingsShareItsParsedTemplates) {
  auto rules = LoadRulesText(R"(rules:
  - name: down
    match: {event_id: 329}
    action: ticket_only
    title: "Down: {port_node} {port_label}"
    repair_hint: "Reseat {cable_serial}"
  - name: bare
    match: {event_id: 328}
    action: ticket_only
)",
                             "templates.yaml");
  ASSERT_TRUE(rules.ok()) << rules.Report();
  const Rule& down = rules.rules->rules[0];
  const Rule& bare = rules.rules->rules[1];
  ASSERT_TRUE(down.title_template);
  ASSERT_TRUE(down.hint_template);
  EXPECT_FALSE(bare.title_template);
  EXPECT_FALSE(bare.hint_template);
  EXPECT_EQ(down.title, "Down: {port_node} {port_label}");  // the text stays the rule's

  ObservationSubjects s;
  Finding f = MakeFinding(down, s, TimePoint(), "hash", true, nullptr);
  EXPECT_EQ(f.title_template.get(), down.title_template.get());
  EXPECT_EQ(f.hint_template.get(), down.hint_template.get());
  EXPECT_TRUE(f.title.empty());  // not copied as text as well
  EXPECT_TRUE(f.repair_hint.empty());
  Finding g = MakeFinding(bare, s, TimePoint(), "hash", true, nullptr);
  EXPECT_FALSE(g.title_template);
  EXPECT_TRUE(g.title.empty());
}

// Rules reloaded between a finding and its decision: the finding's templates are its own share,
// not the old rule set's, and still render.
TEST(MessageTemplateTest, AFindingOutlivesItsRuleSet) {
  auto loaded = LoadRulesText(R"yaml(rules:
  - name: down
    match: {event_id: 329}
    action: ticket_only
    title: "Down on {port} ({severity})"
    repair_hint: "Reseat {cable_serial}"
)yaml",
                              "reload.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.Report();
  ObservationSubjects s;
  Finding f = MakeFinding(loaded.rules->rules[0], s, TimePoint(), "hash", true, nullptr);
  f.cable_serial = "MT2330FT09118";
  loaded.rules.reset();  // the reload: the old set is gone
  Decision d;
  d.rule = "down";
  d.port = "a_1";
  d.severity = "major";
  ASSERT_TRUE(f.title_template);
  EXPECT_EQ(RenderTemplate(*f.title_template, d, f, nullptr, nullptr), "Down on a_1 (major)");
  EXPECT_EQ(RenderTemplate(*f.hint_template, d, f, nullptr, nullptr), "Reseat MT2330FT09118");
}

}  // namespace
}  // namespace ufmr
