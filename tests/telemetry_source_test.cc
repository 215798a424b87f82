// Covers src/telemetry/telemetry_source.h: format names, format detection (Content-Type, first
// line), shard URLs, and FetchTelemetry: shards merged (also with different columns), one failed
// shard (transport, HTTP status, unparseable body) reported while the others are used, every shard
// failing; and the same against a loopback HttpServer on port 0 serving UFM-style shards.
#include "telemetry/telemetry_source.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "http/http_server.h"
#include "support/snapshot_values.h"
#include "support/test_env.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

using testing::PortNames;
using testing::ValueOf;

std::string Fixture(const std::string& name) { return testing::ReadFixture("telemetry/" + name); }

TEST(TelemetryFormatTest, Names) {
  EXPECT_EQ(ParseTelemetryFormat("csv").value(), TelemetryFormat::kCsv);
  EXPECT_EQ(ParseTelemetryFormat("Prometheus").value(), TelemetryFormat::kPrometheus);
  EXPECT_EQ(ParseTelemetryFormat("auto").value(), TelemetryFormat::kAuto);
  EXPECT_FALSE(ParseTelemetryFormat("json").ok());
  EXPECT_STREQ(TelemetryFormatName(TelemetryFormat::kPrometheus), "prometheus");
}

struct DetectCase {
  std::string label;
  std::string content_type;
  std::string body;
  TelemetryFormat format;
};

class DetectTelemetryFormatTest : public ::testing::TestWithParam<DetectCase> {};

TEST_P(DetectTelemetryFormatTest, Format) {
  EXPECT_EQ(DetectTelemetryFormat(GetParam().content_type, GetParam().body), GetParam().format);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DetectTelemetryFormatTest,
    ::testing::Values(
        DetectCase{"CsvContentType", "text/csv", "whatever", TelemetryFormat::kCsv},
        DetectCase{"PrometheusContentType", "text/plain; version=0.0.4; charset=utf-8",
                   "a,b\n1,2\n", TelemetryFormat::kPrometheus},
        DetectCase{"OpenMetrics", "application/openmetrics-text", "", TelemetryFormat::kPrometheus},
        DetectCase{"CsvBody", "", "timestamp,source_id,port_guid\n", TelemetryFormat::kCsv},
        DetectCase{"CsvBodyWrongType", "application/json", "timestamp,port_guid,Port_Number\n",
                   TelemetryFormat::kCsv},
        DetectCase{"CommentFirst", "text/plain", "# HELP x\nx 1\n", TelemetryFormat::kPrometheus},
        DetectCase{"LabelsFirst", "", "x{a=\"1,2\",b=\"3\"} 1\n", TelemetryFormat::kPrometheus},
        DetectCase{"NoLabels", "", "x 1\n", TelemetryFormat::kPrometheus},
        DetectCase{"LeadingBlankLines", "", "\n\r\n  port_guid,Port_Number\n",
                   TelemetryFormat::kCsv},
        DetectCase{"Bom", "", "\xEF\xBB\xBFport_guid,Port_Number\n", TelemetryFormat::kCsv},
        DetectCase{"PrometheusFixture", "", Fixture("primary.prom"), TelemetryFormat::kPrometheus},
        DetectCase{"CsvFixture", "text/plain", Fixture("primary.csv"), TelemetryFormat::kCsv}),
    [](const ::testing::TestParamInfo<DetectCase>& param) { return param.param.label; });

TEST(ParseTelemetryTest, AutoParsesBothFixturesToTheSameValues) {
  for (const char* name : {"primary.csv", "primary.prom"}) {
    auto s = ParseTelemetry(Fixture(name), TelemetryFormat::kAuto);
    ASSERT_TRUE(s.ok()) << name << ": " << s.status().message();
    EXPECT_EQ(ValueOf(s.value(), "fc6a1c0300686f68_5", "SymbolErrorCounterExtended"), 12u) << name;
    EXPECT_EQ(ValueOf(s.value(), "e41d2d0300a4f482_1", "PortRcvErrorsExtended"), 3u) << name;
  }
  // A forced format is not second-guessed.
  EXPECT_FALSE(ParseTelemetry(Fixture("primary.prom"), TelemetryFormat::kCsv).ok());
}

struct ShardUrlCase {
  std::string label;
  std::string url;
  int shards;
  std::vector<std::string> urls;
};

class ShardUrlsTest : public ::testing::TestWithParam<ShardUrlCase> {};

TEST_P(ShardUrlsTest, Urls) {
  EXPECT_EQ(ShardUrls(TelemetryEndpoint{GetParam().url, TelemetryFormat::kAuto, GetParam().shards}),
            GetParam().urls);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ShardUrlsTest,
    ::testing::Values(
        ShardUrlCase{"One", "http://u:9001/csv/metrics", 1, {"http://u:9001/csv/metrics"}},
        ShardUrlCase{"Two",
                     "http://u:9001/csv/metrics",
                     2,
                     {"http://u:9001/csv/metrics?num_shards=2&shard=0&sharding_field=port_guid",
                      "http://u:9001/csv/metrics?num_shards=2&shard=1&sharding_field=port_guid"}},
        ShardUrlCase{"ExistingQuery",
                     "http://u:9001/metrics?x=1",
                     2,
                     {"http://u:9001/metrics?x=1&num_shards=2&shard=0&sharding_field=port_guid",
                      "http://u:9001/metrics?x=1&num_shards=2&shard=1&sharding_field=port_guid"}}),
    [](const ::testing::TestParamInfo<ShardUrlCase>& param) { return param.param.label; });

// Shard K of a small fabric: port K+1 and K+4 of one switch, counter value = port number.
std::string ShardCsv(int k, bool extra_column = false) {
  std::string out = "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,c";
  out += extra_column ? ",d\n" : "\n";
  for (int port : {k + 1, k + 4}) {
    out += "1700000000000000,s,,0x1,0xfc6a1c0300686f68," + std::to_string(port) + "," +
           std::to_string(port) + (extra_column ? ",7\n" : "\n");
  }
  return out;
}

HttpResult Ok(std::string body, std::string content_type = "text/csv") {
  HttpResult r;
  r.status = 200;
  r.body = std::move(body);
  r.headers["content-type"] = std::move(content_type);
  return r;
}

struct FetchCase {
  std::string label;
  int failing_shard;    // -1: none
  std::string failure;  // "transport", "http", "garbage"
  size_t rows;          // merged
  size_t failures;
};

class FetchTelemetryTest : public ::testing::TestWithParam<FetchCase> {};

TEST_P(FetchTelemetryTest, ShardsMergedAndFailuresReported) {
  const FetchCase& c = GetParam();
  TelemetryEndpoint endpoint{"http://u:9001/csv/metrics", TelemetryFormat::kAuto, 3};
  std::vector<std::string> asked;
  auto fetch = [&](const std::string& url) -> Result<HttpResult> {
    asked.push_back(url);
    const int k = std::stoi(url.substr(url.find("&shard=") + 7));
    if (k == c.failing_shard) {
      if (c.failure == "transport") return Status::Unavailable("connection refused \xff");
      if (c.failure == "http") {
        HttpResult r;
        r.status = 503;
        return r;
      }
      return Ok("garbage without a header\n");
    }
    return Ok(ShardCsv(k));
  };
  auto fetched = FetchTelemetry(endpoint, fetch);
  ASSERT_TRUE(fetched.ok()) << fetched.status().message();
  EXPECT_EQ(asked.size(), 3u);
  EXPECT_EQ(fetched->snapshot.rows(), c.rows);
  ASSERT_EQ(fetched->failures.size(), c.failures);
  EXPECT_EQ(fetched->shards_ok, 3 - static_cast<int>(c.failures));
  if (c.failures > 0) {
    EXPECT_EQ(fetched->failures[0].rfind("shard " + std::to_string(c.failing_shard) + "/3", 0), 0u)
        << fetched->failures[0];
    for (unsigned char ch : fetched->failures[0]) EXPECT_TRUE(ch >= 0x20 && ch < 0x7f);
  }
  // Every answering shard's ports are there, with their values.
  for (int k = 0; k < 3; ++k) {
    if (k == c.failing_shard) continue;
    for (int port : {k + 1, k + 4}) {
      EXPECT_EQ(ValueOf(fetched->snapshot, "fc6a1c0300686f68_" + std::to_string(port), "c"),
                static_cast<uint64_t>(port));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, FetchTelemetryTest,
                         ::testing::Values(FetchCase{"AllShardsAnswer", -1, "", 6, 0},
                                           FetchCase{"TransportFailure", 1, "transport", 4, 1},
                                           FetchCase{"HttpStatus", 2, "http", 4, 1},
                                           FetchCase{"Unparseable", 0, "garbage", 4, 1}),
                         [](const ::testing::TestParamInfo<FetchCase>& param) {
                           return param.param.label;
                         });

TEST(FetchTelemetryTest, EveryShardFailingIsAnError) {
  TelemetryEndpoint endpoint{"http://u:9001/csv/metrics", TelemetryFormat::kAuto, 2};
  auto fetched = FetchTelemetry(endpoint, [](const std::string&) -> Result<HttpResult> {
    return Status::Unavailable("down");
  });
  ASSERT_FALSE(fetched.ok());
  EXPECT_EQ(fetched.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(fetched.status().message().find("1 more"), std::string::npos)
      << fetched.status().message();
}

TEST(FetchTelemetryTest, ShardsWithDifferentColumnsMergeByName) {
  TelemetryEndpoint endpoint{"http://u/csv/metrics", TelemetryFormat::kCsv, 2};
  auto fetched = FetchTelemetry(endpoint, [](const std::string& url) -> Result<HttpResult> {
    return Ok(ShardCsv(url.find("shard=1") != std::string::npos ? 1 : 0,
                       url.find("shard=1") != std::string::npos));
  });
  ASSERT_TRUE(fetched.ok()) << fetched.status().message();
  const TelemetrySnapshot& s = fetched->snapshot;
  EXPECT_EQ(s.counters, (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(s.rows(), 4u);
  EXPECT_EQ(ValueOf(s, "fc6a1c0300686f68_1", "d"), std::nullopt);  // shard 0 had no d
  EXPECT_EQ(ValueOf(s, "fc6a1c0300686f68_1", "c"), 1u);
  EXPECT_EQ(ValueOf(s, "fc6a1c0300686f68_2", "d"), 7u);
  EXPECT_EQ(ValueOf(s, "fc6a1c0300686f68_5", "c"), 5u);
}

TEST(FetchTelemetryTest, TruncatedShardIsUsedAndItsCutRowReported) {
  TelemetryEndpoint endpoint{"http://u/csv/metrics", TelemetryFormat::kAuto, 2};
  auto fetched = FetchTelemetry(endpoint, [](const std::string& url) -> Result<HttpResult> {
    if (url.find("shard=1") != std::string::npos) return Ok(Fixture("truncated.csv"));
    return Ok(ShardCsv(0));
  });
  ASSERT_TRUE(fetched.ok());
  EXPECT_TRUE(fetched->failures.empty());
  EXPECT_TRUE(fetched->snapshot.truncated);
  ASSERT_EQ(fetched->snapshot.errors.size(), 1u);
  EXPECT_EQ(fetched->snapshot.errors[0].rfind("shard 1: line 3: truncated", 0), 0u)
      << fetched->snapshot.errors[0];
  EXPECT_EQ(fetched->snapshot.rows(), 3u);
}

// A loopback UFM Telemetry endpoint: shards by query, one of them broken, Prometheus for /metrics.
TEST(FetchTelemetryTest, LoopbackServerWithOneFailedShard) {
  HttpServer server("127.0.0.1", 0, [](const HttpRequest& r) {
    if (r.path == "/metrics") {
      return HttpResponse::Text(200, Fixture("primary.prom"), "text/plain; version=0.0.4");
    }
    if (r.path != "/csv/metrics") return HttpResponse::Error(404, "no such path");
    if (r.Query("sharding_field") != "port_guid" || r.Query("num_shards") != "3") {
      return HttpResponse::Error(400, "bad shard query");
    }
    int k = std::stoi(r.Query("shard", "-1"));
    if (k == 2) return HttpResponse::Error(500, "shard 2 is down");
    return HttpResponse::Text(200, ShardCsv(k), "text/csv");
  });
  ASSERT_TRUE(server.Start().ok());
  const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
  HttpClient client;
  TelemetryFetch fetch = [&client](const std::string& url) { return client.Get(url); };

  auto csv =
      FetchTelemetry(TelemetryEndpoint{base + "/csv/metrics", TelemetryFormat::kAuto, 3}, fetch);
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  EXPECT_EQ(csv->shards_ok, 2);
  ASSERT_EQ(csv->failures.size(), 1u);
  EXPECT_NE(csv->failures[0].find("HTTP 500"), std::string::npos) << csv->failures[0];
  EXPECT_EQ(csv->snapshot.rows(), 4u);

  auto prom =
      FetchTelemetry(TelemetryEndpoint{base + "/metrics", TelemetryFormat::kAuto, 1}, fetch);
  ASSERT_TRUE(prom.ok()) << prom.status().message();
  EXPECT_EQ(ValueOf(prom->snapshot, "fc6a1c0300686f68_5", "SymbolErrorCounterExtended"), 12u);
  server.Stop();
}

}  // namespace
}  // namespace ufmr
