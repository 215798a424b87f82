// Covers how a host is read from UFM (ufm/host_names.h, the inventory's host index and the event
// log's host port references): a host is the machine, not its adapter ("r-ufm77 mlx5_0" and
// "r-ufm77 mlx5_1" are one host, whatever system GUIDs UFM gives them), a site's host_pattern;
// from 6.17 an event on a host port names it "Computer: r-ufm77 / mlx5_0" (REST guide, Alarms
// REST API, tests/testdata/rest/alarms_6_17.json), which resolves to the adapter's port; a host
// port's path ("default / Computer: luna-0218 / NA / HCA-1/1", a real UFM's ports answer,
// tests/testdata/rest/ports_host_mlx5.json) resolves too; a ticket names the machine.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ingest/event_log.h"
#include "ingest/rest_event.h"
#include "store/ticket_place.h"
#include "support/test_env.h"
#include "ufm/host_names.h"
#include "ufm/inventory.h"
#include "ufm/ufm_event.h"

namespace ufmr {
namespace {

PortInfo Host(const std::string& name, const std::string& system_name,
              const std::string& node_description, const std::string& system_guid,
              const std::string& peer = "") {
  PortInfo p;
  p.name = name;
  p.guid = name.substr(0, 16);
  p.system_guid = system_guid;
  p.system_name = system_name;
  p.node_description = node_description;
  p.description = "Computer IB Port";
  p.number = 1;
  p.label = "1";
  p.peer = peer;
  p.logical_state = "Active";
  p.physical_state = "Link Up";
  return p;
}

PortInfo Switch(const std::string& name, const std::string& system, const std::string& label,
                const std::string& peer) {
  PortInfo p;
  p.name = name;
  p.guid = p.system_guid = name.substr(0, 16);
  p.system_name = system;
  p.node_description = system + ":" + label;
  p.description = "Switch IB Port";
  p.label = label;
  p.peer = peer;
  p.logical_state = "Active";
  p.physical_state = "Link Up";
  return p;
}

std::string MachineOf(const PortInfo& p, const std::string& pattern = "") {
  auto namer = HostNamer::Make(pattern);
  EXPECT_TRUE(namer.ok()) << namer.status().ToString();
  return namer.ok() ? namer->MachineOf(p) : "";
}

TEST(HostNamerTest, TheMachineNotItsAdapter) {
  EXPECT_EQ(MachineOf(Host("a_1", "r-ufm77 mlx5_0", "r-ufm77 mlx5_0", "g")), "r-ufm77");
  EXPECT_EQ(MachineOf(Host("a_1", "luna-0218", "luna-0218 mlx5_4", "g")), "luna-0218");
  EXPECT_EQ(MachineOf(Host("a_1", "", "mtlx-cai-ubuntu mlx5_0:1", "g")), "mtlx-cai-ubuntu");
  EXPECT_EQ(MachineOf(Host("a_1", "c931f03p08 HCA-1", "", "g")), "c931f03p08");
  EXPECT_EQ(MachineOf(Host("a_1", "GPU-017", "GPU-017 HCA-1", "g")), "GPU-017");
  EXPECT_EQ(MachineOf(Host("a_1", "", "", "g")), "");
  EXPECT_EQ(MachineOf(Switch("s_1", "leaf-01", "1/1/1", "")), "") << "a switch is no host";
  // A site's own naming: "dgx-b07-n3.ib0" is machine "dgx-b07-n3".
  EXPECT_EQ(MachineOf(Host("a_1", "dgx-b07-n3.ib0", "", "g"), R"(^([^.]+)\.ib\d+$)"), "dgx-b07-n3");
  EXPECT_EQ(MachineOf(Host("a_1", "other-name", "", "g"), R"(^([^.]+)\.ib\d+$)"), "other-name")
      << "a name the pattern does not match is the whole name";
  EXPECT_FALSE(HostNamer::Make("(unclosed").ok());
  EXPECT_FALSE(HostNamer::Make("no-group").ok());
}

// A real UFM's ports answer (Mellanox/ufm_sdk_3.0 16faf03a, NDT plugin's ufm_samples/ports.json,
// verbatim): the host port's system_name is the machine, its node description the adapter.
TEST(HostPortsTest, ARealPortsAnswersHostIsItsMachine) {
  auto ports = ParsePorts(testing::ReadFixture("rest/ports_host_mlx5.json"), nullptr);
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  Inventory inv;
  inv.Replace(ports.value());
  auto host = inv.Get("0c42a10300280000_1");
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(host->host, "luna-0218");
  EXPECT_EQ(host->label, "HCA-1/1");
  bool is_switch = true;
  std::string node;
  ASSERT_TRUE(inv.Placement("0c42a10300280000_1", &is_switch, &node));
  EXPECT_FALSE(is_switch);
  EXPECT_EQ(node, "luna-0218");
  // Its path, as the event log's IBPort objects write a port, and its node description.
  EXPECT_EQ(inv.FindByDescription("luna-0218:HCA-1/1"), "0c42a10300280000_1");
  EXPECT_EQ(inv.FindByDescription("luna-0218 mlx5_4"), "0c42a10300280000_1");
  EXPECT_EQ(inv.Get("1c34da0300728606_1")->host, "") << "the switch port";
}

// Two adapters of one machine, the system named by adapter, under the host's system GUID (as
// UFM gives both links of a two-adapter host one system GUID: REST guide 6.11 to 6.19, Links): one
// host of two links, not two hosts of one link each (the last-link guard, the scheduler,
// tickets). Two machines that share a name but not a system GUID ("localhost", an unset node
// description) stay two: the guard must never count another machine's link as this one's.
TEST(HostPortsTest, AMachinesAdaptersAreOneHost) {
  Inventory inv;
  inv.Replace({Host("b8599f03000a7768_1", "r-ufm77 mlx5_0", "r-ufm77 mlx5_0", "b8599f03000a77d0",
                    "9c0591030090e000_1"),
               Host("b8599f03000a7769_1", "r-ufm77 mlx5_1", "r-ufm77 mlx5_1", "b8599f03000a77d0",
                    "9c0591030090e000_2"),
               Host("b8599f03000a7800_1", "r-ufm78 mlx5_0", "r-ufm78 mlx5_0", "b8599f03000a78d0",
                    "9c0591030090e000_3"),
               Host("c8599f03000a0001_1", "localhost mlx5_0", "localhost mlx5_0",
                    "c8599f03000a0000", "9c0591030090e000_4"),
               Host("c8599f03000a0101_1", "localhost mlx5_0", "localhost mlx5_0",
                    "c8599f03000a0100", "9c0591030090e000_5"),
               Switch("9c0591030090e000_1", "leaf-01", "1/1/1", "b8599f03000a7768_1"),
               Switch("9c0591030090e000_2", "leaf-01", "1/1/2", "b8599f03000a7769_1"),
               Switch("9c0591030090e000_3", "leaf-01", "1/2/1", "b8599f03000a7800_1")});
  auto links = inv.NodeLinks(*inv.Get("b8599f03000a7768_1"));
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].name, "b8599f03000a7768_1");
  EXPECT_EQ(links[1].name, "b8599f03000a7769_1");
  EXPECT_EQ(inv.NodeLinks(*inv.Get("b8599f03000a7800_1")).size(), 1u) << "another machine";
  EXPECT_EQ(inv.NodeLinks(*inv.Get("c8599f03000a0001_1")).size(), 1u)
      << "two machines named localhost are two hosts";
  EXPECT_EQ(Inventory::NodeKeyOf(*inv.Get("b8599f03000a7768_1")),
            Inventory::NodeKeyOf(*inv.Get("b8599f03000a7769_1")));

  // A ticket on either adapter's link names the machine.
  TicketPlacer placer("");
  Ticket t;
  t.port_a = "9c0591030090e000_2";
  t.port_b = "b8599f03000a7769_1";
  t.link_key = t.port_a + "|" + t.port_b;
  placer.Place(inv, &t);
  EXPECT_EQ(t.host_name, "r-ufm77");
  EXPECT_EQ(t.switch_name, "leaf-01");

  // A site's pattern applies from the next read, and to a port read alone (Upsert).
  auto namer = HostNamer::Make(R"(^(r-ufm\d)\d)");
  ASSERT_TRUE(namer.ok());
  inv.SetHostNamer(namer.value());
  std::vector<PortInfo> all;
  inv.ForEachPort([&](const PortInfo& p) { all.push_back(p); });
  inv.Replace(all);
  EXPECT_EQ(inv.Get("b8599f03000a7800_1")->host, "r-ufm7");
  inv.Upsert(Host("b8599f03000a7770_1", "r-ufm77 mlx5_2", "r-ufm77 mlx5_2", "b8599f03000a77d0"));
  EXPECT_EQ(inv.Get("b8599f03000a7770_1")->host, "r-ufm7");
  EXPECT_EQ(inv.NodeLinks(*inv.Get("b8599f03000a7768_1")).size(), 3u)
      << "the port read alone joins its machine under the site's pattern";
}

// From 6.17 an event on a host port names it "Computer: <host> / <device>" (the REST guide's
// Alarms example, verbatim in alarms_6_17.json); REST's object_name is the port itself.
TEST(HostPortsTest, AHostPortInA617EventIsFoundFromEitherSource) {
  const auto alarms = nlohmann::json::parse(testing::ReadFixture("rest/alarms_6_17.json"));
  const auto& alarm = alarms[1];
  ASSERT_EQ(alarm["object_path"], "Computer: r-ufm77 / mlx5_0");
  // REST: an event about the object carries the same type, name and path.
  UfmEvent e;
  e.id = 1;
  e.event_type = alarm["event_type"].get<int>();
  e.object_type = alarm["type"];
  e.object_name = alarm["object_name"];
  e.object_path = alarm["object_path"];
  e.description = alarm["reason"];
  const Observation rest = ToObservation(e, TimePoint{});
  ASSERT_FALSE(rest.ports.empty());
  EXPECT_EQ(rest.ports[0], "b8599f03000a7768_1");

  // The event log: the object in brackets as the alarm's path (its exact line is unverified).
  auto entry = ParseEventLogEntry(
      "2024-05-27 08:18:51.000 [3] [112] WARNING [Hardware] IBPort [Computer: r-ufm77 / mlx5_0] "
      "[dev_id: b8599f03000a7768]: " +
      alarm["reason"].get<std::string>());
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_EQ(entry->port_descriptions.front(), "r-ufm77 mlx5_0");
  Inventory inv;
  inv.Replace({Host("b8599f03000a7768_1", "r-ufm77", "r-ufm77 mlx5_0", "b8599f03000a7768",
                    "0c42a1030079a66c_35"),
               Switch("0c42a1030079a66c_35", "sw-ufm-qm01", "35", "b8599f03000a7768_1")});
  const Observation log = ToObservation(entry.value(), TimePoint{});
  auto ports = inv.WithReferencedPorts(log.ports, log.port_refs);
  ASSERT_FALSE(ports.empty());
  EXPECT_EQ(ports[0], "b8599f03000a7768_1") << "the event's own port first";
  EXPECT_EQ(inv.FindByDescription("r-ufm77 mlx5_0"), "b8599f03000a7768_1");

  // An adapter of two ports: which one is not said, so none is guessed.
  PortInfo second = Host("b8599f03000a7768_2", "r-ufm77", "r-ufm77 mlx5_0", "b8599f03000a7768");
  second.number = 2;
  inv.Upsert(second);
  EXPECT_FALSE(inv.FindByDescription("r-ufm77 mlx5_0").has_value());
}

}  // namespace
}  // namespace ufmr
