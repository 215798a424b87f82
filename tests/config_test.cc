// Covers src/config/config.h: LoadConfigText with the minimal valid file (documented defaults),
// every key set, seconds keys given as numbers or duration strings, unknown keys, required keys,
// bad values (with name:line:column), password_env, and the trailing slash of ufm.url; the
// remediation guards, retries and reconciliation keys and ufm's external event keys (defaults,
// parsed values, bad values); ufm.utc_offset (its forms, junk refused with name:line:column); the
// telemetry column maps (per endpoint, our names in our spelling, clear errors); and
// LoadConfigFile on a missing path.
#include "config/config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

namespace ufmr {
namespace {

constexpr const char* kMinimal =
    "ufm:\n"
    "  url: https://ufm.example:443\n"
    "database:\n"
    "  url: postgresql://ufmr@localhost/ufmr\n";

// Expects `text` to fail; returns the message.
std::string Error(const std::string& text) {
  auto c = LoadConfigText(text, "cfg.yaml");
  EXPECT_FALSE(c.ok()) << text;
  if (c.ok()) return "";
  EXPECT_EQ(c.status().code(), Status::Code::kInvalidArgument);
  return c.status().message();
}

TEST(LoadConfigTextTest, MinimalFileGivesDocumentedDefaults) {
  auto c = LoadConfigText(kMinimal, "cfg.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const Config& cfg = c.value();
  EXPECT_EQ(cfg.fabric, "default");
  EXPECT_EQ(cfg.ufm.url, "https://ufm.example:443");
  EXPECT_EQ(cfg.ufm.auth, "basic");
  EXPECT_EQ(cfg.ufm.user, "admin");
  EXPECT_EQ(cfg.ufm.password, "");
  EXPECT_EQ(cfg.ufm.password_env, "");
  EXPECT_FALSE(cfg.ufm.insecure_tls);
  EXPECT_EQ(cfg.ufm.ca_bundle, "");
  EXPECT_DOUBLE_EQ(cfg.ufm.timeout_s, 10);
  EXPECT_EQ(cfg.telemetry.url, "");
  EXPECT_DOUBLE_EQ(cfg.telemetry.interval_s, 60);
  EXPECT_EQ(cfg.database.url, "postgresql://ufmr@localhost/ufmr");
  EXPECT_EQ(cfg.database.schema_dir, "");
  EXPECT_EQ(cfg.rules.dir, "rules");
  EXPECT_DOUBLE_EQ(cfg.events.poll_interval_s, 10);
  EXPECT_DOUBLE_EQ(cfg.inventory.refresh_interval_s, 300);
  EXPECT_EQ(cfg.http.listen, "127.0.0.1");
  EXPECT_EQ(cfg.http.port, 8080);
  EXPECT_FALSE(cfg.remediation.dry_run);
  EXPECT_EQ(cfg.remediation.max_disabled_ports, 20);
  EXPECT_DOUBLE_EQ(cfg.remediation.soak_s, 1800);
  EXPECT_EQ(cfg.remediation.max_attempts, 3);
  EXPECT_DOUBLE_EQ(cfg.remediation.job_timeout_s, 120);
  EXPECT_DOUBLE_EQ(cfg.remediation.job_poll_interval_s, 1);
}

TEST(LoadConfigTextTest, AllKeysSet) {
  auto c = LoadConfigText(R"y(fabric: lab-a
ufm:
  url: https://ufm.lab:8443
  auth: basic
  user: ops
  password: hunter2
  insecure_tls: true
  ca_bundle: /etc/ssl/ufm.pem
  timeout_s: 15
telemetry:
  url: http://ufm.lab:9001/csv/metrics
  interval_s: 30
database:
  url: host=db dbname=ufmr
  schema_dir: /opt/ufmr/schema
rules:
  dir: /etc/ufmr/rules
events:
  poll_interval_s: 5
inventory:
  refresh_interval_s: 600
http:
  listen: 0.0.0.0
  port: 9090
remediation:
  dry_run: true
  max_disabled_ports: 5
  soak_s: 3600
  max_attempts: 2
  job_timeout_s: 300
  job_poll_interval_s: 0.5
)y",
                          "cfg.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const Config& cfg = c.value();
  EXPECT_EQ(cfg.fabric, "lab-a");
  EXPECT_EQ(cfg.ufm.url, "https://ufm.lab:8443");
  EXPECT_EQ(cfg.ufm.auth, "basic");
  EXPECT_EQ(cfg.ufm.user, "ops");
  EXPECT_EQ(cfg.ufm.password, "hunter2");
  EXPECT_TRUE(cfg.ufm.insecure_tls);
  EXPECT_EQ(cfg.ufm.ca_bundle, "/etc/ssl/ufm.pem");
  EXPECT_DOUBLE_EQ(cfg.ufm.timeout_s, 15);
  EXPECT_EQ(cfg.telemetry.url, "http://ufm.lab:9001/csv/metrics");
  EXPECT_DOUBLE_EQ(cfg.telemetry.interval_s, 30);
  EXPECT_EQ(cfg.database.url, "host=db dbname=ufmr");
  EXPECT_EQ(cfg.database.schema_dir, "/opt/ufmr/schema");
  EXPECT_EQ(cfg.rules.dir, "/etc/ufmr/rules");
  EXPECT_DOUBLE_EQ(cfg.events.poll_interval_s, 5);
  EXPECT_DOUBLE_EQ(cfg.inventory.refresh_interval_s, 600);
  EXPECT_EQ(cfg.http.listen, "0.0.0.0");
  EXPECT_EQ(cfg.http.port, 9090);
  EXPECT_TRUE(cfg.remediation.dry_run);
  EXPECT_EQ(cfg.remediation.max_disabled_ports, 5);
  EXPECT_DOUBLE_EQ(cfg.remediation.soak_s, 3600);
  EXPECT_EQ(cfg.remediation.max_attempts, 2);
  EXPECT_DOUBLE_EQ(cfg.remediation.job_timeout_s, 300);
  EXPECT_DOUBLE_EQ(cfg.remediation.job_poll_interval_s, 0.5);
}

struct SecsCase {
  std::string value;
  double seconds;
};

class SecondsKeyTest : public ::testing::TestWithParam<SecsCase> {};

TEST_P(SecondsKeyTest, NumberOrDurationString) {
  const std::string text = std::string(kMinimal) +
                           "events:\n  poll_interval_s: " + GetParam().value +
                           "\nremediation:\n  soak_s: " + GetParam().value + "\n";
  auto c = LoadConfigText(text, "cfg.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_DOUBLE_EQ(c->events.poll_interval_s, GetParam().seconds);
  EXPECT_DOUBLE_EQ(c->remediation.soak_s, GetParam().seconds);
}

INSTANTIATE_TEST_SUITE_P(Values, SecondsKeyTest,
                         ::testing::Values(SecsCase{"30", 30}, SecsCase{"2.5", 2.5},
                                           SecsCase{"30s", 30}, SecsCase{"2m", 120},
                                           SecsCase{"\"2m\"", 120}, SecsCase{"1h", 3600},
                                           SecsCase{"500ms", 0.5}));

TEST(LoadConfigTextTest, SoakMayBeZero) {
  auto c = LoadConfigText(std::string(kMinimal) + "remediation:\n  soak_s: 0\n", "cfg.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_DOUBLE_EQ(c->remediation.soak_s, 0);
}

struct BadCase {
  std::string label;
  std::string extra;   // appended to kMinimal
  std::string expect;  // substring of the message
};

class BadConfigTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadConfigTest, ErrorNamesTheKeyAndWhere) {
  const std::string message = Error(std::string(kMinimal) + GetParam().extra);
  EXPECT_NE(message.find(GetParam().expect), std::string::npos) << message;
  EXPECT_EQ(message.rfind("cfg.yaml", 0), 0u) << message;
}

INSTANTIATE_TEST_SUITE_P(
    Values, BadConfigTest,
    ::testing::Values(
        BadCase{"UnknownTopKey", "fabrik: x\n", "cfg.yaml:5:1: fabrik: unknown key"},
        BadCase{"UnknownNestedKey", "http:\n  prot: 80\n", "cfg.yaml:6:3: http.prot: unknown key"},
        BadCase{"PortNotANumber", "http:\n  port: abc\n",
                "cfg.yaml:6:9: http.port: expected an integer"},
        BadCase{"PortOutOfRange", "http:\n  port: 70000\n", "cfg.yaml:6:9: http.port: must be"},
        BadCase{"DryRunMaybe", "remediation:\n  dry_run: maybe\n",
                "cfg.yaml:6:12: remediation.dry_run: expected true or false"},
        BadCase{"IntervalNotDuration", "telemetry:\n  url: x\n  interval_s: soon\n",
                "cfg.yaml:7:15: telemetry.interval_s:"},
        BadCase{"DurationUnknownUnit", "events:\n  poll_interval_s: 10x\n",
                "cfg.yaml:6:20: events.poll_interval_s: '10x' has unknown unit"},
        BadCase{"DurationNegative", "remediation:\n  soak_s: -5s\n",
                "cfg.yaml:6:11: remediation.soak_s:"},
        BadCase{"DurationBelowMinimum", "inventory:\n  refresh_interval_s: 500ms\n",
                "cfg.yaml:6:23: inventory.refresh_interval_s: must be at least 1s"},
        BadCase{"DurationNotScalar", "events:\n  poll_interval_s: [1, 2]\n",
                "events.poll_interval_s: expected a duration"},
        BadCase{"MaxAttemptsZero", "remediation:\n  max_attempts: 0\n",
                "remediation.max_attempts: must be between 1 and 100"},
        BadCase{"SectionNotMapping", "http: [1, 2]\n", "cfg.yaml:5:7: http: expected a mapping"},
        BadCase{"StringNotScalar", "rules:\n  dir: [a, b]\n", "rules.dir: expected a string"},
        BadCase{"SectionIsAScalar", "telemetry: 5\n",
                "cfg.yaml:5:12: telemetry: expected a mapping of settings"},
        BadCase{"SectionIsAString", "remediation: on\n", "remediation: expected a mapping"},
        BadCase{"TelemetryFormatUnknown", "telemetry:\n  url: x\n  format: json\n",
                "cfg.yaml:7:11: telemetry.format: must be csv, prometheus or auto"},
        BadCase{"TelemetryShardsZero", "telemetry:\n  url: x\n  shards: 0\n",
                "cfg.yaml:7:11: telemetry.shards: must be between 1 and 64"},
        BadCase{"TelemetrySecondaryWithoutPrimary",
                "telemetry:\n  secondary_url: http://u:9002/csv/xcset/low_freq_debug\n",
                "cfg.yaml:6:18: telemetry.secondary_url: needs telemetry.url"},
        BadCase{"TelemetrySecondaryIntervalTooShort",
                "telemetry:\n  url: x\n  secondary_interval_s: 500ms\n",
                "telemetry.secondary_interval_s: must be at least 1s"},
        BadCase{"TelemetryColumnsUnknownCounter",
                "telemetry:\n  columns:\n    SymbolErrors: Infiniband_SymbolErrors_u_Errors\n",
                "cfg.yaml:7:5: telemetry.columns.SymbolErrors: unknown counter name "
                "'SymbolErrors'"},
        BadCase{"TelemetryColumnsEmptyColumn",
                "telemetry:\n  columns:\n    SymbolErrorCounterExtended: ''\n",
                "cfg.yaml:7:33: telemetry.columns.SymbolErrorCounterExtended: empty column name"},
        BadCase{"TelemetryColumnsNullColumn",
                "telemetry:\n  secondary_columns:\n    Symbol_Errors:\n",
                "telemetry.secondary_columns.Symbol_Errors: empty column name"},
        BadCase{"TelemetryColumnsNotAMapping", "telemetry:\n  columns: [a, b]\n",
                "cfg.yaml:6:12: telemetry.columns: expected a mapping of counter names"},
        BadCase{"TelemetryColumnsColumnNotAString",
                "telemetry:\n  columns:\n    SymbolErrorCounterExtended: [a]\n",
                "telemetry.columns.SymbolErrorCounterExtended: expected the endpoint's column"},
        BadCase{"TelemetryColumnsTwiceInTwoCases",
                "telemetry:\n  columns:\n    SymbolErrorCounterExtended: a\n"
                "    symbolerrorcounterextended: b\n",
                "symbolerrorcounterextended: SymbolErrorCounterExtended is mapped twice"},
        BadCase{"TelemetryColumnsOneColumnTwoNames",
                "telemetry:\n  columns:\n    SymbolErrorCounterExtended: errs\n"
                "    PortRcvErrorsExtended: ERRS\n",
                "telemetry.columns: column 'errs' is given for both"}),
    [](const ::testing::TestParamInfo<BadCase>& param) { return param.param.label; });

TEST(LoadConfigTextTest, GuardRetryAndExternalEventDefaults) {
  auto c = LoadConfigText(kMinimal, "cfg.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const Config::Remediation& x = c->remediation;
  EXPECT_DOUBLE_EQ(x.max_disabled_percent, 10);
  EXPECT_EQ(x.max_disabled_per_switch, 3);
  EXPECT_EQ(x.max_actions_per_hour, 10);
  EXPECT_DOUBLE_EQ(x.port_cooldown_s, 3600);
  EXPECT_EQ(x.min_active_links_host, 1);
  EXPECT_EQ(x.min_active_links_switch, 1);
  EXPECT_EQ(x.breaker_findings, 20);
  EXPECT_DOUBLE_EQ(x.breaker_window_s, 300);
  EXPECT_EQ(x.repeat_offender_tickets, 1);
  EXPECT_DOUBLE_EQ(x.repeat_offender_window_s, 90 * 86400.0);
  EXPECT_DOUBLE_EQ(x.action_retry_s, 30);
  EXPECT_EQ(x.action_max_tries, 5);
  EXPECT_DOUBLE_EQ(x.reconcile_interval_s, 60);
  EXPECT_TRUE(c->ufm.external_events);
  EXPECT_EQ(c->ufm.external_event_id_cut, 552);
  EXPECT_EQ(c->ufm.external_event_id_restore, 551);
}

TEST(LoadConfigTextTest, GuardRetryAndExternalEventKeysSet) {
  auto c = LoadConfigText(R"y(ufm:
  url: https://ufm.lab
  external_events: false
  external_event_id_cut: 554
  external_event_id_restore: 553
database:
  url: x
remediation:
  max_disabled_percent: 2.5
  max_disabled_per_switch: 0
  max_actions_per_hour: 4
  port_cooldown_s: 2h
  min_active_links_host: 2
  min_active_links_switch: 0
  breaker_findings: 0
  breaker_window_s: 10m
  repeat_offender_tickets: 3
  repeat_offender_window_s: 30d
  action_retry_s: 45
  action_max_tries: 7
  reconcile_interval_s: 90s
)y",
                          "cfg.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const Config::Remediation& x = c->remediation;
  EXPECT_DOUBLE_EQ(x.max_disabled_percent, 2.5);
  EXPECT_EQ(x.max_disabled_per_switch, 0);
  EXPECT_EQ(x.max_actions_per_hour, 4);
  EXPECT_DOUBLE_EQ(x.port_cooldown_s, 7200);
  EXPECT_EQ(x.min_active_links_host, 2);
  EXPECT_EQ(x.min_active_links_switch, 0);
  EXPECT_EQ(x.breaker_findings, 0);
  EXPECT_DOUBLE_EQ(x.breaker_window_s, 600);
  EXPECT_EQ(x.repeat_offender_tickets, 3);
  EXPECT_DOUBLE_EQ(x.repeat_offender_window_s, 30 * 86400.0);
  EXPECT_DOUBLE_EQ(x.action_retry_s, 45);
  EXPECT_EQ(x.action_max_tries, 7);
  EXPECT_DOUBLE_EQ(x.reconcile_interval_s, 90);
  EXPECT_FALSE(c->ufm.external_events);
  EXPECT_EQ(c->ufm.external_event_id_cut, 554);
  EXPECT_EQ(c->ufm.external_event_id_restore, 553);
}

TEST(LoadConfigTextTest, PercentCapBoundsAndZeroCooldown) {
  for (const char* v : {"0", "100", "0.5"}) {
    auto c = LoadConfigText(std::string(kMinimal) + "remediation:\n  max_disabled_percent: " + v +
                                "\n  port_cooldown_s: 0\n  action_retry_s: 0\n",
                            "cfg.yaml");
    ASSERT_TRUE(c.ok()) << v << ": " << c.status().message();
    EXPECT_DOUBLE_EQ(c->remediation.max_disabled_percent, std::stod(v));
    EXPECT_DOUBLE_EQ(c->remediation.port_cooldown_s, 0);
    EXPECT_DOUBLE_EQ(c->remediation.action_retry_s, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    GuardsRetriesAndExternalEvents, BadConfigTest,
    ::testing::Values(
        BadCase{"PercentNotANumber", "remediation:\n  max_disabled_percent: abc\n",
                "cfg.yaml:6:25: remediation.max_disabled_percent: expected a number"},
        BadCase{"PercentAbove100", "remediation:\n  max_disabled_percent: 150\n",
                "cfg.yaml:6:25: remediation.max_disabled_percent: must be between 0 and 100"},
        BadCase{"PercentNegative", "remediation:\n  max_disabled_percent: -1\n",
                "cfg.yaml:6:25: remediation.max_disabled_percent: must be between 0 and 100"},
        BadCase{"PercentNotScalar", "remediation:\n  max_disabled_percent: [1]\n",
                "cfg.yaml:6:25: remediation.max_disabled_percent: expected a number"},
        BadCase{"PerSwitchNegative", "remediation:\n  max_disabled_per_switch: -1\n",
                "cfg.yaml:6:28: remediation.max_disabled_per_switch: must be between 0 and 10000"},
        BadCase{"ActionsPerHourNotAnInteger", "remediation:\n  max_actions_per_hour: 2.5\n",
                "cfg.yaml:6:25: remediation.max_actions_per_hour: expected an integer"},
        BadCase{"CooldownUnknownUnit", "remediation:\n  port_cooldown_s: 1w\n",
                "cfg.yaml:6:20: remediation.port_cooldown_s: '1w' has unknown unit"},
        BadCase{"MinLinksHostTooMany", "remediation:\n  min_active_links_host: 65\n",
                "cfg.yaml:6:26: remediation.min_active_links_host: must be between 0 and 64"},
        BadCase{"MinLinksSwitchTooMany", "remediation:\n  min_active_links_switch: 1025\n",
                "cfg.yaml:6:28: remediation.min_active_links_switch: must be between 0 and 1024"},
        BadCase{"BreakerFindingsNegative", "remediation:\n  breaker_findings: -1\n",
                "cfg.yaml:6:21: remediation.breaker_findings: must be between 0 and 1000000"},
        BadCase{"BreakerWindowTooShort", "remediation:\n  breaker_window_s: 500ms\n",
                "cfg.yaml:6:21: remediation.breaker_window_s: must be at least 1s"},
        BadCase{"RepeatOffenderTicketsZero", "remediation:\n  repeat_offender_tickets: 0\n",
                "cfg.yaml:6:28: remediation.repeat_offender_tickets: must be between 1 and 1000"},
        BadCase{"RepeatOffenderWindowZero", "remediation:\n  repeat_offender_window_s: 0\n",
                "cfg.yaml:6:29: remediation.repeat_offender_window_s: must be at least 1s"},
        BadCase{"ActionRetryNegative", "remediation:\n  action_retry_s: -1s\n",
                "cfg.yaml:6:19: remediation.action_retry_s: '-1s' is negative"},
        BadCase{"ActionMaxTriesZero", "remediation:\n  action_max_tries: 0\n",
                "cfg.yaml:6:21: remediation.action_max_tries: must be between 1 and 1000"},
        BadCase{"ReconcileIntervalTooShort", "remediation:\n  reconcile_interval_s: 0.5\n",
                "cfg.yaml:6:25: remediation.reconcile_interval_s: must be at least 1s"}),
    [](const ::testing::TestParamInfo<BadCase>& param) { return param.param.label; });

TEST(LoadConfigTextTest, ExternalEventKeysBadValues) {
  // Each key on line 3, inside the ufm section (a second ufm: mapping would be a duplicate key).
  const struct {
    std::string line;
    std::string expect;
  } cases[] = {
      {"external_events: sometimes", "cfg.yaml:3:20: ufm.external_events: expected true or false"},
      {"external_event_id_cut: 550",
       "cfg.yaml:3:26: ufm.external_event_id_cut: must be between 551 and 554"},
      {"external_event_id_restore: 555",
       "cfg.yaml:3:30: ufm.external_event_id_restore: must be between 551 and 554"},
      {"external_event_id_cut: info",
       "cfg.yaml:3:26: ufm.external_event_id_cut: expected an integer"},
  };
  for (const auto& c : cases) {
    const std::string message =
        Error("ufm:\n  url: https://u\n  " + c.line + "\ndatabase:\n  url: x\n");
    EXPECT_NE(message.find(c.expect), std::string::npos) << c.line << ": " << message;
  }
  for (int id : {551, 554}) {
    auto ok = LoadConfigText(
        "ufm:\n  url: https://u\n  external_event_id_cut: " + std::to_string(id) +
            "\n  external_event_id_restore: " + std::to_string(id) + "\ndatabase:\n  url: x\n",
        "cfg.yaml");
    ASSERT_TRUE(ok.ok()) << ok.status().message();
    EXPECT_EQ(ok->ufm.external_event_id_cut, id);
    EXPECT_EQ(ok->ufm.external_event_id_restore, id);
  }
}

TEST(LoadConfigTextTest, UtcOffsetDefaultAndForms) {
  auto defaults = LoadConfigText(kMinimal, "cfg.yaml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().message();
  EXPECT_EQ(defaults->ufm.utc_offset_s, 0);
  const struct {
    std::string value;
    int seconds;
  } cases[] = {{"\"+02:00\"", 7200},
               {"+02:00", 7200},
               {"-05:30", -19800},
               {"\"+0530\"", 19800},
               {"+0", 0},
               {"0", 0},
               {"Z", 0},
               {"UTC", 0},
               {"\"\"", 0},
               {"'-14:00'", -50400}};
  for (const auto& c : cases) {
    auto cfg = LoadConfigText(
        "ufm:\n  url: https://u\n  utc_offset: " + c.value + "\ndatabase:\n  url: x\n", "cfg.yaml");
    ASSERT_TRUE(cfg.ok()) << c.value << ": " << cfg.status().message();
    EXPECT_EQ(cfg->ufm.utc_offset_s, c.seconds) << c.value;
  }
}

TEST(LoadConfigTextTest, UtcOffsetBadValuesNameTheKeyAndWhere) {
  const struct {
    std::string line;
    std::string expect;
  } cases[] = {
      {"utc_offset: +2x", "cfg.yaml:3:15: ufm.utc_offset: must be an offset from UTC like +02:00"},
      {"utc_offset: \"+15:00\"", "cfg.yaml:3:15: ufm.utc_offset: must be an offset from UTC"},
      {"utc_offset: CET", "cfg.yaml:3:15: ufm.utc_offset: must be an offset from UTC"},
      {"utc_offset: 7200", "got '7200'"},
      {"utc_offset: [1]", "cfg.yaml:3:15: ufm.utc_offset: expected a string"},
      {"utc_offset: {h: 2}", "cfg.yaml:3:15: ufm.utc_offset: expected a string"},
      {"utc_offset:", "ufm.utc_offset: expected a string"},
      {"utc_ofset: +02:00", "cfg.yaml:3:3: ufm.utc_ofset: unknown key"},
  };
  for (const auto& c : cases) {
    const std::string message =
        Error("ufm:\n  url: https://u\n  " + c.line + "\ndatabase:\n  url: x\n");
    EXPECT_NE(message.find(c.expect), std::string::npos) << c.line << ": " << message;
  }
}

TEST(LoadConfigTextTest, TelemetryEndpointsFormatAndShards) {
  auto defaults = LoadConfigText(kMinimal, "cfg.yaml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().message();
  EXPECT_EQ(defaults->telemetry.format, "auto");
  EXPECT_EQ(defaults->telemetry.shards, 1);
  EXPECT_EQ(defaults->telemetry.secondary_url, "");
  EXPECT_DOUBLE_EQ(defaults->telemetry.secondary_interval_s, 300);
  auto c = LoadConfigText(std::string(kMinimal) +
                              "telemetry:\n"
                              "  url: http://ufm:9001/metrics\n"
                              "  interval_s: 30s\n"
                              "  format: prometheus\n"
                              "  shards: 4\n"
                              "  secondary_url: http://ufm:9002/csv/xcset/low_freq_debug\n"
                              "  secondary_interval_s: 5m\n",
                          "cfg.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->telemetry.url, "http://ufm:9001/metrics");
  EXPECT_DOUBLE_EQ(c->telemetry.interval_s, 30);
  EXPECT_EQ(c->telemetry.format, "prometheus");
  EXPECT_EQ(c->telemetry.shards, 4);
  EXPECT_EQ(c->telemetry.secondary_url, "http://ufm:9002/csv/xcset/low_freq_debug");
  EXPECT_DOUBLE_EQ(c->telemetry.secondary_interval_s, 300);
}

TEST(LoadConfigTextTest, TelemetryColumnMapsPerEndpoint) {
  auto defaults = LoadConfigText(kMinimal, "cfg.yaml");
  ASSERT_TRUE(defaults.ok()) << defaults.status().message();
  EXPECT_TRUE(defaults->telemetry.columns.empty());
  EXPECT_TRUE(defaults->telemetry.secondary_columns.empty());
  auto c = LoadConfigText(std::string(kMinimal) +
                              "telemetry:\n"
                              "  url: http://ufm:9001/csv/metrics\n"
                              "  columns:\n"
                              "    symbolerrorcounterextended: Infiniband_SymbolErrors_u_Errors\n"
                              "    port_num: PortNo\n"
                              "  secondary_columns: {}\n",
                          "cfg.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  // Our names are kept in the service's spelling.
  EXPECT_EQ(c->telemetry.columns,
            (std::map<std::string, std::string>{
                {"SymbolErrorCounterExtended", "Infiniband_SymbolErrors_u_Errors"},
                {"port_num", "PortNo"}}));
  EXPECT_TRUE(c->telemetry.secondary_columns.empty());
  // A --set can empty a map, not give one.
  auto cleared = LoadConfigText(std::string(kMinimal) + "telemetry:\n  columns:\n    port_num: p\n",
                                "cfg.yaml", {"telemetry.columns="});
  ASSERT_TRUE(cleared.ok()) << cleared.status().message();
  EXPECT_TRUE(cleared->telemetry.columns.empty());
  auto set = LoadConfigText(kMinimal, "cfg.yaml", {"telemetry.columns=port_num"});
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("--set telemetry.columns: expected a mapping"),
            std::string::npos)
      << set.status().message();
}

TEST(LoadConfigTextTest, UnknownAuthIsAnError) {
  const std::string message =
      Error("ufm:\n  url: https://u\n  auth: kerberos\ndatabase:\n  url: x\n");
  EXPECT_NE(message.find("cfg.yaml:3:9: ufm.auth: must be basic, session, token or local"),
            std::string::npos)
      << message;
}

TEST(LoadConfigTextTest, TokenAuthNeedsAToken) {
  const std::string message = Error("ufm:\n  url: https://u\n  auth: token\ndatabase:\n  url: x\n");
  EXPECT_NE(message.find("no ufm.token"), std::string::npos) << message;
  auto c = LoadConfigText(
      "ufm:\n  url: https://u\n  auth: token\n  token: abc\n  retries: 5\n  retry_base_s: 250ms\n"
      "database:\n  url: x\n",
      "cfg.yaml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->ufm.token, "abc");
  EXPECT_EQ(c->ufm.retries, 5);
  EXPECT_DOUBLE_EQ(c->ufm.retry_base_s, 0.25);
}

TEST(LoadConfigTextTest, MissingUfmUrl) {
  EXPECT_NE(Error("database:\n  url: x\n").find("ufm.url: is required"), std::string::npos);
  EXPECT_NE(Error("ufm:\n  user: a\ndatabase:\n  url: x\n").find("ufm.url: is required"),
            std::string::npos);
}

TEST(LoadConfigTextTest, MissingDatabaseUrl) {
  EXPECT_NE(Error("ufm:\n  url: https://u\n").find("database.url: is required"), std::string::npos);
  EXPECT_NE(Error("ufm:\n  url: https://u\ndatabase:\n  schema_dir: s\n")
                .find("database.url: is required"),
            std::string::npos);
}

TEST(LoadConfigTextTest, NotAMappingOrNotYaml) {
  EXPECT_NE(Error("").find("must be a YAML mapping"), std::string::npos);
  EXPECT_NE(Error("- a\n- b\n").find("must be a YAML mapping"), std::string::npos);
  EXPECT_EQ(Error("ufm: {url: [\n").rfind("cfg.yaml:", 0), 0u);
}

TEST(LoadConfigTextTest, PasswordEnvReadsTheVariable) {
  ASSERT_EQ(setenv("UFMR_CONFIG_TEST_PASSWORD", "s3cret", 1), 0);
  auto c = LoadConfigText(
      "ufm:\n  url: https://u\n  password: ignored\n  password_env: UFMR_CONFIG_TEST_PASSWORD\n"
      "database:\n  url: x\n",
      "cfg.yaml");
  unsetenv("UFMR_CONFIG_TEST_PASSWORD");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->ufm.password, "s3cret");
  EXPECT_EQ(c->ufm.password_env, "UFMR_CONFIG_TEST_PASSWORD");
}

TEST(LoadConfigTextTest, PasswordEnvUnsetIsAnError) {
  unsetenv("UFMR_CONFIG_TEST_UNSET");
  const std::string message = Error(
      "ufm:\n  url: https://u\n  password_env: UFMR_CONFIG_TEST_UNSET\ndatabase:\n  url: x\n");
  EXPECT_NE(message.find("ufm.password_env"), std::string::npos) << message;
  EXPECT_NE(message.find("UFMR_CONFIG_TEST_UNSET is not set"), std::string::npos) << message;
}

TEST(LoadConfigTextTest, TrailingSlashesStrippedFromUfmUrl) {
  for (const char* url : {"https://ufm.example/", "https://ufm.example//"}) {
    auto c = LoadConfigText(std::string("ufm:\n  url: ") + url + "\ndatabase:\n  url: x\n", "c");
    ASSERT_TRUE(c.ok()) << c.status().message();
    EXPECT_EQ(c->ufm.url, "https://ufm.example") << url;
  }
}

TEST(LoadConfigFileTest, MissingFileIsNotFound) {
  auto c = LoadConfigFile(std::string(::testing::TempDir()) + "/config_test_no_such.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace ufmr
