// Covers src/ufm/inventory.h: ParsePortInfo/ParsePorts on a plain list and on {"data": [...]},
// tolerated missing fields, skipped elements without a name, lower-cased names and peers, "N/A"
// peers, is_switch(), link_up()/disabled(), ToJson(); Inventory Replace/Upsert/Get/size,
// LinkEnds (peer added, sorted, unknown ports), NodePorts and NodeLinks (a node's ports by system
// GUID and system name; one GUID with two names stays two nodes; an unknown node gives the port
// alone) and SystemNameOf (any case, with or without 0x; "" when unknown), after Replace and after
// Upsert; FindByDescription follows Upserts (a port's new label found, its old one gone; a learned
// port found at once); SetLinkState moves an enabled port's state and leaves a disabled one alone.
// Labels: dname (UFM's port objects have no label field), else a switch port's node_description
// after the colon, never external_number. admin_state(): disabled by either state, enabled by a
// trained or training link, unknown otherwise. Cable serials: read from /resources/links
// (serial_number, flat or in a cable_info object; either shape of the list), and given by
// FillPeersFromLinks to the ports of a link that lack one. Ports as rows (PortTable, PortId): a
// refresh keeps each port's id and updates it in place; a port left out is gone until it comes
// back under its old id; Peek's copy follows SetLinkState; a PortTable fills peers and cables
// from the links as a list does.
#include "ufm/inventory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace ufmr {
namespace {

using Names = std::vector<std::string>;

// A switch port as the reference lists its fields, and a host port whose peer is that switch.
constexpr const char* kPorts = R"j([
  {"name": "9C0591030090E000_33", "guid": "9c0591030090e000", "systemID": "9c0591030090e000",
   "system_name": "T3-E21-N-U47", "node_description": "T3-E21-N-U47:1/17/1",
   "description": "Switch IB Port", "number": 33, "external_number": 33, "dname": "1/17/1",
   "active_speed": "NDR", "active_width": "4x", "logical_state": "Active",
   "physical_state": "Link Up", "peer": "FC6A1C0300244E00_8", "peer_node_name": "host-1"},
  {"name": "fc6a1c0300244e00_8", "guid": "fc6a1c0300244e00", "systemID": "fc6a1c0300244e00",
   "system_name": "host-1", "node_description": "host-1 HCA-1", "description": "Computer IB Port",
   "number": 8, "logical_state": "Down", "physical_state": "Disabled",
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

TEST(ParsePortsTest, TheLabelIsTheDnameNeverExternalNumber) {
  auto ports = ParsePorts(R"([
    {"name": "a_1", "external_number": "17/1"},
    {"name": "b_1", "label": "1/2/1", "external_number": 3},
    {"name": "c_1", "description": "Switch IB Port", "node_description": "sw-1:1/4/2"},
    {"name": "d_1", "description": "Switch IB Port", "node_description": "sw-1:1/4/2",
     "dname": "N/A"},
    {"name": "e_1", "description": "Computer IB Port", "node_description": "host mlx5_0:1"},
    {"name": "f_1", "dname": "7"}
  ])",
                          nullptr);
  ASSERT_TRUE(ports.ok());
  ASSERT_EQ(ports->size(), 6u);
  EXPECT_EQ(ports.value()[0].label, "") << "external_number is no label";
  EXPECT_EQ(ports.value()[1].label, "") << "real ports have no label field";
  EXPECT_EQ(ports.value()[2].label, "1/4/2") << "a switch port's node description";
  EXPECT_EQ(ports.value()[3].label, "1/4/2");
  EXPECT_EQ(ports.value()[4].label, "") << "a host's description is not a switch label";
  EXPECT_EQ(ports.value()[5].label, "7") << "the number, where a switch has no labels";
}

TEST(PortInfoTest, AdminStateReadsEitherStateAndSaysWhenItCannotTell) {
  struct Case {
    const char* logical;
    const char* physical;
    AdminState want;
  };
  for (const Case& c :
       {Case{"Down", "Disabled", AdminState::kDisabled},
        Case{"Disabled", "Link Down", AdminState::kDisabled},
        Case{"DISABLED", "", AdminState::kDisabled},
        Case{"Active", "Link Up", AdminState::kEnabled},
        Case{"N/A", "Link Up", AdminState::kEnabled}, Case{"Down", "Polling", AdminState::kEnabled},
        Case{"Armed", "", AdminState::kEnabled}, Case{"Down", "Link Down", AdminState::kUnknown},
        Case{"Inactive", "Link Down", AdminState::kUnknown},
        Case{"N/A", "N/A", AdminState::kUnknown}, Case{"", "", AdminState::kUnknown}}) {
    PortInfo p;
    p.logical_state = c.logical;
    p.physical_state = c.physical;
    EXPECT_EQ(p.admin_state(), c.want) << c.logical << " / " << c.physical;
    EXPECT_EQ(p.disabled(), c.want == AdminState::kDisabled);
  }
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

// UFM may stop listing a link (and its cable) once it is down, and a single port's answer names
// no cable: the port keeps the serial it learned, unless it now faces another port.
// The inventory finds the ports it found last with a compare (a small cache by the names' last
// bytes): 5,000 names, many sharing a slot, each found as itself; one a refresh dropped is not
// found though it was found a moment before, and found again, under its old id, when it is back.
TEST(InventoryTest, PortsFoundAgainAreThemselvesWhateverTheyShare) {
  std::vector<PortInfo> ports;
  for (int i = 0; i < 5000; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "%016x_%d", 0x9c0591030090e000u + i / 40, i % 40 + 1);
    ports.push_back(Port(name));
  }
  Inventory inventory;
  inventory.Replace(ports);
  std::vector<PortId> ids;
  for (const auto& p : ports) ids.push_back(inventory.IdOf(p.name).value_or(~0u));
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < ports.size(); i += 1 + round) {
      ASSERT_EQ(inventory.IdOf(ports[i].name), ids[i]) << ports[i].name;
      ASSERT_EQ(inventory.NameOf(ids[i]), ports[i].name);
      ASSERT_TRUE(inventory.Contains(ports[i].name));
    }
  }
  const PortInfo dropped = ports[1234];
  ASSERT_TRUE(inventory.Contains(dropped.name));  // found now: in the cache
  ports.erase(ports.begin() + 1234);
  inventory.Replace(ports);
  EXPECT_FALSE(inventory.Contains(dropped.name));
  EXPECT_FALSE(inventory.IdOf(dropped.name).has_value());
  EXPECT_FALSE(inventory.Get(dropped.name).has_value());
  EXPECT_FALSE(inventory.Contains(dropped.name + "x"));
  EXPECT_FALSE(inventory.Contains(""));
  ports.push_back(dropped);
  inventory.Replace(ports);
  EXPECT_EQ(inventory.IdOf(dropped.name), ids[1234]);
}

TEST(InventoryTest, APortKeepsItsCableSerialUntilItFacesAnotherPort) {
  Inventory inv;
  PortInfo a = Port("a_1", "b_1", "sw1");
  a.cable_serial = "MT2330FT09118";
  inv.Replace({a, Port("b_1", "a_1", "host1")});
  inv.Replace({Port("a_1", "", "sw1"), Port("b_1")});  // the link is down and no longer listed
  EXPECT_EQ(inv.Get("a_1")->cable_serial, "MT2330FT09118");
  inv.Upsert(Port("a_1", "", "sw1"));  // read alone after the cut
  EXPECT_EQ(inv.Get("a_1")->cable_serial, "MT2330FT09118");
  inv.Replace({Port("a_1", "b_1", "sw1")});  // back, same peer
  EXPECT_EQ(inv.Get("a_1")->cable_serial, "MT2330FT09118");
  inv.Replace({Port("a_1", "c_1", "sw1")});  // recabled to another port: another cable
  EXPECT_EQ(inv.Get("a_1")->cable_serial, "");
  inv.Replace({Port("a_1", "", "sw1")});
  EXPECT_EQ(inv.Get("a_1")->cable_serial, "") << "nothing learned, nothing kept";
  PortInfo fresh = Port("a_1", "c_1", "sw1");
  fresh.cable_serial = "MT9999FT00001";
  inv.Replace({fresh});
  EXPECT_EQ(inv.Get("a_1")->cable_serial, "MT9999FT00001") << "what UFM says now wins";
}

TEST(InventoryTest, WithReadsAKnownPortInPlace) {
  Inventory inv;
  inv.Replace({Port("a_1", "b_1", "sw1")});
  std::string seen;
  EXPECT_TRUE(inv.With("a_1", [&](const PortInfo& p) { seen = p.system_name + " " + p.peer; }));
  EXPECT_EQ(seen, "sw1 b_1");
  bool called = false;
  EXPECT_FALSE(inv.With("x_9", [&](const PortInfo&) { called = true; }));
  EXPECT_FALSE(called);
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

TEST(CableSerialTest, ReadFromLinksOfEitherShape) {
  auto links = ParseLinks(R"j([
    {"source_guid": "0xAA", "source_port": 1, "destination_guid": "bb", "destination_port": 2,
     "serial_number": "MT1111"},
    {"name": "c_1:d_2", "cable_info": {"serial_number": "MT2222"}},
    {"name": "e_1:f_2", "serial_number": "N/A"}
  ])j",
                          nullptr);
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  ASSERT_EQ(links->size(), 3u);
  EXPECT_EQ(links.value()[0].a, "aa_1");
  EXPECT_EQ(links.value()[0].cable_serial, "MT1111");
  EXPECT_EQ(links.value()[1].a, "c_1");
  EXPECT_EQ(links.value()[1].cable_serial, "MT2222");
  EXPECT_EQ(links.value()[2].cable_serial, "");
}

TEST(CableSerialTest, FilledFromLinksWhereMissing) {
  std::vector<PortInfo> ports(5);
  ports[0].name = "a_1";  // no peer, no serial: gets both
  ports[1].name = "b_1";
  ports[1].peer = "a_1";  // has its peer already: still gets the link's serial
  ports[2].name = "c_1";
  ports[2].cable_serial = "OWN";  // a serial the port has already wins
  ports[3].name = "d_1";
  ports[4].name = "e_1";  // on no link
  std::vector<LinkInfo> links = {{"a_1", "b_1", "MT1111"}, {"c_1", "d_1", "MT2222"}};
  EXPECT_EQ(FillPeersFromLinks(&ports, links), 3);  // a_1, c_1, d_1
  EXPECT_EQ(ports[0].peer, "b_1");
  EXPECT_EQ(ports[0].cable_serial, "MT1111");
  EXPECT_EQ(ports[1].cable_serial, "MT1111");
  EXPECT_EQ(ports[2].cable_serial, "OWN");
  EXPECT_EQ(ports[3].cable_serial, "MT2222");
  EXPECT_EQ(ports[3].peer, "c_1");
  EXPECT_EQ(ports[4].cable_serial, "");
  EXPECT_EQ(ports[4].peer, "");
}

TEST(CableSerialTest, ALinkWithoutASerialLeavesPortsAlone) {
  std::vector<PortInfo> ports(2);
  ports[0].name = "a_1";
  ports[1].name = "b_1";
  ports[1].cable_serial = "KEPT";
  FillPeersFromLinks(&ports, {{"a_1", "b_1"}});
  EXPECT_EQ(ports[0].cable_serial, "");
  EXPECT_EQ(ports[1].cable_serial, "KEPT");
  EXPECT_EQ(ports[0].peer, "b_1");
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

// A port on a node: its system GUID and name, as UFM lists them.
PortInfo NodePort(const std::string& name, const std::string& system_guid,
                  const std::string& system_name, const std::string& description = "") {
  PortInfo p;
  p.name = name;
  p.system_guid = system_guid;
  p.system_name = system_name;
  p.description = description;
  return p;
}

// The names of NodePorts' answer, sorted.
Names NodeOf(const Inventory& inv, const PortInfo& port) {
  Names out;
  for (const auto& p : inv.NodePorts(port)) out.push_back(p.name);
  std::sort(out.begin(), out.end());
  return out;
}

// A switch with three ports, a host with two, and a second host that a faulty inventory gives
// the first host's GUID but its own name.
std::vector<PortInfo> Fabric() {
  return {NodePort("9c0591030090e000_1", "9c0591030090e000", "leaf-1", "Switch IB Port"),
          NodePort("9c0591030090e000_2", "9c0591030090e000", "leaf-1", "Switch IB Port"),
          NodePort("9c0591030090e000_3", "9c0591030090e000", "leaf-1", "Switch IB Port"),
          NodePort("e41d2d0300a4f482_1", "e41d2d0300a4f400", "host-a", "Computer IB Port"),
          NodePort("e41d2d0300a4f483_1", "e41d2d0300a4f400", "host-a", "Computer IB Port"),
          NodePort("e41d2d0300a4f484_1", "e41d2d0300a4f400", "host-b", "Computer IB Port")};
}

TEST(InventoryNodePortsTest, GroupedBySystemGuidAndName) {
  Inventory inv;
  inv.Replace(Fabric());
  const Names leaf{"9c0591030090e000_1", "9c0591030090e000_2", "9c0591030090e000_3"};
  for (const auto& p : leaf) EXPECT_EQ(NodeOf(inv, *inv.Get(p)), leaf) << p;
  EXPECT_EQ(NodeOf(inv, *inv.Get("e41d2d0300a4f482_1")),
            (Names{"e41d2d0300a4f482_1", "e41d2d0300a4f483_1"}));
  // Same GUID, another name: another host.
  EXPECT_EQ(NodeOf(inv, *inv.Get("e41d2d0300a4f484_1")), (Names{"e41d2d0300a4f484_1"}));
  // The answer carries the inventory's ports, whole.
  for (const auto& p : inv.NodePorts(*inv.Get("e41d2d0300a4f482_1"))) {
    EXPECT_EQ(p.system_name, "host-a");
    EXPECT_EQ(p.description, "Computer IB Port");
  }
  // NodeLinks: the same ports, as name, peer and whether the link is up.
  PortInfo up = *inv.Get("9c0591030090e000_2");
  up.peer = "e41d2d0300a4f482_1";
  up.logical_state = "Active";
  inv.Upsert(up);
  auto links = inv.NodeLinks(*inv.Get("9c0591030090e000_1"));
  ASSERT_EQ(links.size(), 3u);
  for (const auto& l : links) {
    EXPECT_EQ(l.up, l.name == up.name) << l.name;
    EXPECT_EQ(l.peer, l.name == up.name ? up.peer : "") << l.name;
  }
}

TEST(InventoryNodePortsTest, ByNameAloneOrBySwitchNodeDescription) {
  Inventory inv;
  PortInfo sw1 = NodePort("fc6a1c0300244e00_1", "", "", "Switch IB Port");
  sw1.node_description = "spine-1:1/1/1";
  PortInfo sw2 = NodePort("fc6a1c0300244e00_2", "", "", "Switch IB Port");
  sw2.node_description = "spine-1:1/1/2";
  inv.Replace({NodePort("a_1", "", "host-c"), NodePort("a_2", "", "host-c"),
               NodePort("b_1", "", "host-d"), sw1, sw2});
  EXPECT_EQ(NodeOf(inv, *inv.Get("a_2")), (Names{"a_1", "a_2"}));
  EXPECT_EQ(NodeOf(inv, *inv.Get("b_1")), (Names{"b_1"}));
  EXPECT_EQ(NodeOf(inv, sw1), (Names{"fc6a1c0300244e00_1", "fc6a1c0300244e00_2"}));
}

TEST(InventoryNodePortsTest, APortOfAnUnknownNodeIsAlone) {
  Inventory inv;
  inv.Replace(Fabric());
  // Not in the inventory, its node unknown: just the port as given.
  auto alone = inv.NodePorts(NodePort("aaaaaaaaaaaaaaaa_1", "aaaaaaaaaaaaaaaa", "host-x"));
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].name, "aaaaaaaaaaaaaaaa_1");
  EXPECT_EQ(alone[0].system_name, "host-x");
  // Neither GUID nor name: the port alone, as the inventory knows it when it does.
  PortInfo bare = NodePort("c_1", "", "");
  bare.peer = "d_1";
  inv.Upsert(bare);
  auto known = inv.NodePorts(NodePort("c_1", "", ""));
  ASSERT_EQ(known.size(), 1u);
  EXPECT_EQ(known[0].name, "c_1");
  EXPECT_EQ(known[0].peer, "d_1");
  EXPECT_EQ(NodeOf(inv, NodePort("z_1", "", "")), (Names{"z_1"}));
  // A known GUID under a name the inventory does not give it is not that node either.
  EXPECT_EQ(NodeOf(inv, NodePort("e41d2d0300a4f499_1", "e41d2d0300a4f400", "host-q")),
            (Names{"e41d2d0300a4f499_1"}));
}

TEST(InventoryNodePortsTest, FollowsUpsertsAndReplaces) {
  Inventory inv;
  inv.Replace(Fabric());
  inv.Upsert(NodePort("e41d2d0300a4f485_1", "e41d2d0300a4f400", "host-a"));  // a new HCA
  EXPECT_EQ(NodeOf(inv, *inv.Get("e41d2d0300a4f482_1")),
            (Names{"e41d2d0300a4f482_1", "e41d2d0300a4f483_1", "e41d2d0300a4f485_1"}));
  // host-b's port, corrected to its own GUID, leaves nothing behind.
  inv.Upsert(NodePort("e41d2d0300a4f484_1", "e41d2d0300a4f4b0", "host-b"));
  EXPECT_EQ(NodeOf(inv, *inv.Get("e41d2d0300a4f484_1")), (Names{"e41d2d0300a4f484_1"}));
  // A port moved to host-a's name joins it.
  inv.Upsert(NodePort("e41d2d0300a4f484_1", "e41d2d0300a4f400", "host-a"));
  EXPECT_EQ(NodeOf(inv, *inv.Get("e41d2d0300a4f482_1")).size(), 4u);
  inv.Replace({NodePort("9c0591030090e000_1", "9c0591030090e000", "leaf-1"),
               NodePort("9c0591030090e000_5", "9c0591030090e000", "leaf-1")});
  EXPECT_EQ(NodeOf(inv, *inv.Get("9c0591030090e000_1")),
            (Names{"9c0591030090e000_1", "9c0591030090e000_5"}));
  // host-a went with the Replace: its port is alone now.
  EXPECT_EQ(NodeOf(inv, NodePort("e41d2d0300a4f482_1", "e41d2d0300a4f400", "host-a")),
            (Names{"e41d2d0300a4f482_1"}));
}

TEST(InventorySystemNameOfTest, AnyCaseWithOrWithoutPrefix) {
  Inventory inv;
  std::vector<PortInfo> ports = Fabric();
  ports.push_back(NodePort("fc6a1c0300244e00_1", "FC6A1C0300244E00", "spine-1"));
  ports.push_back(NodePort("b_1", "abcdef0123456789", ""));  // no name: not indexed
  inv.Replace(std::move(ports));
  EXPECT_EQ(inv.SystemNameOf("9c0591030090e000"), "leaf-1");
  EXPECT_EQ(inv.SystemNameOf("9C0591030090E000"), "leaf-1");
  EXPECT_EQ(inv.SystemNameOf("0x9c0591030090e000"), "leaf-1");
  EXPECT_EQ(inv.SystemNameOf("0x9C0591030090e000"), "leaf-1");
  EXPECT_EQ(inv.SystemNameOf("fc6a1c0300244e00"), "spine-1");
  EXPECT_EQ(inv.SystemNameOf("0xFC6A1C0300244E00"), "spine-1");
  EXPECT_EQ(inv.SystemNameOf("abcdef0123456789"), "");
  EXPECT_EQ(inv.SystemNameOf("0000000000000000"), "");
  EXPECT_EQ(inv.SystemNameOf(""), "");
  EXPECT_EQ(inv.SystemNameOf("0x"), "");
}

TEST(InventorySystemNameOfTest, AfterUpsertAndReplace) {
  Inventory inv;
  EXPECT_EQ(inv.SystemNameOf("9c0591030090e000"), "");
  inv.Upsert(NodePort("9c0591030090e000_1", "9c0591030090e000", "leaf-1"));
  EXPECT_EQ(inv.SystemNameOf("0x9C0591030090E000"), "leaf-1");
  inv.Upsert(NodePort("9c0591030090e000_1", "9c0591030090e000", "leaf-1-renamed"));
  EXPECT_EQ(inv.SystemNameOf("9c0591030090e000"), "leaf-1-renamed");
  inv.Upsert(NodePort("e41d2d0300a4f482_1", "E41D2D0300A4F400", "host-a"));
  EXPECT_EQ(inv.SystemNameOf("e41d2d0300a4f400"), "host-a");
  inv.Replace({NodePort("fc6a1c0300244e00_1", "fc6a1c0300244e00", "spine-1")});
  EXPECT_EQ(inv.SystemNameOf("9c0591030090e000"), "") << "gone with the ports that named it";
  EXPECT_EQ(inv.SystemNameOf("e41d2d0300a4f400"), "");
  EXPECT_EQ(inv.SystemNameOf("0xfc6a1c0300244e00"), "spine-1");
}

// A switch port with a label and a host's port without one, as "<node>:<label>" names them.
std::pair<PortInfo, PortInfo> LabelledSwitchPortAndHostPort() {
  PortInfo sw =
      NodePort("9c0591030090e000_33", "9c0591030090e000", "T3-E21-N-U47", "Switch IB Port");
  sw.label = "1/17/1";
  PortInfo host = NodePort("e41d2d0300062380_1", "e41d2d0300062300", "fsgb001", "Computer IB Port");
  host.node_description = "fsgb001 HCA-1";
  host.number = 1;
  return {sw, host};
}

TEST(InventoryFindByDescriptionTest, FollowsUpserts) {
  Inventory inv;
  auto [sw, host] = LabelledSwitchPortAndHostPort();
  inv.Replace({sw});
  EXPECT_EQ(inv.FindByDescription("T3-E21-N-U47:1/17/1"), sw.name);
  EXPECT_FALSE(inv.FindByDescription("fsgb001 HCA-1:1").has_value());
  inv.Upsert(host);  // learned: found at once
  EXPECT_EQ(inv.FindByDescription("FSGB001 hca-1:1"), host.name);
  sw.label = "1/18/2";  // relabelled: the new label finds it, the old one nothing
  inv.Upsert(sw);
  EXPECT_EQ(inv.FindByDescription("t3-e21-n-u47:18/2"), sw.name);
  EXPECT_FALSE(inv.FindByDescription("T3-E21-N-U47:1/17/1").has_value());
  // Another port that took the old label keeps it when the first moves again.
  PortInfo other =
      NodePort("9c0591030090e000_34", "9c0591030090e000", "T3-E21-N-U47", "Switch IB Port");
  other.label = "1/17/1";
  inv.Upsert(other);
  sw.label = "1/19/1";
  inv.Upsert(sw);
  EXPECT_EQ(inv.FindByDescription("T3-E21-N-U47:1/17/1"), other.name);
  EXPECT_EQ(inv.FindByDescription("T3-E21-N-U47:1/19/1"), sw.name);
  EXPECT_FALSE(inv.FindByDescription("T3-E21-N-U47:1/18/2").has_value());
  EXPECT_EQ(NodeOf(inv, sw), (Names{"9c0591030090e000_33", "9c0591030090e000_34"}));
}

// An event's ports, then the ports its "<node>:<label>" references name, each once; none looked
// up when the event names two ports (both ends of its link).
TEST(InventoryFindByDescriptionTest, WithReferencedPortsAddsWhatReferencesName) {
  Inventory inv;
  auto [sw, host] = LabelledSwitchPortAndHostPort();
  inv.Replace({sw, host});
  struct Case {
    Names ports, refs, want;
  };
  const std::vector<Case> cases = {
      {{}, {"T3-E21-N-U47:1/17/1", "fsgb001 HCA-1:1"}, {sw.name, host.name}},
      {{}, {"fsgb001 HCA-1:1", "T3-E21-N-U47:17/1"}, {host.name, sw.name}},  // in their order
      {{sw.name}, {"T3-E21-N-U47:1/17/1", "fsgb001 HCA-1:1"}, {sw.name, host.name}},
      {{}, {"no reference", "nosuch:1/1/1", "fsgb001 HCA-1:1"}, {host.name}},
      {{sw.name, "a_1"}, {"fsgb001 HCA-1:1"}, {sw.name, "a_1"}},  // both ends named already
      {{"a_1"}, {}, {"a_1"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.refs));
    EXPECT_EQ(inv.WithReferencedPorts(c.ports, c.refs), c.want);
  }
}

TEST(InventorySetLinkStateTest, MovesAnEnabledPortAndLeavesADisabledOne) {
  Inventory inv;
  PortInfo up = Port("a_1");
  up.logical_state = "Active";
  up.physical_state = "LinkUp";
  PortInfo off = Port("b_1");
  off.logical_state = "Disabled";
  off.physical_state = "Disabled";
  inv.Replace({up, off});
  const uint64_t generation = inv.generation();
  EXPECT_TRUE(inv.SetLinkState("a_1", false));
  EXPECT_FALSE(inv.Get("a_1")->link_up());
  EXPECT_TRUE(inv.SetLinkState("a_1", true));
  EXPECT_TRUE(inv.Get("a_1")->link_up());
  EXPECT_TRUE(inv.SetLinkState("b_1", true));
  EXPECT_TRUE(inv.Get("b_1")->disabled());
  EXPECT_FALSE(inv.SetLinkState("c_1", true));
  EXPECT_FALSE(inv.Contains("c_1"));
  EXPECT_TRUE(inv.Contains("b_1"));
  EXPECT_EQ(inv.generation(), generation) << "a state is nothing a reader caches";
}

TEST(InventoryRowsTest, ARefreshKeepsEachPortsIdAndALeftOutPortComesBackUnderIt) {
  auto ports = ParsePorts(kPorts, nullptr);
  ASSERT_TRUE(ports.ok());
  Inventory inv;
  inv.Replace(ports.value());
  const auto sw = inv.IdOf("9c0591030090e000_33"), host = inv.IdOf("fc6a1c0300244e00_8");
  ASSERT_TRUE(sw && host);
  EXPECT_NE(*sw, *host);
  EXPECT_EQ(inv.NameOf(*sw), "9c0591030090e000_33");
  // The next answer: the host port left out, the switch port's state changed, a new port.
  std::vector<PortInfo> next = {ports.value()[0]};
  next[0].logical_state = "Down";
  PortInfo extra = ports.value()[0];
  extra.name = "9c0591030090e000_34";
  extra.label = "1/17/2";
  next.push_back(extra);
  const uint64_t generation = inv.generation();
  inv.Replace(next);
  EXPECT_GT(inv.generation(), generation);
  EXPECT_EQ(inv.IdOf("9c0591030090e000_33"), sw) << "the same id, refreshed in place";
  EXPECT_EQ(inv.Get("9c0591030090e000_33")->logical_state, "Down");
  EXPECT_FALSE(inv.IdOf("fc6a1c0300244e00_8")) << "left out: gone";
  EXPECT_FALSE(inv.Contains("fc6a1c0300244e00_8"));
  EXPECT_FALSE(inv.Get("fc6a1c0300244e00_8"));
  EXPECT_EQ(inv.size(), 2u);
  EXPECT_EQ(inv.NodePorts(ports.value()[0]).size(), 2u) << "the switch's two ports, not the gone";
  inv.Replace(ports.value());
  EXPECT_EQ(inv.IdOf("fc6a1c0300244e00_8"), host) << "back under its old id";
  EXPECT_EQ(inv.size(), 2u) << "the extra port is gone in its turn";
  EXPECT_EQ(inv.FindByDescription("T3-E21-N-U47:1/17/2"), std::nullopt);
  EXPECT_EQ(inv.FindByDescription("T3-E21-N-U47:1/17/1"), "9c0591030090e000_33");
  EXPECT_GT(inv.bytes(), 0u);
}

TEST(InventoryRowsTest, PeeksCopyFollowsTheLinksStateUntilTheNextRefresh) {
  auto ports = ParsePorts(kPorts, nullptr);
  ASSERT_TRUE(ports.ok());
  Inventory inv;
  inv.Replace(ports.value());
  const PortInfo* p = inv.Peek("9c0591030090e000_33");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->link_up());
  EXPECT_EQ(inv.Peek("9c0591030090e000_33"), p) << "one copy, kept";
  ASSERT_TRUE(inv.SetLinkState("9c0591030090e000_33", false));
  EXPECT_FALSE(p->link_up()) << "the kept copy follows the state";
  EXPECT_EQ(p->physical_state, "Link Down");
  EXPECT_EQ(inv.Peek("nope_1"), nullptr);
  PortInfo changed = *p;
  changed.label = "1/18/1";
  inv.Upsert(changed);
  EXPECT_EQ(inv.Peek("9c0591030090e000_33")->label, "1/18/1") << "a change is a new copy";
}

TEST(PortTableTest, FillsPeersAndCablesFromTheLinksAsAListDoes) {
  std::vector<PortInfo> list(3);
  list[0].name = "a_1";
  list[1].name = "b_1";
  list[2].name = "c_1";
  list[2].peer = "x_1";
  std::vector<LinkInfo> links(2);
  links[0].a = "a_1";
  links[0].b = "b_1";
  links[0].cable_serial = "MT1";
  links[1].a = "c_1";
  links[1].b = "d_1";  // not listed: unresolved
  links[1].resolved = false;
  PortTable table = PortTable::From(list);
  EXPECT_TRUE(table.Has("a_1"));
  EXPECT_FALSE(table.Has("x_1")) << "a peer's name is no listed port";
  EXPECT_FALSE(table.Has(""));
  const int filled = table.FillPeersFromLinks(links);
  EXPECT_EQ(filled, FillPeersFromLinks(&list, links));
  const auto rows = table.ToVector();
  for (size_t i = 0; i < list.size(); ++i) EXPECT_EQ(rows[i].ToJson(), list[i].ToJson()) << i;
  EXPECT_EQ(rows[0].peer, "b_1");
  EXPECT_EQ(rows[1].cable_serial, "MT1");
  EXPECT_EQ(rows[2].peer, "x_1") << "a peer UFM names stays";
}

}  // namespace
}  // namespace ufmr
