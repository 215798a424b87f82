// Covers src/ufm/ufm_event.h: ParseUfmEvents/ParseUfmEvent on both UFM event layouts (up to
// 6.16 "type" = event id; 6.17+ "event_type" = event id, "type" = object type), integer and string
// ids, the {"data": [...]} wrapper, bad bodies and bad elements, id ordering; ExtractPortNames on
// the real message shapes from the UFM field notes; ToObservation.
#include "ufm/ufm_event.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "ingest/port_names.h"
#include "ingest/rest_event.h"

namespace ufmr {
namespace {

using Names = std::vector<std::string>;

// Samples of the documented UFM event layouts (REST API guide).
constexpr const char* kOldLayout =
    R"({"id": 227, "type": "352", "name": "Network Added", "severity": "Info",
        "timestamp": "2017-09-19 10:49:03.018", "counter": null, "category": "Logical Model",
        "object_name": "Grid", "object_path": "Grid", "write_to_syslog": false,
        "description": "Network added"})";
constexpr const char* kNewLayout =
    R"json({"id": 97213, "name": "MCast Group Deleted", "type": "Site", "event_type": "67",
        "severity": "Info", "timestamp": "2024-05-28 08:03:05", "counter": "N/A",
        "category": "Fabric Notification", "object_name": "default", "object_path": "default(2)",
        "write_to_syslog": false, "description": "MCast group deleted"})json";

const char* const kLinkTag = "Link [Source f4521403008817f0_12  TO Dest: e41d2d0300a4f482_1]";
const char* const kNewMessage =
    "Link went down: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - "
    "(Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8, cable S/N: MT2330FT09118";
const char* const kOldLogMessage =
    "f4521403008817f0 (Switch: mellanox-SX6036) : 12 - e41d2d0300a4f482 (Computer: fsgb001 "
    "HCA-1) : 1";

TEST(ParseUfmEventsTest, OldLayoutTypeHoldsEventId) {
  auto parsed = ParseUfmEvents(std::string("[") + kOldLayout + "]");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->events.size(), 1u);
  EXPECT_TRUE(parsed->errors.empty());
  const UfmEvent& e = parsed->events[0];
  EXPECT_EQ(e.id, 227);
  EXPECT_EQ(e.event_type, 352);
  EXPECT_EQ(e.object_type, "");
  EXPECT_EQ(e.name, "Network Added");
  EXPECT_EQ(e.severity, "Info");
  EXPECT_EQ(e.timestamp, "2017-09-19 10:49:03.018");
  EXPECT_EQ(e.category, "Logical Model");
  EXPECT_EQ(e.object_name, "Grid");
  EXPECT_EQ(e.object_path, "Grid");
  EXPECT_EQ(e.description, "Network added");
}

TEST(ParseUfmEventsTest, NewLayoutEventTypeHoldsEventIdAndTypeIsObjectType) {
  auto parsed = ParseUfmEvents(std::string("[") + kNewLayout + "]");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->events.size(), 1u);
  const UfmEvent& e = parsed->events[0];
  EXPECT_EQ(e.id, 97213);
  EXPECT_EQ(e.event_type, 67);
  EXPECT_EQ(e.object_type, "Site");
  EXPECT_EQ(e.name, "MCast Group Deleted");
  EXPECT_EQ(e.timestamp, "2024-05-28 08:03:05");
  EXPECT_EQ(e.category, "Fabric Notification");
  EXPECT_EQ(e.object_name, "default");
  EXPECT_EQ(e.object_path, "default(2)");
}

TEST(ParseUfmEventsTest, BothLayoutsInOneBody) {
  auto parsed = ParseUfmEvents(std::string("[") + kNewLayout + "," + kOldLayout + "]");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->events.size(), 2u);
  EXPECT_EQ(parsed->events[0].event_type, 352);
  EXPECT_EQ(parsed->events[1].event_type, 67);
}

struct IdCase {
  std::string element;
  int64_t id;
  int event_type;
};

class ParseUfmEventIdTest : public ::testing::TestWithParam<IdCase> {};

TEST_P(ParseUfmEventIdTest, IntegerOrStringIds) {
  auto e = ParseUfmEvent(nlohmann::json::parse(GetParam().element));
  ASSERT_TRUE(e.ok()) << GetParam().element << ": " << e.status().message();
  EXPECT_EQ(e->id, GetParam().id);
  EXPECT_EQ(e->event_type, GetParam().event_type);
}

INSTANTIATE_TEST_SUITE_P(
    Ids, ParseUfmEventIdTest,
    ::testing::Values(IdCase{R"({"id": 5, "type": "329"})", 5, 329},
                      IdCase{R"({"id": "5", "type": "329"})", 5, 329},
                      IdCase{R"({"id": 6, "type": 329})", 6, 329},
                      IdCase{R"({"id": 7, "type": "Port", "event_type": 329})", 7, 329},
                      IdCase{R"({"id": "8", "type": "Port", "event_type": "328"})", 8, 328},
                      IdCase{R"({"id": 123456789012, "event_type": "702"})", 123456789012, 702}));

class ParseUfmEventBadTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ParseUfmEventBadTest, IsAnError) {
  auto e = ParseUfmEvent(nlohmann::json::parse(GetParam()));
  EXPECT_FALSE(e.ok()) << GetParam();
  EXPECT_FALSE(e.status().message().empty());
}

INSTANTIATE_TEST_SUITE_P(Bad, ParseUfmEventBadTest,
                         ::testing::Values(R"([1, 2])", R"("event")", R"({"type": "329"})",
                                           R"({"id": "abc", "type": "329"})",
                                           R"({"id": 1.5, "type": "329"})",
                                           R"({"id": 1, "type": "Site"})", R"({"id": 1})",
                                           R"({"id": 1, "type": "Port", "event_type": "x"})",
                                           R"({"id": 1, "event_type": null})"));

TEST(ParseUfmEventsTest, DataWrapper) {
  auto parsed = ParseUfmEvents(std::string(R"({"data": [)") + kOldLayout + "]}");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->events.size(), 1u);
  EXPECT_EQ(parsed->events[0].id, 227);
}

TEST(ParseUfmEventsTest, EmptyArrayIsNoEvents) {
  auto parsed = ParseUfmEvents("[]");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->events.empty());
  EXPECT_TRUE(parsed->errors.empty());
}

class ParseUfmEventsBodyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ParseUfmEventsBodyTest, NonArrayBodyIsAnError) {
  auto parsed = ParseUfmEvents(GetParam());
  ASSERT_FALSE(parsed.ok()) << GetParam();
  EXPECT_EQ(parsed.status().code(), Status::Code::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Bodies, ParseUfmEventsBodyTest,
                         ::testing::Values(R"({"id": 1, "type": "329"})", R"({"data": {}})",
                                           R"("events")", "42", "null", "not json", "", "[1,"));

TEST(ParseUfmEventsTest, MalformedElementIsSkippedWithAnErrorAndTheRestParse) {
  auto parsed = ParseUfmEvents(R"([
    {"id": 10, "type": "329", "description": "a"},
    {"id": "eleven", "type": "329"},
    {"id": 12, "type": "Port"},
    "junk",
    {"id": 13, "type": "Port", "event_type": "328"}
  ])");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->events.size(), 2u);
  EXPECT_EQ(parsed->events[0].id, 10);
  EXPECT_EQ(parsed->events[1].id, 13);
  ASSERT_EQ(parsed->errors.size(), 3u);
  EXPECT_NE(parsed->errors[0].find("eleven"), std::string::npos) << parsed->errors[0];
  EXPECT_NE(parsed->errors[1].find("event 12"), std::string::npos) << parsed->errors[1];
}

TEST(ParseUfmEventsTest, EventsComeOutInAscendingIdOrder) {
  auto parsed = ParseUfmEvents(R"([
    {"id": 30, "type": "329"}, {"id": "4", "type": "328"}, {"id": 1000, "event_type": 329},
    {"id": 17, "type": "110"}
  ])");
  ASSERT_TRUE(parsed.ok());
  std::vector<int64_t> ids;
  for (const auto& e : parsed->events) ids.push_back(e.id);
  EXPECT_EQ(ids, (std::vector<int64_t>{4, 17, 30, 1000}));
}

struct PortCase {
  std::string label;
  std::string text;
  Names ports;
};

class ExtractPortNamesTest : public ::testing::TestWithParam<PortCase> {};

TEST_P(ExtractPortNamesTest, Extracts) {
  EXPECT_EQ(ExtractPortNames(GetParam().text), GetParam().ports) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Messages, ExtractPortNamesTest,
    ::testing::Values(
        PortCase{"LinkTag", kLinkTag, {"f4521403008817f0_12", "e41d2d0300a4f482_1"}},
        PortCase{"NewMessage", kNewMessage, {"9c0591030090e000_33", "fc6a1c0300244e00_8"}},
        PortCase{"OldLogMessage", kOldLogMessage, {"f4521403008817f0_12", "e41d2d0300a4f482_1"}},
        PortCase{"FullLogLineDeDuplicated",
                 std::string("2023-12-20 07:46:24.442 [14599] [329] WARNING [Fabric_Topology] ") +
                     kLinkTag + ": Link went down: " + kOldLogMessage,
                 {"f4521403008817f0_12", "e41d2d0300a4f482_1"}},
        PortCase{"UpperCase",
                 "Link [Source F4521403008817F0_12  TO Dest: E41D2D0300A4F482_1]",
                 {"f4521403008817f0_12", "e41d2d0300a4f482_1"}},
        PortCase{"UpperCaseColonForm",
                 "(Switch:T3-E21-N-U47:1/17/1)9C0591030090E000:33",
                 {"9c0591030090e000_33"}},
        PortCase{"Duplicates",
                 "e41d2d0300a4f482_1 then e41d2d0300a4f482_1 and E41D2D0300A4F482_1",
                 {"e41d2d0300a4f482_1"}},
        PortCase{"LeadingZeroPortNumber", "e41d2d0300a4f482_03", {"e41d2d0300a4f482_3"}},
        PortCase{"SingleName", "e41d2d0300062380_3", {"e41d2d0300062380_3"}},
        PortCase{"NoPortPeerLabel",
                 "Peer Port T2-E63-L-U37:1/19/2 is considered by SM as unhealthy due to FLAPPING.",
                 {}},
        PortCase{"NoPortShortGuid", "Link went down: abcdef_1", {}},
        PortCase{"NoPortAtAll", "Network added", {}}, PortCase{"Empty", "", {}}),
    [](const ::testing::TestParamInfo<PortCase>& param) { return param.param.label; });

// Ports come from the object's name and path; the description only when those name none (an
// object that names ports is the authority, as in the event log: the old Link form's message
// names a host by its node GUID, no port name).
TEST(ToObservationTest, CopiesFieldsAndFillsPortsFromTheObjectElseTheDescription) {
  UfmEvent e;
  e.id = 14599;
  e.event_type = 329;
  e.name = "Link went down";
  e.severity = "Warning";
  e.timestamp = "2023-12-20 07:46:24";
  e.object_type = "Link";
  e.object_name = "f4521403008817f0_12";
  e.object_path = "Grid/Link(aaaaaaaaaaaaaaaa_2)";
  e.description = std::string("Link went down: ") + kNewMessage;
  const TimePoint received = TimePoint(std::chrono::seconds(1'800'000'000));

  Observation o = ToObservation(e, received);
  EXPECT_EQ(o.kind, Observation::Kind::kEvent);
  EXPECT_EQ(o.time, received);
  EXPECT_EQ(o.source, "rest");
  EXPECT_EQ(o.event_id, 14599);
  EXPECT_EQ(o.event_type, 329);
  EXPECT_EQ(o.name, "Link is Down") << "UFM's event table names 329";
  EXPECT_EQ(o.severity, "Warning");
  EXPECT_EQ(o.object_type, "Link");
  EXPECT_EQ(o.object_name, "f4521403008817f0_12");
  EXPECT_EQ(o.description, e.description);
  EXPECT_EQ(o.ufm_timestamp, "2023-12-20 07:46:24");
  EXPECT_EQ(o.ports, (Names{"f4521403008817f0_12", "aaaaaaaaaaaaaaaa_2"}));
  e.object_name = "Grid";
  e.object_path = "Grid";
  EXPECT_EQ(ToObservation(e, received).ports, (Names{"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
}

TEST(ToObservationTest, EventWithoutPortsHasNone) {
  auto parsed = ParseUfmEvents(std::string("[") + kNewLayout + "]");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->events.size(), 1u);
  Observation o = ToObservation(parsed->events[0], TimePoint());
  EXPECT_TRUE(o.ports.empty());
  EXPECT_EQ(o.event_type, 67);
  EXPECT_EQ(o.object_type, "Site");
}

}  // namespace
}  // namespace ufmr
