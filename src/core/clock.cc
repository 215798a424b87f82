#include "core/clock.h"

#include <cstdio>
#include <ctime>

namespace ufmr {

std::string FormatIsoTime(TimePoint t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

double ToEpochSeconds(TimePoint t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

TimePoint FromEpochSeconds(double s) {
  return TimePoint(
      std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(s)));
}

}  // namespace ufmr
