// Covers src/catalog/event_types.h and src/catalog/telemetry_fields.h against the shipped tables
// (schema/ufm/, from NVIDIA's policy.csv and UFM Telemetry's documented fields): each id's name,
// severity, category and message template as UFM's own table gives them; a message read by its
// template's slots (336/337's action); templates filled; "did you mean" for names and ids; and
// the promise the table exists for: an event reads the same, and a rule on its name fires the
// same, whether REST or the event log brought it.
#include "catalog/event_types.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/telemetry_fields.h"
#include "ingest/event_log.h"
#include "ingest/rest_event.h"
#include "rules/rule_engine.h"
#include "rules/rule_loader.h"
#include "support/test_env.h"
#include "ufm/inventory.h"
#include "ufm/ufm_event.h"

namespace ufmr {
namespace {

TEST(EventTypesTest, TheTableIsUfmsOwn) {
  // policy.csv at Mellanox/ufm_sdk_3.0 59d13a0a has 296 rows, ids 64 to 1600.
  const auto& table = UfmEventTypes();
  ASSERT_EQ(table.size(), 296u);
  EXPECT_EQ(table.front().id, 64);
  EXPECT_EQ(table.back().id, 1600);
  for (size_t i = 1; i < table.size(); ++i) EXPECT_LT(table[i - 1].id, table[i].id);

  const UfmEventType* down = FindUfmEventType(329);
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->name, "Link is Down");
  EXPECT_EQ(down->severity, "Warning");
  EXPECT_EQ(down->category, "Fabric Topology");
  EXPECT_EQ(down->message_template, "Link went down: %s ");
  const UfmEventType* up = FindUfmEventType(328);
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->name, "Link is Up");
  EXPECT_EQ(up->message_template, "Link is up: %s ");
  for (int id : {336, 337}) {
    const UfmEventType* t = FindUfmEventType(id);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->name, id == 336 ? "Port Action Succeeded" : "Port Action Failed");
    EXPECT_EQ(t->category, "Maintenance");
    EXPECT_EQ(t->object_type, "Port");
    EXPECT_EQ(t->message_template,
              id == 336 ? "Port %s action %s succeeded" : "Port %s action %s failed");
  }
  EXPECT_EQ(FindUfmEventType(702)->name, "Unhealthy IB Port");
  EXPECT_EQ(FindUfmEventType(917)->severity, "Critical");  // quoted in the source's row
  EXPECT_EQ(FindUfmEventType(917)->object_type, "PORT");
  EXPECT_EQ(FindUfmEventType(330), nullptr);
  EXPECT_EQ(FindUfmEventTypeByName("  link IS down ")->id, 329);
  EXPECT_EQ(FindUfmEventTypeByName("Link went down"), nullptr);
}

TEST(EventTypesTest, DidYouMean) {
  EXPECT_EQ(ClosestUfmEventName("Link went down"), "Link is Down");
  EXPECT_EQ(ClosestUfmEventName("Link went up"), "Link is Up");
  EXPECT_EQ(ClosestUfmEventName("Unhealthy port"), "Unhealthy IB Port");
  EXPECT_EQ(ClosestUfmEventType(3290)->id, 1600);
  EXPECT_EQ(ClosestUfmEventType(330)->id, 329) << "a tie goes to the lower id";
}

TEST(EventTypesTest, MessagesAreReadByTheirTemplatesSlots) {
  std::vector<std::string_view> slots;
  ASSERT_TRUE(ReadTemplateSlots("Port %s action %s succeeded",
                                "Port 9c0591030090e000_33 action disable succeeded", &slots));
  EXPECT_EQ(slots, (std::vector<std::string_view>{"9c0591030090e000_33", "disable"}));
  ASSERT_TRUE(
      ReadTemplateSlots("Port %s action %s failed", "Port a_1 action reset failed", &slots));
  EXPECT_EQ(slots[1], "reset");
  EXPECT_FALSE(
      ReadTemplateSlots("Port %s action %s succeeded", "Port a_1 action reset failed", &slots));
  EXPECT_FALSE(ReadTemplateSlots("Port %s action %s succeeded",
                                 "Port Action Disable Succeeded: port a_1", &slots));
  // The last slot takes the rest, the template's trailing blank or not.
  ASSERT_TRUE(
      ReadTemplateSlots("Link went down: %s ", "Link went down: a - b, cable S/N: X ", &slots));
  EXPECT_EQ(slots, (std::vector<std::string_view>{"a - b, cable S/N: X"}));
  EXPECT_FALSE(ReadTemplateSlots("Link went down: %s ", "Link is up: a - b", &slots));
  // Python's named slots and printf widths are slots too.
  ASSERT_TRUE(ReadTemplateSlots("Mcast group is deleted: %(prefix)016x, %(pkey)08x",
                                "Mcast group is deleted: ff12601bffff0000, 1fffc6ec2", &slots));
  EXPECT_EQ(slots, (std::vector<std::string_view>{"ff12601bffff0000", "1fffc6ec2"}));
  ASSERT_TRUE(ReadTemplateSlots(
      "Symbol-Error counter rate threshold exceeded. Threshold is %d, received value is %d. Peer "
      "info: %s.",
      "Symbol-Error counter rate threshold exceeded. Threshold is 200, received value is 512. "
      "Peer info: Computer: c931f03p08 HCA-1 / 1.",
      &slots));
  EXPECT_EQ(slots, (std::vector<std::string_view>{"200", "512", "Computer: c931f03p08 HCA-1 / 1"}));
}

TEST(EventTypesTest, TemplatesAreFilled) {
  EXPECT_EQ(FillTemplate("Port %s action %s succeeded", {"a_1", "enable"}),
            "Port a_1 action enable succeeded");
  EXPECT_EQ(FillTemplate("Link is up: %s ", {"x"}), "Link is up: x ");
  EXPECT_EQ(FillTemplate("%d%% done: %s", {"50"}), "50%% done: ") << "%% is no slot";
}

TEST(TelemetryFieldsTest, TheDocumentedFieldsAreShipped) {
  EXPECT_TRUE(IsUfmTelemetryField("PortRcvErrorsExtended"));
  EXPECT_TRUE(IsUfmTelemetryField("symbolerrorcounterextended"));
  EXPECT_TRUE(IsUfmTelemetryField("Node_GUID"));
  EXPECT_TRUE(IsUfmTelemetryField("sys_image_guid"));
  EXPECT_FALSE(IsUfmTelemetryField("PortRcvErrorsExtendd"));
  for (const auto& f : UfmTelemetryFields()) {
    EXPECT_TRUE(f.endpoint == "primary" || f.endpoint == "secondary" || f.endpoint == "xdr")
        << f.field;
    EXPECT_FALSE(f.source.empty()) << f.field << " names no source";
  }
}

// A counter UFM Telemetry does not report can never fire: rules check says so, with the name it
// likely meant; a documented counter, a secondary one and a name a column map accepts are quiet.
TEST(TelemetryFieldsTest, RulesCheckWarnsOnACounterUfmDoesNotReport) {
  auto rule = [](const std::string& counter) {
    return LoadRulesText("rules:\n  - name: c\n    counter: " + counter +
                             "\n    delta: {above: 1}\n    action: log_only\n",
                         "c.yaml");
  };
  auto typo = rule("PortRcvErrorsExtendd");
  ASSERT_TRUE(typo.ok()) << typo.Report() << "a warning never blocks a load";
  ASSERT_EQ(typo.diagnostics.size(), 1u) << typo.Report();
  EXPECT_EQ(typo.diagnostics[0].code, "unknown-counter");
  EXPECT_NE(typo.diagnostics[0].message.find("did you mean 'PortRcvErrorsExtended'"),
            std::string::npos)
      << typo.diagnostics[0].message;
  for (const char* fine : {"PortRcvErrorsExtended", "Symbol_Errors", "PortXmitDiscardsExtended",
                           "portrcverrorsextended"}) {
    auto r = rule(fine);
    ASSERT_TRUE(r.ok()) << r.Report();
    EXPECT_TRUE(r.diagnostics.empty()) << fine << ": " << r.Report();
  }
}

// The reason for the table: today's REST says "Link is Down" for 329 while the event log only
// carries the message; a rule on the name must fire on both, and both copies must read alike.
TEST(EventTypesTest, ARuleOnTheTablesNameFiresOnEitherSource) {
  const std::string log_line =
      "2024-05-28 08:03:05.118 [97214] [329] WARNING Site [default] [Fabric_Topology] Link "
      "[Source 9c0591030090e000_33  TO Dest: fc6a1c0300244e00_8]: Link went down: "
      "(Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - (Switch:T4-E45-L-U51:1/4/2)"
      "fc6a1c0300244e00:8, cable S/N: MT2330FT09118";
  auto entry = ParseEventLogEntry(log_line);
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  // The same event as REST gives it from 6.17 (REST guide, Events REST API: the name is the
  // table's).
  auto rest = ParseUfmEvents(R"([{"id": 97214, "name": "Link is Down", "type": "Link",
    "event_type": "329", "severity": "Warning", "timestamp": "2024-05-28 08:03:05",
    "counter": "N/A", "category": "Fabric Topology",
    "object_name": "9c0591030090e000_33:fc6a1c0300244e00_8",
    "object_path": "9c0591030090e000_33:fc6a1c0300244e00_8", "write_to_syslog": false,
    "description": "Link went down: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - (Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8, cable S/N: MT2330FT09118"}])");
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->events.size(), 1u);
  const TimePoint t = TimePoint(std::chrono::seconds(1'716'883'385));
  const Observation from_log = ToObservation(entry.value(), t);
  const Observation from_rest = ToObservation(rest->events[0], t);
  EXPECT_EQ(from_log.name, "Link is Down");
  EXPECT_EQ(from_log.name, from_rest.name);
  EXPECT_EQ(from_log.severity, from_rest.severity);
  EXPECT_EQ(from_log.category, from_rest.category);
  EXPECT_EQ(from_log.ports, from_rest.ports);
  // The severity is the one UFM sent (a site may change it in UFM), in REST's spelling.
  auto critical = ParseEventLogEntry(
      "2024-05-28 08:03:05.118 [97214] [329] CRITICAL [Fabric_Topology] Link [Source a_1  TO "
      "Dest: b_1]: Link went down: x, cable S/N: NA");
  ASSERT_TRUE(critical.ok());
  const Observation crit = ToObservation(critical.value(), t);
  EXPECT_EQ(crit.severity, "Critical");
  EXPECT_EQ(crit.name, "Link is Down");
  EXPECT_EQ(crit.cable_serial, "") << "NA is no serial";
  UfmEvent na = rest->events[0];
  na.description = "Link went down: x - y, cable S/N: N/A";
  na.severity = "";
  EXPECT_EQ(ToObservation(na, t).cable_serial, "") << "N/A is no serial";
  EXPECT_EQ(ToObservation(na, t).severity, "Warning") << "none sent: the table's";

  auto rules = LoadRulesText(
      "rules:\n  - name: by_name\n    match: {name: Link is Down}\n    action: log_only\n",
      "by_name.yaml");
  ASSERT_TRUE(rules.ok()) << rules.Report();
  EXPECT_TRUE(rules.diagnostics.empty()) << rules.Report();
  Inventory inventory;
  for (const Observation* o : {&from_log, &from_rest}) {
    RuleEngine engine(rules.rules, &inventory);
    std::vector<Finding> findings;
    engine.Observe(*o, &findings);
    ASSERT_EQ(findings.size(), 1u) << o->source;
    EXPECT_EQ(findings[0].rule, "by_name") << o->source;
  }
}

}  // namespace
}  // namespace ufmr
