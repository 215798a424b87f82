#include "telemetry/telemetry_source.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"
#include "telemetry/telemetry_csv.h"
#include "telemetry/telemetry_prometheus.h"

namespace ufmr {

namespace {}  // namespace

Result<TelemetryFormat> ParseTelemetryFormat(std::string_view name) {
  std::string n = AsciiLower(name);
  if (n == "auto") return TelemetryFormat::kAuto;
  if (n == "csv") return TelemetryFormat::kCsv;
  if (n == "prometheus" || n == "prom" || n == "text") return TelemetryFormat::kPrometheus;
  return Status::InvalidArgument("telemetry format must be csv, prometheus or auto");
}

const char* TelemetryFormatName(TelemetryFormat f) {
  switch (f) {
    case TelemetryFormat::kCsv:
      return "csv";
    case TelemetryFormat::kPrometheus:
      return "prometheus";
    case TelemetryFormat::kAuto:
      break;
  }
  return "auto";
}

TelemetryFormat DetectTelemetryFormat(std::string_view content_type, std::string_view body) {
  std::string ct = AsciiLower(content_type);
  if (ct.find("csv") != std::string::npos) return TelemetryFormat::kCsv;
  if (ct.find("openmetrics") != std::string::npos ||
      ct.find("version=0.0.4") != std::string::npos) {
    return TelemetryFormat::kPrometheus;
  }
  if (body.size() >= 3 && body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
  size_t pos = 0;
  while (pos < body.size()) {
    size_t nl = body.find('\n', pos);
    std::string_view line =
        body.substr(pos, nl == std::string_view::npos ? body.size() - pos : nl - pos);
    pos = nl == std::string_view::npos ? body.size() : nl + 1;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    if (line.front() == '#') return TelemetryFormat::kPrometheus;
    size_t brace = line.find('{');
    size_t comma = line.find(',');
    if (brace != std::string_view::npos && (comma == std::string_view::npos || brace < comma)) {
      return TelemetryFormat::kPrometheus;
    }
    return comma != std::string_view::npos ? TelemetryFormat::kCsv : TelemetryFormat::kPrometheus;
  }
  return TelemetryFormat::kCsv;  // empty: either parser says so
}

Result<TelemetrySnapshot> ParseTelemetry(std::string_view body, TelemetryFormat format,
                                         std::string_view content_type) {
  static const TelemetryColumns kAsNamed;
  return ParseTelemetry(body, format, content_type, kAsNamed);
}

Result<TelemetrySnapshot> ParseTelemetry(std::string_view body, TelemetryFormat format,
                                         std::string_view content_type,
                                         const TelemetryColumns& columns) {
  if (format == TelemetryFormat::kAuto) format = DetectTelemetryFormat(content_type, body);
  return format == TelemetryFormat::kCsv ? ParseTelemetryCsv(body, columns)
                                         : ParseTelemetryPrometheus(body, columns);
}

std::vector<std::string> ShardUrls(const TelemetryEndpoint& endpoint) {
  if (endpoint.shards <= 1) return {endpoint.url};
  std::vector<std::string> out;
  const char sep = endpoint.url.find('?') == std::string::npos ? '?' : '&';
  for (int k = 0; k < endpoint.shards; ++k) {
    out.push_back(endpoint.url + sep + "num_shards=" + std::to_string(endpoint.shards) +
                  "&shard=" + std::to_string(k) + "&sharding_field=port_guid");
  }
  return out;
}

Result<FetchedTelemetry> FetchTelemetry(const TelemetryEndpoint& endpoint,
                                        const TelemetryFetch& fetch) {
  FetchedTelemetry out;
  const std::vector<std::string> urls = ShardUrls(endpoint);
  const int n = static_cast<int>(urls.size());
  for (int k = 0; k < n; ++k) {
    const std::string& url = urls[static_cast<size_t>(k)];
    const std::string who =
        n > 1 ? "shard " + std::to_string(k) + "/" + std::to_string(n) + " (" + url + ")" : url;
    auto r = fetch(url);
    if (!r.ok()) {
      out.failures.push_back(who + ": " + Printable(r.status().message(), 300));
      continue;
    }
    if (r->status != 0 && (r->status < 200 || r->status >= 300)) {
      out.failures.push_back(who + ": HTTP " + std::to_string(r->status));
      continue;
    }
    auto parsed =
        ParseTelemetry(r->body, endpoint.format, r->Header("content-type"), endpoint.columns);
    if (!parsed.ok()) {
      out.failures.push_back(who + ": " + parsed.status().message());
      continue;
    }
    if (n > 1) {
      for (auto& e : parsed->errors) e = "shard " + std::to_string(k) + ": " + e;
    }
    out.snapshot.Append(std::move(parsed.value()));
    ++out.shards_ok;
  }
  if (out.shards_ok == 0) {
    std::string why = out.failures.empty() ? "no response" : out.failures.front();
    if (out.failures.size() > 1) {
      why += " (and " + std::to_string(out.failures.size() - 1) + " more shards failed)";
    }
    return Status::Unavailable("telemetry " + endpoint.url + ": " + why);
  }
  return out;
}

}  // namespace ufmr
