// Covers src/api/request_body.h: JsonDepth (brackets inside strings and after escapes do not
// count; stops early), ParseBodyJson (the depth limit, a million-deep body refused without
// parsing it, invalid JSON), ReadObject (unknown fields, NUL in text, too deep, "" as {}),
// StringField, and ReadNewSilence (duration or expires_at, their limits, validation).
#include "api/request_body.h"

#include <gtest/gtest.h>

#include <string>

namespace ufmr {
namespace {

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonDepthTest, CountsBracketsOutsideStrings) {
  EXPECT_EQ(JsonDepth("", 10), 0);
  EXPECT_EQ(JsonDepth("7", 10), 0);
  EXPECT_EQ(JsonDepth(R"("[[[")", 10), 0);
  EXPECT_EQ(JsonDepth("{}", 10), 1);
  EXPECT_EQ(JsonDepth(R"({"a": [1, {"b": []}], "c": {}})", 10), 4);
  EXPECT_EQ(JsonDepth(R"({"a": "x\"[[[[", "b": [[]]})", 10), 3);
  EXPECT_EQ(JsonDepth(R"(["\\", [[]]])", 10), 3);  // an escaped backslash ends the string
  EXPECT_EQ(JsonDepth("]]]][", 10), 1);            // unbalanced closers do not go below 0
  EXPECT_EQ(JsonDepth(Nested(100), 5), 6);         // stops past the limit
}

TEST(ParseBodyJsonTest, NestedUpToTheLimitOnly) {
  auto ok = ParseBodyJson(Nested(kMaxBodyDepth));
  EXPECT_FALSE(ok.is_discarded());
  EXPECT_TRUE(ok.is_array());
  EXPECT_TRUE(ParseBodyJson(Nested(kMaxBodyDepth + 1)).is_discarded());
  EXPECT_TRUE(ParseBodyJson(Nested(1'000'000)).is_discarded());
  EXPECT_TRUE(ParseBodyJson("{not json").is_discarded());
  EXPECT_EQ(ParseBodyJson(R"({"a": "[[[["})")["a"], "[[[[");
}

TEST(ReadObjectTest, OnlyKnownFieldsOfAnObject) {
  auto empty = ReadObject("", {"by"}, "{}");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty.value().is_object() && empty.value().empty());

  auto ok = ReadObject(R"({"by": "ann", "note": "x"})", {"by", "note"}, "{}");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok.value()["by"], "ann");

  auto unknown = ReadObject(R"({"by": "ann", "color": "red"})", {"by", "note"}, "{}");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown field \"color\" (expected by, note)"),
            std::string::npos)
      << unknown.status().message();

  auto array = ReadObject("[1]", {"by"}, R"({"by": "name"})");
  ASSERT_FALSE(array.ok());
  EXPECT_NE(array.status().message().find(R"(like {"by": "name"})"), std::string::npos);

  auto nul = ReadObject(R"({"by": "a\u0000b"})", {"by"}, "{}");
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.status().message().find("without NUL"), std::string::npos);

  auto deep = ReadObject(R"({"by": )" + Nested(40) + "}", {"by"}, "{}");
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("more than 32 deep"), std::string::npos)
      << deep.status().message();
  EXPECT_EQ(deep.status().code(), Status::Code::kInvalidArgument);
}

TEST(StringFieldTest, AbsentStringOrError) {
  nlohmann::json body = {{"a", "x"}, {"n", 7}};
  std::string out = "kept";
  EXPECT_TRUE(StringField(body, "missing", &out).ok());
  EXPECT_EQ(out, "kept");
  EXPECT_TRUE(StringField(body, "a", &out).ok());
  EXPECT_EQ(out, "x");
  Status s = StringField(body, "n", &out);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "\"n\" must be a string");
}

TEST(ReadNewSilenceTest, DurationOrExpiryWithinTheirLimits) {
  const TimePoint now = FromEpochSeconds(1.7e9);
  auto s = ReadNewSilence(R"({"host": "gpu-node-01", "reason": "rma", "duration": "2h",
                              "by": "ann"})",
                          now);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->host, "gpu-node-01");
  EXPECT_EQ(s->created_by, "ann");
  EXPECT_EQ(ToEpochSeconds(s->expires_at), 1.7e9 + 7200);

  auto at = ReadNewSilence(
      R"({"port": "fc6a1c0300244e00_8", "reason": "x", "expires_at": "2023-11-14T22:15:00Z"})",
      now);
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ(ToEpochSeconds(at->expires_at), 1.7e9 + 100);

  for (
      const char* bad : {
          R"({"host": "h", "reason": "x"})",  // no end
          R"({"host": "h", "reason": "x", "duration": "2h", "expires_at": "2030-01-01T00:00:00Z"})",
          R"({"host": "h", "reason": "x", "duration": "31d"})",   // too long
          R"({"host": "h", "reason": "x", "duration": "0s"})",    // not > 0
          R"({"host": "h", "reason": "x", "duration": "soon"})",  // not a duration
          R"({"host": "h", "reason": "x", "expires_at": "2020-01-01T00:00:00Z"})",  // past
          R"({"host": 7, "reason": "x", "duration": "2h"})",                        // not a string
          R"({"hostname": "h", "reason": "x", "duration": "2h"})",                  // unknown field
      }) {
    auto r = ReadNewSilence(bad, now);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << bad;
    }
  }
}

}  // namespace
}  // namespace ufmr
