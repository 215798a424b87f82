// Covers src/base/clock.h's UFM time helpers: ParseUtcOffset (the forms `ufm.utc_offset` and
// `replay --utc-offset` take, and the junk they refuse), FormatUtcOffset (read back by
// ParseUtcOffset), ParseUfmTimestamp (UFM's zone-less local times, moved to UTC by the offset), and
// FormatIsoTime's own digit writer against the C library's calendar.
#include "base/clock.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <random>
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

// ParseUfmTimestamp computes the calendar itself: it agrees with timegm (what it called before)
// on every day of 1999 to 2101, leap days and days past a month's end (timegm rolls them over)
// included, at the edges of the day and at a leap second.
TEST(ParseUfmTimestampTest, AgreesWithTheCLibraryOnEveryDay) {
  int checked = 0;
  for (int y = 1999; y <= 2101; ++y) {
    for (int mo = 1; mo <= 12; ++mo) {
      for (int d = 1; d <= 31; ++d) {
        for (const char* hms : {"00:00:00", "23:59:59", "12:34:60"}) {
          char text[32];
          std::snprintf(text, sizeof(text), "%04d-%02d-%02d %s.250", y, mo, d, hms);
          std::tm tm{};
          tm.tm_year = y - 1900;
          tm.tm_mon = mo - 1;
          tm.tm_mday = d;
          std::sscanf(hms, "%d:%d:%d", &tm.tm_hour, &tm.tm_min, &tm.tm_sec);
          const int64_t want_ms = (static_cast<int64_t>(timegm(&tm)) - 3600) * 1000 + 250;
          TimePoint t;
          ASSERT_TRUE(ParseUfmTimestamp(text, 3600, &t)) << text;
          ASSERT_EQ(
              std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count(),
              want_ms)
              << text;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 103 * 12 * 31 * 3);
}

// What FormatIsoTime wrote before it had its own digit writer: gmtime_r and snprintf.
std::string IsoTimeByLibc(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

TEST(FormatIsoTimeTest, SameTextAsTheCLibrary) {
  auto at = [](int64_t ms) { return TimePoint(std::chrono::milliseconds(ms)); };
  // Edges: the epoch, leap days (2000 has one, 2100 not), the ends of days, months and years.
  for (int64_t ms : {int64_t{0}, int64_t{999}, int64_t{951782399999}, int64_t{951782400000},
                     int64_t{951868800000}, int64_t{4107542399999}, int64_t{4107542400000},
                     int64_t{1798761599999}}) {
    char buf[24];
    EXPECT_EQ(FormatIsoTime(at(ms), buf), IsoTimeByLibc(ms)) << ms;
    EXPECT_EQ(FormatIsoTime(at(ms)), IsoTimeByLibc(ms)) << ms;
  }
  std::mt19937_64 rng(7);
  // Anywhere from 1970 to 2255 (a TimePoint's nanoseconds reach 2262).
  std::uniform_int_distribution<int64_t> any_ms(0, 9'000'000'000'000);
  for (int i = 0; i < 100000; ++i) {
    int64_t ms = any_ms(rng);
    ASSERT_EQ(FormatIsoTime(at(ms)), IsoTimeByLibc(ms)) << ms;
  }
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
