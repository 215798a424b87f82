#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "sim/topology.h"

namespace ufmr::sim {
namespace {

TEST(SimTopologyTest, ParsesSpec) {
  Result<TopologySpec> spec = ParseTopologySpec("fat-tree:leaves=4,spines=2,hosts_per_leaf=8");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->leaves, 4);
  EXPECT_EQ(spec->spines, 2);
  EXPECT_EQ(spec->hosts_per_leaf, 8);
  // Order and surrounding spaces do not matter.
  Result<TopologySpec> reordered =
      ParseTopologySpec(" fat-tree:hosts_per_leaf=1, spines=3 ,leaves=2 ");
  ASSERT_TRUE(reordered.ok()) << reordered.status().ToString();
  EXPECT_EQ(reordered->leaves, 2);
  EXPECT_EQ(reordered->spines, 3);
  EXPECT_EQ(reordered->hosts_per_leaf, 1);
  EXPECT_EQ(reordered->hcas_per_host, 1) << "one HCA per host unless told";
  Result<TopologySpec> hcas =
      ParseTopologySpec("fat-tree:leaves=2,spines=2,hosts_per_leaf=2,hcas_per_host=8");
  ASSERT_TRUE(hcas.ok()) << hcas.status().ToString();
  EXPECT_EQ(hcas->hcas_per_host, 8);
}

TEST(SimTopologyTest, RejectsBadSpecsWithMessages) {
  const char* bad[] = {
      "",
      "fat-tree",
      "fat-tree:",
      "ring:leaves=1,spines=1,hosts_per_leaf=1",
      "fat-tree:leaves=0,spines=1,hosts_per_leaf=1",
      "fat-tree:leaves=-1,spines=1,hosts_per_leaf=1",
      "fat-tree:leaves=4x,spines=1,hosts_per_leaf=1",
      "fat-tree:leaves=,spines=1,hosts_per_leaf=1",
      "fat-tree:leaves=1.5,spines=1,hosts_per_leaf=1",
      "fat-tree:leaves=99999999999999,spines=1,hosts_per_leaf=1",
      "fat-tree:leaves=257,spines=1,hosts_per_leaf=1",
      "fat-tree:leaves=1,spines=65,hosts_per_leaf=1",
      "fat-tree:leaves=1,spines=1,hosts_per_leaf=129",
      "fat-tree:leaves=1,spines=1",
      "fat-tree:leaves=1,spines=1,hosts_per_leaf=1,leaves=2",
      "fat-tree:leaves=1,spines=1,hosts_per_leaf=1,cores=2",
      "fat-tree:leaves=1,,spines=1,hosts_per_leaf=1",
      "fat-tree:leaves1,spines=1,hosts_per_leaf=1",
      "fat-tree:leaves=1,spines=1,hosts_per_leaf=1,hcas_per_host=0",
      "fat-tree:leaves=1,spines=1,hosts_per_leaf=1,hcas_per_host=9",
      "fat-tree:leaves=1,spines=1,hosts_per_leaf=1,hcas_per_host=two",
      "fat-tree:leaves=1,spines=1,hosts_per_leaf=1,hcas_per_host=1,hcas_per_host=2",
      "fat-tree:leaves=1,spines=1,hcas_per_host=2",
  };
  for (const char* text : bad) {
    Result<TopologySpec> spec = ParseTopologySpec(text);
    EXPECT_FALSE(spec.ok()) << "accepted '" << text << "'";
    EXPECT_EQ(spec.status().code(), Status::Code::kInvalidArgument) << text;
    EXPECT_FALSE(spec.status().message().empty()) << text;
    EXPECT_FALSE(Topology::FromString(text, 1).ok()) << text;
  }
}

TEST(SimTopologyTest, CountsMatchTheSpec) {
  struct Case {
    int leaves, spines, hosts, hcas = 1;
  };
  for (const Case& c : {Case{1, 1, 1}, Case{4, 2, 4}, Case{3, 5, 2}, Case{8, 4, 32},
                        Case{2, 2, 2, 2}, Case{3, 1, 4, 8}, Case{1, 2, 3, 4}}) {
    SCOPED_TRACE(::testing::Message()
                 << c.leaves << "/" << c.spines << "/" << c.hosts << "/" << c.hcas);
    Result<Topology> t = Topology::Generate(TopologySpec{c.leaves, c.spines, c.hosts, c.hcas}, 1);
    ASSERT_TRUE(t.ok());
    const int hosts = c.leaves * c.hosts;
    const int hcas = hosts * c.hcas;
    EXPECT_EQ(t->nodes().size(), static_cast<size_t>(c.leaves + c.spines + hosts));
    EXPECT_EQ(t->ports().size(), static_cast<size_t>(c.leaves * (c.hosts * c.hcas + c.spines) +
                                                     c.spines * c.leaves + hcas));
    EXPECT_EQ(t->links().size(), static_cast<size_t>(hcas + c.leaves * c.spines));
    int leaves = 0, spines = 0, host_nodes = 0;
    for (const Node& n : t->nodes()) {
      switch (n.kind) {
        case NodeKind::kLeaf:
          ++leaves;
          EXPECT_EQ(n.tier, 1);
          EXPECT_EQ(n.ports.size(), static_cast<size_t>(c.hosts * c.hcas + c.spines));
          break;
        case NodeKind::kSpine:
          ++spines;
          EXPECT_EQ(n.tier, 2);
          EXPECT_EQ(n.ports.size(), static_cast<size_t>(c.leaves));
          break;
        case NodeKind::kHost:
          ++host_nodes;
          EXPECT_EQ(n.tier, 0);
          EXPECT_EQ(n.ports.size(), static_cast<size_t>(c.hcas));
          break;
      }
    }
    EXPECT_EQ(leaves, c.leaves);
    EXPECT_EQ(spines, c.spines);
    EXPECT_EQ(host_nodes, hosts);
  }
}

TEST(SimTopologyTest, SwitchPortLabels) {
  struct Case {
    int number;
    const char* label;
  };
  for (const Case& c : {Case{1, "1/1/1"}, Case{2, "1/1/2"}, Case{3, "1/2/1"}, Case{5, "1/3/1"},
                        Case{33, "1/17/1"}, Case{34, "1/17/2"}, Case{64, "1/32/2"}}) {
    EXPECT_EQ(SwitchPortLabel(c.number), c.label) << c.number;
  }
}

TEST(SimTopologyTest, NamesGuidsAndLabels) {
  Result<Topology> t = Topology::FromString("fat-tree:leaves=2,spines=2,hosts_per_leaf=32", 42);
  ASSERT_TRUE(t.ok());
  const std::regex switch_guid("^fc6a1c0300[0-9a-f]{6}$");
  const std::regex hca_guid("^e41d2d0300[0-9a-f]{6}$");
  const std::regex cable("^MT[0-9]{4}FT[0-9]{5}$");
  EXPECT_EQ(t->nodes()[0].name, "ib-leaf-01");
  EXPECT_EQ(t->nodes()[1].name, "ib-leaf-02");
  EXPECT_EQ(t->nodes()[2].name, "ib-spine-01");
  EXPECT_EQ(t->nodes()[4].name, "gpu-node-001");
  EXPECT_EQ(t->nodes().back().name, "gpu-node-064");

  std::set<std::string> names;
  std::set<std::string> system_guids;
  for (const Node& n : t->nodes()) {
    EXPECT_TRUE(system_guids.insert(n.system_guid).second) << n.system_guid;
    if (n.kind == NodeKind::kHost) {
      EXPECT_TRUE(std::regex_match(n.system_guid, hca_guid)) << n.system_guid;
    } else {
      EXPECT_TRUE(std::regex_match(n.system_guid, switch_guid)) << n.system_guid;
    }
  }
  for (const Port& p : t->ports()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_EQ(p.name, p.guid + "_" + std::to_string(p.number));
    EXPECT_EQ(t->FindPort(p.name), std::optional<int>(static_cast<int>(&p - &t->ports()[0])));
    if (p.is_switch) {
      EXPECT_EQ(p.guid, p.system_guid);
      EXPECT_EQ(p.label, SwitchPortLabel(p.number));
      EXPECT_EQ(p.node_description, p.system_name + ":" + p.label);
    } else {
      EXPECT_TRUE(std::regex_match(p.guid, hca_guid)) << p.guid;
      EXPECT_NE(p.guid, p.system_guid);
      EXPECT_FALSE(system_guids.count(p.guid)) << "HCA port GUID reused as a system GUID";
      EXPECT_EQ(p.number, 1);
      EXPECT_EQ(p.label, "1");
      EXPECT_EQ(p.node_description, p.system_name + " HCA-1");
    }
  }
  // Leaf port 33 is the first uplink when hosts_per_leaf is 32.
  const Port& uplink = t->ports()[t->nodes()[0].ports[32]];
  EXPECT_EQ(uplink.number, 33);
  EXPECT_EQ(uplink.label, "1/17/1");
  EXPECT_EQ(uplink.node_description, "ib-leaf-01:1/17/1");
  std::set<std::string> cables;
  for (const Link& l : t->links()) {
    EXPECT_TRUE(std::regex_match(l.cable_serial, cable)) << l.cable_serial;
    EXPECT_TRUE(cables.insert(l.cable_serial).second) << l.cable_serial;
  }
  EXPECT_FALSE(t->FindPort("0000000000000000_1").has_value());
  const std::string upper = [&] {
    std::string s = uplink.name;
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  }();
  EXPECT_TRUE(t->FindPort(upper).has_value());
}

TEST(SimTopologyTest, WiringAndPeersAreSymmetric) {
  const int leaves = 3, spines = 2, hosts = 4;
  Result<Topology> t = Topology::Generate(TopologySpec{leaves, spines, hosts}, 7);
  ASSERT_TRUE(t.ok());
  const auto& ports = t->ports();
  for (size_t i = 0; i < ports.size(); ++i) {
    const Port& p = ports[i];
    ASSERT_GE(p.peer, 0) << p.name;
    EXPECT_EQ(ports[p.peer].peer, static_cast<int>(i)) << p.name;
    EXPECT_EQ(ports[p.peer].link, p.link) << p.name;
    const Link& l = t->links()[p.link];
    EXPECT_TRUE(l.a == static_cast<int>(i) || l.b == static_cast<int>(i));
  }
  for (const Link& l : t->links()) {
    EXPECT_TRUE(ports[l.a].is_switch) << "side A of a link is the switch side";
    if (ports[l.b].is_switch) {
      EXPECT_EQ(ports[l.a].tier, 1) << "side A is the leaf side";
    }
  }
  for (int li = 0; li < leaves; ++li) {
    const Node& leaf = t->nodes()[li];
    for (int n = 1; n <= hosts; ++n) {
      const Port& peer = ports[ports[leaf.ports[n - 1]].peer];
      EXPECT_FALSE(peer.is_switch);
      EXPECT_EQ(peer.system_name, t->nodes()[leaves + spines + li * hosts + n - 1].name);
    }
    for (int s = 0; s < spines; ++s) {
      const Port& up = ports[leaf.ports[hosts + s]];
      const Port& peer = ports[up.peer];
      EXPECT_EQ(peer.system_name, t->nodes()[leaves + s].name);
      EXPECT_EQ(peer.number, li + 1) << "spine port i goes to leaf i";
      EXPECT_EQ(up.number, hosts + s + 1);
    }
  }
}

TEST(SimTopologyTest, SeedMakesItDeterministic) {
  Result<Topology> a = Topology::FromString("fat-tree:leaves=2,spines=1,hosts_per_leaf=3", 5);
  Result<Topology> b = Topology::FromString("fat-tree:leaves=2,spines=1,hosts_per_leaf=3", 5);
  Result<Topology> c = Topology::FromString("fat-tree:leaves=2,spines=1,hosts_per_leaf=3", 6);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  for (size_t i = 0; i < a->ports().size(); ++i) {
    EXPECT_EQ(a->ports()[i].name, b->ports()[i].name);
  }
  for (size_t i = 0; i < a->links().size(); ++i) {
    EXPECT_EQ(a->links()[i].cable_serial, b->links()[i].cable_serial);
  }
  EXPECT_NE(a->ports()[0].name, c->ports()[0].name);
}

TEST(SimTopologyTest, HostsWithTwoHcasAreCabledRailStyle) {
  Result<Topology> t =
      Topology::FromString("fat-tree:leaves=2,spines=2,hosts_per_leaf=2,hcas_per_host=2", 9);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const auto& nodes = t->nodes();
  const auto& ports = t->ports();
  ASSERT_EQ(nodes.size(), 8u);  // 2 leaves, 2 spines, 4 hosts
  EXPECT_EQ(ports.size(), 2u * 6 + 2u * 2 + 4u * 2);
  EXPECT_EQ(t->links().size(), 4u * 2 + 2u * 2);
  std::set<std::string> port_guids;
  for (int hi = 0; hi < 4; ++hi) {
    const Node& host = nodes[4 + hi];
    SCOPED_TRACE(host.name);
    EXPECT_EQ(host.name, "gpu-node-00" + std::to_string(hi + 1));
    ASSERT_EQ(host.ports.size(), 2u);
    const int home_leaf = hi / 2;  // hosts 1-2 on leaf 1, 3-4 on leaf 2
    const int h = hi % 2 + 1;      // 1-based on its home leaf
    for (int k = 1; k <= 2; ++k) {
      const Port& hca = ports[host.ports[k - 1]];
      EXPECT_EQ(hca.node_description, host.name + " HCA-" + std::to_string(k));
      EXPECT_EQ(hca.system_guid, host.system_guid) << "the HCAs share the host's system GUID";
      EXPECT_EQ(hca.system_name, host.name);
      EXPECT_NE(hca.guid, host.system_guid);
      EXPECT_TRUE(port_guids.insert(hca.guid).second) << "each HCA has its own port GUID";
      EXPECT_EQ(hca.number, 1);
      EXPECT_EQ(hca.label, "1");
      EXPECT_EQ(hca.name, hca.guid + "_1");
      EXPECT_FALSE(hca.is_switch);
      EXPECT_EQ(hca.tier, 0);
      // HCA-k goes to leaf (l + k - 1) % leaves, port (k - 1) * hosts_per_leaf + h.
      const Port& leaf_port = ports[hca.peer];
      EXPECT_EQ(leaf_port.system_name, nodes[(home_leaf + k - 1) % 2].name);
      EXPECT_EQ(leaf_port.number, (k - 1) * 2 + h);
      EXPECT_EQ(t->FindPort(hca.name), std::optional<int>(host.ports[k - 1]));
    }
  }
  // gpu-node-001: HCA-1 on ib-leaf-01 port 1, HCA-2 on ib-leaf-02 port 3; gpu-node-003 (on
  // leaf 2): HCA-1 on ib-leaf-02 port 1, HCA-2 on ib-leaf-01 port 3.
  EXPECT_EQ(ports[ports[nodes[4].ports[1]].peer].node_description, "ib-leaf-02:1/2/1");
  EXPECT_EQ(ports[ports[nodes[6].ports[1]].peer].node_description, "ib-leaf-01:1/2/1");
  // Uplinks follow the host ports: leaf ports 5 and 6 go to the spines.
  for (int li = 0; li < 2; ++li) {
    const Node& leaf = nodes[li];
    ASSERT_EQ(leaf.ports.size(), 6u);
    for (int n = 1; n <= 4; ++n) EXPECT_FALSE(ports[ports[leaf.ports[n - 1]].peer].is_switch);
    for (int s = 0; s < 2; ++s) {
      const Port& up = ports[leaf.ports[4 + s]];
      EXPECT_EQ(up.number, 5 + s);
      EXPECT_EQ(ports[up.peer].system_name, nodes[2 + s].name);
      EXPECT_EQ(ports[up.peer].number, li + 1);
    }
  }
  // Every port has a peer, and peers are symmetric.
  for (size_t i = 0; i < ports.size(); ++i) {
    ASSERT_GE(ports[i].peer, 0) << ports[i].name;
    EXPECT_EQ(ports[ports[i].peer].peer, static_cast<int>(i));
  }
}

TEST(SimTopologyTest, MoreHcasThanLeavesWrapAround) {
  Result<Topology> t = Topology::Generate(TopologySpec{2, 1, 3, 3}, 4);
  ASSERT_TRUE(t.ok());
  // Host 2 of leaf 1 (gpu-node-002): HCA-1 leaf 1 port 2, HCA-2 leaf 2 port 5, HCA-3 leaf 1
  // port 8.
  const Node& host = t->nodes()[3 + 1];
  ASSERT_EQ(host.name, "gpu-node-002");
  const auto peer = [&](int k) -> const Port& {
    return t->ports()[t->ports()[host.ports[k - 1]].peer];
  };
  EXPECT_EQ(peer(1).system_name, "ib-leaf-01");
  EXPECT_EQ(peer(1).number, 2);
  EXPECT_EQ(peer(2).system_name, "ib-leaf-02");
  EXPECT_EQ(peer(2).number, 5);
  EXPECT_EQ(peer(3).system_name, "ib-leaf-01");
  EXPECT_EQ(peer(3).number, 8);
  EXPECT_EQ(t->ports()[host.ports[2]].node_description, "gpu-node-002 HCA-3");
}

// One HCA per host is the fabric as it always was: the same names, GUIDs, port numbers, cable
// serials and link order for the same seed (fixtures and other tests rely on them).
TEST(SimTopologyTest, OneHcaPerHostIsTheClassicFabric) {
  Result<Topology> implicit =
      Topology::FromString("fat-tree:leaves=2,spines=2,hosts_per_leaf=3", 3);
  Result<Topology> explicit_one =
      Topology::FromString("fat-tree:leaves=2,spines=2,hosts_per_leaf=3,hcas_per_host=1", 3);
  ASSERT_TRUE(implicit.ok() && explicit_one.ok());
  std::string fingerprint;
  for (const Link& l : implicit->links()) {
    fingerprint += implicit->ports()[l.a].name + "-" + implicit->ports()[l.b].name + " " +
                   implicit->ports()[l.b].node_description + " " + l.cable_serial + "\n";
  }
  std::string again;
  for (const Link& l : explicit_one->links()) {
    again += explicit_one->ports()[l.a].name + "-" + explicit_one->ports()[l.b].name + " " +
             explicit_one->ports()[l.b].node_description + " " + l.cable_serial + "\n";
  }
  EXPECT_EQ(fingerprint, again);
  // Recorded from the generator before hosts could have several HCAs.
  EXPECT_EQ(fingerprint,
            std::string("fc6a1c030072fbab_1-e41d2d0300333d64_1 gpu-node-001 HCA-1 MT2449FT87338\n"
                        "fc6a1c030072fbab_2-e41d2d03001edbbe_1 gpu-node-002 HCA-1 MT2329FT06350\n"
                        "fc6a1c030072fbab_3-e41d2d03007d1657_1 gpu-node-003 HCA-1 MT2213FT27129\n"
                        "fc6a1c0300fc99e7_1-e41d2d030026aa25_1 gpu-node-004 HCA-1 MT2419FT87370\n"
                        "fc6a1c0300fc99e7_2-e41d2d0300f425a1_1 gpu-node-005 HCA-1 MT2117FT07194\n"
                        "fc6a1c0300fc99e7_3-e41d2d0300508fad_1 gpu-node-006 HCA-1 MT2242FT83191\n"
                        "fc6a1c030072fbab_4-fc6a1c0300f555d3_1 ib-spine-01:1/1/1 MT2234FT74756\n"
                        "fc6a1c030072fbab_5-fc6a1c030061be95_1 ib-spine-02:1/1/1 MT2301FT82491\n"
                        "fc6a1c0300fc99e7_4-fc6a1c0300f555d3_2 ib-spine-01:1/1/2 MT2351FT83237\n"
                        "fc6a1c0300fc99e7_5-fc6a1c030061be95_2 ib-spine-02:1/1/2 MT2228FT86751\n"));
}

}  // namespace
}  // namespace ufmr::sim

namespace ufmr::sim {
namespace {

// A host's adapters: "HCA-<k>" (older drivers, IBM CAST's samples) or "mlx5_<k-1>" (the REST
// guide's examples from 6.17); ufm-sim picks by --ufm-version unless the spec says.
TEST(SimTopologyTest, HostAdaptersAreNamedHcaOrMlx5) {
  auto hca = Topology::FromString("fat-tree:leaves=2,spines=1,hosts_per_leaf=1,hcas_per_host=2", 1);
  auto mlx5 = Topology::FromString(
      "fat-tree:leaves=2,spines=1,hosts_per_leaf=1,hcas_per_host=2,devices=mlx5", 1);
  ASSERT_TRUE(hca.ok() && mlx5.ok());
  std::vector<std::string> a, b;
  for (const Port& p : hca->ports()) {
    if (!p.is_switch) a.push_back(p.node_description);
  }
  for (const Port& p : mlx5->ports()) {
    if (!p.is_switch) b.push_back(p.node_description);
  }
  EXPECT_EQ(a, (std::vector<std::string>{"gpu-node-001 HCA-1", "gpu-node-001 HCA-2",
                                         "gpu-node-002 HCA-1", "gpu-node-002 HCA-2"}));
  EXPECT_EQ(b, (std::vector<std::string>{"gpu-node-001 mlx5_0", "gpu-node-001 mlx5_1",
                                         "gpu-node-002 mlx5_0", "gpu-node-002 mlx5_1"}));
  EXPECT_TRUE(mlx5->spec().devices_set);
  EXPECT_FALSE(hca->spec().devices_set);
  auto bad = ParseTopologySpec("fat-tree:leaves=1,spines=1,hosts_per_leaf=1,devices=cx7");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("hca or mlx5"), std::string::npos);
}

}  // namespace
}  // namespace ufmr::sim
