#include "core/telemetry.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace ufmr {

namespace {

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  out.push_back(std::move(cur));
  return out;
}

bool ParseDouble(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

std::string NormalizeGuid(std::string g) {
  if (g.rfind("0x", 0) == 0 || g.rfind("0X", 0) == 0) g = g.substr(2);
  if (g.empty()) return g;  // stays invalid
  std::transform(g.begin(), g.end(), g.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (g.size() < 16) g.insert(0, 16 - g.size(), '0');
  return g;
}

bool IsHex(const std::string& s) {
  return !s.empty() && s.size() <= 16 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c); });
}

}  // namespace

Result<ParsedTelemetry> ParseTelemetryCsv(const std::string& text) {
  ParsedTelemetry out;
  size_t pos = 0;
  int line_no = 0;
  std::vector<std::string> header;
  int guid_col = -1, num_col = -1, ts_col = -1;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    auto cells = SplitCsvLine(line);
    if (header.empty()) {
      header = cells;
      for (size_t i = 0; i < header.size(); ++i) {
        if (header[i] == "port_guid") guid_col = static_cast<int>(i);
        if (header[i] == "Port_Number" || header[i] == "port_num") num_col = static_cast<int>(i);
        if (header[i] == "timestamp") ts_col = static_cast<int>(i);
      }
      if (guid_col < 0 || num_col < 0) {
        return Status::InvalidArgument("telemetry CSV header lacks port_guid/Port_Number columns");
      }
      continue;
    }
    if (cells.size() != header.size()) {
      out.errors.push_back("line " + std::to_string(line_no) + ": " + std::to_string(cells.size()) +
                           " cells, header has " + std::to_string(header.size()));
      continue;
    }
    std::string guid = NormalizeGuid(cells[guid_col]);
    double num = 0;
    if (!IsHex(guid) || !ParseDouble(cells[num_col], &num) || num < 0 || num > 4096 ||
        num != static_cast<int>(num)) {
      out.errors.push_back("line " + std::to_string(line_no) + ": bad port_guid/Port_Number");
      continue;
    }
    CounterSample s;
    s.port = guid + "_" + std::to_string(static_cast<int>(num));
    double ts = 0;
    if (ts_col >= 0 && ParseDouble(cells[ts_col], &ts)) s.timestamp_us = static_cast<int64_t>(ts);
    for (size_t i = 0; i < header.size(); ++i) {
      if (static_cast<int>(i) == guid_col || static_cast<int>(i) == num_col ||
          static_cast<int>(i) == ts_col || header[i] == "Node_GUID" || header[i] == "source_id" ||
          header[i] == "tag") {
        continue;  // identifiers, not counters
      }
      double v = 0;
      if (ParseDouble(cells[i], &v)) s.counters[header[i]] = v;
    }
    out.samples.push_back(std::move(s));
  }
  if (header.empty()) return Status::InvalidArgument("telemetry CSV is empty");
  return out;
}

std::vector<Observation> CounterTracker::Update(const CounterSample& sample, TimePoint now) {
  std::vector<Observation> out;
  TimePoint t =
      sample.timestamp_us > 0 ? TimePoint(std::chrono::microseconds(sample.timestamp_us)) : now;
  auto it = last_.find(sample.port);
  if (it == last_.end()) {
    last_.emplace(sample.port, Last{t, sample.counters});
    return out;
  }
  Last& last = it->second;
  double interval = std::chrono::duration<double>(t - last.time).count();
  if (interval <= 0) return out;  // the same sample served twice: nothing new
  for (const auto& [name, value] : sample.counters) {
    auto prev = last.counters.find(name);
    if (prev == last.counters.end()) continue;  // new column: baseline it
    double delta = value - prev->second;
    if (delta < 0) delta = value;  // reset or wrap: count since the reset
    if (delta == 0) continue;
    Observation o;
    o.kind = Observation::Kind::kCounter;
    o.time = t;
    o.source = "telemetry";
    o.ports = {sample.port};
    o.counter = name;
    o.delta = delta;
    o.interval_s = interval;
    o.value = value;
    out.push_back(std::move(o));
  }
  last.time = t;
  last.counters = sample.counters;
  return out;
}

}  // namespace ufmr
