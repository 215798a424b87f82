// What the two telemetry text parsers share (internal to src/telemetry, for telemetry_csv.cc and
// telemetry_prometheus.cc): the line reader, the port a line or row names by its GUID and number
// cells or labels, and the "line N: ..." error text. Inline; plain state for one parse on one
// thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "telemetry/telemetry_port.h"

namespace ufmr::telemetry_text {

// An error about one line or row, as TelemetrySnapshot::errors holds it.
inline std::string LineError(int line_no, const std::string& what) {
  return "line " + std::to_string(line_no) + ": " + what;
}

// One line of the text: without its line end (and a CR before it).
struct Line {
  const char* begin;
  const char* end;
  bool has_end;  // false: the text ends inside this line (the body was cut off)
};

// The text's lines in order, numbered from 1.
class LineReader {
 public:
  LineReader(const char* p, const char* end) : p_(p), end_(end) {}

  // The next line into *line; false at the end of the text.
  bool Next(Line* line) {
    if (p_ >= end_) return false;
    const char* nl =
        static_cast<const char*>(std::memchr(p_, '\n', static_cast<size_t>(end_ - p_)));
    const char* e = nl ? nl : end_;
    ++line_no_;
    line->begin = p_;
    line->has_end = nl != nullptr;
    if (e > p_ && e[-1] == '\r') --e;
    line->end = e;
    p_ = nl ? nl + 1 : end_;
    return true;
  }
  // The number of the line Next gave last.
  int line_no() const { return line_no_; }
  // Where the next line starts.
  const char* position() const { return p_; }

 private:
  const char* p_;
  const char* end_;
  int line_no_ = 0;
};

// The port a line or row names: its port GUID (or, without one, its GUID) and its number.
struct PortIdentity {
  uint64_t guid = 0, alt_guid = 0;
  uint32_t number = 0;
  bool has_guid = false, has_alt = false, has_number = false;
  bool guid_ok = false, alt_ok = false, number_ok = false;

  void PortGuid(std::string_view text) {
    has_guid = true;
    guid_ok = ParseGuid(text, &guid);
  }
  void Guid(std::string_view text) {
    has_alt = true;
    alt_ok = ParseGuid(text, &alt_guid);
  }
  void Number(std::string_view text) {
    has_number = true;
    number_ok = ParsePortNumber(text, &number);
  }
  // Any identifying cell or label given.
  bool named() const { return has_guid || has_alt || has_number; }
  // The GUID that names the port parses, and so does the number.
  bool ok() const { return (has_guid ? guid_ok : alt_ok) && number_ok; }
  PortKey key() const { return PortKey{has_guid ? guid : alt_guid, number}; }
};

}  // namespace ufmr::telemetry_text
