#include "base/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/metric_catalog.h"

namespace ufmr {

namespace {

// Splits `family{labels}` into the family and the text between the braces.
std::pair<std::string, std::string> Split(const std::string& name) {
  size_t brace = name.find('{');
  if (brace == std::string::npos) return {name, ""};
  size_t end = name.size();
  if (end > brace && name.back() == '}') --end;
  return {name.substr(0, brace), name.substr(brace + 1, end - brace - 1)};
}

// A sample value: whole numbers exactly (counters stay readable past a million), others in the
// shortest form that reads back the same.
std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 9.007199254740992e15) {
    auto r = std::to_chars(buf, buf + sizeof(buf), static_cast<int64_t>(v));
    return std::string(buf, r.ptr);
  }
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::string Series(const std::string& name, const std::string& labels) {
  return labels.empty() ? name : name + "{" + labels + "}";
}

// Help text escapes only `\` and newlines.
std::string EscapeHelp(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string MetricName(
    std::string_view family,
    std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
  std::string out(family);
  if (labels.size() == 0) return out;
  out += '{';
  bool first = true;
  for (const auto& [key, value] : labels) {
    if (!first) out += ',';
    first = false;
    out.append(key);
    out += "=\"";
    for (char c : value) {
      if (c == '\\') {
        out += "\\\\";
      } else if (c == '"') {
        out += "\\\"";
      } else if (c == '\n') {
        out += "\\n";
      } else {
        out += c;
      }
    }
    out += '"';
  }
  out += '}';
  return out;
}

Metrics::Metrics() {
  for (const auto& info : MetricCatalog()) {
    Family& f = families_[info.name];
    f.type = info.type;
    f.help = info.help;
    f.labelled = !info.labels.empty();
    f.bounds = info.buckets;
  }
}

Metrics::Family& Metrics::FamilyOf(const std::string& family) {
  auto it = families_.find(family);
  if (it != families_.end()) return it->second;
  // Outside the catalog (metrics_test keeps the code from this): typed by its name.
  Family& f = families_[family];
  bool counter = family.size() > 6 && family.compare(family.size() - 6, 6, "_total") == 0;
  f.type = counter ? "counter" : "gauge";
  f.labelled = true;  // nothing shown before its first update
  return f;
}

void Metrics::Add(const std::string& name, double delta) {
  auto [family, labels] = Split(name);
  std::lock_guard<std::mutex> lock(mu_);
  FamilyOf(family).values[labels] += delta;
}

void Metrics::Set(const std::string& name, double value) {
  auto [family, labels] = Split(name);
  std::lock_guard<std::mutex> lock(mu_);
  FamilyOf(family).values[labels] = value;
}

void Metrics::Observe(const std::string& name, double value) {
  auto [family, labels] = Split(name);
  std::lock_guard<std::mutex> lock(mu_);
  Family& f = FamilyOf(family);
  if (f.type != "histogram") {
    // A family outside the catalog observed: a histogram with broad default buckets.
    f.type = "histogram";
    f.bounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  }
  Histogram& h = f.hists[labels];
  if (h.counts.empty()) {
    h.bounds = f.bounds;
    h.counts.assign(f.bounds.size() + 1, 0);
  }
  size_t bucket = static_cast<size_t>(std::lower_bound(h.bounds.begin(), h.bounds.end(), value) -
                                      h.bounds.begin());
  ++h.counts[bucket];
  h.sum += value;
  ++h.count;
}

double Metrics::Get(const std::string& name) const {
  auto [family, labels] = Split(name);
  std::lock_guard<std::mutex> lock(mu_);
  auto f = families_.find(family);
  if (f == families_.end()) return 0;
  auto v = f->second.values.find(labels);
  return v == f->second.values.end() ? 0 : v->second;
}

std::optional<Metrics::Histogram> Metrics::GetHistogram(const std::string& name) const {
  auto [family, labels] = Split(name);
  std::lock_guard<std::mutex> lock(mu_);
  auto f = families_.find(family);
  if (f == families_.end()) return std::nullopt;
  auto h = f->second.hists.find(labels);
  if (h == f->second.hists.end()) return std::nullopt;
  return h->second;
}

std::string Metrics::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  out.reserve(16384);
  for (const auto& [name, f] : families_) {
    if (!f.help.empty()) out += "# HELP " + name + " " + EscapeHelp(f.help) + "\n";
    out += "# TYPE " + name + " " + f.type + "\n";
    if (f.type == "histogram") {
      for (const auto& [labels, h] : f.hists) {
        const std::string sep = labels.empty() ? "" : labels + ",";
        uint64_t cumulative = 0;
        for (size_t i = 0; i < h.bounds.size(); ++i) {
          cumulative += h.counts[i];
          out += name + "_bucket{" + sep + "le=\"" + FormatValue(h.bounds[i]) + "\"} " +
                 std::to_string(cumulative) + "\n";
        }
        out += name + "_bucket{" + sep + "le=\"+Inf\"} " + std::to_string(h.count) + "\n";
        out += Series(name + "_sum", labels) + " " + FormatValue(h.sum) + "\n";
        out += Series(name + "_count", labels) + " " + std::to_string(h.count) + "\n";
      }
      continue;
    }
    if (f.values.empty() && !f.labelled) out += name + " 0\n";
    for (const auto& [labels, value] : f.values) {
      out += Series(name, labels) + " " + FormatValue(value) + "\n";
    }
  }
  return out;
}

}  // namespace ufmr
