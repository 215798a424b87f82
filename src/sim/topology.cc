#include "sim/topology.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "base/text.h"

namespace ufmr::sim {

namespace {

constexpr const char* kSwitchGuidPrefix = "fc6a1c0300";
constexpr const char* kHcaGuidPrefix = "e41d2d0300";

std::string Trim(const std::string& s) {
  size_t begin = 0;
  size_t end = s.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
  return s.substr(begin, end - begin);
}

// Strict positive decimal: digits only, no sign, no junk, at most 9 digits.
std::optional<int> ParsePositive(const std::string& s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::string Numbered(const char* prefix, int n, int width) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s%0*d", prefix, width, n);
  return buf;
}

// Draws unique 24-bit GUID suffixes per prefix, so GUIDs never repeat within a fabric.
class GuidSource {
 public:
  explicit GuidSource(uint64_t seed) : rng_(seed) {}

  std::string Next(const std::string& prefix) {
    std::set<uint32_t>& used = used_[prefix];
    while (true) {
      uint32_t suffix = static_cast<uint32_t>(rng_() & 0xffffff);
      if (suffix == 0 || !used.insert(suffix).second) continue;
      char buf[8];
      std::snprintf(buf, sizeof(buf), "%06x", suffix);
      return prefix + buf;
    }
  }

  // "MT" + year + week + "FT" + five digits, e.g. MT2330FT09118.
  std::string NextCableSerial() {
    while (true) {
      int year = 21 + static_cast<int>(rng_() % 4);
      int week = 1 + static_cast<int>(rng_() % 52);
      int serial = static_cast<int>(rng_() % 100000);
      char buf[32];
      std::snprintf(buf, sizeof(buf), "MT%02d%02dFT%05d", year, week, serial);
      if (cables_.insert(buf).second) return buf;
    }
  }

 private:
  std::mt19937_64 rng_;
  std::map<std::string, std::set<uint32_t>> used_;
  std::set<std::string> cables_;
};

// Lays out a fat tree: its switches, its hosts with their HCAs, and the cables between them.
// The order of the draws from the GUID source is part of the result (the same seed gives the same
// names), so the steps run in a fixed order: AddSwitches, AddHosts, AddUplinks.
class FabricBuilder {
 public:
  FabricBuilder(const TopologySpec& spec, uint64_t seed)
      : spec_(spec), guids_(seed), host_ports_per_leaf_(spec.hosts_per_leaf * spec.hcas_per_host) {}

  // Leaves, then spines; each switch's ports first, so port numbers follow the wiring plan.
  void AddSwitches() {
    for (int i = 1; i <= spec_.leaves; ++i) {
      leaves_.push_back(AddNode(NodeKind::kLeaf, Numbered("ib-leaf-", i, 2), kSwitchGuidPrefix, 1));
    }
    for (int i = 1; i <= spec_.spines; ++i) {
      spines_.push_back(
          AddNode(NodeKind::kSpine, Numbered("ib-spine-", i, 2), kSwitchGuidPrefix, 2));
    }
    for (int leaf : leaves_) {
      for (int n = 1; n <= host_ports_per_leaf_ + spec_.spines; ++n) AddPort(leaf, n);
    }
    for (int spine : spines_) {
      for (int n = 1; n <= spec_.leaves; ++n) AddPort(spine, n);
    }
  }

  // Hosts, each with N single-port HCAs. HCA-k of host h on leaf l goes to leaf (l + k - 1) % L,
  // port (k - 1) * H + h. The draw order (system GUID, then per HCA its port GUID and cable)
  // keeps a one-HCA fabric exactly as it was before HCAs could be several.
  void AddHosts() {
    const int hosts = spec_.leaves * spec_.hosts_per_leaf;
    const int width = hosts > 999 ? (hosts > 9999 ? 5 : 4) : 3;
    int host_number = 0;
    for (int li = 0; li < spec_.leaves; ++li) {
      for (int h = 1; h <= spec_.hosts_per_leaf; ++h) {
        ++host_number;
        const int host =
            AddNode(NodeKind::kHost, Numbered("gpu-node-", host_number, width), kHcaGuidPrefix, 0);
        for (int k = 1; k <= spec_.hcas_per_host; ++k) {
          const int port = AddPort(host, 1);
          Port& p = ports_[port];
          p.guid = guids_.Next(kHcaGuidPrefix);
          p.label = "1";
          p.node_description =
              nodes_[host].name +
              (spec_.mlx5_devices ? " mlx5_" + std::to_string(k - 1) : " HCA-" + std::to_string(k));
          const int leaf = leaves_[(li + k - 1) % spec_.leaves];
          AddLink(nodes_[leaf].ports[(k - 1) * spec_.hosts_per_leaf + h - 1], port);
        }
      }
    }
  }

  // Leaf port H*N+s goes to spine s; spine port i goes to leaf i.
  void AddUplinks() {
    for (int li = 0; li < spec_.leaves; ++li) {
      for (int s = 0; s < spec_.spines; ++s) {
        AddLink(nodes_[leaves_[li]].ports[host_ports_per_leaf_ + s], nodes_[spines_[s]].ports[li]);
      }
    }
  }

  // Hands over what was built.
  void MoveInto(std::vector<Node>* nodes, std::vector<Port>* ports, std::vector<Link>* links) {
    *nodes = std::move(nodes_);
    *ports = std::move(ports_);
    *links = std::move(links_);
  }

 private:
  int AddNode(NodeKind kind, std::string name, const char* guid_prefix, int tier) {
    nodes_.push_back(Node{kind, std::move(name), guids_.Next(guid_prefix), tier, {}});
    return static_cast<int>(nodes_.size()) - 1;
  }

  int AddPort(int node_index, int number) {
    Node& node = nodes_[node_index];
    Port p;
    p.number = number;
    p.node = node_index;
    p.system_guid = node.system_guid;
    p.system_name = node.name;
    p.tier = node.tier;
    p.is_switch = node.kind != NodeKind::kHost;
    if (p.is_switch) {
      p.guid = node.system_guid;
      p.label = SwitchPortLabel(number);
      p.node_description = node.name + ":" + p.label;
    }
    ports_.push_back(std::move(p));
    node.ports.push_back(static_cast<int>(ports_.size()) - 1);
    return static_cast<int>(ports_.size()) - 1;
  }

  void AddLink(int a, int b) {
    links_.push_back(Link{a, b, guids_.NextCableSerial()});
    const int index = static_cast<int>(links_.size()) - 1;
    ports_[a].link = index;
    ports_[b].link = index;
    ports_[a].peer = b;
    ports_[b].peer = a;
  }

  const TopologySpec spec_;
  GuidSource guids_;
  const int host_ports_per_leaf_;
  std::vector<Node> nodes_;
  std::vector<Port> ports_;
  std::vector<Link> links_;
  std::vector<int> leaves_;  // indexes into nodes_
  std::vector<int> spines_;
};

}  // namespace

std::string SwitchPortLabel(int number) {
  return "1/" + std::to_string((number + 1) / 2) + "/" + (number % 2 == 1 ? "1" : "2");
}

Result<TopologySpec> ParseTopologySpec(const std::string& text) {
  const std::string usage =
      "expected fat-tree:leaves=L,spines=S,hosts_per_leaf=H[,hcas_per_host=N][,devices=hca|mlx5]";
  const std::string trimmed = Trim(text);
  size_t colon = trimmed.find(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("bad topology '" + text + "': " + usage);
  }
  const std::string kind = trimmed.substr(0, colon);
  if (kind != "fat-tree") {
    return Status::InvalidArgument("unknown topology kind '" + kind + "': " + usage);
  }
  TopologySpec spec;
  std::set<std::string> seen;
  const std::string params = trimmed.substr(colon + 1);
  size_t start = 0;
  while (start <= params.size()) {
    size_t comma = params.find(',', start);
    if (comma == std::string::npos) comma = params.size();
    const std::string item = Trim(params.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) {
      return Status::InvalidArgument("bad topology '" + text + "': empty parameter; " + usage);
    }
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument("bad topology parameter '" + item + "': " + usage);
    }
    const std::string key = Trim(item.substr(0, eq));
    const std::string value = Trim(item.substr(eq + 1));
    int* field = nullptr;
    int max = 0;
    if (key == "devices") {
      if (value != "hca" && value != "mlx5") {
        return Status::InvalidArgument("topology parameter devices='" + value +
                                       "' must be hca or mlx5");
      }
      if (!seen.insert(key).second) {
        return Status::InvalidArgument("topology parameter 'devices' given twice");
      }
      spec.mlx5_devices = value == "mlx5";
      spec.devices_set = true;
      continue;
    }
    if (key == "leaves") {
      field = &spec.leaves;
      max = kMaxLeaves;
    } else if (key == "spines") {
      field = &spec.spines;
      max = kMaxSpines;
    } else if (key == "hosts_per_leaf") {
      field = &spec.hosts_per_leaf;
      max = kMaxHostsPerLeaf;
    } else if (key == "hcas_per_host") {
      field = &spec.hcas_per_host;
      max = kMaxHcasPerHost;
    } else {
      return Status::InvalidArgument("unknown topology parameter '" + key + "': " + usage);
    }
    if (!seen.insert(key).second) {
      return Status::InvalidArgument("topology parameter '" + key + "' given twice");
    }
    std::optional<int> v = ParsePositive(value);
    if (!v || *v < 1 || *v > max) {
      return Status::InvalidArgument("topology parameter " + key + "='" + value +
                                     "' must be an integer from 1 to " + std::to_string(max));
    }
    *field = *v;
  }
  for (const char* key : {"leaves", "spines", "hosts_per_leaf"}) {
    if (!seen.count(key)) {
      return Status::InvalidArgument(std::string("topology parameter '") + key +
                                     "' is missing: " + usage);
    }
  }
  return spec;
}

Result<Topology> Topology::FromString(const std::string& text, uint64_t seed) {
  Result<TopologySpec> spec = ParseTopologySpec(text);
  if (!spec.ok()) return spec.status();
  return Generate(spec.value(), seed);
}

Result<Topology> Topology::Generate(const TopologySpec& spec, uint64_t seed) {
  if (spec.leaves < 1 || spec.leaves > kMaxLeaves || spec.spines < 1 || spec.spines > kMaxSpines ||
      spec.hosts_per_leaf < 1 || spec.hosts_per_leaf > kMaxHostsPerLeaf || spec.hcas_per_host < 1 ||
      spec.hcas_per_host > kMaxHcasPerHost) {
    return Status::InvalidArgument("topology sizes out of range");
  }
  FabricBuilder b(spec, seed);
  b.AddSwitches();
  b.AddHosts();
  b.AddUplinks();
  Topology t;
  t.spec_ = spec;
  b.MoveInto(&t.nodes_, &t.ports_, &t.links_);
  for (Port& p : t.ports_) p.name = p.guid + "_" + std::to_string(p.number);
  for (size_t i = 0; i < t.ports_.size(); ++i) {
    t.port_by_name_[t.ports_[i].name] = static_cast<int>(i);
  }
  return t;
}

std::optional<int> Topology::FindPort(const std::string& name) const {
  auto it = port_by_name_.find(AsciiLower(name));
  if (it == port_by_name_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ufmr::sim
