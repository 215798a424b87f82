// Covers src/telemetry/telemetry.h (TelemetryIntake): polls of the primary endpoint turned into
// Observations (baseline first, then moved counters), the interest filter, sharded polls with a
// failed shard, a failed primary, input errors passed on, the secondary endpoint on its own
// interval (first in a pass, retried after a failure) giving link speeds for SymbolBER, SymbolBER
// from the inventory, the shipped rules matching what the intake emits, the service wiring
// through UfmClient::GetTelemetry (its default, and RestUfmClient against a loopback server), host
// rows named by port_guid through the inventory, rates right whatever the timestamps' unit, and
// per-endpoint column maps from the configuration.
#include "telemetry/telemetry.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "http/http_server.h"
#include "rules/rule_engine.h"
#include "rules/rule_loader.h"
#include "rules/rules.h"
#include "support/test_env.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"

namespace ufmr {
namespace {

using std::chrono::seconds;

const TimePoint kT0 = TimePoint(seconds(1'700'000'000));
constexpr const char* kSw5 = "fc6a1c0300686f68_5";
constexpr const char* kHca = "e41d2d0300a4f482_1";

constexpr const char* kHeader =
    "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,PortXmitDataExtended,"
    "SymbolErrorCounterExtended,LinkDownedCounterExtended\n";

// Two ports at time kT0 + t seconds.
std::string Primary(int t, uint64_t sw_symbol_errors, uint64_t hca_link_downed = 0) {
  const std::string ts = std::to_string((1'700'000'000LL + t) * 1'000'000LL);
  return std::string(kHeader) + ts + ",s,,0xfc6a1c0300686f68,0xfc6a1c0300686f68,5," +
         std::to_string(1000 + t * 10) + "," + std::to_string(sw_symbol_errors) + ",0\n" + ts +
         ",s,,0xe41d2d0300a4f400,0xe41d2d0300a4f482,1," + std::to_string(2000 + t * 10) + ",0," +
         std::to_string(hca_link_downed) + "\n";
}

HttpResult Ok(std::string body, std::string content_type = "text/csv") {
  HttpResult r;
  r.status = 200;
  r.body = std::move(body);
  r.headers["content-type"] = std::move(content_type);
  return r;
}

// A scripted telemetry server: URL -> answer, and a log of what was asked.
struct FakeTelemetry {
  std::map<std::string, Result<HttpResult>> answers;
  std::vector<std::string> asked;
  TelemetryFetch Fetch() {
    return [this](const std::string& url) -> Result<HttpResult> {
      asked.push_back(url);
      auto it = answers.find(url);
      if (it == answers.end()) return Status::NotFound("no answer scripted for " + url);
      return it->second;
    };
  }
  void Set(const std::string& url, Result<HttpResult> r) {
    answers.erase(url);
    answers.emplace(url, std::move(r));
  }
};

Config::Telemetry Cfg(const std::string& url, int shards = 1) {
  Config::Telemetry c;
  c.url = url;
  c.shards = shards;
  return c;
}

struct Collected {
  std::vector<Observation> obs;
  TelemetryIntake::Sink Sink() {
    return [this](const Observation& o) { obs.push_back(o); };
  }
  std::map<std::string, double> Deltas(const std::string& port) const {
    std::map<std::string, double> out;
    for (const auto& o : obs) {
      if (o.ports == std::vector<std::string>{port}) out[o.counter] = o.delta;
    }
    return out;
  }
};

const std::string kUrl = "http://ufm:9001/csv/metrics";

TEST(TelemetryIntakeTest, FirstPollIsABaselineThenMovedCountersBecomeObservations) {
  FakeTelemetry fake;
  TelemetryIntake intake(Cfg(kUrl), fake.Fetch());
  Collected c;
  fake.Set(kUrl, Ok(Primary(0, 100)));
  auto r0 = intake.Poll(kT0, c.Sink());
  EXPECT_TRUE(r0.primary_ok);
  EXPECT_EQ(r0.rows, 2u);
  EXPECT_EQ(r0.observations, 0u);
  EXPECT_TRUE(c.obs.empty());

  fake.Set(kUrl, Ok(Primary(60, 160, 1)));
  auto r1 = intake.Poll(kT0 + seconds(60), c.Sink());
  EXPECT_EQ(r1.observations, c.obs.size());
  EXPECT_EQ(c.Deltas(kSw5), (std::map<std::string, double>{{"PortXmitDataExtended", 600},
                                                           {"SymbolErrorCounterExtended", 60}}));
  EXPECT_EQ(c.Deltas(kHca), (std::map<std::string, double>{{"PortXmitDataExtended", 600},
                                                           {"LinkDownedCounterExtended", 1}}));
  for (const auto& o : c.obs) {
    EXPECT_EQ(o.kind, Observation::Kind::kCounter);
    EXPECT_EQ(o.source, "telemetry");
    EXPECT_DOUBLE_EQ(o.interval_s, 60);
    EXPECT_EQ(o.time, kT0 + seconds(60));
  }
  EXPECT_TRUE(r1.fetch_failures.empty());
  EXPECT_TRUE(r1.input_errors.empty());
}

TEST(TelemetryIntakeTest, InterestLimitsObservationsNotTracking) {
  FakeTelemetry fake;
  TelemetryIntake intake(Cfg(kUrl), fake.Fetch());
  intake.SetInterest(std::set<std::string>{"SymbolErrorCounterExtended"});
  Collected c;
  fake.Set(kUrl, Ok(Primary(0, 100)));
  intake.Poll(kT0, c.Sink());
  fake.Set(kUrl, Ok(Primary(60, 160, 1)));
  intake.Poll(kT0 + seconds(60), c.Sink());
  ASSERT_EQ(c.obs.size(), 1u);
  EXPECT_EQ(c.obs[0].counter, "SymbolErrorCounterExtended");
  EXPECT_EQ(c.obs[0].ports, std::vector<std::string>{kSw5});
  // Back to everything: the data counters' deltas are one interval's, not two.
  intake.SetInterest(std::nullopt);
  c.obs.clear();
  fake.Set(kUrl, Ok(Primary(120, 160, 1)));
  intake.Poll(kT0 + seconds(120), c.Sink());
  EXPECT_EQ(c.Deltas(kSw5), (std::map<std::string, double>{{"PortXmitDataExtended", 600}}));
  // Nothing at all.
  intake.SetInterest(std::set<std::string>{});
  c.obs.clear();
  fake.Set(kUrl, Ok(Primary(180, 900, 5)));
  intake.Poll(kT0 + seconds(180), c.Sink());
  EXPECT_TRUE(c.obs.empty());
  EXPECT_EQ(intake.primary().tracked_ports(), 2u);
}

TEST(TelemetryIntakeTest, ShardsAreMergedAndAFailedShardIsReported) {
  FakeTelemetry fake;
  TelemetryIntake intake(Cfg(kUrl, 2), fake.Fetch());
  const std::string s0 = kUrl + "?num_shards=2&shard=0&sharding_field=port_guid";
  const std::string s1 = kUrl + "?num_shards=2&shard=1&sharding_field=port_guid";
  auto only = [](const std::string& csv, int line) {  // header + one of the two rows
    size_t a = csv.find('\n') + 1;
    size_t b = csv.find('\n', a) + 1;
    return csv.substr(0, a) + (line == 0 ? csv.substr(a, b - a) : csv.substr(b));
  };
  Collected c;
  fake.Set(s0, Ok(only(Primary(0, 100), 0)));
  fake.Set(s1, Ok(only(Primary(0, 100), 1)));
  auto r0 = intake.Poll(kT0, c.Sink());
  EXPECT_EQ(r0.rows, 2u);
  EXPECT_EQ(intake.primary().tracked_ports(), 2u);

  fake.Set(s0, Ok(only(Primary(60, 160, 1), 0)));
  fake.Set(s1, Status::Unavailable("connection reset"));
  auto r1 = intake.Poll(kT0 + seconds(60), c.Sink());
  EXPECT_TRUE(r1.primary_ok);
  EXPECT_EQ(r1.rows, 1u);
  ASSERT_EQ(r1.fetch_failures.size(), 1u);
  EXPECT_NE(r1.fetch_failures[0].find("shard 1/2"), std::string::npos) << r1.fetch_failures[0];
  EXPECT_EQ(c.Deltas(kSw5).at("SymbolErrorCounterExtended"), 60);
  EXPECT_TRUE(c.Deltas(kHca).empty());
  EXPECT_EQ(fake.asked.size(), 4u);
}

TEST(TelemetryIntakeTest, FailedPrimaryIsReported) {
  FakeTelemetry fake;
  TelemetryIntake intake(Cfg(kUrl), fake.Fetch());
  Collected c;
  fake.Set(kUrl, Status::Unavailable("connection refused"));
  auto r = intake.Poll(kT0, c.Sink());
  EXPECT_FALSE(r.primary_ok);
  ASSERT_EQ(r.fetch_failures.size(), 1u);
  EXPECT_NE(r.fetch_failures[0].find("connection refused"), std::string::npos);
  fake.Set(kUrl, Ok("this is not telemetry\n", "text/html"));
  r = intake.Poll(kT0, c.Sink());
  EXPECT_FALSE(r.primary_ok);
  EXPECT_EQ(r.fetch_failures.size(), 1u);
}

TEST(TelemetryIntakeTest, TruncatedBodyIsUsedAndReported) {
  FakeTelemetry fake;
  TelemetryIntake intake(Cfg(kUrl), fake.Fetch());
  Collected c;
  std::string body = Primary(0, 100);
  fake.Set(kUrl, Ok(body.substr(0, body.size() - 5)));
  auto r = intake.Poll(kT0, c.Sink());
  EXPECT_TRUE(r.primary_ok);
  EXPECT_EQ(r.rows, 1u);
  ASSERT_EQ(r.input_errors.size(), 1u);
  EXPECT_NE(r.input_errors[0].find("truncated"), std::string::npos);
}

constexpr const char* kSecondaryHeader =
    "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,node_description,Link_speed_active,"
    "Link_width_active,Symbol_Errors,Module_Temperature\n";

std::string Secondary(int t, const std::string& speed, uint64_t symbol_errors, int temp) {
  const std::string ts = std::to_string((1'700'000'000LL + t) * 1'000'000LL);
  return std::string(kSecondaryHeader) + ts +
         ",s,,0xfc6a1c0300686f68,0xfc6a1c0300686f68,5,\"ib-leaf-01:1/3/1\"," + speed + ",4x," +
         std::to_string(symbol_errors) + "," + std::to_string(temp) + "\n";
}

TEST(TelemetryIntakeTest, SecondaryOnItsOwnIntervalGivesLinkSpeedForSymbolBer) {
  FakeTelemetry fake;
  Config::Telemetry cfg = Cfg(kUrl);
  cfg.secondary_url = "http://ufm:9002/csv/xcset/low_freq_debug";
  cfg.secondary_interval_s = 300;
  TelemetryIntake intake(cfg, fake.Fetch());
  intake.SetInterest(std::set<std::string>{"SymbolBER", "Symbol_Errors"});
  Collected c;

  fake.Set(cfg.secondary_url, Ok(Secondary(0, "NDR", 7, 45)));
  fake.Set(kUrl, Ok(Primary(0, 100)));
  auto r0 = intake.Poll(kT0, c.Sink());
  EXPECT_TRUE(r0.secondary_polled);
  EXPECT_EQ(fake.asked, (std::vector<std::string>{cfg.secondary_url, kUrl}));  // secondary first

  // 60 s later: the secondary is not due. 24 symbol errors on NDR 4x in 60 s: BER 1e-12.
  fake.Set(kUrl, Ok(Primary(60, 124)));
  auto r1 = intake.Poll(kT0 + seconds(60), c.Sink());
  EXPECT_FALSE(r1.secondary_polled);
  EXPECT_EQ(fake.asked.size(), 3u);
  ASSERT_EQ(c.obs.size(), 1u);
  EXPECT_EQ(c.obs[0].counter, "SymbolBER");
  EXPECT_EQ(c.obs[0].ports, std::vector<std::string>{kSw5});
  EXPECT_NEAR(c.obs[0].value, 1e-12, 1e-24);
  EXPECT_NEAR(c.obs[0].delta * kSymbolBerPerS / c.obs[0].interval_s, 1e-12, 1e-24);
  EXPECT_EQ(r1.ber_without_rate, 0u);

  // 300 s after the first: due again; it fails, so the next pass tries again.
  c.obs.clear();
  fake.Set(cfg.secondary_url, Status::Unavailable("refused"));
  fake.Set(kUrl, Ok(Primary(300, 124)));
  auto r2 = intake.Poll(kT0 + seconds(300), c.Sink());
  EXPECT_FALSE(r2.secondary_polled);
  EXPECT_TRUE(r2.primary_ok);
  ASSERT_EQ(r2.fetch_failures.size(), 1u);
  fake.Set(cfg.secondary_url, Ok(Secondary(360, "HDR", 9, 20)));
  fake.Set(kUrl, Ok(Primary(360, 136)));
  auto r3 = intake.Poll(kT0 + seconds(360), c.Sink());
  EXPECT_TRUE(r3.secondary_polled);
  // The secondary's own counter moved (7 -> 9 over 360 s); its gauge (temperature) is no counter.
  // The link is HDR 4x now: 12 errors in 60 s over 2e11 b/s = 1e-12 again.
  std::map<std::string, double> deltas = c.Deltas(kSw5);
  EXPECT_EQ(deltas.count("Module_Temperature"), 0u);
  EXPECT_DOUBLE_EQ(deltas.at("Symbol_Errors"), 2);
  ASSERT_EQ(deltas.count("SymbolBER"), 1u);
  for (const auto& o : c.obs) {
    if (o.counter == "SymbolBER") {
      EXPECT_NEAR(o.value, 1e-12, 1e-24);
    }
    if (o.counter == "Symbol_Errors") {
      EXPECT_DOUBLE_EQ(o.interval_s, 360);
    }
  }
}

TEST(TelemetryIntakeTest, WithoutAKnownRateNoSymbolBerAndItIsCounted) {
  FakeTelemetry fake;
  TelemetryIntake intake(Cfg(kUrl), fake.Fetch());
  intake.SetInterest(std::set<std::string>{"SymbolBER"});
  Collected c;
  fake.Set(kUrl, Ok(Primary(0, 100)));
  intake.Poll(kT0, c.Sink());
  fake.Set(kUrl, Ok(Primary(60, 200)));
  auto r = intake.Poll(kT0 + seconds(60), c.Sink());
  EXPECT_TRUE(c.obs.empty());
  EXPECT_EQ(r.ber_without_rate, 1u);
}

// A UfmClient that knows one telemetry body (GetTelemetry is the interface's default).
class OneEndpointUfm : public UfmClient {
 public:
  Result<ParsedEvents> GetEvents() override { return ParsedEvents{}; }
  Result<PortTable> GetPorts() override { return PortTable(); }
  Result<PortInfo> GetPort(const std::string& name) override { return Status::NotFound(name); }
  Result<std::string> SubmitPortAction(const std::string&, const PortInfo&,
                                       const std::string&) override {
    return Status::Unavailable("no");
  }
  Result<JobStatus> GetJob(const std::string&) override { return JobStatus{}; }
  Result<std::string> GetTelemetryCsv() override { return body; }
  std::string body;
};

TEST(TelemetryIntakeTest, ServiceWiringUsesTheInventorysSpeedAndWidth) {
  OneEndpointUfm ufm;
  Inventory inventory;
  PortInfo sw;
  sw.name = kSw5;
  sw.active_speed = "HDR";
  sw.active_width = "4x";
  inventory.Replace({sw});
  TelemetryIntake intake(Cfg(kUrl), ufm, inventory);
  intake.SetInterest(std::set<std::string>{"SymbolBER", "SymbolErrorCounterExtended"});
  Collected c;
  ufm.body = Primary(0, 100);
  intake.Poll(kT0, c.Sink());
  ufm.body = Primary(30, 106);  // HDR 4x: 2e11 b/s x 30 s = 6e12 bits; 6 errors: 1e-12
  intake.Poll(kT0 + seconds(30), c.Sink());
  std::map<std::string, double> values;
  for (const auto& o : c.obs) values[o.counter] = o.value;
  ASSERT_EQ(values.size(), 2u);
  EXPECT_DOUBLE_EQ(values.at("SymbolErrorCounterExtended"), 106);
  EXPECT_NEAR(values.at("SymbolBER"), 1e-12, 1e-24);
}

TEST(TelemetryIntakeTest, ShippedRulesMatchWhatTheIntakeEmits) {
  auto loaded = LoadRulesDir(testing::SourceDir() + "/rules");
  ASSERT_TRUE(loaded.ok()) << loaded.Report();
  std::shared_ptr<const RuleSet> rules(std::move(loaded.rules));
  RuleEngine engine(rules, nullptr);
  FakeTelemetry fake;
  TelemetryIntake intake(Cfg(kUrl), fake.Fetch());
  intake.SetInterest(rules->counters);
  EXPECT_EQ(rules->counters.count("SymbolErrorCounterExtended"), 1u);
  std::vector<std::string> fired;
  auto sink = [&](const Observation& o) {
    std::vector<Finding> out;
    engine.Observe(o, &out);
    for (const auto& f : out) fired.push_back(f.rule + " " + f.link_key);
  };
  fake.Set(kUrl, Ok(Primary(0, 100)));
  intake.Poll(kT0, sink);
  fake.Set(kUrl, Ok(Primary(60, 150)));  // 50 per minute: below the shipped threshold (100)
  intake.Poll(kT0 + seconds(60), sink);
  EXPECT_TRUE(fired.empty());
  fake.Set(kUrl, Ok(Primary(120, 500)));  // 350 per minute
  intake.Poll(kT0 + seconds(120), sink);
  EXPECT_EQ(fired, std::vector<std::string>{std::string("symbol_errors ") + kSw5});
}

TEST(TelemetryIntakeTest, RestClientAgainstLoopbackPrometheusEndpoint) {
  const std::string prom0 = testing::ReadFixture("telemetry/primary.prom");
  std::string prom1 = prom0;
  // The next sample, a minute later, with 30 more symbol errors on the switch port.
  for (size_t pos; (pos = prom1.find("1700000000000")) != std::string::npos;) {
    prom1.replace(pos, 13, "1700000060000");
  }
  const std::string from =
      "SymbolErrorCounterExtended{device_name=\"ib-leaf-01\",node_guid=\"0xfc6a1c0300686f68\","
      "port_guid=\"0xfc6a1c0300686f68\",port_num=\"5\"} 12";
  ASSERT_NE(prom1.find(from), std::string::npos);
  prom1.replace(prom1.find(from), from.size(), from.substr(0, from.size() - 2) + "42");
  int served = 0;
  HttpServer server("127.0.0.1", 0, [&](const HttpRequest& r) {
    if (r.path != "/metrics") return HttpResponse::Error(404, "no");
    return HttpResponse::Text(200, served++ == 0 ? prom0 : prom1, "text/plain; version=0.0.4");
  });
  ASSERT_TRUE(server.Start().ok());
  Config config;
  config.ufm.url = "http://127.0.0.1:1";  // not used here
  config.telemetry.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/metrics";
  RestUfmClient ufm(config);
  Inventory inventory;
  TelemetryIntake intake(config.telemetry, ufm, inventory);
  intake.SetInterest(std::set<std::string>{"SymbolErrorCounterExtended"});
  Collected c;
  auto r0 = intake.Poll(kT0, c.Sink());
  ASSERT_TRUE(r0.primary_ok) << (r0.fetch_failures.empty() ? "" : r0.fetch_failures[0]);
  EXPECT_EQ(r0.rows, 3u);
  auto r1 = intake.Poll(kT0 + seconds(60), c.Sink());
  ASSERT_TRUE(r1.primary_ok);
  ASSERT_EQ(c.obs.size(), 1u);
  EXPECT_EQ(c.obs[0].ports, std::vector<std::string>{kSw5});
  EXPECT_DOUBLE_EQ(c.obs[0].delta, 30);
  EXPECT_DOUBLE_EQ(c.obs[0].interval_s, 60);
  server.Stop();
}

// A host row whose port number is not UFM's (2; the inventory names the port ..._1), a switch
// port, and a host port the inventory does not know, at kT0 + t seconds.
std::string HostRows(int t, uint64_t hca_errors, uint64_t stranger_errors = 0) {
  const std::string ts = std::to_string((1'700'000'000LL + t) * 1'000'000LL);
  return "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,SymbolErrorCounterExtended\n" +
         ts + ",s,,0xfc6a1c0300686f68,0xfc6a1c0300686f68,5,0\n" + ts +
         ",s,,0xe41d2d0300a4f400,0xe41d2d0300a4f482,2," + std::to_string(hca_errors) + "\n" + ts +
         ",s,,0x0002c90300aabb00,0x0002c90300aabb01,2," + std::to_string(stranger_errors) + "\n";
}

PortInfo InventoryPort(const std::string& name, const std::string& description) {
  PortInfo p;
  p.name = name;
  p.guid = name.substr(0, 16);
  p.description = description;
  return p;
}

Inventory& FabricInventory(Inventory& inventory) {
  inventory.Replace(
      {InventoryPort(kSw5, "Switch IB Port"), InventoryPort(kHca, "Computer IB Port")});
  return inventory;
}

TEST(TelemetryIntakeTest, HostRowIsMatchedByPortGuidWhateverItsPortNumber) {
  FakeTelemetry fake;
  Inventory inventory;
  TelemetryIntake intake(Cfg(kUrl), fake.Fetch());
  intake.UseInventory(&FabricInventory(inventory));
  Collected c;
  fake.Set(kUrl, Ok(HostRows(0, 10, 100)));
  intake.Poll(kT0, c.Sink());
  fake.Set(kUrl, Ok(HostRows(60, 25, 130)));
  intake.Poll(kT0 + seconds(60), c.Sink());
  // The HCA's row said port 2: it is the inventory's e41d2d0300a4f482_1 all the same.
  EXPECT_EQ(c.Deltas(kHca), (std::map<std::string, double>{{"SymbolErrorCounterExtended", 15}}));
  EXPECT_TRUE(c.Deltas("e41d2d0300a4f482_2").empty());
  // A port GUID the inventory does not know keeps <port_guid>_<port_num>, as before.
  EXPECT_EQ(c.Deltas("0002c90300aabb01_2"),
            (std::map<std::string, double>{{"SymbolErrorCounterExtended", 30}}));
  TimePoint at;
  std::map<std::string, uint64_t> values;
  ASSERT_TRUE(intake.primary().LastSample(PortKey{0xe41d2d0300a4f482, 1}, &at, &values));
  EXPECT_EQ(values.at("SymbolErrorCounterExtended"), 25u);
}

TEST(TelemetryIntakeTest, AHostTheInventoryLearnsLaterIsMatchedFromThen) {
  FakeTelemetry fake;
  Inventory inventory;
  FabricInventory(inventory);
  TelemetryIntake intake(Cfg(kUrl), fake.Fetch());
  intake.UseInventory(&inventory);
  Collected c;
  fake.Set(kUrl, Ok(HostRows(0, 10, 100)));
  intake.Poll(kT0, c.Sink());
  // The stranger becomes an inventory host port, numbered 1 by UFM: a new port, a new baseline.
  inventory.Upsert(InventoryPort("0002c90300aabb01_1", "Computer IB Port"));
  fake.Set(kUrl, Ok(HostRows(60, 10, 130)));
  intake.Poll(kT0 + seconds(60), c.Sink());
  EXPECT_TRUE(c.obs.empty());
  fake.Set(kUrl, Ok(HostRows(120, 10, 135)));
  intake.Poll(kT0 + seconds(120), c.Sink());
  EXPECT_EQ(c.Deltas("0002c90300aabb01_1"),
            (std::map<std::string, double>{{"SymbolErrorCounterExtended", 5}}));
  EXPECT_TRUE(c.Deltas("0002c90300aabb01_2").empty());
}

TEST(TelemetryIntakeTest, ServiceWiringMatchesHostsAndIngestOfAParsedSnapshotToo) {
  OneEndpointUfm ufm;
  Inventory inventory;
  TelemetryIntake intake(Cfg(kUrl), ufm, FabricInventory(inventory));
  Collected c;
  auto first = ParseTelemetryCsv(testing::ReadFixture("telemetry/host_port_num.csv"));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(intake.Ingest(first.value(), false, kT0, c.Sink()), 0u);
  // The parsed snapshot is the caller's: it keeps the row's own number.
  EXPECT_EQ(first->ports[2], (PortKey{0xe41d2d0300a4f482, 2}));
  auto second = ParseTelemetryCsv(HostRows(60, 4));
  ASSERT_TRUE(second.ok());
  intake.Ingest(second.value(), false, kT0 + seconds(60), c.Sink());
  EXPECT_EQ(c.Deltas(kHca), (std::map<std::string, double>{{"SymbolErrorCounterExtended", 4}}));
}

// The same two samples, a minute apart, stamped in each unit a source uses: the interval, and so
// every rate, must come out the same.
struct UnitCase {
  std::string label;
  int64_t scale;  // units per second
  bool prometheus;
};

class TimestampUnitTest : public ::testing::TestWithParam<UnitCase> {};

TEST_P(TimestampUnitTest, RatesAreRight) {
  auto body = [this](int t, uint64_t errors) {
    const int64_t ts = (1'712'228'785LL + t) * GetParam().scale;
    if (GetParam().prometheus) {
      return "SymbolErrorCounterExtended{port_guid=\"0xfc6a1c0300686f68\",port_num=\"5\"} " +
             std::to_string(errors) + " " + std::to_string(ts) + "\n";
    }
    return "timestamp,port_guid,port_num,SymbolErrorCounterExtended\n" + std::to_string(ts) +
           ",0xfc6a1c0300686f68,5," + std::to_string(errors) + "\n";
  };
  FakeTelemetry fake;
  TelemetryIntake intake(Cfg(kUrl), fake.Fetch());
  Collected c;
  fake.Set(kUrl,
           Ok(body(0, 1000), GetParam().prometheus ? "text/plain; version=0.0.4" : "text/csv"));
  // The poll times are far from the samples' own: only the stamps may set the interval.
  intake.Poll(kT0, c.Sink());
  fake.Set(kUrl,
           Ok(body(60, 1600), GetParam().prometheus ? "text/plain; version=0.0.4" : "text/csv"));
  intake.Poll(kT0 + seconds(5), c.Sink());
  ASSERT_EQ(c.obs.size(), 1u);
  EXPECT_DOUBLE_EQ(c.obs[0].interval_s, 60);
  EXPECT_DOUBLE_EQ(c.obs[0].delta / c.obs[0].interval_s, 10);  // 600 errors a minute: 10/s
  EXPECT_EQ(c.obs[0].time, TimePoint(seconds(1'712'228'845)));
}

INSTANTIATE_TEST_SUITE_P(Units, TimestampUnitTest,
                         ::testing::Values(UnitCase{"CsvSeconds", 1, false},
                                           UnitCase{"CsvMilliseconds", 1'000, false},
                                           UnitCase{"CsvMicroseconds", 1'000'000, false},
                                           UnitCase{"PrometheusMilliseconds", 1'000, true},
                                           UnitCase{"PrometheusMicroseconds", 1'000'000, true}),
                         [](const ::testing::TestParamInfo<UnitCase>& p) { return p.param.label; });

TEST(TelemetryIntakeTest, MillisecondFixtureGivesMillisecondTimes) {
  auto s = ParseTelemetryCsv(testing::ReadFixture("telemetry/milliseconds.csv"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->rows(), 3u);
  for (int64_t t : s->time_us) EXPECT_EQ(t, 1'712'228'785'304'000);
}

TEST(TelemetryIntakeTest, EachEndpointHasItsOwnColumnMap) {
  const std::string kSecondary = "http://ufm:9002/csv/xcset/low_freq_debug";
  Config::Telemetry config = Cfg(kUrl);
  config.secondary_url = kSecondary;
  config.columns = {{"SymbolErrorCounterExtended", "Infiniband_SymbolErrors_u_Errors"}};
  config.secondary_columns = {{"Symbol_Errors", "phy_errs"}};
  FakeTelemetry fake;
  TelemetryIntake intake(config, fake.Fetch());
  Collected c;
  auto bodies = [&](int t, uint64_t errors) {
    const std::string row = std::to_string((1'700'000'000LL + t) * 1'000'000LL) +
                            ",0xfc6a1c0300686f68,5," + std::to_string(errors) + "\n";
    fake.Set(kUrl, Ok("timestamp,port_guid,port_num,Infiniband_SymbolErrors_u_Errors\n" + row));
    fake.Set(kSecondary, Ok("timestamp,port_guid,port_num,phy_errs\n" + row));
  };
  bodies(0, 10);
  intake.Poll(kT0, c.Sink());
  bodies(300, 40);
  intake.Poll(kT0 + seconds(300), c.Sink());
  EXPECT_EQ(c.Deltas(kSw5), (std::map<std::string, double>{{"SymbolErrorCounterExtended", 30},
                                                           {"Symbol_Errors", 30}}));
}

}  // namespace
}  // namespace ufmr
