// JsonWriter (src/base/json_writer.h): what it writes parses as the same JSON, commas in nested
// objects and arrays, string escaping (quotes, backslashes, control characters), invalid UTF-8
// and NUL as U+FFFD, numbers (rounding, no trailing zeros, NaN as null), null for empty strings.
#include "base/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ufmr {
namespace {

using nlohmann::json;

TEST(JsonWriterTest, NestedObjectsAndArraysParse) {
  JsonWriter w;
  w.BeginObject();
  w.Key("a").Int(1);
  w.Key("list").BeginArray().Int(1).String("two").BeginObject().Key("x").Bool(true).EndObject();
  w.BeginArray().EndArray().EndArray();
  w.Key("empty").BeginObject().EndObject();
  w.Key("n").Null();
  w.EndObject();
  json expected = {{"a", 1},
                   {"list", {1, "two", {{"x", true}}, json::array()}},
                   {"empty", json::object()},
                   {"n", nullptr}};
  EXPECT_EQ(json::parse(w.str()), expected) << w.str();
}

TEST(JsonWriterTest, EscapesQuotesBackslashesAndControlCharacters) {
  std::string nasty = "a\"b\\c\nd\re\tf\x01g</script>";
  JsonWriter w;
  w.BeginArray().String(nasty).EndArray();
  EXPECT_EQ(json::parse(w.str())[0], nasty) << w.str();
  EXPECT_NE(w.str().find("\\u0001"), std::string::npos) << w.str();
}

// Text is scanned eight bytes at a time: a character that needs escaping is found at every
// place in and across those eight, and every printable ASCII character passes as it is.
TEST(JsonWriterTest, EscapesAtEveryPlaceOfAWord) {
  const std::vector<std::pair<std::string, std::string>> specials = {{"\"", "\\\""},
                                                                     {"\\", "\\\\"},
                                                                     {"\n", "\\n"},
                                                                     {"\x01", "\\u0001"},
                                                                     {"\x1f", "\\u001f"},
                                                                     {"\x7f", "\x7f"},
                                                                     {"\xc3\xa9", "\xc3\xa9"},
                                                                     {"\xff", "\\ufffd"},
                                                                     {" ", " "},
                                                                     {"~", "~"}};
  for (size_t before = 0; before < 20; ++before) {
    for (size_t after : {0, 1, 7, 8, 9}) {
      for (const auto& [special, written] : specials) {
        std::string text = std::string(before, 'a') + special + std::string(after, 'z');
        std::string out;
        JsonWriter::AppendQuoted(text, &out);
        EXPECT_EQ(out, "\"" + std::string(before, 'a') + written + std::string(after, 'z') + "\"")
            << "special " << json(written) << " after " << before << " bytes";
      }
    }
  }
  std::string printable;
  for (int c = 0x20; c < 0x7f; ++c) {
    if (c != '"' && c != '\\') printable += static_cast<char>(c);
  }
  std::string out;
  JsonWriter::AppendQuoted(printable, &out);
  EXPECT_EQ(out, "\"" + printable + "\"");
}

TEST(JsonWriterTest, InvalidUtf8AndNulBecomeReplacementCharacters) {
  std::string bad = std::string("ok\xff") + '\0' + "\xc3\xa9\xe2\x82";
  JsonWriter w;
  w.BeginArray().String(bad).EndArray();
  json parsed = json::parse(w.str());  // throws on invalid UTF-8: must not
  EXPECT_EQ(parsed[0], "ok\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(JsonWriterTest, Numbers) {
  JsonWriter w;
  w.BeginArray();
  w.Number(1.5).Number(2.0).Number(0.0001).Number(-0.0001).Number(12345.6789, 2);
  w.Number(std::numeric_limits<double>::quiet_NaN()).Number(INFINITY);
  w.Int(-42).EndArray();
  EXPECT_EQ(w.str(), "[1.5,2,0,0,12345.68,null,null,-42]");
}

TEST(JsonWriterTest, StringOrNull) {
  JsonWriter w;
  w.BeginObject().Key("a").StringOrNull("").Key("b").StringOrNull("x").EndObject();
  EXPECT_EQ(json::parse(w.str()), (json{{"a", nullptr}, {"b", "x"}}));
}

}  // namespace
}  // namespace ufmr

namespace ufmr {
namespace {

TEST(JsonWriterTest, HugeNumbersStayWithinTheBufferAndParse) {
  JsonWriter w;
  w.BeginArray().Number(1e300).Number(-1e200, 3).EndArray();
  nlohmann::json j = nlohmann::json::parse(w.str());
  EXPECT_DOUBLE_EQ(j[0].get<double>(), 1e300);
  EXPECT_DOUBLE_EQ(j[1].get<double>(), -1e200);
}

}  // namespace
}  // namespace ufmr
