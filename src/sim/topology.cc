#include "sim/topology.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <random>
#include <set>

namespace ufmr::sim {

namespace {

constexpr const char* kSwitchGuidPrefix = "fc6a1c0300";
constexpr const char* kHcaGuidPrefix = "e41d2d0300";

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

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

}  // namespace

std::string SwitchPortLabel(int number) {
  return "1/" + std::to_string((number + 1) / 2) + "/" + (number % 2 == 1 ? "1" : "2");
}

Result<TopologySpec> ParseTopologySpec(const std::string& text) {
  const std::string usage =
      "expected fat-tree:leaves=L,spines=S,hosts_per_leaf=H[,hcas_per_host=N]";
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
  Topology t;
  t.spec_ = spec;
  GuidSource guids(seed);
  const int hosts = spec.leaves * spec.hosts_per_leaf;
  const int host_ports_per_leaf = spec.hosts_per_leaf * spec.hcas_per_host;
  const int host_width = hosts > 999 ? (hosts > 9999 ? 5 : 4) : 3;

  auto add_port = [&t](int node_index, int number) {
    Node& node = t.nodes_[node_index];
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
    t.ports_.push_back(std::move(p));
    node.ports.push_back(static_cast<int>(t.ports_.size()) - 1);
    return static_cast<int>(t.ports_.size()) - 1;
  };
  auto add_link = [&t, &guids](int a, int b) {
    t.links_.push_back(Link{a, b, guids.NextCableSerial()});
    const int index = static_cast<int>(t.links_.size()) - 1;
    t.ports_[a].link = index;
    t.ports_[b].link = index;
    t.ports_[a].peer = b;
    t.ports_[b].peer = a;
  };

  std::vector<int> leaf_nodes;
  std::vector<int> spine_nodes;
  for (int i = 1; i <= spec.leaves; ++i) {
    t.nodes_.push_back(
        Node{NodeKind::kLeaf, Numbered("ib-leaf-", i, 2), guids.Next(kSwitchGuidPrefix), 1, {}});
    leaf_nodes.push_back(static_cast<int>(t.nodes_.size()) - 1);
  }
  for (int i = 1; i <= spec.spines; ++i) {
    t.nodes_.push_back(
        Node{NodeKind::kSpine, Numbered("ib-spine-", i, 2), guids.Next(kSwitchGuidPrefix), 2, {}});
    spine_nodes.push_back(static_cast<int>(t.nodes_.size()) - 1);
  }
  // Switch ports first, so port numbers follow the wiring plan.
  for (int leaf : leaf_nodes) {
    for (int n = 1; n <= host_ports_per_leaf + spec.spines; ++n) add_port(leaf, n);
  }
  for (int spine : spine_nodes) {
    for (int n = 1; n <= spec.leaves; ++n) add_port(spine, n);
  }
  // Hosts, each with N single-port HCAs. HCA-k of host h on leaf l goes to leaf (l + k - 1) % L,
  // port (k - 1) * H + h. The draw order (system GUID, then per HCA its port GUID and cable)
  // keeps a one-HCA fabric exactly as it was before HCAs could be several.
  int host_number = 0;
  for (int li = 0; li < spec.leaves; ++li) {
    for (int h = 1; h <= spec.hosts_per_leaf; ++h) {
      ++host_number;
      Node host{NodeKind::kHost,
                Numbered("gpu-node-", host_number, host_width),
                guids.Next(kHcaGuidPrefix),
                0,
                {}};
      t.nodes_.push_back(std::move(host));
      const int host_index = static_cast<int>(t.nodes_.size()) - 1;
      for (int k = 1; k <= spec.hcas_per_host; ++k) {
        const int port = add_port(host_index, 1);
        Port& p = t.ports_[port];
        p.guid = guids.Next(kHcaGuidPrefix);
        p.label = "1";
        p.node_description = t.nodes_[host_index].name + " HCA-" + std::to_string(k);
        const int leaf = leaf_nodes[(li + k - 1) % spec.leaves];
        add_link(t.nodes_[leaf].ports[(k - 1) * spec.hosts_per_leaf + h - 1], port);
      }
    }
  }
  // Leaf port H*N+s goes to spine s; spine port i goes to leaf i.
  for (int li = 0; li < spec.leaves; ++li) {
    for (int s = 0; s < spec.spines; ++s) {
      add_link(t.nodes_[leaf_nodes[li]].ports[host_ports_per_leaf + s],
               t.nodes_[spine_nodes[s]].ports[li]);
    }
  }
  for (Port& p : t.ports_) p.name = p.guid + "_" + std::to_string(p.number);
  for (size_t i = 0; i < t.ports_.size(); ++i) {
    t.port_by_name_[t.ports_[i].name] = static_cast<int>(i);
  }
  return t;
}

std::optional<int> Topology::FindPort(const std::string& name) const {
  auto it = port_by_name_.find(Lower(name));
  if (it == port_by_name_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ufmr::sim
