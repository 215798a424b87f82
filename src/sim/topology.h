// Topology: the static shape of a simulated InfiniBand fabric (a two-tier fat tree of leaf and
// spine switches; each host has one or more single-port HCAs, cabled rail style to consecutive
// leaves): nodes, ports, links, names, GUIDs, labels and cable serials, generated
// deterministically from a spec string and a seed.
// A Topology is immutable once generated; all const methods are safe from several threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"

namespace ufmr::sim {

// "fat-tree:leaves=L,spines=S,hosts_per_leaf=H[,hcas_per_host=N][,devices=hca|mlx5]".
struct TopologySpec {
  int leaves = 0;
  int spines = 0;
  int hosts_per_leaf = 0;
  int hcas_per_host = 1;
  // How a host's adapters are named in its ports' node descriptions: "gpu-node-001 HCA-1" (older
  // drivers; IBM CAST's samples), or "gpu-node-001 mlx5_0" (current drivers; the REST guide's
  // examples from 6.17). `devices_set`: the spec said which.
  bool mlx5_devices = false;
  bool devices_set = false;
};

// Limits that keep a generated fabric sane (leaf and spine radix, memory, CSV size).
inline constexpr int kMaxLeaves = 256;
inline constexpr int kMaxSpines = 64;
inline constexpr int kMaxHostsPerLeaf = 128;
inline constexpr int kMaxHcasPerHost = 8;

Result<TopologySpec> ParseTopologySpec(const std::string& text);

enum class NodeKind { kLeaf, kSpine, kHost };

struct Node {
  NodeKind kind = NodeKind::kHost;
  std::string name;         // system_name: "ib-leaf-01", "ib-spine-02", "gpu-node-007"
  std::string system_guid;  // 16 lowercase hex digits, no 0x
  int tier = 0;             // hosts 0, leaves 1, spines 2
  // Indexes into Topology::ports(): a switch's by port number, a host's by HCA (HCA-1 first;
  // every HCA port is number 1).
  std::vector<int> ports;
};

struct Port {
  std::string name;              // "<guid>_<number>"
  std::string guid;              // port GUID; all ports of a switch share the switch GUID
  std::string system_guid;       // systemID
  std::string system_name;       // node name
  std::string node_description;  // switch "ib-leaf-01:1/17/1", HCA "gpu-node-001 HCA-1" (mlx5_0)
  std::string label;             // switch "1/17/1", HCA "1"
  int number = 0;
  bool is_switch = false;
  int tier = 0;
  int node = -1;  // index into Topology::nodes()
  int link = -1;  // index into Topology::links()
  int peer = -1;  // index into Topology::ports()
};

// A cable between two ports. `a` is the switch side (the leaf side for leaf-spine links).
struct Link {
  int a = -1;
  int b = -1;
  std::string cable_serial;  // "MT2330FT09118"
};

// Quantum-2 split-cage label of linear switch port n: "1/<(n+1)/2>/<1 if n odd else 2>".
std::string SwitchPortLabel(int number);

class Topology {
 public:
  // Builds the fabric; the same spec and seed always give the same names and GUIDs. Host h
  // (1-based on its home leaf l, 0-based) cables HCA-k to leaf (l + k - 1) % leaves, port
  // (k - 1) * hosts_per_leaf + h; leaf uplinks follow the host ports. With one HCA per host the
  // wiring is the classic one: host h on leaf port h.
  static Result<Topology> Generate(const TopologySpec& spec, uint64_t seed);
  // ParseTopologySpec + Generate.
  static Result<Topology> FromString(const std::string& text, uint64_t seed);

  const TopologySpec& spec() const { return spec_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Port>& ports() const { return ports_; }
  const std::vector<Link>& links() const { return links_; }

  // Index of the port named "<guid>_<n>" (case-insensitive hex), or nullopt.
  std::optional<int> FindPort(const std::string& name) const;

 private:
  TopologySpec spec_;
  std::vector<Node> nodes_;
  std::vector<Port> ports_;
  std::vector<Link> links_;
  std::unordered_map<std::string, int> port_by_name_;
};

}  // namespace ufmr::sim
