// Covers src/telemetry/telemetry_hosts.h (HostPortIndex): host (HCA) ports of the inventory indexed
// by port GUID, switch ports left out (they share the switch's GUID), a GUID two ports claim
// matching nothing, rows renamed to the inventory's key whatever their port number, and rebuilding
// only when the inventory's generation moves.
#include "telemetry/telemetry_hosts.h"

#include <gtest/gtest.h>

#include <vector>

#include "ufm/inventory.h"

namespace ufmr {
namespace {

constexpr uint64_t kSwitch = 0xfc6a1c0300686f68;
constexpr uint64_t kHca = 0xe41d2d0300a4f482;

PortInfo Port(const std::string& name, const std::string& guid, const std::string& description) {
  PortInfo p;
  p.name = name;
  p.guid = guid;
  p.description = description;
  return p;
}

std::vector<PortInfo> Fabric() {
  return {Port("fc6a1c0300686f68_5", "fc6a1c0300686f68", "Switch IB Port"),
          Port("fc6a1c0300686f68_6", "fc6a1c0300686f68", "Switch IB Port"),
          Port("e41d2d0300a4f482_1", "0xE41D2D0300A4F482", "Computer IB Port")};
}

TEST(HostPortIndexTest, IndexesHostPortsOnly) {
  Inventory inventory;
  inventory.Replace(Fabric());
  HostPortIndex hosts;
  EXPECT_TRUE(hosts.Refresh(inventory));
  EXPECT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts.Find(kHca), (PortKey{kHca, 1}));
  EXPECT_FALSE(hosts.Find(kSwitch));
  EXPECT_FALSE(hosts.Find(0x1234));
}

TEST(HostPortIndexTest, ResolveRenamesHostRowsWhateverTheirNumber) {
  HostPortIndex hosts;
  hosts.Add(kHca, PortKey{kHca, 1});
  std::vector<PortKey> rows = {{kSwitch, 5}, {kHca, 2}, {kHca, 1}, {0x1234, 7}};
  EXPECT_TRUE(hosts.Changes(rows));
  EXPECT_EQ(hosts.Resolve(&rows), 1u);
  EXPECT_EQ(rows, (std::vector<PortKey>{{kSwitch, 5}, {kHca, 1}, {kHca, 1}, {0x1234, 7}}));
  EXPECT_FALSE(hosts.Changes(rows));
}

TEST(HostPortIndexTest, AGuidTwoPortsClaimMatchesNothing) {
  HostPortIndex hosts;
  hosts.Add(kHca, PortKey{kHca, 1});
  hosts.Add(kHca, PortKey{kHca, 1});  // the same port again: still fine
  EXPECT_TRUE(hosts.Find(kHca));
  hosts.Add(kHca, PortKey{kHca, 2});
  EXPECT_FALSE(hosts.Find(kHca));
  std::vector<PortKey> rows = {{kHca, 3}};
  EXPECT_EQ(hosts.Resolve(&rows), 0u);
  EXPECT_EQ(rows[0], (PortKey{kHca, 3}));
}

TEST(HostPortIndexTest, RebuildsOnlyWhenTheInventoryChanges) {
  Inventory inventory;
  inventory.Replace(Fabric());
  HostPortIndex hosts;
  EXPECT_TRUE(hosts.Refresh(inventory));
  EXPECT_FALSE(hosts.Refresh(inventory));
  inventory.Upsert(Port("0002c90300aabb01_1", "0002c90300aabb01", "Computer IB Port"));
  EXPECT_TRUE(hosts.Refresh(inventory));
  EXPECT_EQ(hosts.Find(0x0002c90300aabb01), (PortKey{0x0002c90300aabb01, 1}));
  EXPECT_EQ(hosts.size(), 2u);
}

TEST(HostPortIndexTest, UnparseableInventoryEntriesAreSkipped) {
  Inventory inventory;
  inventory.Replace({Port("not-a-port-name", "e41d2d0300a4f482", "Computer IB Port"),
                     Port("e41d2d0300a4f499_1", "no-guid", "Computer IB Port")});
  HostPortIndex hosts;
  hosts.Refresh(inventory);
  EXPECT_EQ(hosts.size(), 0u);
}

}  // namespace
}  // namespace ufmr
