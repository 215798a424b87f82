// Clock: the service's only source of time, so tests can drive time with FakeClock.
// SystemClock is stateless; FakeClock is safe to read and advance from several threads.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>

namespace ufmr {

using TimePoint = std::chrono::system_clock::time_point;
using Seconds = std::chrono::duration<double>;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
};

class SystemClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::system_clock::now(); }
};

class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimePoint start = TimePoint(std::chrono::seconds(1'700'000'000)))
      : now_(start.time_since_epoch().count()) {}
  TimePoint Now() const override { return TimePoint(TimePoint::duration(now_.load())); }
  void Advance(std::chrono::nanoseconds d) {
    now_ += std::chrono::duration_cast<TimePoint::duration>(d).count();
  }

 private:
  std::atomic<TimePoint::rep> now_;
};

// ISO-8601 UTC with milliseconds, e.g. 2026-11-29T18:46:32.123Z.
std::string FormatIsoTime(TimePoint t);
// The same text written into buf, without a string of its own (the ticket list writes four per
// ticket); the view points into buf.
std::string_view FormatIsoTime(TimePoint t, char (&buf)[24]);
// Seconds since the epoch as a double, for JSON and arithmetic.
double ToEpochSeconds(TimePoint t);
TimePoint FromEpochSeconds(double s);
// A UFM timestamp, "YYYY-MM-DD HH:MM:SS" with optional ".fff": UFM writes the server's local time
// with no zone, so the caller says how far ahead of UTC that is. False on anything else.
bool ParseUfmTimestamp(std::string_view text, int utc_offset_s, TimePoint* out);
// A zone as an offset from UTC: "+02:00", "-05:30", "+0530", "+2", "0", "Z", "UTC" or "" (UTC).
// Hours 0-14, minutes 0-59, at most 14:00 either way; false (and *out_seconds untouched) on
// anything else, e.g. "+2x", "+15:00", "2:5".
bool ParseUtcOffset(std::string_view text, int* out_seconds);
// The offset as "+HH:MM" / "-HH:MM" (ParseUtcOffset reads it back).
std::string FormatUtcOffset(int seconds);

}  // namespace ufmr
