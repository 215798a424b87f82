// Covers src/base/duration.h: ParseDuration for every unit, bare seconds and fractions, the
// rejected inputs (empty, not a number, unknown unit, negative), and FormatDuration's output.
#include "base/duration.h"

#include <gtest/gtest.h>

#include <string>

namespace ufmr {
namespace {

struct ParseCase {
  std::string text;
  double seconds;
};

class ParseDurationValidTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(ParseDurationValidTest, ParsesToSeconds) {
  const ParseCase& c = GetParam();
  Result<double> d = ParseDuration(c.text);
  ASSERT_TRUE(d.ok()) << c.text << ": " << d.status().message();
  EXPECT_DOUBLE_EQ(d.value(), c.seconds) << c.text;
}

INSTANTIATE_TEST_SUITE_P(Units, ParseDurationValidTest,
                         ::testing::Values(ParseCase{"500ms", 0.5}, ParseCase{"30s", 30},
                                           ParseCase{"10m", 600}, ParseCase{"2h", 7200},
                                           ParseCase{"1d", 86400}, ParseCase{"15", 15},
                                           ParseCase{"1.5m", 90}, ParseCase{"0", 0},
                                           ParseCase{"0s", 0}, ParseCase{"0.25s", 0.25}));

class ParseDurationInvalidTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ParseDurationInvalidTest, IsInvalidArgumentWithMessage) {
  Result<double> d = ParseDuration(GetParam());
  ASSERT_FALSE(d.ok()) << "'" << GetParam() << "' parsed as " << d.value();
  EXPECT_EQ(d.status().code(), Status::Code::kInvalidArgument);
  EXPECT_FALSE(d.status().message().empty());
}

INSTANTIATE_TEST_SUITE_P(Rejected, ParseDurationInvalidTest,
                         ::testing::Values("", "abc", "10x", "-5s", "s", "10 m", "10sec", "-1",
                                           "inf", "nan"));

TEST(ParseDurationTest, MessagesNameTheProblem) {
  EXPECT_EQ(ParseDuration("").status().message(), "empty duration");
  EXPECT_NE(ParseDuration("10x").status().message().find("unknown unit 'x'"), std::string::npos);
  EXPECT_NE(ParseDuration("-5s").status().message().find("negative"), std::string::npos);
  EXPECT_NE(ParseDuration("abc").status().message().find("'abc'"), std::string::npos);
}

struct FormatCase {
  double seconds;
  std::string text;
};

class FormatDurationTest : public ::testing::TestWithParam<FormatCase> {};

TEST_P(FormatDurationTest, Formats) {
  EXPECT_EQ(FormatDuration(GetParam().seconds), GetParam().text) << GetParam().seconds;
}

INSTANTIATE_TEST_SUITE_P(Values, FormatDurationTest,
                         ::testing::Values(FormatCase{0.5, "500ms"}, FormatCase{0.001, "1ms"},
                                           FormatCase{0, "0ms"}, FormatCase{1, "1s"},
                                           FormatCase{30, "30s"}, FormatCase{90, "1m30s"},
                                           FormatCase{600, "10m"}, FormatCase{3600, "1h"},
                                           FormatCase{7200, "2h"}, FormatCase{86400, "1d"},
                                           FormatCase{90061, "1d1h1m1s"}, FormatCase{1800, "30m"},
                                           FormatCase{29.6, "30s"}));

TEST(FormatDurationTest, SingleUnitOutputParsesBack) {
  for (double s : {0.5, 30.0, 600.0, 7200.0, 86400.0}) {
    Result<double> back = ParseDuration(FormatDuration(s));
    ASSERT_TRUE(back.ok()) << FormatDuration(s);
    EXPECT_DOUBLE_EQ(back.value(), s);
  }
}

}  // namespace
}  // namespace ufmr
