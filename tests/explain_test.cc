// Covers src/decide/explain.h: Explain() on the evidence the rules engine records. An event rule
// with a hold (event names, one or many observations, their times of day, count/window/for_s), a
// counter rule (rate per minute, per second or per another unit; delta; BER; measured and
// clear_below), a flapping finding with counter_downs, a finding without evidence (its reason);
// numbers rounded for people; the rule's file (without its folder) and line and the 12-character
// rules hash; each decision kind (disable, isolate, blocked, ticket, suppressed, finding) with its
// note; the title in front and the repair hint appended. Exact strings, since people read them on
// the ticket.
#include "decide/explain.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "rules/rule_state.h"

namespace ufmr {
namespace {

using Json = nlohmann::json;

constexpr const char* kHash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
constexpr const char* kPort = "9c0591030090e000_33";

Json Event(const std::string& time, int type, const std::string& name) {
  return Json{
      {"time", time},       {"source", "rest"}, {"ports", {kPort}},      {"event_id", 1000 + type},
      {"event_type", type}, {"name", name},     {"severity", "Warning"}, {"description", "text"},
      {"ufm_timestamp", ""}};
}

Json Sample(const std::string& time, const std::string& counter, double delta) {
  return Json{{"time", time},   {"source", "telemetry"}, {"ports", {kPort}}, {"counter", counter},
              {"delta", delta}, {"interval_s", 60},      {"value", 0}};
}

Json RuleRef(const std::string& name, const std::string& file, int line) {
  return Json{{"name", name}, {"file", file}, {"line", line}};
}

Finding EventFinding(Json observations, Json threshold) {
  Finding f;
  f.rule = "link_down";
  f.rules_hash = kHash;
  f.ports = {kPort};
  f.evidence = {{"observations", std::move(observations)},
                {"rule", RuleRef("link_down", "/etc/ufm-remediator/rules/links.yaml", 12)},
                {"rules_hash", kHash},
                {"threshold", std::move(threshold)}};
  return f;
}

Finding CounterFinding(Json threshold, double measured) {
  Finding f;
  f.rule = "symbol_errors";
  f.rules_hash = kHash;
  f.ports = {kPort};
  f.evidence = {{"observations", {Sample("2026-11-29T10:05:00.000Z", "SymbolErrorCounter", 1200)}},
                {"rule", RuleRef("symbol_errors", "rules/counters.yaml", 40)},
                {"rules_hash", kHash},
                {"threshold", std::move(threshold)},
                {"measured", measured}};
  return f;
}

Decision Disable() {
  Decision d;
  d.kind = DecisionKind::kDisable;
  d.port = kPort;
  return d;
}

TEST(ExplainTest, EventRuleWithAHold) {
  Finding f = EventFinding({Event("2026-11-29T10:00:04.000Z", 329, "Link went down"),
                            Event("2026-11-29T10:01:10.000Z", 702, "Port is unhealthy"),
                            Event("2026-11-29T10:00:30.000Z", 329, "Link went down"),
                            Event("2026-11-29T10:00:50.000Z", 330, "")},
                           {{"scope", "link"}, {"count", 3}, {"window_s", 600}, {"for_s", 30}});
  Decision d = Disable();
  d.title = "Link down on leaf-1 1/17/1";
  EXPECT_EQ(Explain(f, d),
            "Link down on leaf-1 1/17/1. UFM reported \"Link went down\", \"Port is unhealthy\" "
            "and \"event 330\" 4 times between 10:00:04 UTC and 10:01:10 UTC. The rule fires at "
            "3 within 10m. It lasted 30s without clearing. Rule link_down (links.yaml line 12), "
            "rules 0123456789ab. The service disables 9c0591030090e000_33 so traffic avoids "
            "the link.");
}

// The rules engine's findings keep their observations as they are (Finding::observed), made JSON
// only when written: the explanation reads the same from either.
TEST(ExplainTest, KeptObservationsExplainAsTheirJsonDoes) {
  auto event = [](double at, int type, const std::string& name) {
    auto o = std::make_shared<Observation>();
    o->time = FromEpochSeconds(1764410400 + at);  // 2025-11-29T10:00:00Z
    o->event_type = type;
    o->name = name;
    o->ports = {kPort};
    return o;
  };
  auto sample = std::make_shared<Observation>();
  sample->kind = Observation::Kind::kCounter;
  sample->counter = "SymbolErrorCounter";
  sample->time = FromEpochSeconds(1764410400 + 300);
  Finding kept = EventFinding(Json::array(), {{"scope", "link"}, {"count", 3}, {"window_s", 600}});
  kept.observed = {event(4, 329, "Link went down"), event(70, 702, "Port is unhealthy"), sample,
                   event(30, 329, "Link went down"), event(50, 330, "")};
  Finding written = kept;
  written.evidence = EvidenceJson(kept);
  written.observed.clear();
  ASSERT_EQ(written.evidence["observations"].size(), 5u);
  const std::string text = Explain(kept, Disable());
  EXPECT_EQ(text, Explain(written, Disable()));
  EXPECT_NE(text.find("UFM reported \"Link went down\", \"Port is unhealthy\" and \"event 330\" 4 "
                      "times between 10:00:04 UTC and 10:01:10 UTC."),
            std::string::npos)
      << text;
}

TEST(ExplainTest, OneEventWithoutWindowOrHold) {
  Finding f = EventFinding({Event("2026-11-29T23:59:59.500Z", 329, "Link went down")},
                           {{"scope", "link"}, {"count", 1}, {"window_s", 0}, {"for_s", 0}});
  EXPECT_EQ(Explain(f, Disable()),
            "UFM reported \"Link went down\" once, at 23:59:59 UTC. Rule link_down "
            "(links.yaml line 12), rules 0123456789ab. The service disables "
            "9c0591030090e000_33 so traffic avoids the link.");
}

TEST(ExplainTest, CounterRuleRatePerMinuteWithClearBelow) {
  Finding f = CounterFinding({{"scope", "link"},
                              {"counter", "SymbolErrorCounter"},
                              {"measure", "rate"},
                              {"above", 100},
                              {"clear_below", 50},
                              {"per_s", 60},
                              {"window_s", 300},
                              {"for_s", 0}},
                             240);
  EXPECT_EQ(Explain(f, Disable()),
            "The counter SymbolErrorCounter rose at a rate of 240 per minute over 5m, above the "
            "threshold of 100 per minute. The rule clears once it is below 50 per minute. Rule "
            "symbol_errors (counters.yaml line 40), rules 0123456789ab. The service "
            "disables 9c0591030090e000_33 so traffic avoids the link.");
}

TEST(ExplainTest, CounterRateUnitsDeltaAndBer) {
  Json rate{{"counter", "PortRcvErrors"}, {"measure", "rate"}, {"above", 2},
            {"clear_below", 0},           {"per_s", 1},        {"window_s", 0}};
  std::string text = Explain(CounterFinding(rate, 2.5), Disable());
  EXPECT_EQ(text.rfind("The counter PortRcvErrors rose at a rate of 2.5 per second, above the "
                       "threshold of 2 per second. Rule symbol_errors",
                       0),
            0u)
      << text;

  rate["per_s"] = 3600;
  text = Explain(CounterFinding(rate, 7), Disable());
  EXPECT_NE(text.find("rose at a rate of 7 per 1h, above the threshold of 2 per 1h."),
            std::string::npos)
      << text;

  Json delta{{"counter", "LinkDownedCounter"},
             {"measure", "delta"},
             {"above", 3},
             {"clear_below", 0},
             {"window_s", 3600}};
  text = Explain(CounterFinding(delta, 9), Disable());
  EXPECT_NE(text.find("The counter LinkDownedCounter rose by 9 over 1h, above the threshold of 3. "
                      "Rule symbol_errors"),
            std::string::npos)
      << text;

  Json ber{{"counter", "SymbolBER"}, {"measure", "ber"}, {"above", 1e-12}, {"clear_below", 1e-13}};
  text = Explain(CounterFinding(ber, 2.5e-11), Disable());
  EXPECT_NE(text.find("The counter SymbolBER gave a bit error rate of 2.5e-11, above the threshold "
                      "of 1e-12. The rule clears once it is below 1e-13. Rule"),
            std::string::npos)
      << text;

  Finding unmeasured = CounterFinding(delta, 0);
  unmeasured.evidence.erase("measured");
  text = Explain(unmeasured, Disable());
  EXPECT_NE(text.find("rose by ? over 1h"), std::string::npos) << text;
}

TEST(ExplainTest, NumbersRoundedForPeople) {
  Json rate{{"counter", "PortRcvErrors"}, {"measure", "rate"}, {"above", 12.5},
            {"clear_below", 0.004},       {"per_s", 60},       {"window_s", 0}};
  std::string text = Explain(CounterFinding(rate, 1603.4), Disable());
  EXPECT_NE(text.find("rose at a rate of 1603 per minute, above the threshold of 12.5 per minute. "
                      "The rule clears once it is below 0.004 per minute."),
            std::string::npos)
      << text;
  text = Explain(CounterFinding(rate, 12.3456), Disable());
  EXPECT_NE(text.find("rose at a rate of 12.3 per minute,"), std::string::npos) << text;
}

TEST(ExplainTest, FlappingWithCounterDowns) {
  Finding f = EventFinding({Event("2026-11-29T10:00:00.000Z", 329, "Link went down"),
                            Event("2026-11-29T10:20:00.000Z", 329, "Link went down"),
                            Sample("2026-11-29T10:30:00.000Z", "LinkDownedCounter", 7)},
                           {{"scope", "link"}, {"count", 5}, {"window_s", 3600}, {"for_s", 0}});
  f.rule = "flapping";
  f.evidence["rule"] = RuleRef("flapping", "flapping.yaml", 3);
  f.evidence["counter_downs"] = 7;
  EXPECT_EQ(Explain(f, Disable()),
            "UFM reported \"Link went down\" 2 times between 10:00:00 UTC and 10:20:00 UTC. The "
            "link-down counter saw 7 downs. The rule fires at 5 within 1h. Rule flapping "
            "(flapping.yaml line 3), rules 0123456789ab. The service disables "
            "9c0591030090e000_33 so traffic avoids the link.");
}

TEST(ExplainTest, WithoutEvidenceTheReasonAndTheRuleName) {
  Finding f;
  f.rule = "switch_reboot";
  f.reason = "switch sw-1 rebooted";
  f.rules_hash = "abcdef";  // shorter than 12: printed whole
  Decision d;
  d.kind = DecisionKind::kFinding;
  d.note = "a switch-level finding";
  EXPECT_EQ(Explain(f, d),
            "switch sw-1 rebooted. Rule switch_reboot, rules abcdef. Recorded only: a switch-level "
            "finding.");
}

TEST(ExplainTest, TheRulesHashIsCutToTwelveCharacters) {
  Finding f =
      EventFinding({Event("2026-11-29T10:00:04.000Z", 329, "Link went down")}, {{"count", 1}});
  const std::string text = Explain(f, Disable());
  EXPECT_NE(text.find(", rules 0123456789ab. "), std::string::npos) << text;
  EXPECT_EQ(text.find("0123456789abc"), std::string::npos) << text;
  EXPECT_NE(text.find("Rule link_down (links.yaml line 12)"), std::string::npos) << text;
}

struct KindCase {
  std::string label;
  DecisionKind kind;
  std::string note;
  std::string tail;  // the sentence about what the service did
};

class ExplainKindTest : public ::testing::TestWithParam<KindCase> {};

TEST_P(ExplainKindTest, SaysWhatTheServiceDid) {
  Finding f =
      EventFinding({Event("2026-11-29T10:00:04.000Z", 329, "Link went down")}, {{"count", 1}});
  Decision d;
  d.kind = GetParam().kind;
  d.port = kPort;
  d.note = GetParam().note;
  const std::string head =
      "UFM reported \"Link went down\" once, at 10:00:04 UTC. Rule link_down (links.yaml "
      "line 12), rules 0123456789ab. ";
  EXPECT_EQ(Explain(f, d), head + GetParam().tail);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ExplainKindTest,
    ::testing::Values(
        KindCase{"Disable", DecisionKind::kDisable, "",
                 "The service disables 9c0591030090e000_33 so traffic avoids the link."},
        KindCase{"Isolate", DecisionKind::kIsolate, "",
                 "The service isolates 9c0591030090e000_33: the subnet manager routes around it."},
        KindCase{"Blocked", DecisionKind::kBlocked,
                 "host-1 would be left with no active link (last_link)",
                 "Not taken out of service: host-1 would be left with no active link "
                 "(last_link)."},
        KindCase{"Ticket", DecisionKind::kTicket, "the rule asks for a ticket only",
                 "No port action: the rule asks for a ticket only."},
        KindCase{"Suppressed", DecisionKind::kSuppressed, "silenced by silence 4 (maintenance)",
                 "Recorded only: silenced by silence 4 (maintenance)."},
        KindCase{"Finding", DecisionKind::kFinding, "shadow mode", "Recorded only: shadow mode."}),
    [](const ::testing::TestParamInfo<KindCase>& param) { return param.param.label; });

TEST(ExplainTest, TheRepairHintIsAppended) {
  Finding f =
      EventFinding({Event("2026-11-29T10:00:04.000Z", 329, "Link went down")}, {{"count", 1}});
  Decision d;
  d.kind = DecisionKind::kTicket;
  d.note = "the rule asks for a ticket only";
  d.repair_hint = "Reseat the cable at both ends; replace it if the errors come back.";
  const std::string text = Explain(f, d);
  const std::string tail =
      "No port action: the rule asks for a ticket only. What to do: Reseat the cable at both "
      "ends; replace it if the errors come back.";
  ASSERT_GE(text.size(), tail.size());
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail) << text;
  d.repair_hint.clear();
  EXPECT_EQ(Explain(f, d).find("What to do"), std::string::npos);
}

}  // namespace
}  // namespace ufmr
