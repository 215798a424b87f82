#include "base/clock.h"

#include <cstdio>
#include <ctime>

namespace ufmr {

namespace {

// Two digits of v (0..99) at p.
void Put2(char* p, int v) {
  p[0] = static_cast<char>('0' + v / 10);
  p[1] = static_cast<char>('0' + v % 10);
}

}  // namespace

std::string_view FormatIsoTime(TimePoint t, char (&buf)[24]) {
  using namespace std::chrono;
  const auto ms = duration_cast<milliseconds>(t.time_since_epoch());
  const auto day = floor<days>(ms);
  const year_month_day ymd{sys_days{day}};
  const int y = static_cast<int>(ymd.year());
  const int64_t in_day = (ms - day).count();  // 0 .. 86,399,999
  // A TimePoint (nanoseconds in 64 bits) spans the years 1677 to 2262: always four digits.
  Put2(buf, y / 100);
  Put2(buf + 2, y % 100);
  buf[4] = '-';
  Put2(buf + 5, static_cast<int>(static_cast<unsigned>(ymd.month())));
  buf[7] = '-';
  Put2(buf + 8, static_cast<int>(static_cast<unsigned>(ymd.day())));
  buf[10] = 'T';
  Put2(buf + 11, static_cast<int>(in_day / 3600000));
  buf[13] = ':';
  Put2(buf + 14, static_cast<int>(in_day / 60000 % 60));
  buf[16] = ':';
  Put2(buf + 17, static_cast<int>(in_day / 1000 % 60));
  buf[19] = '.';
  const int milli = static_cast<int>(in_day % 1000);
  buf[20] = static_cast<char>('0' + milli / 100);
  Put2(buf + 21, milli % 100);
  buf[23] = 'Z';
  return {buf, 24};
}

std::string FormatIsoTime(TimePoint t) {
  char buf[24];
  return std::string(FormatIsoTime(t, buf));
}

double ToEpochSeconds(TimePoint t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

TimePoint FromEpochSeconds(double s) {
  return TimePoint(
      std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(s)));
}

bool ParseUfmTimestamp(std::string_view text, int utc_offset_s, TimePoint* out) {
  // Fixed layout; digits checked one by one so "2024-13-99" or trailing junk never pass.
  if (text.size() < 19) return false;
  auto digits = [&](size_t at, size_t n, int* v) {
    *v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      *v = *v * 10 + (text[i] - '0');
    }
    return true;
  };
  int y, mo, d, h, mi, s, ms = 0;
  if (!digits(0, 4, &y) || text[4] != '-' || !digits(5, 2, &mo) || text[7] != '-' ||
      !digits(8, 2, &d) || (text[10] != ' ' && text[10] != 'T') || !digits(11, 2, &h) ||
      text[13] != ':' || !digits(14, 2, &mi) || text[16] != ':' || !digits(17, 2, &s)) {
    return false;
  }
  if (text.size() > 19) {
    if (text[19] != '.' && text[19] != ',') return false;
    size_t n = text.size() - 20;
    if (n == 0 || n > 9 || !digits(20, n, &ms)) return false;
    for (size_t i = n; i < 3; ++i) ms *= 10;
    for (size_t i = 3; i < n; ++i) ms /= 10;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return false;
  // The days of the month's first day, plus the day: a day past the month's end rolls into the
  // next month, as timegm would (no lookup of the time zone: every log line comes here).
  using namespace std::chrono;
  const sys_days first{year_month_day{year{y}, month{static_cast<unsigned>(mo)}, day{1}}};
  const int64_t secs = (first.time_since_epoch().count() + d - 1) * int64_t{86400} + h * 3600 +
                       mi * 60 + s - utc_offset_s;
  *out = TimePoint(duration_cast<TimePoint::duration>(seconds(secs) + milliseconds(ms)));
  return true;
}

bool ParseUtcOffset(std::string_view text, int* out_seconds) {
  if (text.empty() || text == "0" || text == "Z" || text == "UTC") {
    *out_seconds = 0;
    return true;
  }
  int sign = 1;
  if (text[0] == '+' || text[0] == '-') {
    sign = text[0] == '-' ? -1 : 1;
    text.remove_prefix(1);
  }
  auto all_digits = [](std::string_view d) {
    if (d.empty()) return false;
    for (char ch : d) {
      if (ch < '0' || ch > '9') return false;
    }
    return true;
  };
  auto number = [](std::string_view d) {
    int v = 0;
    for (char ch : d) v = v * 10 + (ch - '0');
    return v;
  };
  std::string_view hours = text, minutes;
  if (size_t colon = text.find(':'); colon != std::string_view::npos) {
    hours = text.substr(0, colon);
    minutes = text.substr(colon + 1);
    if (minutes.size() != 2) return false;  // "+02:00", not "+2:5" or "+02:00:00"
  } else if (text.size() == 4) {
    hours = text.substr(0, 2);  // "+0530"
    minutes = text.substr(2);
  }
  if (hours.empty() || hours.size() > 2 || !all_digits(hours)) return false;
  if (!minutes.empty() && !all_digits(minutes)) return false;
  int h = number(hours), m = number(minutes);
  if (m > 59 || h * 60 + m > 14 * 60) return false;
  *out_seconds = sign * (h * 3600 + m * 60);
  return true;
}

std::string FormatUtcOffset(int seconds) {
  char sign = seconds < 0 ? '-' : '+';
  int minutes = (seconds < 0 ? -seconds : seconds) / 60;
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%c%02d:%02d", sign, minutes / 60, minutes % 60);
  return buf;
}

}  // namespace ufmr
