#include "telemetry/telemetry_csv.h"

#include <charconv>
#include <cstring>
#include <string>
#include <vector>

namespace ufmr {

namespace {

enum class Kind : uint8_t { kSkip, kCounter, kTime, kGuid, kGuidAlt, kNumber, kSpeed, kWidth };

struct Col {
  Kind kind = Kind::kSkip;
  uint32_t counter = 0;
};

// One quoted or plain cell starting at `c`; returns where it ends (at ',' or `e`), or nullptr
// when a quoted cell is malformed. The unquoted text goes to `out`.
const char* QuotedCell(const char* c, const char* e, std::string* out) {
  out->clear();
  ++c;  // opening quote
  while (c < e) {
    if (*c == '"') {
      if (c + 1 < e && c[1] == '"') {
        out->push_back('"');
        c += 2;
        continue;
      }
      ++c;  // closing quote
      return c == e || *c == ',' ? c : nullptr;
    }
    out->push_back(*c++);
  }
  return nullptr;  // no closing quote
}

std::vector<std::string> SplitHeader(const char* c, const char* e) {
  std::vector<std::string> out;
  std::string cell;
  for (;;) {
    const char* ce;
    if (c < e && *c == '"') {
      ce = QuotedCell(c, e, &cell);
      if (!ce) {
        cell.assign(c, e);  // liberal: the rest of the line as one name
        ce = e;
      }
    } else {
      ce = static_cast<const char*>(std::memchr(c, ',', static_cast<size_t>(e - c)));
      if (!ce) ce = e;
      cell.assign(c, ce);
    }
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t')) cell.pop_back();
    size_t lead = cell.find_first_not_of(" \t");
    out.push_back(lead == std::string::npos ? std::string() : cell.substr(lead));
    if (ce == e) break;
    c = ce + 1;
  }
  return out;
}

bool PrintableName(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x7f) return false;
  }
  return true;
}

// The sample time in microseconds (unit by magnitude, TimestampMicros); 0 when the cell is not a
// time, and the row is then taken at the poll time.
int64_t ParseTimestampUs(std::string_view s) {
  int64_t us = 0;
  return ParseTimestampMicros(s, &us) ? us : 0;
}

std::string LineError(int line_no, const std::string& what) {
  return "line " + std::to_string(line_no) + ": " + what;
}

}  // namespace

Result<TelemetrySnapshot> ParseTelemetryCsv(std::string_view text) {
  static const TelemetryColumns kAsNamed;
  return ParseTelemetryCsv(text, kAsNamed);
}

Result<TelemetrySnapshot> ParseTelemetryCsv(std::string_view text,
                                            const TelemetryColumns& columns) {
  TelemetrySnapshot out;
  const char* p = text.data();
  const char* const end = p + text.size();
  if (text.size() >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;  // UTF-8 BOM

  // The header: the first line that is not blank.
  int line_no = 0;
  std::vector<std::string> header;
  while (p < end && header.empty()) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    const char* e = nl ? nl : end;
    ++line_no;
    const char* next = nl ? nl + 1 : end;
    if (e > p && e[-1] == '\r') --e;
    if (e > p) header = SplitHeader(p, e);
    p = next;
  }
  if (header.empty()) return Status::InvalidArgument("telemetry CSV is empty");

  std::vector<Col> cols(header.size());
  bool has_guid = false, has_alt = false, has_number = false, has_link = false;
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string& name = header[i];
    if (!PrintableName(name)) {
      out.errors.push_back("header: column " + std::to_string(i + 1) + " ('" + Printable(name) +
                           "') is not a printable ASCII name; ignored");
      continue;
    }
    const std::string_view ours = columns.Rename(name);
    switch (ClassifyColumn(ours)) {
      case ColumnRole::kCounter:
        if (out.Column(ours) >= 0) {
          out.errors.push_back("header: column " + std::to_string(i + 1) + " ('" + name +
                               "') repeats " + std::string(ours) + "; the first is used");
          break;
        }
        cols[i] = Col{Kind::kCounter, static_cast<uint32_t>(out.counters.size())};
        out.counters.emplace_back(ours);
        break;
      case ColumnRole::kTimestamp:
        cols[i].kind = Kind::kTime;
        break;
      case ColumnRole::kPortGuid:
        cols[i].kind = Kind::kGuid;
        has_guid = true;
        break;
      case ColumnRole::kGuid:
        cols[i].kind = Kind::kGuidAlt;
        has_alt = true;
        break;
      case ColumnRole::kPortNumber:
        cols[i].kind = Kind::kNumber;
        has_number = true;
        break;
      case ColumnRole::kLinkSpeed:
        cols[i].kind = Kind::kSpeed;
        has_link = true;
        break;
      case ColumnRole::kLinkWidth:
        cols[i].kind = Kind::kWidth;
        has_link = true;
        break;
      case ColumnRole::kAttribute:
      case ColumnRole::kGauge:
        break;
    }
  }
  if (!(has_guid || has_alt) || !has_number) {
    return Status::InvalidArgument("telemetry CSV header lacks port_guid/Port_Number columns");
  }

  // Size the flat arrays once: one row per remaining line at most.
  size_t max_rows = 0;
  for (const char* q = p; q < end; ++max_rows) {
    const char* nl = static_cast<const char*>(std::memchr(q, '\n', static_cast<size_t>(end - q)));
    if (!nl) {
      ++max_rows;
      break;
    }
    q = nl + 1;
  }
  const size_t n = out.counters.size();
  const size_t ncols = cols.size();
  out.ports.reserve(max_rows);
  out.time_us.reserve(max_rows);
  out.values.assign(max_rows * n, kNoValue);
  if (has_link) out.links.reserve(max_rows);

  std::string quoted;
  size_t row = 0;
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    const char* e = nl ? nl : end;
    const char* next = nl ? nl + 1 : end;
    ++line_no;
    if (e > p && e[-1] == '\r') --e;
    if (e == p) {
      p = next;
      continue;
    }
    if (!nl) {
      out.truncated = true;
      out.errors.push_back(
          LineError(line_no, "truncated: the body ends inside this row (no line end); skipped"));
      break;
    }
    uint64_t* vals = out.values.data() + row * n;
    uint64_t guid = 0, alt_guid = 0;
    uint32_t number = 0;
    bool guid_ok = false, alt_ok = false, number_ok = false;
    int64_t ts = 0;
    double lane_gbps = 0;
    int lanes = 0;
    const char* c = p;
    size_t col = 0;
    bool bad_quote = false;
    for (;;) {
      const Col k = cols[col];
      const char* ce;
      std::string_view cell;
      if (c < e && *c == '"') {
        ce = QuotedCell(c, e, &quoted);
        if (!ce) {
          bad_quote = true;
          break;
        }
        cell = quoted;
      } else if (k.kind == Kind::kCounter) {
        // Fast path: plain decimal digits up to the comma.
        uint64_t v = 0;
        const char* q = c;
        while (q < e && static_cast<unsigned>(*q - '0') < 10 && q - c < 19) {
          v = v * 10 + static_cast<uint64_t>(*q - '0');
          ++q;
        }
        if (q > c && (q == e || *q == ',')) {
          vals[k.counter] = v;
          ++col;
          if (q == e || col == ncols) {
            c = q;
            break;
          }
          c = q + 1;
          continue;
        }
        ce = static_cast<const char*>(std::memchr(q, ',', static_cast<size_t>(e - q)));
        if (!ce) ce = e;
        cell = std::string_view(c, static_cast<size_t>(ce - c));
      } else {
        ce = static_cast<const char*>(std::memchr(c, ',', static_cast<size_t>(e - c)));
        if (!ce) ce = e;
        cell = std::string_view(c, static_cast<size_t>(ce - c));
      }
      switch (k.kind) {
        case Kind::kCounter: {
          uint64_t v;
          if (ParseCounterValue(cell, &v)) vals[k.counter] = v;
          break;
        }
        case Kind::kTime:
          ts = ParseTimestampUs(cell);
          break;
        case Kind::kGuid:
          guid_ok = ParseGuid(cell, &guid);
          break;
        case Kind::kGuidAlt:
          alt_ok = ParseGuid(cell, &alt_guid);
          break;
        case Kind::kNumber:
          number_ok = ParsePortNumber(cell, &number);
          break;
        case Kind::kSpeed:
          lane_gbps = ParseLaneRateGbps(cell);
          break;
        case Kind::kWidth:
          lanes = ParseLaneCount(cell);
          break;
        case Kind::kSkip:
          break;
      }
      ++col;
      c = ce;
      if (ce == e || col == ncols) break;
      c = ce + 1;
    }
    std::string problem;
    if (bad_quote) {
      problem = "unbalanced quotes";
    } else if (col != ncols || c != e) {
      // Count the cells for the message.
      size_t cells = 1;
      for (const char* q = p; q < e; ++q) cells += *q == ',';
      problem = std::to_string(cells) + " cells, header has " + std::to_string(ncols);
    } else if (!(has_guid ? guid_ok : alt_ok) || !number_ok) {
      problem = "bad port_guid/Port_Number";
    }
    if (!problem.empty()) {
      out.errors.push_back(LineError(line_no, problem));
      std::fill(vals, vals + n, kNoValue);  // the next row reuses this space
      p = next;
      continue;
    }
    out.ports.push_back(PortKey{has_guid ? guid : alt_guid, number});
    out.time_us.push_back(ts);
    if (has_link) {
      out.links.push_back(lanes > 0 && lane_gbps > 0
                              ? LinkRate{static_cast<float>(lane_gbps), static_cast<uint8_t>(lanes)}
                              : LinkRate{});
    }
    ++row;
    p = next;
  }
  out.values.resize(row * n);
  return out;
}

}  // namespace ufmr
