#include "telemetry/telemetry_prometheus.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace ufmr {

namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == ':';
}

const char* SkipBlanks(const char* c, const char* e) {
  while (c < e && (*c == ' ' || *c == '\t')) ++c;
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

std::string LineError(int line_no, const std::string& what) {
  return "line " + std::to_string(line_no) + ": " + what;
}

}  // namespace

Result<TelemetrySnapshot> ParseTelemetryPrometheus(std::string_view text) {
  static const TelemetryColumns kAsNamed;
  return ParseTelemetryPrometheus(text, kAsNamed);
}

Result<TelemetrySnapshot> ParseTelemetryPrometheus(std::string_view text,
                                                   const TelemetryColumns& names) {
  TelemetrySnapshot out;
  PortIndex rows;
  LabelRoles label_roles(names);
  struct Metric {
    ColumnRole role;
    uint32_t column;
  };
  std::unordered_map<std::string, Metric> metrics;
  // Values by column while parsing (lines come grouped by metric: sequential writes), made
  // row-major at the end.
  std::vector<std::vector<uint64_t>> columns;
  std::vector<float> lane_gbps;  // per row, when a speed/width metric is seen
  std::vector<uint8_t> lanes;
  bool has_link = false;

  // Exposition text groups lines by metric (each family lists the ports in the same order) or by
  // port, so a line's label block is usually byte for byte the one of the previous line's row or
  // of the row after it: then the labels need no parsing and the port no lookup.
  std::string prev_name = "\n";
  Metric prev_metric{ColumnRole::kAttribute, 0};
  std::vector<std::string_view> row_labels;  // per row: its first line's label block, in `text`
  uint32_t prev_row = PortIndex::kNone;

  size_t samples = 0, identified = 0;
  int line_no = 0;
  std::string unescaped;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    const char* e = nl ? nl : end;
    const char* next = nl ? nl + 1 : end;
    ++line_no;
    if (e > p && e[-1] == '\r') --e;
    const char* c = SkipBlanks(p, e);
    p = next;
    if (c == e || *c == '#') continue;
    ++samples;
    if (!nl) {
      out.truncated = true;
      out.errors.push_back(
          LineError(line_no, "truncated: the body ends inside this line (no line end); skipped"));
      break;
    }
    // Metric name.
    const char* name_begin = c;
    const size_t prev_len = prev_name.size();
    if (static_cast<size_t>(e - c) > prev_len && std::memcmp(c, prev_name.data(), prev_len) == 0 &&
        !IsNameChar(c[prev_len])) {
      c += prev_len;  // the previous line's metric
    } else {
      while (c < e && IsNameChar(*c)) ++c;
    }
    std::string_view name(name_begin, static_cast<size_t>(c - name_begin));
    if (name.empty()) {
      out.errors.push_back(LineError(line_no, "no metric name"));
      continue;
    }
    // Label block: up to the line's last '}' (a value or timestamp holds none; a '}' inside a
    // label value comes before it). Its syntax is checked when its labels are parsed.
    std::string_view labels;
    if (c < e && *c == '{') {
      const char* rb = static_cast<const char*>(memrchr(c, '}', static_cast<size_t>(e - c)));
      if (!rb) {
        out.errors.push_back(LineError(line_no, "unterminated label set"));
        continue;
      }
      labels = std::string_view(c, static_cast<size_t>(rb + 1 - c));
      c = rb + 1;
    }
    // Value and optional timestamp.
    c = SkipBlanks(c, e);
    const char* vb = c;
    while (c < e && *c != ' ' && *c != '\t') ++c;
    std::string_view value_text(vb, static_cast<size_t>(c - vb));
    c = SkipBlanks(c, e);
    const char* tb = c;
    while (c < e && *c != ' ' && *c != '\t') ++c;
    std::string_view ts_text(tb, static_cast<size_t>(c - tb));
    if (value_text.empty() || SkipBlanks(c, e) != e) {
      out.errors.push_back(LineError(line_no, "expected '<metric>{labels} <value> [timestamp]'"));
      continue;
    }
    int64_t ts_us = 0;
    if (!ts_text.empty() && !ParseTimestampMicros(ts_text, &ts_us)) {
      out.errors.push_back(LineError(line_no, "bad timestamp"));
      continue;
    }

    // Which port.
    uint32_t row = PortIndex::kNone;
    if (!labels.empty() && prev_row != PortIndex::kNone) {
      const uint32_t after = prev_row + 1 < row_labels.size() ? prev_row + 1 : 0;
      if (labels == row_labels[prev_row]) {
        row = prev_row;
      } else if (labels == row_labels[after]) {
        row = after;
      }
    }
    if (row == PortIndex::kNone) {
      uint64_t guid = 0, alt_guid = 0;
      uint32_t number = 0;
      bool has_guid = false, has_alt = false, has_number = false;
      bool guid_ok = false, alt_ok = false, number_ok = false;
      bool malformed = false;
      const char* l = labels.empty() ? nullptr : labels.data() + 1;
      const char* le = labels.empty() ? nullptr : labels.data() + labels.size() - 1;  // at '}'
      while (l && l < le) {
        l = SkipBlanks(l, le);
        if (l == le) break;
        const char* kb = l;
        while (l < le && IsNameChar(*l)) ++l;
        std::string_view key(kb, static_cast<size_t>(l - kb));
        l = SkipBlanks(l, le);
        if (key.empty() || l == le || *l != '=') {
          malformed = true;
          break;
        }
        l = SkipBlanks(l + 1, le);
        if (l == le || *l != '"') {
          malformed = true;
          break;
        }
        const char* qb = ++l;
        bool escaped = false;
        while (l < le && *l != '"') {
          if (*l == '\\' && l + 1 < le) {
            escaped = true;
            ++l;
          }
          ++l;
        }
        if (l == le) {
          malformed = true;
          break;
        }
        std::string_view val(qb, static_cast<size_t>(l - qb));
        ++l;  // closing quote
        l = SkipBlanks(l, le);
        if (l < le) {
          if (*l != ',') {
            malformed = true;
            break;
          }
          ++l;
        }
        ColumnRole role = label_roles.Get(key);
        if (role != ColumnRole::kPortGuid && role != ColumnRole::kGuid &&
            role != ColumnRole::kPortNumber) {
          continue;
        }
        if (escaped) {
          unescaped.clear();
          for (size_t i = 0; i < val.size(); ++i) {
            if (val[i] == '\\' && i + 1 < val.size()) ++i;
            unescaped.push_back(val[i]);
          }
          val = unescaped;
        }
        if (role == ColumnRole::kPortGuid) {
          has_guid = true;
          guid_ok = ParseGuid(val, &guid);
        } else if (role == ColumnRole::kGuid) {
          has_alt = true;
          alt_ok = ParseGuid(val, &alt_guid);
        } else {
          has_number = true;
          number_ok = ParsePortNumber(val, &number);
        }
      }
      if (malformed) {
        out.errors.push_back(LineError(line_no, "malformed label set"));
        continue;
      }
      if (!has_guid && !has_alt && !has_number) continue;  // not a port metric
      if (!(has_guid ? guid_ok : alt_ok) || !number_ok) {
        out.errors.push_back(LineError(line_no, "bad port_guid/port_num labels"));
        continue;
      }
      // Lines of one metric usually list the ports in the same order as the previous metric's.
      const uint32_t hint =
          prev_row == PortIndex::kNone || prev_row + 1 >= rows.size() ? 0 : prev_row + 1;
      auto [slot, added] = rows.Insert(PortKey{has_guid ? guid : alt_guid, number}, hint);
      if (added) {
        out.ports.push_back(PortKey{has_guid ? guid : alt_guid, number});
        out.time_us.push_back(0);
        row_labels.push_back(labels);
      }
      row = slot;
    }
    prev_row = row;
    ++identified;
    if (ts_us > out.time_us[row]) out.time_us[row] = ts_us;

    // Which column.
    Metric metric;
    if (name == prev_name) {
      metric = prev_metric;
    } else {
      auto it = metrics.find(std::string(name));
      if (it == metrics.end()) {
        const std::string_view ours = names.Rename(name);
        Metric m{ClassifyColumn(ours), 0};
        if (m.role == ColumnRole::kCounter) {
          // Two names the map (or case) makes one counter share its column.
          const int existing = out.Column(ours);
          m.column = existing >= 0 ? static_cast<uint32_t>(existing)
                                   : static_cast<uint32_t>(out.counters.size());
          if (existing < 0) out.counters.emplace_back(ours);
        }
        it = metrics.emplace(std::string(name), m).first;
      }
      metric = it->second;
      prev_name.assign(name);
      prev_metric = metric;
    }
    if (metric.role == ColumnRole::kCounter) {
      uint64_t v = 0;
      const char* q = value_text.data();
      const char* qe = q + value_text.size();
      bool fast = value_text.size() <= 19;
      for (; fast && q < qe; ++q) {
        if (static_cast<unsigned>(*q - '0') >= 10) {
          fast = false;
          break;
        }
        v = v * 10 + static_cast<uint64_t>(*q - '0');
      }
      if (fast || ParseCounterValue(value_text, &v)) {
        if (metric.column >= columns.size()) columns.resize(metric.column + 1);
        std::vector<uint64_t>& col = columns[metric.column];
        if (row >= col.size()) col.resize(std::max<size_t>(row + 1, out.ports.size()), kNoValue);
        col[row] = v;
      }
    } else if (metric.role == ColumnRole::kLinkSpeed || metric.role == ColumnRole::kLinkWidth) {
      has_link = true;
      if (lane_gbps.size() < out.ports.size()) {
        lane_gbps.resize(out.ports.size(), 0);
        lanes.resize(out.ports.size(), 0);
      }
      if (metric.role == ColumnRole::kLinkSpeed) {
        lane_gbps[row] = static_cast<float>(ParseLaneRateGbps(value_text));
      } else {
        lanes[row] = static_cast<uint8_t>(ParseLaneCount(value_text));
      }
    }
  }
  if (samples == 0) return Status::InvalidArgument("telemetry Prometheus text has no samples");
  if (identified == 0) {
    std::string why = "telemetry Prometheus text: no sample carries port_guid and port_num labels";
    if (!out.errors.empty()) {
      why += " (" + std::to_string(out.errors.size()) +
             " lines skipped; first: " + out.errors.front() + ")";
    }
    return Status::InvalidArgument(why);
  }
  const size_t n = out.counters.size();
  out.values.assign(out.ports.size() * n, kNoValue);
  columns.resize(n);
  uint64_t* dst = out.values.data();
  for (size_t r = 0; r < out.ports.size(); ++r) {
    for (size_t c = 0; c < n; ++c, ++dst) {
      if (r < columns[c].size()) *dst = columns[c][r];
    }
  }
  if (has_link) {
    lane_gbps.resize(out.ports.size(), 0);
    lanes.resize(out.ports.size(), 0);
    out.links.resize(out.ports.size());
    for (size_t r = 0; r < out.ports.size(); ++r) {
      if (lane_gbps[r] > 0 && lanes[r] > 0) out.links[r] = LinkRate{lane_gbps[r], lanes[r]};
    }
  }
  return out;
}

}  // namespace ufmr
