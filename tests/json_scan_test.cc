// Covers src/ufm/json_scan.h and the one-pass ParsePorts (src/ufm/port_info.h): JsonScan accepts
// exactly what a full JSON parser accepts (nlohmann's, on a corpus of edge cases and of every
// prefix of a valid document), decodes strings as it does, gives a value's text as the service's
// JsonText does; ParsePorts reads every ports answer in tests/testdata as the document-tree
// reading does (ParseUfmList + ParsePortInfo, kept as the reference), and refuses broken text.
#include "ufm/json_scan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_env.h"
#include "ufm/port_info.h"
#include "ufm/ufm_json.h"

namespace ufmr {
namespace {

bool Scans(const std::string& text) {
  JsonScan s(text);
  return s.Skip() && s.AtEnd();
}

TEST(JsonScanTest, AcceptsExactlyWhatAFullParserAccepts) {
  const std::vector<std::string> corpus = {
      "[]",
      "{}",
      " [ 1 , 2 ] ",
      "[1,]",
      "[,1]",
      "{\"a\":1,}",
      "{\"a\" 1}",
      "{a:1}",
      "[01]",
      "[-0]",
      "[-]",
      "[1.]",
      "[.5]",
      "[1e5]",
      "[1E+5]",
      "[1e]",
      "[-1.5e-3]",
      "[tru]",
      "[true]",
      "[null, false]",
      "[nul]",
      "\"a\"",
      "\"a",
      "\"\\x\"",
      "\"\\u12\"",
      "\"\\u00e9\"",
      "\"\\ud83d\\ude00\"",
      "\"\\ud83d\"",
      "\"\\ude00\"",
      "\"tab\there\"",
      "[1] 2",
      "[1] ",
      "",
      "   ",
      "{\"a\":{\"b\":[{}]}}",
      "[[[[]]]]",
      "{\"a\":1 \"b\":2}",
      "[\"\\/\\b\\f\\n\\r\\t\"]",
      "123",
      "-",
      "[1 2]",
      "{\"a\":}",
      "{\"a\"}",
      "[\"a\"\"b\"]",
      "nulls",
      "[1]]",
      "{}}",
  };
  for (const auto& text : corpus) {
    EXPECT_EQ(Scans(text), nlohmann::json::accept(text)) << text;
  }
  // Every prefix of a valid document but the whole is refused, as a full parser refuses it.
  const std::string doc =
      R"({"data": [{"name": "x_1", "n": -12.5e3, "ok": true, "no": null, "s": "\u00e9\ud83d\ude00"}]})";
  for (size_t i = 0; i <= doc.size(); ++i) {
    EXPECT_EQ(Scans(doc.substr(0, i)), nlohmann::json::accept(doc.substr(0, i))) << i;
  }
}

TEST(JsonScanTest, DecodesStringsAsAFullParserDoes) {
  for (const std::string text : {R"("plain")", R"("q\"uote\\back\/slash")", R"("\u00e9t\u00E9")",
                                 R"("\ud83d\ude00!")", R"("line\nfeed\ttab")", R"("")"}) {
    JsonScan s(text);
    std::string out;
    ASSERT_TRUE(s.String(&out)) << text << ": " << s.error();
    EXPECT_EQ(out, nlohmann::json::parse(text).get<std::string>()) << text;
  }
  JsonScan nul(R"("a\u0000b")");
  std::string out;
  ASSERT_TRUE(nul.String(&out));
  EXPECT_EQ(out,
            "a\xEF\xBF\xBD"
            "b")
      << "a NUL is no text the service keeps";
}

TEST(JsonScanTest, TextIsAsJsonTextGivesIt) {
  const auto doc = nlohmann::json::parse(
      R"({"s": "x", "i": 33, "neg": -4, "b": true, "f": false, "n": null, "o": {"k": [1, 2]}})");
  const std::string json = doc.dump(2);  // whitespace between the tokens
  JsonScan s(json);
  std::string key, text;
  ASSERT_TRUE(s.Enter('{'));
  do {
    ASSERT_TRUE(s.Key(&key));
    ASSERT_TRUE(s.Text(&text)) << s.error();
    EXPECT_EQ(text, JsonText(doc, key.c_str())) << key;
  } while (s.Next('}'));
  EXPECT_TRUE(s.AtEnd());
}

TEST(JsonScanTest, AnErrorNamesItsPlaceAndStopsTheScan) {
  JsonScan s("[1, 2, x]");
  EXPECT_FALSE(s.Skip());
  EXPECT_TRUE(s.failed());
  EXPECT_EQ(s.error(), "at byte 7: unexpected character");
  EXPECT_FALSE(s.AtEnd());
  EXPECT_EQ(s.Peek(), JsonScan::Kind::kBad);
  std::string deep(100000, '[');
  JsonScan d(deep);
  EXPECT_FALSE(d.Skip()) << "deep nesting is refused, not a stack overflow";
  EXPECT_NE(d.error().find("nested too deep"), std::string::npos);
}

// The reference: the document tree, as the service read ports before the one-pass reading.
std::vector<nlohmann::json> ByTree(const std::string& body, int* bad) {
  auto doc = ParseUfmList(body, "ports");
  EXPECT_TRUE(doc.ok());
  std::vector<nlohmann::json> out;
  *bad = 0;
  for (const auto& e : doc.value()) {
    auto p = ParsePortInfo(e);
    p.ok() ? out.push_back(p->ToJson()) : void(++*bad);
  }
  return out;
}

TEST(ParsePortsOnePassTest, ReadsEveryRecordedAnswerAsTheTreeDoes) {
  for (const std::string f :
       {"rest/ports.json", "rest/ports_host_mlx5.json", "recorded/6.10-6.16/ports.json",
        "recorded/6.17-6.19/ports.json", "recorded/6.20-6.22/ports.json", "replay/ports.json",
        "parse/ports.json"}) {
    const std::string body = testing::ReadFixture(f);
    int bad = 0, tree_bad = 0;
    auto ports = ParsePorts(body, &bad);
    ASSERT_TRUE(ports.ok()) << f << ": " << ports.status().ToString();
    const auto expected = ByTree(body, &tree_bad);
    ASSERT_EQ(ports->size(), expected.size()) << f;
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_EQ(ports.value()[i].ToJson(), expected[i]) << f;
    EXPECT_EQ(bad, tree_bad) << f;
    EXPECT_GT(expected.size(), 0u) << f;
  }
}

TEST(ParsePortsOnePassTest, OddElementsAndFieldsAreReadAsTheTreeReadsThem) {
  const std::string body = R"({"total": 3, "data": [
      {"name": "E41D2D0300062380_3", "number": 3, "dname": "N/A",
       "node_description": "leaf-1:1/3", "description": "Switch IB Port", "peer": "N/A",
       "extra": {"nested": ["name", {"name": "not this"}]}, "guid": 1234},
      "not a port", 7, {"guid": "no name"},
      {"name": "b_1", "number": 2.0, "system_name": null, "logical_state": ["odd"]},
      {"name": "c_1", "number": "4", "name": "c_2"}]})";
  int bad = 0, tree_bad = 0;
  auto ports = ParsePorts(body, &bad);
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  const auto expected = ByTree(body, &tree_bad);
  ASSERT_EQ(ports->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(ports.value()[i].ToJson(), expected[i]);
  EXPECT_EQ(bad, 3);
  EXPECT_EQ(tree_bad, 3);
  EXPECT_EQ(ports.value()[0].name, "e41d2d0300062380_3");
  EXPECT_EQ(ports.value()[0].label, "1/3") << "N/A: the node description's";
  EXPECT_EQ(ports.value()[0].peer, "");
  EXPECT_EQ(ports.value()[0].guid, "1234");
  EXPECT_EQ(ports.value()[1].number, 0) << "2.0 is no integer";
  EXPECT_EQ(ports.value()[2].name, "c_2") << "the last of a repeated key";
}

TEST(ParsePortsOnePassTest, BrokenTextIsRefusedWithTheTreesWords) {
  for (const std::string body :
       {"", "[{\"name\": \"a_1\"}", "[{\"name\": \"a_1\"}] x", "{\"data\": [1,]}", "nope"}) {
    auto ports = ParsePorts(body, nullptr);
    ASSERT_FALSE(ports.ok()) << body;
    EXPECT_NE(ports.status().message().find("ports response is not valid JSON"), std::string::npos)
        << ports.status().message();
  }
  for (const std::string body :
       {"{}", "{\"data\": {}}", "3", "\"x\"", "{\"data\": [], \"data\": 1}"}) {
    auto ports = ParsePorts(body, nullptr);
    ASSERT_FALSE(ports.ok()) << body;
    EXPECT_EQ(ports.status().message(), "ports response is not a JSON array") << body;
  }
  auto odd_bytes = ParsePorts("[{\"name\": \"a_1\", \"system_name\": \"sw\xff\"}]", nullptr);
  ASSERT_TRUE(odd_bytes.ok()) << "one odd byte costs one field's character, not the answer";
  EXPECT_EQ(odd_bytes.value()[0].system_name, "sw\xEF\xBF\xBD");
}

}  // namespace
}  // namespace ufmr
