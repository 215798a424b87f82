// Covers the sample-time reading of src/telemetry/telemetry_snapshot.h (TimestampMicros,
// TimestampUnit, ParseTimestampMicros): the unit told by the magnitude, since the primary endpoint
// stamps microseconds (16 digits), other telemetry instances milliseconds (13) and some sources
// seconds (10); a millisecond stamp read as microseconds would make every rate 1000 times too high.
#include "telemetry/telemetry_snapshot.h"

#include <gtest/gtest.h>

#include <string>

namespace ufmr {
namespace {

struct TimeCase {
  std::string text;
  bool ok;
  int64_t micros;
};

class TimestampTest : public ::testing::TestWithParam<TimeCase> {};

TEST_P(TimestampTest, Micros) {
  int64_t us = -1;
  EXPECT_EQ(ParseTimestampMicros(GetParam().text, &us), GetParam().ok) << GetParam().text;
  EXPECT_EQ(us, GetParam().ok ? GetParam().micros : -1) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Units, TimestampTest,
    ::testing::Values(
        TimeCase{"1712228785", true, 1'712'228'785'000'000},           // seconds
        TimeCase{"1712228785304", true, 1'712'228'785'304'000},        // milliseconds
        TimeCase{"1712228785304123", true, 1'712'228'785'304'123},     // microseconds
        TimeCase{"1712228785304123456", true, 1'712'228'785'304'123},  // nanoseconds
        TimeCase{"1712228785.304", true, 1'712'228'785'304'000},       // fractional seconds
        TimeCase{" 1700000000000000 ", true, 1'700'000'000'000'000},
        TimeCase{"99999999999", true, 99'999'999'999'000'000},  // the last second (year 5138)
        TimeCase{"100000000000", true, 100'000'000'000'000},    // the first millisecond (1973)
        TimeCase{"99999999999999", true, 99'999'999'999'999'000},
        TimeCase{"100000000000000", true, 100'000'000'000'000},  // the first microsecond
        TimeCase{"0", true, 0},                                  // none: the poll time is used
        TimeCase{"", false, 0}, TimeCase{"N/A", false, 0}, TimeCase{"-5", false, 0},
        TimeCase{"1e400", false, 0}, TimeCase{"12abc", false, 0},
        TimeCase{"99999999999999999999", false, 0}));

TEST(TimestampMicrosTest, OneUnitOneRange) {
  EXPECT_EQ(TimestampMicros(0), 0);
  EXPECT_EQ(TimestampMicros(-1), 0);
  // The same instant in four units.
  for (int64_t raw : {1'700'000'000LL, 1'700'000'000'000LL, 1'700'000'000'000'000LL,
                      1'700'000'000'000'000'000LL}) {
    EXPECT_EQ(TimestampMicros(raw), 1'700'000'000'000'000) << raw;
  }
  // The unit named as `probe` reports it, by the same thresholds.
  EXPECT_STREQ(TimestampUnit(1'712'228'785LL), "seconds");
  EXPECT_STREQ(TimestampUnit(1'712'228'785'304LL), "milliseconds");
  EXPECT_STREQ(TimestampUnit(1'700'000'000'000'000LL), "microseconds");
  EXPECT_STREQ(TimestampUnit(1'712'228'785'304'000'000LL), "nanoseconds");
  EXPECT_STREQ(TimestampUnit(99'999'999'999LL), "seconds");
  EXPECT_STREQ(TimestampUnit(100'000'000'000LL), "milliseconds");
  EXPECT_STREQ(TimestampUnit(0), "none");
  EXPECT_STREQ(TimestampUnit(-3), "none");
}

}  // namespace
}  // namespace ufmr
