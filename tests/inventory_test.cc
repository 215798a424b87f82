// Covers src/core/inventory.h: ParsePortInfo/ParsePorts on a plain list and on {"data": [...]},
// tolerated missing fields, skipped elements without a name, lower-cased names and peers, "N/A"
// peers, is_switch(), link_up()/disabled(), ToJson(); Inventory Replace/Upsert/Get/size and
// LinkEnds (peer added, sorted, unknown ports).
#include "core/inventory.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ufmr {
namespace {

using Names = std::vector<std::string>;

// A switch port as the reference lists its fields, and a host port whose peer is that switch.
constexpr const char* kPorts = R"j([
  {"name": "9C0591030090E000_33", "guid": "9c0591030090e000", "systemID": "9c0591030090e000",
   "system_name": "T3-E21-N-U47", "node_description": "T3-E21-N-U47:1/17/1",
   "description": "Switch IB Port", "number": 33, "external_number": "17/1", "label": "1/17/1",
   "active_speed": "NDR", "active_width": "4x", "logical_state": "Active",
   "physical_state": "Link Up", "peer": "FC6A1C0300244E00_8", "peer_node_name": "host-1"},
  {"name": "fc6a1c0300244e00_8", "guid": "fc6a1c0300244e00", "systemID": "fc6a1c0300244e00",
   "system_name": "host-1", "node_description": "host-1 HCA-1", "description": "Computer IB Port",
   "number": 8, "logical_state": "Disabled", "physical_state": "Link Down",
   "peer": "9c0591030090e000_33"}
])j";

TEST(ParsePortsTest, ParsesAListWithEveryField) {
  int skipped = -1;
  auto ports = ParsePorts(kPorts, &skipped);
  ASSERT_TRUE(ports.ok()) << ports.status().message();
  EXPECT_EQ(skipped, 0);
  ASSERT_EQ(ports->size(), 2u);
  const PortInfo& sw = ports.value()[0];
  EXPECT_EQ(sw.name, "9c0591030090e000_33");
  EXPECT_EQ(sw.guid, "9c0591030090e000");
  EXPECT_EQ(sw.system_guid, "9c0591030090e000");
  EXPECT_EQ(sw.system_name, "T3-E21-N-U47");
  EXPECT_EQ(sw.node_description, "T3-E21-N-U47:1/17/1");
  EXPECT_EQ(sw.description, "Switch IB Port");
  EXPECT_EQ(sw.label, "1/17/1");
  EXPECT_EQ(sw.number, 33);
  EXPECT_EQ(sw.logical_state, "Active");
  EXPECT_EQ(sw.physical_state, "Link Up");
  EXPECT_EQ(sw.peer, "fc6a1c0300244e00_8");
  EXPECT_TRUE(sw.is_switch());
  EXPECT_TRUE(sw.link_up());
  EXPECT_FALSE(sw.disabled());

  const PortInfo& host = ports.value()[1];
  EXPECT_EQ(host.name, "fc6a1c0300244e00_8");
  EXPECT_EQ(host.number, 8);
  EXPECT_EQ(host.peer, "9c0591030090e000_33");
  EXPECT_FALSE(host.is_switch());
  EXPECT_FALSE(host.link_up());
  EXPECT_TRUE(host.disabled());
}

TEST(ParsePortsTest, ParsesTheDataWrapper) {
  int skipped = -1;
  auto ports = ParsePorts(std::string(R"({"data": )") + kPorts + "}", &skipped);
  ASSERT_TRUE(ports.ok()) << ports.status().message();
  EXPECT_EQ(skipped, 0);
  ASSERT_EQ(ports->size(), 2u);
  EXPECT_EQ(ports.value()[1].name, "fc6a1c0300244e00_8");
}

TEST(ParsePortsTest, MissingFieldsAreTolerated) {
  auto ports = ParsePorts(R"([{"name": "e41d2d0300062380_3"}])", nullptr);
  ASSERT_TRUE(ports.ok());
  ASSERT_EQ(ports->size(), 1u);
  const PortInfo& p = ports.value()[0];
  EXPECT_EQ(p.name, "e41d2d0300062380_3");
  EXPECT_EQ(p.guid, "");
  EXPECT_EQ(p.system_guid, "");
  EXPECT_EQ(p.description, "");
  EXPECT_EQ(p.label, "");
  EXPECT_EQ(p.number, 0);
  EXPECT_EQ(p.peer, "");
  EXPECT_FALSE(p.is_switch());
  EXPECT_FALSE(p.link_up());
  EXPECT_FALSE(p.disabled());
}

TEST(ParsePortsTest, NullAndNonStringFields) {
  auto ports = ParsePorts(
      R"([{"name": "a_1", "peer": null, "system_name": null, "number": "7", "guid": 12}])",
      nullptr);
  ASSERT_TRUE(ports.ok());
  ASSERT_EQ(ports->size(), 1u);
  EXPECT_EQ(ports.value()[0].peer, "");
  EXPECT_EQ(ports.value()[0].system_name, "");
  EXPECT_EQ(ports.value()[0].number, 0);  // only an integer is read
  EXPECT_EQ(ports.value()[0].guid, "12");
}

TEST(ParsePortsTest, LabelFallsBackToExternalNumber) {
  auto ports = ParsePorts(R"([{"name": "a_1", "external_number": "17/1"}])", nullptr);
  ASSERT_TRUE(ports.ok());
  EXPECT_EQ(ports.value()[0].label, "17/1");
}

TEST(ParsePortsTest, ElementsWithoutANameAreSkippedAndCounted) {
  int skipped = -1;
  auto ports = ParsePorts(R"([
    {"name": "a_1"}, {"guid": "abc"}, {"name": ""}, {"name": null}, "junk", 5, {"name": "b_2"}
  ])",
                          &skipped);
  ASSERT_TRUE(ports.ok());
  EXPECT_EQ(skipped, 5);
  ASSERT_EQ(ports->size(), 2u);
  EXPECT_EQ(ports.value()[0].name, "a_1");
  EXPECT_EQ(ports.value()[1].name, "b_2");
}

struct PeerCase {
  std::string peer;
  std::string expected;
};

class PeerTest : public ::testing::TestWithParam<PeerCase> {};

TEST_P(PeerTest, LowerCasedAndNotApplicableIsEmpty) {
  auto p = ParsePortInfo(nlohmann::json{{"name", "A_1"}, {"peer", GetParam().peer}});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->name, "a_1");
  EXPECT_EQ(p->peer, GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Peers, PeerTest,
                         ::testing::Values(PeerCase{"FC6A1C0300244E00_8", "fc6a1c0300244e00_8"},
                                           PeerCase{"fc6a1c0300244e00_8", "fc6a1c0300244e00_8"},
                                           PeerCase{"N/A", ""}, PeerCase{"n/a", ""},
                                           PeerCase{"", ""}));

class BadPortsBodyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadPortsBodyTest, IsAnError) {
  int skipped = -1;
  auto ports = ParsePorts(GetParam(), &skipped);
  ASSERT_FALSE(ports.ok()) << GetParam();
  EXPECT_EQ(ports.status().code(), Status::Code::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Bodies, BadPortsBodyTest,
                         ::testing::Values("", "not json", R"({"name": "a_1"})",
                                           R"({"data": {"name": "a_1"}})", "42"));

TEST(ParsePortInfoTest, NonObjectIsAnError) {
  EXPECT_FALSE(ParsePortInfo(nlohmann::json::array()).ok());
  EXPECT_FALSE(ParsePortInfo(nlohmann::json("a_1")).ok());
}

struct SwitchCase {
  std::string label;
  std::string description;
  std::string node_description;
  bool is_switch;
};

class IsSwitchTest : public ::testing::TestWithParam<SwitchCase> {};

TEST_P(IsSwitchTest, FromDescriptionOrNodeDescription) {
  PortInfo p;
  p.description = GetParam().description;
  p.node_description = GetParam().node_description;
  EXPECT_EQ(p.is_switch(), GetParam().is_switch);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, IsSwitchTest,
    ::testing::Values(SwitchCase{"SwitchIbPort", "Switch IB Port", "", true},
                      SwitchCase{"ComputerIbPort", "Computer IB Port", "host-1 HCA-1", false},
                      SwitchCase{"ComputerWithColonInNodeDescription", "Computer IB Port",
                                 "host:1 HCA-1", false},
                      SwitchCase{"NoDescriptionSwitchLabel", "", "T3-E21-N-U47:1/17/1", true},
                      SwitchCase{"NoDescriptionHost", "", "host-1 HCA-1", false},
                      SwitchCase{"Nothing", "", "", false}),
    [](const ::testing::TestParamInfo<SwitchCase>& param) { return param.param.label; });

TEST(PortInfoTest, ToJsonHasTheFields) {
  int skipped = 0;
  auto ports = ParsePorts(kPorts, &skipped);
  ASSERT_TRUE(ports.ok());
  nlohmann::json j = ports.value()[0].ToJson();
  EXPECT_EQ(j["name"], "9c0591030090e000_33");
  EXPECT_EQ(j["system_guid"], "9c0591030090e000");
  EXPECT_EQ(j["number"], 33);
  EXPECT_EQ(j["peer"], "fc6a1c0300244e00_8");
  EXPECT_EQ(j["label"], "1/17/1");
}

PortInfo Port(const std::string& name, const std::string& peer = "",
              const std::string& system_name = "") {
  PortInfo p;
  p.name = name;
  p.peer = peer;
  p.system_name = system_name;
  return p;
}

TEST(InventoryTest, ReplaceUpsertGetSize) {
  Inventory inv;
  EXPECT_EQ(inv.size(), 0u);
  EXPECT_FALSE(inv.Get("a_1").has_value());

  inv.Replace({Port("a_1", "b_1", "sw1"), Port("b_1", "a_1", "host1")});
  EXPECT_EQ(inv.size(), 2u);
  ASSERT_TRUE(inv.Get("a_1").has_value());
  EXPECT_EQ(inv.Get("a_1")->system_name, "sw1");

  inv.Upsert(Port("a_1", "b_1", "sw1-renamed"));  // update
  inv.Upsert(Port("c_1"));                        // insert
  EXPECT_EQ(inv.size(), 3u);
  EXPECT_EQ(inv.Get("a_1")->system_name, "sw1-renamed");
  EXPECT_TRUE(inv.Get("c_1").has_value());

  inv.Replace({Port("z_9")});  // drops everything else
  EXPECT_EQ(inv.size(), 1u);
  EXPECT_FALSE(inv.Get("a_1").has_value());
  EXPECT_FALSE(inv.Get("c_1").has_value());
  EXPECT_TRUE(inv.Get("z_9").has_value());
}

TEST(InventoryTest, ReplaceWithParsedPorts) {
  auto ports = ParsePorts(kPorts, nullptr);
  ASSERT_TRUE(ports.ok());
  Inventory inv;
  inv.Replace(std::move(ports.value()));
  EXPECT_EQ(inv.size(), 2u);
  EXPECT_EQ(inv.LinkEnds({"fc6a1c0300244e00_8"}),
            (Names{"9c0591030090e000_33", "fc6a1c0300244e00_8"}));
}

struct LinkEndsCase {
  std::string label;
  Names ports;
  Names ends;
};

class LinkEndsTest : public ::testing::TestWithParam<LinkEndsCase> {};

TEST_P(LinkEndsTest, AddsPeerAndSorts) {
  Inventory inv;
  inv.Replace({Port("b_1", "a_2"), Port("a_2", "b_1"), Port("c_1" /* no peer */)});
  EXPECT_EQ(inv.LinkEnds(GetParam().ports), GetParam().ends);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LinkEndsTest,
    ::testing::Values(LinkEndsCase{"PeerAddedAndSorted", {"b_1"}, {"a_2", "b_1"}},
                      LinkEndsCase{"PeerFromTheOtherEnd", {"a_2"}, {"a_2", "b_1"}},
                      LinkEndsCase{"BothGivenSorted", {"b_1", "a_2"}, {"a_2", "b_1"}},
                      LinkEndsCase{"UnknownPort", {"x_1"}, {"x_1"}},
                      LinkEndsCase{"UnknownPairSorted", {"y_1", "x_1"}, {"x_1", "y_1"}},
                      LinkEndsCase{"KnownPortWithoutPeer", {"c_1"}, {"c_1"}},
                      LinkEndsCase{"DuplicateInput", {"b_1", "b_1"}, {"a_2", "b_1"}},
                      LinkEndsCase{"UnknownThenKnownStopsAtTwo", {"x_1", "b_1"}, {"b_1", "x_1"}},
                      // A link event names both ends: they win over the inventory's peer.
                      LinkEndsCase{"BothNamedBeatInventoryPeer", {"b_1", "z_9"}, {"b_1", "z_9"}},
                      LinkEndsCase{"Empty", {}, {}}),
    [](const ::testing::TestParamInfo<LinkEndsCase>& param) { return param.param.label; });

TEST(InventoryTest, ReplaceReportsPeerChanges) {
  Inventory inv;
  auto port = [](const std::string& name, const std::string& peer) {
    PortInfo p;
    p.name = name;
    p.peer = peer;
    return p;
  };
  EXPECT_TRUE(inv.Replace({port("a_1", "b_1"), port("b_1", "a_1"), port("c_1", "")}).empty())
      << "the first load is not a change";
  // The cable on a_1 moved from b_1 to c_1; d_1 is new.
  auto changes =
      inv.Replace({port("a_1", "c_1"), port("b_1", ""), port("c_1", "a_1"), port("d_1", "")});
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].port, "a_1");
  EXPECT_EQ(changes[0].was, "b_1");
  EXPECT_EQ(changes[0].now, "c_1");
  EXPECT_EQ(changes[1].port, "b_1");
  EXPECT_EQ(changes[1].now, "");
  EXPECT_EQ(changes[2].port, "c_1");
  EXPECT_EQ(changes[2].was, "");
  EXPECT_EQ(inv.LinkEnds({"a_1"}), (std::vector<std::string>{"a_1", "c_1"}));
}

TEST(ParseLinksTest, BothShapesWrappedOrNotAndBadElementsCounted) {
  const std::string body = R"([
    {"source_guid": "FC6A1C0300686F68", "source_port": 1, "destination_guid": "0xe41d2d0300f14b09",
     "destination_port": "1"},
    {"name": "9c0591030090e000_33:fc6a1c0300244e00_8"},
    {"source_guid": "aa", "destination_guid": "bb"},
    "not an object",
    {"name": "a_1:a_1"}
  ])";
  int skipped = 0;
  auto links = ParseLinks(body, &skipped);
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  ASSERT_EQ(links->size(), 2u);
  EXPECT_EQ(links.value()[0].a, "fc6a1c0300686f68_1");
  EXPECT_EQ(links.value()[0].b, "e41d2d0300f14b09_1");
  EXPECT_EQ(links.value()[1].a, "9c0591030090e000_33");
  EXPECT_EQ(links.value()[1].b, "fc6a1c0300244e00_8");
  EXPECT_EQ(skipped, 3);
  auto paged = ParseLinks(R"({"data": [{"name": "x_1:y_2"}]})", nullptr);
  ASSERT_TRUE(paged.ok());
  EXPECT_EQ(paged->size(), 1u);
  EXPECT_FALSE(ParseLinks("<html>", nullptr).ok());
}

TEST(FillPeersFromLinksTest, OnlyMissingPeersAreFilled) {
  std::vector<PortInfo> ports(3);
  ports[0].name = "a_1";
  ports[1].name = "b_1";
  ports[1].peer = "z_9";  // UFM's own answer wins
  ports[2].name = "c_1";
  EXPECT_EQ(FillPeersFromLinks(&ports, {{"a_1", "b_1"}}), 1);
  EXPECT_EQ(ports[0].peer, "b_1");
  EXPECT_EQ(ports[1].peer, "z_9");
  EXPECT_EQ(ports[2].peer, "");
}

TEST(PortInfoTest, ADisabledPortIsNeverUp) {
  PortInfo p;
  p.logical_state = "Active";
  p.physical_state = "Link Up";
  EXPECT_TRUE(p.link_up());
  p.logical_state = "Disabled";  // physical state not refreshed yet
  EXPECT_FALSE(p.link_up());
  p.logical_state = "Inactive";
  p.physical_state = "Link Down";
  EXPECT_FALSE(p.link_up());
}

}  // namespace
}  // namespace ufmr
