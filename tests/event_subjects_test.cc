// Covers src/ingest/event_subjects.h: the ports a UFM link message names with their switch or host,
// in both message shapes (older "<guid> (Switch: name) : n", newer "(Switch:name:label)<guid>:n"),
// the scanner against the patterns that define those shapes (RE2, as they were first written) over
// generated near-miss texts, NodeKey normalization, and which object types name a switch or a host.
#include "ingest/event_subjects.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <random>
#include <string>
#include <vector>

#include "base/text.h"

namespace ufmr {

// For EXPECT_EQ on vectors of subjects (found by argument-dependent lookup, so in ufmr).
static bool operator==(const PortSubject& a, const PortSubject& b) {
  return a.port == b.port && a.is_switch == b.is_switch && a.node == b.node && a.label == b.label;
}
// Printed by gtest in failure messages.
static void PrintTo(const PortSubject& s, std::ostream* os) {
  *os << "{" << s.port << ", " << (s.is_switch ? "switch" : "host") << ", '" << s.node << "', '"
      << s.label << "'}";
}

namespace {

TEST(ExtractPortSubjectsTest, MessageShapes) {
  struct Case {
    std::string what;
    std::string text;
    std::vector<PortSubject> want;
  };
  const std::vector<Case> cases = {
      {"older shape (UFM <= 6.x event log)",
       "Link went down: f4521403008817f0 (Switch: mellanox-SX6036) : 12 - e41d2d0300a4f482 "
       "(Computer: fsgb001 HCA-1) : 1",
       {{"f4521403008817f0_12", true, "mellanox-SX6036", ""},
        {"e41d2d0300a4f482_1", false, "fsgb001 HCA-1", ""}}},
      {"newer shape with labels",
       "Link went down: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - "
       "(Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8, cable S/N: MT2330FT09118",
       {{"9c0591030090e000_33", true, "T3-E21-N-U47", "1/17/1"},
        {"fc6a1c0300244e00_8", true, "T4-E45-L-U51", "1/4/2"}}},
      {"newer shape, a host end without a label",
       "Link went down: (Switch:T3-E21-N-U47:1/1/1)9c0591030090e000:1 - (Computer:fsgb001 "
       "HCA-1)e41d2d0300a4f482:1",
       {{"9c0591030090e000_1", true, "T3-E21-N-U47", "1/1/1"},
        {"e41d2d0300a4f482_1", false, "fsgb001 HCA-1", ""}}},
      {"0x prefix and upper-case GUID",
       "Link is up: (Switch: LEAF-1 : 1/2/1 )0x9C0591030090E000:3",
       {{"9c0591030090e000_3", true, "LEAF-1", "1/2/1"}}},
      {"older shape with spaces and upper-case GUID",
       "F4521403008817F0   ( switch :  sw-1  )   :   7",
       {{"f4521403008817f0_7", true, "sw-1", ""}}},
      {"older shape with a label in the node",
       "f4521403008817f0 (Switch: T3-E21-N-U47:1/17/1) : 33",
       {{"f4521403008817f0_33", true, "T3-E21-N-U47", "1/17/1"}}},
      {"the same port twice is one subject",
       "(Switch:a:1/1/1)9c0591030090e000:1 then again (Switch:b:1/1/1)9c0591030090e000:1",
       {{"9c0591030090e000_1", true, "a", "1/1/1"}}},
      {"older before newer, each in order",
       "(Switch:new:1/1/1)9c0591030090e000:1 - f4521403008817f0 (Switch: old) : 2",
       {{"f4521403008817f0_2", true, "old", ""}, {"9c0591030090e000_1", true, "new", "1/1/1"}}},
      {"other node kinds are hosts",
       "(Router:r-1)1111111111111111:4 - (Host:h-1)2222222222222222:1",
       {{"1111111111111111_4", false, "r-1", ""}, {"2222222222222222_1", false, "h-1", ""}}},
      {"no parenthesis", "Link went down: 9c0591030090e000_33 - fc6a1c0300244e00_8", {}},
      {"a GUID that is too short", "(Switch:a)9c0591030090e00:1", {}},
      {"no port number", "(Switch:a)9c0591030090e000", {}},
      {"empty", "", {}},
      {"threshold events name their peer only by name and label or number (no GUID)",
       "Link-Downed counter delta threshold exceeded. Threshold is 0, calculated delta is 1. Peer "
       "info: Computer: c931f03p08 HCA-1 / 1.",
       {}},
      {"... or as a switch's node and label",
       "Symbol error counter rate threshold exceeded. Peer info: Default / Switch: T4-E45-L-U51 / "
       "1/4/2.",
       {}},
      // IBM CAST's sample: the host is named by its node GUID (its port is e41d2d0300ff4939_2).
      // The subject says what the text says; callers match it against ports they know only.
      {"older shape naming a host by its node GUID",
       "Link went down: 248a0703006d40f0 (Switch: c931ibsw-leaf01) : 12 - e41d2d0300ff4938 "
       "(Computer: c931f02p18 HCA-1) : 2",
       {{"248a0703006d40f0_12", true, "c931ibsw-leaf01", ""},
        {"e41d2d0300ff4938_2", false, "c931f02p18 HCA-1", ""}}},
      {"event 702 names its peer only as node:label",
       "Peer Port T2-E63-L-U37:1/19/2 is considered by SM as unhealthy due to FLAPPING.",
       {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(ExtractPortSubjects(c.text), c.want);
  }
}

// The shapes as patterns: what the scanner must find, in the same order.
std::vector<PortSubject> ByPatterns(std::string_view text) {
  static const RE2 older(R"(([0-9a-fA-F]{16})\s*\(\s*(\w+)\s*:\s*([^)]*)\)\s*:\s*(\d+))");
  static const RE2 newer(R"(\(\s*(\w+)\s*:\s*([^)]*)\)\s*(?:0x)?([0-9a-fA-F]{16})\s*:\s*(\d+))");
  std::vector<PortSubject> out;
  auto add = [&](re2::StringPiece g, re2::StringPiece n, re2::StringPiece k, re2::StringPiece nd) {
    std::string_view guid(g.data(), g.size()), number(n.data(), n.size());
    std::string_view kind(k.data(), k.size()), node(nd.data(), nd.size());
    PortSubject s;
    s.port = AsciiLower(guid) + "_" + std::string(number);
    for (const auto& e : out) {
      if (e.port == s.port) return;
    }
    s.is_switch = AsciiLower(kind) == "switch";
    node = TrimBlanks(node);
    if (size_t colon = node.find(':'); colon != std::string_view::npos) {
      s.label = std::string(TrimBlanks(node.substr(colon + 1)));
      node = TrimBlanks(node.substr(0, colon));
    }
    s.node = std::string(node);
    out.push_back(std::move(s));
  };
  re2::StringPiece guid, kind, node, number;
  re2::StringPiece in(text.data(), text.size());
  while (RE2::FindAndConsume(&in, older, &guid, &kind, &node, &number))
    add(guid, number, kind, node);
  in = re2::StringPiece(text.data(), text.size());
  while (RE2::FindAndConsume(&in, newer, &kind, &node, &guid, &number))
    add(guid, number, kind, node);
  return out;
}

TEST(ExtractPortSubjectsTest, AgreesWithThePatternsOnNearMisses) {
  // Pieces of both shapes with their parts varied or broken: GUIDs of 15 to 18 digits, missing
  // colons and numbers, "0x", blanks, parentheses inside the node, several per text.
  std::mt19937 rng(20261203);
  auto pick = [&](const std::vector<std::string>& from) { return from[rng() % from.size()]; };
  auto hex = [&](size_t n) {
    std::string h;
    for (size_t k = 0; k < n; ++k) h.push_back("0123456789abcdefABCDEF"[rng() % 22]);
    return h;
  };
  const std::vector<std::string> blanks{"", "", " ", "  ", "\t"};
  const std::vector<std::string> kinds{"Switch", "Computer", "sw_1", "", "Sw-x"};
  const std::vector<std::string> nodes{"sw-1", "T3-E21:1/17/1", "host HCA-1", " n ", "a(b",
                                       "",     "x:y:z"};
  const std::vector<std::string> numbers{"12", "3", "", "x", "007"};
  const std::vector<std::string> colons{":", "", " :"};
  const std::vector<std::string> joins{"", " - ", "x ", ": ", "("};
  int found = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string text;
    for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) {
      text += pick(joins);
      std::string paren = "(" + pick(blanks) + pick(kinds) + pick(blanks) + ":" + pick(blanks) +
                          pick(nodes) + ")" + pick(blanks);
      std::string guid =
          hex(pick({"16", "16", "16", "15", "17", "18"}) == "16" ? 16 : 15 + rng() % 4);
      std::string tail = pick(colons) + pick(blanks) + pick(numbers);
      text += rng() % 2 ? guid + pick(blanks) + paren + tail
                        : paren + pick({"", "0x", "0x", "0"}) + guid + pick(blanks) + tail;
    }
    auto want = ByPatterns(text);
    found += static_cast<int>(want.size());
    ASSERT_EQ(ExtractPortSubjects(text), want) << "text: '" << text << "'";
  }
  EXPECT_GT(found, 5000) << "the generated texts must hold many whole subjects";
}

TEST(NodeKeyTest, Normalization) {
  struct Case {
    std::string in, want;
  };
  const std::vector<Case> cases = {
      {"T3-E21-N-U47", "t3-e21-n-u47"},
      {"T3-E21-N-U47:1/17/1", "t3-e21-n-u47"},  // a switch port's node description
      {"  T3-E21-N-U47 : 1/17/1 ", "t3-e21-n-u47"},
      {"fsgb001 HCA-1", "fsgb001"},  // a host's HCA
      {"fsgb001 HCA-12", "fsgb001"},
      {"fsgb001 hca-2", "fsgb001"},
      {"fsgb001 mlx5_0", "fsgb001"},
      {"fsgb001   MLX5_3", "fsgb001"},
      {"gpu node 7 HCA-1", "gpu node 7"},
      {"fsgb001 HCA-1:1", "fsgb001"},
      {"HCA-1", "hca-1"},                  // nothing before the suffix: kept
      {"fsgb001-HCA-1", "fsgb001-hca-1"},  // no space before it: part of the name
      {"fsgb001 HCA-x", "fsgb001 hca-x"},
      {"fsgb001 HCA-", "fsgb001 hca-"},  // no digits: part of the name
      {"fsgb001 mlx5_", "fsgb001 mlx5_"},
      {"fsgb001 MLX4_1", "fsgb001 mlx4_1"},
      {"Fsgb001 \t HcA-7", "fsgb001"},
      {"\tLeaf-01\t", "leaf-01"},
      {"", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("'" + c.in + "'");
    EXPECT_EQ(NodeKey(c.in), c.want);
  }
  // The names ExtractPortSubjects finds and the inventory's names meet in NodeKey.
  EXPECT_EQ(NodeKey("fsgb001 HCA-1"), NodeKey("FSGB001"));
  EXPECT_EQ(NodeKey("T3-E21-N-U47:1/17/1"), NodeKey("t3-e21-n-u47"));
}

TEST(ObjectTypeTest, SwitchesAndHosts) {
  struct Case {
    std::string type;
    bool is_switch, is_host;
  };
  const std::vector<Case> cases = {
      {"Switch", true, false},    {"switch", true, false},   {"SWITCH", true, false},
      {"Computer", false, true},  {"computer", false, true}, {"Host", false, true},
      {"Node", false, true},      {"Server", false, true},   {"Link", false, false},
      {"Port", false, false},     {"Site", false, false},    {"Grid", false, false},
      {"Switches", false, false}, {"", false, false},        {" Switch", false, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("'" + c.type + "'");
    EXPECT_EQ(IsSwitchObjectType(c.type), c.is_switch);
    EXPECT_EQ(IsHostObjectType(c.type), c.is_host);
  }
}

}  // namespace
}  // namespace ufmr
