#include "base/duration.h"

#include <cmath>
#include <cstdlib>

namespace ufmr {

Result<double> ParseDuration(const std::string& text) {
  if (text.empty()) return Status::InvalidArgument("empty duration");
  const char* begin = text.c_str();
  char* end = nullptr;
  double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value)) {
    return Status::InvalidArgument("'" + text + "' is not a duration (use e.g. 30s, 10m, 2h)");
  }
  std::string unit(end);
  double scale = 0;
  if (unit.empty() || unit == "s") {
    scale = 1;
  } else if (unit == "ms") {
    scale = 0.001;
  } else if (unit == "m") {
    scale = 60;
  } else if (unit == "h") {
    scale = 3600;
  } else if (unit == "d") {
    scale = 86400;
  } else {
    return Status::InvalidArgument("'" + text + "' has unknown unit '" + unit +
                                   "' (use ms, s, m, h or d)");
  }
  if (value < 0) return Status::InvalidArgument("'" + text + "' is negative");
  return value * scale;
}

std::string FormatDuration(double seconds) {
  if (seconds < 1) return std::to_string(static_cast<int>(std::lround(seconds * 1000))) + "ms";
  long s = std::lround(seconds);
  std::string out;
  if (s >= 86400) out += std::to_string(s / 86400) + "d", s %= 86400;
  if (s >= 3600) out += std::to_string(s / 3600) + "h", s %= 3600;
  if (s >= 60) out += std::to_string(s / 60) + "m", s %= 60;
  if (s > 0 || out.empty()) out += std::to_string(s) + "s";
  return out;
}

}  // namespace ufmr
