// Covers src/core/clock.h's UFM time helpers: ParseUtcOffset (the forms `ufm.utc_offset` and
// `replay --utc-offset` take, and the junk they refuse), FormatUtcOffset (read back by
// ParseUtcOffset), and ParseUfmTimestamp (UFM's zone-less local times, moved to UTC by the offset).
#include "core/clock.h"

#include <gtest/gtest.h>

#include <string>

namespace ufmr {
namespace {

TEST(ParseUtcOffsetTest, AcceptedForms) {
  const struct {
    const char* text;
    int seconds;
  } cases[] = {
      {"+02:00", 7200},  {"-05:30", -19800}, {"+0", 0},         {"0", 0},
      {"-0", 0},         {"Z", 0},           {"UTC", 0},        {"", 0},
      {"+00:00", 0},     {"+2", 7200},       {"2", 7200},       {"-11", -39600},
      {"+0530", 19800},  {"-0930", -34200},  {"+14:00", 50400}, {"-14:00", -50400},
      {"+05:45", 20700}, {"12:59", 46740},   {"+1:30", 5400},   {"-00:30", -1800},
  };
  for (const auto& c : cases) {
    int out = 12345;
    EXPECT_TRUE(ParseUtcOffset(c.text, &out)) << "'" << c.text << "'";
    EXPECT_EQ(out, c.seconds) << "'" << c.text << "'";
  }
}

TEST(ParseUtcOffsetTest, RejectsJunkAndLeavesTheOutputAlone) {
  for (const char* text :
       {"+2x",     "+15:00",    "+14:01", "-14:30", "+",      "-",       "++2",
        "+-2",     "x",         "utc",    "z",      "+02:",   "+02:0",   "+2:5",
        "+02:000", "+02:00:00", "+02:60", "+123",   "+12345", " +02:00", "+02:00 ",
        "+02h",    "02.00",     ":30",    "+:30",   "UTC+2",  "+99"}) {
    int out = 12345;
    EXPECT_FALSE(ParseUtcOffset(text, &out)) << "'" << text << "'";
    EXPECT_EQ(out, 12345) << "'" << text << "'";
  }
}

TEST(FormatUtcOffsetTest, SignHoursMinutesAndRoundTrip) {
  EXPECT_EQ(FormatUtcOffset(0), "+00:00");
  EXPECT_EQ(FormatUtcOffset(7200), "+02:00");
  EXPECT_EQ(FormatUtcOffset(-19800), "-05:30");
  EXPECT_EQ(FormatUtcOffset(50400), "+14:00");
  for (int s = -14 * 3600; s <= 14 * 3600; s += 15 * 60) {
    int back = 1;
    ASSERT_TRUE(ParseUtcOffset(FormatUtcOffset(s), &back)) << FormatUtcOffset(s);
    EXPECT_EQ(back, s) << FormatUtcOffset(s);
  }
}

TEST(ParseUfmTimestampTest, LocalTimeMovedToUtcByTheOffset) {
  TimePoint t;
  ASSERT_TRUE(ParseUfmTimestamp("2026-11-29 18:46:32", 0, &t));
  EXPECT_EQ(FormatIsoTime(t), "2026-11-29T18:46:32.000Z");
  // A UFM server two hours ahead of UTC wrote 18:46 when it was 16:46 UTC.
  ASSERT_TRUE(ParseUfmTimestamp("2026-11-29 18:46:32", 7200, &t));
  EXPECT_EQ(FormatIsoTime(t), "2026-11-29T16:46:32.000Z");
  int offset = 0;
  ASSERT_TRUE(ParseUtcOffset("-05:30", &offset));
  ASSERT_TRUE(ParseUfmTimestamp("2026-11-29 20:00:00.5", offset, &t));
  EXPECT_EQ(FormatIsoTime(t), "2026-11-30T01:30:00.500Z");
  ASSERT_TRUE(ParseUfmTimestamp("2026-11-29T18:46:32,123456", 0, &t));
  EXPECT_EQ(FormatIsoTime(t), "2026-11-29T18:46:32.123Z");
}

TEST(ParseUfmTimestampTest, RejectsOtherShapes) {
  TimePoint t;
  for (const char* text :
       {"", "2026-11-29", "2026-13-29 18:46:32", "2026-11-29 24:00:00", "2026-11-29 18:46:32Z",
        "2026-11-29 18:46:32.", "2026/11/29 18:46:32", "2026-11-29 18:46:32.1234567890"}) {
    EXPECT_FALSE(ParseUfmTimestamp(text, 0, &t)) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace ufmr
