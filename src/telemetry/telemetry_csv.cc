#include "telemetry/telemetry_csv.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "telemetry/telemetry_text.h"

namespace ufmr {

namespace {

using telemetry_text::Line;
using telemetry_text::LineError;
using telemetry_text::LineReader;
using telemetry_text::PortIdentity;

enum class Kind : uint8_t {
  kSkip,
  kCounter,
  kTime,
  kGuid,
  kGuidAlt,
  kNumber,
  kSpeed,
  kWidth,
  kPortType
};

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

// The header: the first line that is not blank; empty when there is none.
std::vector<std::string> ReadHeader(LineReader* lines) {
  std::vector<std::string> header;
  Line line;
  while (header.empty() && lines->Next(&line)) {
    if (line.end > line.begin) header = SplitHeader(line.begin, line.end);
  }
  return header;
}

// The cells of a row that are not counters (counters go straight into the row's values).
struct RowFields {
  PortIdentity port;
  int64_t time_us = 0;
  double lane_gbps = 0;
  int lanes = 0;
  bool aggregated = false;  // an XDR aggregated port's row (port_type 4)
};

// One cell of a row into its place.
inline void StoreCell(Col k, std::string_view cell, uint64_t* values, RowFields* f) {
  switch (k.kind) {
    case Kind::kCounter: {
      uint64_t v;
      if (ParseCounterValue(cell, &v)) values[k.counter] = v;
      break;
    }
    case Kind::kTime:
      f->time_us = ParseTimestampUs(cell);
      break;
    case Kind::kGuid:
      f->port.PortGuid(cell);
      break;
    case Kind::kGuidAlt:
      f->port.Guid(cell);
      break;
    case Kind::kNumber:
      f->port.Number(cell);
      break;
    case Kind::kSpeed:
      f->lane_gbps = ParseLaneRateGbps(cell);
      break;
    case Kind::kWidth:
      f->lanes = ParseLaneCount(cell);
      break;
    case Kind::kPortType:
      f->aggregated = cell == "4";
      break;
    case Kind::kSkip:
      break;
  }
}

// What is wrong with a row, if anything.
enum class RowCheck : uint8_t { kOk, kUnbalancedQuotes, kCellCount, kBadPort };

// Header and rows into a columnar snapshot, one parse (ParseTelemetryCsv).
class CsvParser {
 public:
  explicit CsvParser(const TelemetryColumns& columns) : columns_(columns) {}
  Result<TelemetrySnapshot> Parse(std::string_view text);

 private:
  void ClassifyColumns(const std::vector<std::string>& header);
  void Reserve(const char* p, const char* end);
  void ReadRow(const Line& line, int line_no);
  RowCheck ReadCells(const Line& line, uint64_t* values, RowFields* f);
  void SkipRow(const Line& line, int line_no, RowCheck check, uint64_t* values);

  const TelemetryColumns& columns_;
  TelemetrySnapshot out_;
  std::vector<Col> cols_;  // per header cell
  bool has_guid_ = false, has_alt_ = false, has_number_ = false, has_link_ = false;
  bool has_port_type_ = false;
  int node_guid_col_ = -1;
  size_t counters_ = 0;  // columns of out_.values
  size_t rows_ = 0;      // rows read so far
  std::string quoted_;   // a quoted cell's text
};

Result<TelemetrySnapshot> CsvParser::Parse(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
  if (text.size() >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;  // UTF-8 BOM
  LineReader lines(p, end);
  const std::vector<std::string> header = ReadHeader(&lines);
  if (header.empty()) return Status::InvalidArgument("telemetry CSV is empty");
  ClassifyColumns(header);
  if (!(has_guid_ || has_alt_) || !has_number_) {
    return Status::InvalidArgument(
        "telemetry CSV header lacks port_guid/Port_Number columns" +
        std::string(has_port_type_ ? " (XDR aggregated ports, keyed by sys_image_guid and aport, "
                                     "are not read)"
                                   : ""));
  }
  Reserve(lines.position(), end);
  Line line;
  while (lines.Next(&line)) {
    if (line.end == line.begin) continue;
    if (!line.has_end) {
      out_.truncated = true;
      out_.errors.push_back(LineError(
          lines.line_no(), "truncated: the body ends inside this row (no line end); skipped"));
      break;
    }
    ReadRow(line, lines.line_no());
  }
  out_.values.resize(rows_ * counters_);
  return std::move(out_);
}

// What each header cell means; the counters' names into the snapshot.
void CsvParser::ClassifyColumns(const std::vector<std::string>& header) {
  cols_.assign(header.size(), Col{});
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string& name = header[i];
    if (!PrintableName(name)) {
      out_.errors.push_back("header: column " + std::to_string(i + 1) + " ('" + Printable(name) +
                            "') is not a printable ASCII name; ignored");
      continue;
    }
    const std::string_view ours = columns_.Rename(name);
    switch (ClassifyColumn(ours)) {
      case ColumnRole::kCounter:
        if (out_.Column(ours) >= 0) {
          out_.errors.push_back("header: column " + std::to_string(i + 1) + " ('" + name +
                                "') repeats " + std::string(ours) + "; the first is used");
          break;
        }
        cols_[i] = Col{Kind::kCounter, static_cast<uint32_t>(out_.counters.size())};
        out_.counters.emplace_back(ours);
        break;
      case ColumnRole::kTimestamp:
        cols_[i].kind = Kind::kTime;
        break;
      case ColumnRole::kPortGuid:
        cols_[i].kind = Kind::kGuid;
        has_guid_ = true;
        break;
      case ColumnRole::kGuid:
        cols_[i].kind = Kind::kGuidAlt;
        has_alt_ = true;
        break;
      case ColumnRole::kPortNumber:
        cols_[i].kind = Kind::kNumber;
        has_number_ = true;
        break;
      case ColumnRole::kLinkSpeed:
        cols_[i].kind = Kind::kSpeed;
        has_link_ = true;
        break;
      case ColumnRole::kLinkWidth:
        cols_[i].kind = Kind::kWidth;
        has_link_ = true;
        break;
      case ColumnRole::kNodeGuid:
        if (node_guid_col_ < 0) node_guid_col_ = static_cast<int>(i);
        break;
      case ColumnRole::kPortType:
        cols_[i].kind = Kind::kPortType;
        has_port_type_ = true;
        break;
      case ColumnRole::kAttribute:
      case ColumnRole::kGauge:
        break;
    }
  }
  // Without a port GUID, Node_GUID names the port as NVIDIA's PDR plugin takes it: right for a
  // switch (its ports share its GUID); a host's row then names its adapter's node, which is no
  // port of UFM's, and is matched to none.
  if (!has_guid_ && !has_alt_ && node_guid_col_ >= 0) {
    cols_[static_cast<size_t>(node_guid_col_)].kind = Kind::kGuidAlt;
    has_alt_ = true;
    out_.keyed_by =
        "Node_GUID + port number (no port_guid column: a host's row names its adapter's node, "
        "not its port, and is matched to no port)";
  } else if (has_guid_ || has_alt_) {
    out_.keyed_by = has_guid_ ? "port_guid + port number" : "guid + port number";
  }
}

// Sizes the flat arrays once: one row per remaining line at most.
void CsvParser::Reserve(const char* p, const char* end) {
  size_t max_rows = 0;
  for (const char* q = p; q < end; ++max_rows) {
    const char* nl = static_cast<const char*>(std::memchr(q, '\n', static_cast<size_t>(end - q)));
    if (!nl) {
      ++max_rows;
      break;
    }
    q = nl + 1;
  }
  counters_ = out_.counters.size();
  out_.ports.reserve(max_rows);
  out_.time_us.reserve(max_rows);
  out_.values.assign(max_rows * counters_, kNoValue);
  if (has_link_) out_.links.reserve(max_rows);
}

// One row: a port's values, or the row skipped and reported.
void CsvParser::ReadRow(const Line& line, int line_no) {
  uint64_t* values = out_.values.data() + rows_ * counters_;
  RowFields f;
  const RowCheck check = ReadCells(line, values, &f);
  if (f.aggregated && check != RowCheck::kUnbalancedQuotes && check != RowCheck::kCellCount) {
    ++out_.aggregated_rows;  // not an IB port of UFM's: counted, not read
    std::fill(values, values + counters_, kNoValue);
    return;
  }
  if (check != RowCheck::kOk) {
    SkipRow(line, line_no, check, values);
    return;
  }
  out_.ports.push_back(f.port.key());
  out_.time_us.push_back(f.time_us);
  if (has_link_) {
    out_.links.push_back(f.lanes > 0 && f.lane_gbps > 0 ? LinkRate{static_cast<float>(f.lane_gbps),
                                                                   static_cast<uint8_t>(f.lanes)}
                                                        : LinkRate{});
  }
  ++rows_;
}

// The row's cells: counters into `values`, the rest into *f. Returns what is wrong with the row:
// a quote, the cell count or its port.
RowCheck CsvParser::ReadCells(const Line& line, uint64_t* values, RowFields* f) {
  const char* c = line.begin;
  const char* const e = line.end;
  const size_t ncols = cols_.size();
  size_t col = 0;
  for (;;) {
    const Col k = cols_[col];
    const char* ce;
    std::string_view cell;
    if (c < e && *c == '"') {
      ce = QuotedCell(c, e, &quoted_);
      if (!ce) return RowCheck::kUnbalancedQuotes;
      cell = quoted_;
    } else if (k.kind == Kind::kCounter) {
      // Fast path: plain decimal digits up to the comma.
      uint64_t v = 0;
      const char* q = c;
      while (q < e && static_cast<unsigned>(*q - '0') < 10 && q - c < 19) {
        v = v * 10 + static_cast<uint64_t>(*q - '0');
        ++q;
      }
      if (q > c && (q == e || *q == ',')) {
        values[k.counter] = v;
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
    StoreCell(k, cell, values, f);
    ++col;
    c = ce;
    if (ce == e || col == ncols) break;
    c = ce + 1;
  }
  if (col != ncols || c != e) return RowCheck::kCellCount;
  if (!f->port.ok()) return RowCheck::kBadPort;
  return RowCheck::kOk;
}

// A bad row: reported, and its values cleared (the next row reuses their space).
void CsvParser::SkipRow(const Line& line, int line_no, RowCheck check, uint64_t* values) {
  std::string problem;
  if (check == RowCheck::kUnbalancedQuotes) {
    problem = "unbalanced quotes";
  } else if (check == RowCheck::kCellCount) {
    size_t cells = 1;
    for (const char* q = line.begin; q < line.end; ++q) cells += *q == ',';
    problem = std::to_string(cells) + " cells, header has " + std::to_string(cols_.size());
  } else {
    problem = "bad port_guid/Port_Number";
  }
  out_.errors.push_back(LineError(line_no, problem));
  std::fill(values, values + counters_, kNoValue);
}

}  // namespace

Result<TelemetrySnapshot> ParseTelemetryCsv(std::string_view text) {
  static const TelemetryColumns kAsNamed;
  return ParseTelemetryCsv(text, kAsNamed);
}

Result<TelemetrySnapshot> ParseTelemetryCsv(std::string_view text,
                                            const TelemetryColumns& columns) {
  return CsvParser(columns).Parse(text);
}

}  // namespace ufmr
