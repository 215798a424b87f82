// Telemetry source: one UFM Telemetry endpoint (primary :9001 or secondary :9002) as the service
// reads it: the format (CSV, Prometheus text, or detected per response), optional sharding
// (N requests with ?num_shards=N&shard=K&sharding_field=port_guid, merged), and fetching through
// a caller-supplied GET so tests and the service choose the transport. A shard that fails is
// reported and the others are used. Pure functions; thread-safe if the fetch function is.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "config/telemetry_columns.h"
#include "telemetry/telemetry_snapshot.h"
#include "ufm/http_client.h"

namespace ufmr {

enum class TelemetryFormat { kAuto, kCsv, kPrometheus };

// "auto", "csv", "prometheus" (also "prom", "text").
Result<TelemetryFormat> ParseTelemetryFormat(std::string_view name);
const char* TelemetryFormatName(TelemetryFormat f);

// kAuto resolved for one response: by Content-Type (text/csv; Prometheus' text/plain;
// version=0.0.4 or OpenMetrics), else by the first line that is not blank: '#' or a '{' before any
// ',' is Prometheus, a ',' is CSV, anything else Prometheus.
TelemetryFormat DetectTelemetryFormat(std::string_view content_type, std::string_view body);

// Parses with `format`, detecting it first when kAuto.
Result<TelemetrySnapshot> ParseTelemetry(std::string_view body, TelemetryFormat format,
                                         std::string_view content_type = "");
// The same, with the endpoint's column names mapped to ours (TelemetryColumns).
Result<TelemetrySnapshot> ParseTelemetry(std::string_view body, TelemetryFormat format,
                                         std::string_view content_type,
                                         const TelemetryColumns& columns);

struct TelemetryEndpoint {
  std::string url;
  TelemetryFormat format = TelemetryFormat::kAuto;
  int shards = 1;              // > 1: that many requests, one per shard
  TelemetryColumns columns{};  // how this endpoint names its columns
};

// The URLs to GET: the URL itself, or one per shard K = 0..N-1 with
// num_shards=N&shard=K&sharding_field=port_guid appended ('?' or '&' as the URL needs).
std::vector<std::string> ShardUrls(const TelemetryEndpoint& endpoint);

// A GET returning the response (non-2xx statuses may be values or errors; both are failures).
using TelemetryFetch = std::function<Result<HttpResult>(const std::string& url)>;

struct FetchedTelemetry {
  TelemetrySnapshot snapshot;         // every shard that answered, merged
  std::vector<std::string> failures;  // "shard K/N (url): why" for shards that did not
  int shards_ok = 0;
};

// Fetches and parses every shard. An error only when no shard could be used.
Result<FetchedTelemetry> FetchTelemetry(const TelemetryEndpoint& endpoint,
                                        const TelemetryFetch& fetch);

}  // namespace ufmr
