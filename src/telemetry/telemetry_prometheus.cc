#include "telemetry/telemetry_prometheus.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "telemetry/telemetry_text.h"

namespace ufmr {

namespace {

using telemetry_text::Line;
using telemetry_text::LineError;
using telemetry_text::LineReader;
using telemetry_text::PortIdentity;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == ':';
}

const char* SkipBlanks(const char* c, const char* e) {
  while (c < e && (*c == ' ' || *c == '\t')) ++c;
  return c;
}

// The first blank at or after c, or e.
const char* SkipNonBlanks(const char* c, const char* e) {
  while (c < e && *c != ' ' && *c != '\t') ++c;
  return c;
}

// Label keys seen so far and what they mean; label sets repeat on every line, so this stays tiny.
class LabelRoles {
 public:
  explicit LabelRoles(const TelemetryColumns& columns) : columns_(columns) {}
  ColumnRole Get(std::string_view key) {
    for (const auto& [k, role] : known_) {
      if (k == key) return role;
    }
    ColumnRole role = ClassifyColumn(columns_.Rename(key));
    if (known_.size() < 64) known_.emplace_back(std::string(key), role);
    return role;
  }

 private:
  const TelemetryColumns& columns_;
  std::vector<std::pair<std::string, ColumnRole>> known_;
};

bool IsPortLabel(ColumnRole role) {
  return role == ColumnRole::kPortGuid || role == ColumnRole::kGuid ||
         role == ColumnRole::kPortNumber;
}

// A plain decimal counter value (up to 19 digits), the fast path; false for anything else, which
// ParseCounterValue then reads.
inline bool PlainDecimal(std::string_view text, uint64_t* out) {
  if (text.size() > 19) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (static_cast<unsigned>(c - '0') >= 10) return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

// A label value with its backslash escapes undone, in *buffer.
std::string_view Unescape(std::string_view value, std::string* buffer) {
  buffer->clear();
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\\' && i + 1 < value.size()) ++i;
    buffer->push_back(value[i]);
  }
  return *buffer;
}

// One `key="value"` of a label block at *at (past blanks; the block's '}' is at le) and the ','
// after it; *at moves past them. False when the block is malformed there.
bool NextLabel(const char** at, const char* le, std::string_view* key, std::string_view* value,
               bool* escaped) {
  const char* l = *at;
  const char* kb = l;
  while (l < le && IsNameChar(*l)) ++l;
  *key = std::string_view(kb, static_cast<size_t>(l - kb));
  l = SkipBlanks(l, le);
  if (key->empty() || l == le || *l != '=') return false;
  l = SkipBlanks(l + 1, le);
  if (l == le || *l != '"') return false;
  const char* qb = ++l;
  bool any_escape = false;
  while (l < le && *l != '"') {
    if (*l == '\\' && l + 1 < le) {
      any_escape = true;
      ++l;
    }
    ++l;
  }
  if (l == le) return false;
  *escaped = any_escape;
  *value = std::string_view(qb, static_cast<size_t>(l - qb));
  l = SkipBlanks(l + 1, le);  // past the closing quote
  if (l < le) {
    if (*l != ',') return false;
    ++l;
  }
  *at = l;
  return true;
}

// One sample line in its parts, the label block not parsed yet.
struct Sample {
  std::string_view name;
  std::string_view labels;  // "{...}", or empty
  std::string_view value;
  int64_t time_us = 0;
};

// Lines into a columnar snapshot, one parse (ParseTelemetryPrometheus).
class PrometheusParser {
 public:
  explicit PrometheusParser(const TelemetryColumns& names) : names_(names), label_roles_(names) {}
  Result<TelemetrySnapshot> Parse(std::string_view text);

 private:
  struct Metric {
    ColumnRole role;
    uint32_t column;
  };

  // Notes what is wrong with the current line (out of line: the parsing steps stay small).
  void Error(const char* what);
  bool SplitSample(const char* c, const char* e, Sample* s);
  uint32_t Row(std::string_view labels);
  uint32_t LookUpRow(std::string_view labels);
  bool ParseLabels(std::string_view labels, PortIdentity* port);
  Metric MetricOf(std::string_view name);
  Metric LookUpMetric(std::string_view name);
  void Store(const Metric& metric, uint32_t row, std::string_view value);
  void StoreLink(ColumnRole role, uint32_t row, std::string_view value);
  Status CheckSamples() const;
  void Finish();

  const TelemetryColumns& names_;
  TelemetrySnapshot out_;
  PortIndex rows_;
  LabelRoles label_roles_;
  std::unordered_map<std::string, Metric> metrics_;
  // Values by column while parsing (lines come grouped by metric: sequential writes), made
  // row-major at the end.
  std::vector<std::vector<uint64_t>> columns_;
  std::vector<float> lane_gbps_;  // per row, when a speed/width metric is seen
  std::vector<uint8_t> lanes_;
  bool has_link_ = false;

  // Exposition text groups lines by metric (each family lists the ports in the same order) or by
  // port, so a line's label block is usually byte for byte the one of the previous line's row or
  // of the row after it: then the labels need no parsing and the port no lookup.
  std::string prev_name_ = "\n";
  Metric prev_metric_{ColumnRole::kAttribute, 0};
  std::vector<std::string_view> row_labels_;  // per row: its first line's label block, in the text
  uint32_t prev_row_ = PortIndex::kNone;

  size_t samples_ = 0, identified_ = 0;
  int line_no_ = 0;
  std::string unescaped_;
};

void PrometheusParser::Error(const char* what) { out_.errors.push_back(LineError(line_no_, what)); }

Result<TelemetrySnapshot> PrometheusParser::Parse(std::string_view text) {
  LineReader lines(text.data(), text.data() + text.size());
  Line line;
  Sample sample;
  while (lines.Next(&line)) {
    line_no_ = lines.line_no();
    const char* c = SkipBlanks(line.begin, line.end);
    if (c == line.end || *c == '#') continue;
    ++samples_;
    if (!line.has_end) {
      out_.truncated = true;
      Error("truncated: the body ends inside this line (no line end); skipped");
      break;
    }
    if (!SplitSample(c, line.end, &sample)) continue;
    const uint32_t row = Row(sample.labels);
    if (row == PortIndex::kNone) continue;
    prev_row_ = row;
    ++identified_;
    if (sample.time_us > out_.time_us[row]) out_.time_us[row] = sample.time_us;
    Store(MetricOf(sample.name), row, sample.value);
  }
  if (Status s = CheckSamples(); !s.ok()) return s;
  Finish();
  return std::move(out_);
}

// "<metric>{labels} <value> [timestamp]" in [c, e). False, the error noted, for another shape.
bool PrometheusParser::SplitSample(const char* c, const char* e, Sample* s) {
  const char* name_begin = c;
  const size_t prev_len = prev_name_.size();
  if (static_cast<size_t>(e - c) > prev_len && std::memcmp(c, prev_name_.data(), prev_len) == 0 &&
      !IsNameChar(c[prev_len])) {
    c += prev_len;  // the previous line's metric
  } else {
    while (c < e && IsNameChar(*c)) ++c;
  }
  s->name = std::string_view(name_begin, static_cast<size_t>(c - name_begin));
  if (s->name.empty()) {
    Error("no metric name");
    return false;
  }
  // Label block: up to the line's last '}' (a value or timestamp holds none; a '}' inside a
  // label value comes before it). Its syntax is checked when its labels are parsed.
  s->labels = std::string_view();
  if (c < e && *c == '{') {
    const char* rb = static_cast<const char*>(memrchr(c, '}', static_cast<size_t>(e - c)));
    if (!rb) {
      Error("unterminated label set");
      return false;
    }
    s->labels = std::string_view(c, static_cast<size_t>(rb + 1 - c));
    c = rb + 1;
  }
  const char* vb = SkipBlanks(c, e);
  c = SkipNonBlanks(vb, e);
  s->value = std::string_view(vb, static_cast<size_t>(c - vb));
  const char* tb = SkipBlanks(c, e);
  c = SkipNonBlanks(tb, e);
  const std::string_view time_text(tb, static_cast<size_t>(c - tb));
  if (s->value.empty() || SkipBlanks(c, e) != e) {
    Error("expected '<metric>{labels} <value> [timestamp]'");
    return false;
  }
  s->time_us = 0;
  if (!time_text.empty() && !ParseTimestampMicros(time_text, &s->time_us)) {
    Error("bad timestamp");
    return false;
  }
  return true;
}

// The row of the port a label block names; kNone when it names none or, the error noted, badly.
uint32_t PrometheusParser::Row(std::string_view labels) {
  if (!labels.empty() && prev_row_ != PortIndex::kNone) {
    const uint32_t after = prev_row_ + 1 < row_labels_.size() ? prev_row_ + 1 : 0;
    if (labels == row_labels_[prev_row_]) return prev_row_;
    if (labels == row_labels_[after]) return after;
  }
  return LookUpRow(labels);
}

// The same for a label block unlike the previous line's row's and the next row's: its labels
// parsed, the port looked up, a row added for a new one.
uint32_t PrometheusParser::LookUpRow(std::string_view labels) {
  PortIdentity port;
  if (!ParseLabels(labels, &port)) {
    Error("malformed label set");
    return PortIndex::kNone;
  }
  if (!port.named()) return PortIndex::kNone;  // not a port metric
  if (!port.ok()) {
    Error("bad port_guid/port_num labels");
    return PortIndex::kNone;
  }
  // Lines of one metric usually list the ports in the same order as the previous metric's.
  const uint32_t hint =
      prev_row_ == PortIndex::kNone || prev_row_ + 1 >= rows_.size() ? 0 : prev_row_ + 1;
  auto [slot, added] = rows_.Insert(port.key(), hint);
  if (added) {
    out_.ports.push_back(port.key());
    out_.time_us.push_back(0);
    row_labels_.push_back(labels);
  }
  return slot;
}

// The port labels of a block into *port; false when the block is malformed.
bool PrometheusParser::ParseLabels(std::string_view labels, PortIdentity* port) {
  if (labels.empty()) return true;
  const char* l = labels.data() + 1;
  const char* const le = labels.data() + labels.size() - 1;  // at '}'
  while (l < le) {
    l = SkipBlanks(l, le);
    if (l == le) break;
    std::string_view key, value;
    bool escaped = false;
    if (!NextLabel(&l, le, &key, &value, &escaped)) return false;
    const ColumnRole role = label_roles_.Get(key);
    if (!IsPortLabel(role)) continue;
    if (escaped) value = Unescape(value, &unescaped_);
    if (role == ColumnRole::kPortGuid) {
      port->PortGuid(value);
    } else if (role == ColumnRole::kGuid) {
      port->Guid(value);
    } else {
      port->Number(value);
    }
  }
  return true;
}

// What a metric name means, and its counter column.
PrometheusParser::Metric PrometheusParser::MetricOf(std::string_view name) {
  if (name == prev_name_) return prev_metric_;
  return LookUpMetric(name);
}

// The same for a name unlike the previous line's.
PrometheusParser::Metric PrometheusParser::LookUpMetric(std::string_view name) {
  auto it = metrics_.find(std::string(name));
  if (it == metrics_.end()) {
    const std::string_view ours = names_.Rename(name);
    Metric m{ClassifyColumn(ours), 0};
    if (m.role == ColumnRole::kCounter) {
      // Two names the map (or case) makes one counter share its column.
      const int existing = out_.Column(ours);
      m.column = existing >= 0 ? static_cast<uint32_t>(existing)
                               : static_cast<uint32_t>(out_.counters.size());
      if (existing < 0) out_.counters.emplace_back(ours);
    }
    it = metrics_.emplace(std::string(name), m).first;
  }
  prev_name_.assign(name);
  prev_metric_ = it->second;
  return it->second;
}

void PrometheusParser::Store(const Metric& metric, uint32_t row, std::string_view value) {
  if (metric.role == ColumnRole::kCounter) {
    uint64_t v = 0;
    if (PlainDecimal(value, &v) || ParseCounterValue(value, &v)) {
      if (metric.column >= columns_.size()) columns_.resize(metric.column + 1);
      std::vector<uint64_t>& col = columns_[metric.column];
      if (row >= col.size()) col.resize(std::max<size_t>(row + 1, out_.ports.size()), kNoValue);
      col[row] = v;
    }
  } else if (metric.role == ColumnRole::kLinkSpeed || metric.role == ColumnRole::kLinkWidth) {
    StoreLink(metric.role, row, value);
  }
}

// A link speed or width value of a row.
void PrometheusParser::StoreLink(ColumnRole role, uint32_t row, std::string_view value) {
  has_link_ = true;
  if (lane_gbps_.size() < out_.ports.size()) {
    lane_gbps_.resize(out_.ports.size(), 0);
    lanes_.resize(out_.ports.size(), 0);
  }
  if (role == ColumnRole::kLinkSpeed) {
    lane_gbps_[row] = static_cast<float>(ParseLaneRateGbps(value));
  } else {
    lanes_[row] = static_cast<uint8_t>(ParseLaneCount(value));
  }
}

// An error when no line was a sample, or none named a port.
Status PrometheusParser::CheckSamples() const {
  if (samples_ == 0) return Status::InvalidArgument("telemetry Prometheus text has no samples");
  if (identified_ > 0) return Status::Ok();
  std::string why = "telemetry Prometheus text: no sample carries port_guid and port_num labels";
  if (!out_.errors.empty()) {
    why += " (" + std::to_string(out_.errors.size()) +
           " lines skipped; first: " + out_.errors.front() + ")";
  }
  return Status::InvalidArgument(why);
}

// The columns made row-major, and the link rates of the rows.
void PrometheusParser::Finish() {
  const size_t n = out_.counters.size();
  out_.values.assign(out_.ports.size() * n, kNoValue);
  columns_.resize(n);
  uint64_t* dst = out_.values.data();
  for (size_t r = 0; r < out_.ports.size(); ++r) {
    for (size_t c = 0; c < n; ++c, ++dst) {
      if (r < columns_[c].size()) *dst = columns_[c][r];
    }
  }
  if (!has_link_) return;
  lane_gbps_.resize(out_.ports.size(), 0);
  lanes_.resize(out_.ports.size(), 0);
  out_.links.resize(out_.ports.size());
  for (size_t r = 0; r < out_.ports.size(); ++r) {
    if (lane_gbps_[r] > 0 && lanes_[r] > 0) out_.links[r] = LinkRate{lane_gbps_[r], lanes_[r]};
  }
}

}  // namespace

Result<TelemetrySnapshot> ParseTelemetryPrometheus(std::string_view text) {
  static const TelemetryColumns kAsNamed;
  return ParseTelemetryPrometheus(text, kAsNamed);
}

Result<TelemetrySnapshot> ParseTelemetryPrometheus(std::string_view text,
                                                   const TelemetryColumns& names) {
  return PrometheusParser(names).Parse(text);
}

}  // namespace ufmr
