#include "telemetry/telemetry_snapshot.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace ufmr {

int TelemetrySnapshot::Column(std::string_view counter) const {
  for (size_t i = 0; i < counters.size(); ++i) {
    if (counters[i] == counter) return static_cast<int>(i);
  }
  return -1;
}

void TelemetrySnapshot::Append(TelemetrySnapshot&& other) {
  aggregated_rows += other.aggregated_rows;
  if (keyed_by.empty()) keyed_by = other.keyed_by;
  if (rows() == 0 && counters.empty()) {
    std::vector<std::string> errs = std::move(errors);
    bool was_truncated = truncated;
    const size_t aggregated = aggregated_rows;
    std::string keyed = keyed_by;
    *this = std::move(other);
    errs.insert(errs.end(), errors.begin(), errors.end());
    errors = std::move(errs);
    truncated = truncated || was_truncated;
    aggregated_rows = aggregated;
    keyed_by = std::move(keyed);
    return;
  }
  // other's column -> ours, adding columns we lack.
  std::vector<size_t> map(other.counters.size());
  bool same = other.counters == counters;
  if (!same) {
    const size_t before = counters.size();
    for (size_t c = 0; c < other.counters.size(); ++c) {
      int ours = Column(other.counters[c]);
      if (ours < 0) {
        ours = static_cast<int>(counters.size());
        counters.push_back(other.counters[c]);
      }
      map[c] = static_cast<size_t>(ours);
    }
    if (counters.size() != before) {
      // Widen our rows.
      std::vector<uint64_t> wide(rows() * counters.size(), kNoValue);
      for (size_t r = 0; r < rows(); ++r) {
        for (size_t c = 0; c < before; ++c) wide[r * counters.size() + c] = values[r * before + c];
      }
      values.swap(wide);
    }
  }
  const size_t n = counters.size();
  const size_t first = rows();
  if (!other.links.empty() || !links.empty()) {
    links.resize(first, LinkRate{});
    if (other.links.empty()) {
      links.resize(first + other.rows(), LinkRate{});
    } else {
      links.insert(links.end(), other.links.begin(), other.links.end());
    }
  }
  ports.insert(ports.end(), other.ports.begin(), other.ports.end());
  time_us.insert(time_us.end(), other.time_us.begin(), other.time_us.end());
  if (same) {
    values.insert(values.end(), other.values.begin(), other.values.end());
  } else {
    values.resize(rows() * n, kNoValue);
    const size_t m = other.counters.size();
    for (size_t r = 0; r < other.rows(); ++r) {
      for (size_t c = 0; c < m; ++c) values[(first + r) * n + map[c]] = other.values[r * m + c];
    }
  }
  errors.insert(errors.end(), other.errors.begin(), other.errors.end());
  truncated = truncated || other.truncated;
}

std::vector<std::string> TelemetryNotRead(const TelemetrySnapshot& s) {
  std::vector<std::string> out;
  if (s.aggregated_rows > 0) {
    out.push_back(std::to_string(s.aggregated_rows) +
                  " rows of XDR aggregated ports (port_type 4, keyed by sys_image_guid and aport): "
                  "not read; their planes' rows are");
  }
  if (s.keyed_by.rfind("Node_GUID", 0) == 0) {
    out.push_back("rows keyed by " + s.keyed_by);
  }
  return out;
}

ColumnRole ClassifyColumn(std::string_view name) {
  std::string k;
  k.reserve(name.size());
  for (char c : name) {
    if (c == '_' || c == '-' || c == ' ') continue;
    k.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (k == "timestamp") return ColumnRole::kTimestamp;
  if (k == "portguid") return ColumnRole::kPortGuid;
  if (k == "guid") return ColumnRole::kGuid;
  if (k == "portnumber" || k == "portnum" || k == "port") return ColumnRole::kPortNumber;
  if (k == "linkspeedactive" || k == "activespeed") return ColumnRole::kLinkSpeed;
  if (k == "linkwidthactive" || k == "activewidth") return ColumnRole::kLinkWidth;
  if (k == "nodeguid") return ColumnRole::kNodeGuid;
  if (k == "porttype") return ColumnRole::kPortType;
  static constexpr std::string_view kAttributes[] = {"sourceid",
                                                     "source",
                                                     "tag",
                                                     "sysimageguid",
                                                     "aport",
                                                     "nodedescription",
                                                     "nodedesc",
                                                     "nodename",
                                                     "devicename",
                                                     "deviceid",
                                                     "devicetype",
                                                     "mlabel",
                                                     "portlabel",
                                                     "label",
                                                     "statusmessage",
                                                     "phystate",
                                                     "physstate",
                                                     "logicalstate",
                                                     "activefec",
                                                     "fecmode",
                                                     "linkpartnernodeguid",
                                                     "linkpartnerportnum",
                                                     "linkpartnerdescription",
                                                     "hostname",
                                                     "lid",
                                                     "switchserialnumber",
                                                     "switchpartnumber",
                                                     "mvcrsensorname",
                                                     "mtmpsensorname",
                                                     "linkspeedenabled",
                                                     "linkwidthenabled",
                                                     "linkspeedsupported",
                                                     "linkwidthsupported",
                                                     "fwversion",
                                                     "serialnumber",
                                                     "partnumber",
                                                     "cableserialnumber"};
  for (std::string_view a : kAttributes) {
    if (k == a) return ColumnRole::kAttribute;
  }
  // Ratios and levels: Total_Raw_BER, Effective_BER, Symbol_BER, Module_Temperature, ...
  if (k.find("temperature") != std::string::npos || k.find("voltage") != std::string::npos) {
    return ColumnRole::kGauge;
  }
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "ber" || (lower.size() > 4 && lower.compare(lower.size() - 4, 4, "_ber") == 0)) {
    return ColumnRole::kGauge;
  }
  return ColumnRole::kCounter;
}

bool ParseCounterValue(std::string_view text, uint64_t* out) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  const char* b = text.data();
  const char* e = b + text.size();
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(b, e, v);
  if (ec == std::errc() && end == e) {
    if (v == kNoValue) return false;
    *out = v;
    return true;
  }
  double d = 0;
  auto [dend, dec] = std::from_chars(b, e, d);
  if (dec != std::errc() || dend != e) return false;
  // Integral, non-negative and below 2^64 (18446744073709551616.0 is 2^64 exactly).
  if (!(d >= 0 && d < 18446744073709551616.0) || d != std::floor(d)) return false;
  *out = static_cast<uint64_t>(d);
  if (*out == kNoValue) return false;
  return true;
}

namespace {
constexpr int64_t kSecondsBelow = 100'000'000'000LL;
constexpr int64_t kMillisBelow = 100'000'000'000'000LL;
constexpr int64_t kMicrosBelow = 100'000'000'000'000'000LL;
}  // namespace

int64_t TimestampMicros(int64_t raw) {
  if (raw <= 0) return 0;
  if (raw < kSecondsBelow) return raw * 1'000'000;
  if (raw < kMillisBelow) return raw * 1'000;
  if (raw < kMicrosBelow) return raw;
  return raw / 1'000;  // nanoseconds
}

const char* TimestampUnit(int64_t raw) {
  if (raw <= 0) return "none";
  if (raw < kSecondsBelow) return "seconds";
  if (raw < kMillisBelow) return "milliseconds";
  if (raw < kMicrosBelow) return "microseconds";
  return "nanoseconds";
}

bool ParseTimestampMicros(std::string_view text, int64_t* out) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.empty()) return false;
  const char* b = text.data();
  const char* e = b + text.size();
  int64_t v = 0;
  auto [end, ec] = std::from_chars(b, e, v);
  if (ec == std::errc() && end == e) {
    if (v < 0) return false;
    *out = TimestampMicros(v);
    return true;
  }
  double d = 0;
  auto [dend, dec] = std::from_chars(b, e, d);
  if (dec != std::errc() || dend != e || !(d >= 0 && d < 9e18)) return false;
  // The unit by the integral part's magnitude; the fraction kept down to the microsecond.
  const int64_t whole = static_cast<int64_t>(d);
  const int64_t scale = whole > 0 ? TimestampMicros(whole) / whole : 1;
  *out = scale >= 1 ? static_cast<int64_t>(d * static_cast<double>(scale))
                    : static_cast<int64_t>(d / 1000.0);
  return true;
}

std::string Printable(std::string_view text, size_t max) {
  std::string out;
  const size_t n = text.size() < max ? text.size() : max;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  if (text.size() > max) out += "...";
  return out;
}

}  // namespace ufmr
