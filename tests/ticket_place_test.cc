// Covers src/store/ticket_place.h (TicketPlacer): a switch-host link placed from an Inventory
// (switch_name, host_name, the rack from the default pattern ^(.+)-U[0-9]+$, both ends with
// labels, GUIDs and the cable serial, and a lower-case search_text holding serial, labels and
// names), ports the inventory does not know (their names alone), an invalid or group-less pattern
// (racks left empty), a switch name the pattern does not match (rack ""), and a re-placement
// clearing what an earlier one filled.
#include "store/ticket_place.h"

#include <gtest/gtest.h>

#include <string>

#include "ufm/inventory.h"

namespace ufmr {
namespace {

constexpr const char* kDefaultPattern = "^(.+)-U[0-9]+$";
const std::string kSwitchPort = "9c0591030090e000_33";
const std::string kHostPort = "fc6a1c0300244e00_8";

PortInfo SwitchPort(const std::string& system_name = "T3-E21-N-U47") {
  PortInfo p;
  p.name = kSwitchPort;
  p.guid = "9C0591030090E000";
  p.system_guid = "9C0591030090E000";
  p.system_name = system_name;
  p.node_description = system_name + ":1/17/1";
  p.description = "Switch IB Port";
  p.label = "1/17/1";
  p.number = 33;
  p.peer = kHostPort;
  p.cable_serial = "MT2241XZ0ABC";
  return p;
}

PortInfo HostPort() {
  PortInfo p;
  p.name = kHostPort;
  p.guid = "fc6a1c0300244e00";
  p.system_guid = "fc6a1c0300244e01";
  p.system_name = "GPU-017";
  p.node_description = "GPU-017 HCA-1";
  p.description = "Computer IB Port";
  p.label = "8";
  p.number = 8;
  p.peer = kSwitchPort;
  return p;
}

Ticket LinkTicket() {
  Ticket t;
  t.port_a = kSwitchPort;
  t.port_b = kHostPort;
  t.link_key = kSwitchPort + "|" + kHostPort;
  return t;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(TicketPlacerTest, ASwitchHostLinkIsPlaced) {
  Inventory inv;
  inv.Replace({SwitchPort(), HostPort()});
  TicketPlacer placer(kDefaultPattern);
  Ticket t = LinkTicket();
  placer.Place(inv, &t);

  EXPECT_EQ(t.switch_name, "T3-E21-N-U47");
  EXPECT_EQ(t.host_name, "GPU-017");
  EXPECT_EQ(t.rack, "T3-E21-N");

  ASSERT_TRUE(t.ends.is_array());
  ASSERT_EQ(t.ends.size(), 2u);
  const auto& sw = t.ends[0];
  EXPECT_EQ(sw["name"], kSwitchPort);
  EXPECT_EQ(sw["guid"], "9C0591030090E000");
  EXPECT_EQ(sw["system_guid"], "9C0591030090E000");
  EXPECT_EQ(sw["system_name"], "T3-E21-N-U47");
  EXPECT_EQ(sw["node_description"], "T3-E21-N-U47:1/17/1");
  EXPECT_EQ(sw["label"], "1/17/1");
  EXPECT_EQ(sw["number"], 33);
  EXPECT_EQ(sw["cable_serial"], "MT2241XZ0ABC");
  EXPECT_EQ(sw["is_switch"], true);
  const auto& host = t.ends[1];
  EXPECT_EQ(host["name"], kHostPort);
  EXPECT_EQ(host["system_guid"], "fc6a1c0300244e01");
  EXPECT_EQ(host["system_name"], "GPU-017");
  EXPECT_EQ(host["label"], "8");
  EXPECT_EQ(host["cable_serial"], "");
  EXPECT_EQ(host["is_switch"], false);

  const std::string& s = t.search_text;
  for (char c : s) ASSERT_FALSE(c >= 'A' && c <= 'Z') << "not lower-case: " << s;
  for (const char* part :
       {"mt2241xz0abc", "1/17/1", "t3-e21-n-u47", "gpu-017", "gpu-017 hca-1", "9c0591030090e000_33",
        "fc6a1c0300244e00_8", "fc6a1c0300244e01", "t3-e21-n"}) {
    EXPECT_TRUE(Has(s, part)) << part << " not in: " << s;
  }
}

TEST(TicketPlacerTest, TheSwitchIsFoundWhicheverEndItIs) {
  Inventory inv;
  inv.Replace({SwitchPort(), HostPort()});
  TicketPlacer placer(kDefaultPattern);
  Ticket t;
  t.port_a = kHostPort;
  t.port_b = kSwitchPort;
  t.link_key = kSwitchPort + "|" + kHostPort;
  placer.Place(inv, &t);
  EXPECT_EQ(t.switch_name, "T3-E21-N-U47");
  EXPECT_EQ(t.host_name, "GPU-017");
  EXPECT_EQ(t.rack, "T3-E21-N");
  EXPECT_EQ(t.ends[0]["name"], kHostPort);
}

// The events' serial (a finding's cable_serial) fills an end whose cable the inventory does not
// name, and a port it does not know at all: the ticket keeps the cable it learned.
TEST(TicketPlacerTest, TheFindingsCableSerialFillsWhatTheInventoryLacks) {
  Inventory inv;
  PortInfo sw = SwitchPort();
  sw.cable_serial.clear();
  inv.Replace({sw});
  TicketPlacer placer(kDefaultPattern);
  Ticket t = LinkTicket();
  placer.Place(inv, &t, "MT2330FT09118");
  ASSERT_EQ(t.ends.size(), 2u);
  EXPECT_EQ(t.ends[0]["cable_serial"], "MT2330FT09118");
  EXPECT_EQ(t.ends[1]["cable_serial"], "MT2330FT09118") << "the unknown host end";
  EXPECT_TRUE(Has(t.search_text, "mt2330ft09118"));
  inv.Replace({SwitchPort()});  // the inventory names its own: it wins
  t = LinkTicket();
  placer.Place(inv, &t, "MT2330FT09118");
  EXPECT_EQ(t.ends[0]["cable_serial"], "MT2241XZ0ABC");
}

TEST(TicketPlacerTest, UnknownPortsKeepOnlyTheirNames) {
  Inventory inv;
  TicketPlacer placer(kDefaultPattern);
  Ticket t = LinkTicket();
  placer.Place(inv, &t);
  EXPECT_EQ(t.switch_name, "");
  EXPECT_EQ(t.host_name, "");
  EXPECT_EQ(t.rack, "");
  EXPECT_EQ(t.ends, nlohmann::json::array({{{"name", kSwitchPort}}, {{"name", kHostPort}}}));
  EXPECT_TRUE(Has(t.search_text, kSwitchPort)) << t.search_text;
  EXPECT_TRUE(Has(t.search_text, kHostPort)) << t.search_text;
}

TEST(TicketPlacerTest, OneKnownEndOneUnknown) {
  Inventory inv;
  inv.Replace({SwitchPort()});
  TicketPlacer placer(kDefaultPattern);
  Ticket t = LinkTicket();
  placer.Place(inv, &t);
  EXPECT_EQ(t.switch_name, "T3-E21-N-U47");
  EXPECT_EQ(t.host_name, "");
  ASSERT_EQ(t.ends.size(), 2u);
  EXPECT_EQ(t.ends[1], nlohmann::json({{"name", kHostPort}}));
}

TEST(TicketPlacerTest, AnInvalidPatternGroupsBySwitchOnly) {
  Inventory inv;
  inv.Replace({SwitchPort(), HostPort()});
  for (const char* pattern : {"^(.+-U[0-9]+$", "^.+-U[0-9]+$" /* no group */, ""}) {
    TicketPlacer placer(pattern);
    EXPECT_EQ(placer.RackOf("T3-E21-N-U47"), "") << pattern;
    Ticket t = LinkTicket();
    placer.Place(inv, &t);
    EXPECT_EQ(t.switch_name, "T3-E21-N-U47") << pattern;
    EXPECT_EQ(t.host_name, "GPU-017") << pattern;
    EXPECT_EQ(t.rack, "") << pattern;
  }
}

TEST(TicketPlacerTest, ANameThePatternDoesNotMatchHasNoRack) {
  Inventory inv;
  inv.Replace({SwitchPort("spine-07"), HostPort()});
  TicketPlacer placer(kDefaultPattern);
  Ticket t = LinkTicket();
  placer.Place(inv, &t);
  EXPECT_EQ(t.switch_name, "spine-07");
  EXPECT_EQ(t.rack, "");
  EXPECT_EQ(placer.RackOf("spine-07"), "");
  EXPECT_EQ(placer.RackOf(""), "");
}

TEST(TicketPlacerTest, RackOfTakesTheFirstGroup) {
  TicketPlacer placer(kDefaultPattern);
  EXPECT_EQ(placer.RackOf("T3-E21-N-U47"), "T3-E21-N");
  EXPECT_EQ(placer.RackOf("T2-E63-L-U37"), "T2-E63-L");
  EXPECT_EQ(placer.RackOf("T3-E21-N-U47x"), "");
  TicketPlacer row("^(T[0-9]+)-(E[0-9]+)");
  EXPECT_EQ(row.RackOf("T3-E21-N-U47"), "T3");
}

TEST(TicketPlacerTest, ASwitchWithoutASystemNameIsNamedByItsGuid) {
  PortInfo sw = SwitchPort();
  sw.system_name = "";
  Inventory inv;
  inv.Replace({sw, HostPort()});
  TicketPlacer placer(kDefaultPattern);
  Ticket t = LinkTicket();
  placer.Place(inv, &t);
  EXPECT_EQ(t.switch_name, "9C0591030090E000");
  EXPECT_EQ(t.rack, "");
}

TEST(TicketPlacerTest, PlacingAgainReplacesTheEarlierPlace) {
  Inventory inv;
  inv.Replace({SwitchPort(), HostPort()});
  TicketPlacer placer(kDefaultPattern);
  Ticket t = LinkTicket();
  placer.Place(inv, &t);
  ASSERT_EQ(t.rack, "T3-E21-N");
  inv.Replace(std::vector<PortInfo>{});
  placer.Place(inv, &t);
  EXPECT_EQ(t.switch_name, "");
  EXPECT_EQ(t.host_name, "");
  EXPECT_EQ(t.rack, "");
  EXPECT_EQ(t.ends.size(), 2u);
  EXPECT_FALSE(Has(t.search_text, "mt2241xz0abc")) << t.search_text;
}

}  // namespace
}  // namespace ufmr
