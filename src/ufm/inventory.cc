#include "ufm/inventory.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "base/text.h"
#include "ufm/ufm_json.h"

namespace ufmr {

bool PortInfo::is_switch() const {
  return description.find("Switch") != std::string::npos ||
         (description.find("Computer") == std::string::npos &&
          node_description.find(':') != std::string::npos);
}

namespace {

// Whether `state` is one of `names` (lower case), in any case; no copy (asked for every port of
// a node on every decision that could cut one).
bool IsOneOf(std::string_view state, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (n.size() == state.size() &&
        std::equal(n.begin(), n.end(), state.begin(), [](char a, char b) {
          return a == (b >= 'A' && b <= 'Z' ? b - 'A' + 'a' : b);
        })) {
      return true;
    }
  }
  return false;
}

}  // namespace

AdminState PortInfo::admin_state() const {
  if (IsOneOf(logical_state, {"disabled"}) || IsOneOf(physical_state, {"disabled"})) {
    return AdminState::kDisabled;
  }
  // A logical state past Down needs a trained link; a physical state that is up or training
  // (IBA's Polling, Sleep, configuration training, error recovery) needs an enabled port.
  if (IsOneOf(logical_state, {"active", "armed", "init", "initialize"}) ||
      IsOneOf(physical_state, {"link up", "linkup", "polling", "sleep", "portconfigurationtraining",
                               "port configuration training", "linkerrorrecovery",
                               "link error recovery", "phytest"})) {
    return AdminState::kEnabled;
  }
  return AdminState::kUnknown;
}

bool PortInfo::link_up() const {
  return !disabled() &&
         (IsOneOf(physical_state, {"link up", "linkup"}) || IsOneOf(logical_state, {"active"}));
}

nlohmann::json PortInfo::ToJson() const {
  return {{"name", name},
          {"guid", guid},
          {"system_guid", system_guid},
          {"system_name", system_name},
          {"node_description", node_description},
          {"description", description},
          {"label", label},
          {"number", number},
          {"logical_state", logical_state},
          {"physical_state", physical_state},
          {"peer", peer},
          {"cable_serial", cable_serial},
          {"host", host}};
}

Result<PortInfo> ParsePortInfo(const nlohmann::json& j) {
  if (!j.is_object()) return Status::InvalidArgument("port is not a JSON object");
  PortInfo p;
  p.name = AsciiLower(JsonText(j, "name"));
  if (p.name.empty()) return Status::InvalidArgument("port has no name");
  p.guid = JsonText(j, "guid");
  p.system_guid = JsonText(j, "systemID");
  p.system_name = JsonText(j, "system_name");
  p.node_description = JsonText(j, "node_description");
  p.description = JsonText(j, "description");
  p.label = JsonText(j, "dname");
  if (p.label.empty() || p.label == "N/A") {
    size_t colon = p.node_description.rfind(':');
    p.label =
        colon == std::string::npos || !p.is_switch() ? "" : p.node_description.substr(colon + 1);
  }
  auto num = j.find("number");
  if (num != j.end() && num->is_number_integer()) p.number = num->get<int>();
  p.logical_state = JsonText(j, "logical_state");
  p.physical_state = JsonText(j, "physical_state");
  p.peer = AsciiLower(JsonText(j, "peer"));
  p.active_speed = JsonText(j, "active_speed");
  p.active_width = JsonText(j, "active_width");
  if (p.peer == "n/a") p.peer.clear();
  return p;
}

Result<std::vector<PortInfo>> ParsePorts(const std::string& body, int* skipped) {
  // The fields ParsePortInfo reads: a port of UFM's has some 30.
  static const std::vector<std::string> kFields = {
      "name",        "guid",         "systemID",    "system_name",   "node_description",
      "description", "dname",        "number",      "logical_state", "physical_state",
      "peer",        "active_speed", "active_width"};
  auto doc = ParseUfmList(body, "ports", kFields);
  if (!doc.ok()) return doc.status();
  std::vector<PortInfo> out;
  int bad = 0;
  for (const auto& e : doc.value()) {
    auto p = ParsePortInfo(e);
    if (p.ok()) {
      out.push_back(std::move(p.value()));
    } else {
      ++bad;
    }
  }
  if (skipped) *skipped = bad;
  return out;
}

namespace {

// UFM may stop listing a link, and so its cable, once the link is down, and a single port's
// answer names no cable: a port keeps the serial it had unless it now faces another port than
// it did (a port that had no peer, its link down, is taken to face the same one again).
void KeepCableSerial(const PortInfo& old, PortInfo* now) {
  if (now->cable_serial.empty() &&
      (now->peer.empty() || old.peer.empty() || now->peer == old.peer)) {
    now->cable_serial = old.cable_serial;
  }
}

}  // namespace

std::vector<Inventory::PeerChange> Inventory::Replace(std::vector<PortInfo> ports) {
  std::unordered_map<std::string, PortInfo> next;
  next.reserve(ports.size());
  HostNamer namer;
  {
    std::lock_guard<std::mutex> lock(mu_);
    namer = host_namer_;
  }
  for (auto& p : ports) {
    p.host = namer.MachineOf(p);
    next[p.name] = std::move(p);
  }
  std::vector<PeerChange> changes;
  std::lock_guard<std::mutex> lock(mu_);
  if (!ports_.empty()) {
    for (auto& [name, port] : next) {
      auto old = ports_.find(name);
      if (old == ports_.end()) continue;
      if (old->second.peer != port.peer) changes.push_back({name, old->second.peer, port.peer});
      KeepCableSerial(old->second, &port);
    }
    std::sort(changes.begin(), changes.end(),
              [](const PeerChange& a, const PeerChange& b) { return a.port < b.port; });
  }
  ports_.swap(next);
  IndexDescriptions();
  generation_.fetch_add(1, std::memory_order_release);
  return changes;
}

namespace {

// "1/19/2" and "19/2" name the same cage and split: the ASIC prefix is often dropped.
std::string WithoutAsic(const std::string& label) {
  return label.rfind("1/", 0) == 0 && std::count(label.begin(), label.end(), '/') == 2
             ? label.substr(2)
             : label;
}

}  // namespace

void Inventory::SetHostNamer(HostNamer namer) {
  std::lock_guard<std::mutex> lock(mu_);
  host_namer_ = std::move(namer);
}

std::string Inventory::NodeKeyOf(const PortInfo& p) {
  if (!p.is_switch()) {
    // The machine and its system GUID: the adapters UFM names "r-ufm77 mlx5_0" and "r-ufm77
    // mlx5_1" under one host system are one node; two machines that share a name ("localhost",
    // an unset node description) but not a system GUID stay two, so the last-link guard never
    // counts another machine's links as this one's.
    const std::string machine = p.host.empty() ? HostNamer().MachineOf(p) : p.host;
    if (!machine.empty()) return "host|" + AsciiLower(machine) + "|" + AsciiLower(p.system_guid);
  }
  std::string node = p.system_name;
  if (node.empty() && p.is_switch()) {
    node = p.node_description.substr(0, p.node_description.find(':'));
  }
  if (p.system_guid.empty() && node.empty()) return "";
  return p.system_guid + "|" + node;
}

std::vector<PortInfo> Inventory::NodePorts(const PortInfo& port) const {
  std::vector<PortInfo> out;
  std::lock_guard<std::mutex> lock(mu_);
  ForNodePorts(port, [&](const PortInfo& p) { out.push_back(p); });
  return out;
}

std::vector<NodeLink> Inventory::NodeLinks(const PortInfo& port) const {
  std::vector<NodeLink> out;
  std::lock_guard<std::mutex> lock(mu_);
  ForNodePorts(port, [&](const PortInfo& p) { out.push_back({p.name, p.peer, p.link_up()}); });
  return out;
}

std::string Inventory::SystemNameOf(const std::string& system_guid) const {
  std::string g = AsciiLower(system_guid.rfind("0x", 0) == 0 ? system_guid.substr(2) : system_guid);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = system_names_.find(g);
  return it == system_names_.end() ? "" : it->second;
}

void Inventory::IndexDescriptions() {
  by_description_.Clear();
  by_node_.clear();
  system_names_.clear();
  for (const auto& [name, p] : ports_) IndexPort(p);
}

namespace {

// The keys a port is found by in by_description_: "<node>:<label>" (the ASIC prefix left out),
// and for a host port as the event log's IBPort objects name it, "<host> HCA-1:<number>" (its
// node description and number: "Computer: c931f03p08 HCA-1 / NA / 1"). Lower case.
std::vector<std::string> DescriptionKeys(const PortInfo& p) {
  std::vector<std::string> keys;
  if (!p.is_switch() && p.number > 0 && !p.node_description.empty() &&
      p.node_description.find(':') == std::string::npos) {
    keys.push_back(AsciiLower(p.node_description + ":" + std::to_string(p.number)));
  }
  std::string node = p.system_name;
  std::string label = p.label;
  size_t colon = p.node_description.find(':');
  if (colon != std::string::npos) {
    if (node.empty()) node = p.node_description.substr(0, colon);
    if (label.empty()) label = p.node_description.substr(colon + 1);
  }
  if (!node.empty() && !label.empty()) keys.push_back(AsciiLower(node + ":" + WithoutAsic(label)));
  return keys;
}

}  // namespace

void Inventory::IndexPort(const PortInfo& p) {
  if (!p.system_guid.empty() && !p.system_name.empty()) {
    system_names_.emplace(AsciiLower(p.system_guid), p.system_name);
  }
  if (std::string key = NodeKeyOf(p); !key.empty()) {
    auto& names = by_node_[key];
    names.insert(std::lower_bound(names.begin(), names.end(), p.name), p.name);
  }
  for (const auto& key : DescriptionKeys(p)) by_description_.Set(key, p.name);
}

void Inventory::UnindexPort(const PortInfo& p) {
  for (const auto& key : DescriptionKeys(p)) {
    if (by_description_.Find(key) == p.name) by_description_.Erase(key);
  }
  const std::string key = NodeKeyOf(p);
  auto node = by_node_.find(key);
  if (!key.empty() && node != by_node_.end()) {
    std::erase(node->second, p.name);
    if (node->second.empty()) by_node_.erase(node);
  }
  if (p.system_guid.empty() || p.system_name.empty()) return;
  // The system's name stays known while another of its ports is.
  const std::string guid = AsciiLower(p.system_guid);
  auto name = system_names_.find(guid);
  if (name == system_names_.end() || name->second != p.system_name) return;
  if (by_node_.find(key) == by_node_.end()) system_names_.erase(name);
}

namespace {

// A "<node>:<label>" reference as DescriptionKeys writes its key, built in one pass (a lookup per
// event that names a port by description); false when it is no reference.
bool DescriptionKeyOf(std::string_view ref, std::string* key) {
  size_t colon = ref.find(':');
  if (colon == std::string_view::npos) return false;
  std::string_view label = ref.substr(colon + 1);
  if (label.starts_with("1/") && std::count(label.begin(), label.end(), '/') == 2) {
    label.remove_prefix(2);
  }
  key->clear();
  key->reserve(colon + 1 + label.size());
  auto lower = [&](std::string_view part) {
    for (char c : part) key->push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  };
  lower(ref.substr(0, colon));
  key->push_back(':');
  lower(label);
  return true;
}

}  // namespace

std::optional<std::string_view> Inventory::FindLocked(std::string_view ref,
                                                      std::string* key) const {
  if (DescriptionKeyOf(ref, key)) {
    auto name = by_description_.Find(*key);
    return name ? std::optional<std::string_view>(*name) : std::nullopt;
  }
  // "<host> <device>" (6.17+: "Computer: r-ufm77 / mlx5_0"), no port number: the adapter's port
  // when it has one only. Its ports are indexed as "<node description>:<number>".
  if (ref.empty() || ref.size() > 256) return std::nullopt;
  std::string bare(ref);
  bare += ":1";
  if (!DescriptionKeyOf(bare, key)) return std::nullopt;
  auto name = by_description_.Find(*key);
  if (!name) return std::nullopt;
  key->back() = '2';
  if (by_description_.Find(*key)) return std::nullopt;  // two ports: which one is not said
  return *name;
}

std::optional<std::string> Inventory::FindByDescription(const std::string& ref) const {
  std::string key;
  std::lock_guard<std::mutex> lock(mu_);
  auto name = FindLocked(ref, &key);
  if (!name) return std::nullopt;
  return std::string(*name);
}

std::vector<std::string> Inventory::WithReferencedPorts(
    std::vector<std::string> ports, const std::vector<std::string>& refs) const {
  // Both ends named already (a link event's "Source ... TO Dest ..."): a reference names one of
  // them, or a port the inventory misplaces, and looking it up is most of the cost of reading
  // such an event at 100,000 ports.
  if (ports.size() >= 2 || refs.empty()) return ports;
  std::string key;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& ref : refs) {
    auto name = FindLocked(ref, &key);
    if (name && std::find(ports.begin(), ports.end(), *name) == ports.end()) {
      ports.emplace_back(*name);
    }
  }
  return ports;
}

namespace {

// A link's cable serial: inside its "cable_info" object (GET /resources/links?cable_info=true, as
// IBM CAST's UFM inventory client reads it: {} when UFM knows nothing of the cable), or a flat
// "serial_number" beside the link. "NA" and "N/A" say there is none.
std::string CableSerialOf(const nlohmann::json& link) {
  std::string serial;
  auto info = link.find("cable_info");
  if (info != link.end() && info->is_object()) serial = JsonText(*info, "serial_number");
  if (serial.empty()) serial = JsonText(link, "serial_number");
  serial = std::string(TrimSpace(serial));
  const std::string upper = AsciiUpper(serial);
  return upper == "NA" || upper == "N/A" ? "" : serial;
}

// "<guid>_<port>" from two fields, or "".
std::string GuidPortName(const nlohmann::json& j, const char* guid, const char* port) {
  std::string g = AsciiLower(JsonText(j, guid));
  std::string n = JsonText(j, port);
  if (g.rfind("0x", 0) == 0) g = g.substr(2);
  if (g.empty() || n.empty()) return "";
  return g + "_" + n;
}

void AddEnd(std::vector<std::string>* ends, std::string name) {
  if (!name.empty() && std::find(ends->begin(), ends->end(), name) == ends->end()) {
    ends->push_back(std::move(name));
  }
}

// A link element's ends, most trusted first (LinkInfo::named, by_guid).
LinkInfo LinkOf(const nlohmann::json& j) {
  LinkInfo l;
  AddEnd(&l.named, AsciiLower(JsonText(j, "source_port_name")));
  AddEnd(&l.named, AsciiLower(JsonText(j, "destination_port_name")));
  std::string name = AsciiLower(JsonText(j, "name"));
  size_t colon = name.find(':');
  if (colon != std::string::npos && name.find(':', colon + 1) == std::string::npos) {
    AddEnd(&l.named, name.substr(0, colon));
    AddEnd(&l.named, name.substr(colon + 1));
  }
  AddEnd(&l.by_guid, GuidPortName(j, "source_guid", "source_port"));
  AddEnd(&l.by_guid, GuidPortName(j, "destination_guid", "destination_port"));
  const std::vector<std::string>& ends = l.named.size() >= 2 ? l.named : l.by_guid;
  if (ends.size() >= 2) {
    l.a = ends[0];
    l.b = ends[1];
  }
  l.cable_serial = CableSerialOf(j);
  return l;
}

}  // namespace

Result<std::vector<LinkInfo>> ParseLinks(const std::string& body, int* skipped) {
  auto doc = ParseUfmList(body, "links");
  if (!doc.ok()) return doc.status();
  std::vector<LinkInfo> out;
  int bad = 0;
  for (const auto& j : doc.value()) {
    if (!j.is_object()) {
      ++bad;
      continue;
    }
    LinkInfo l = LinkOf(j);
    if (l.a.empty() || l.b.empty()) {
      ++bad;
      continue;
    }
    out.push_back(std::move(l));
  }
  if (skipped) *skipped = bad;
  return out;
}

int ResolveLinks(std::vector<LinkInfo>* links,
                 const std::function<bool(const std::string&)>& known_port) {
  int unresolved = 0;
  for (auto& l : *links) {
    std::vector<std::string> known;
    for (const auto* list : {&l.named, &l.by_guid}) {
      for (const auto& end : *list) {
        if (known.size() < 2 && known_port(end)) AddEnd(&known, end);
      }
    }
    l.resolved = known.size() == 2;
    if (l.resolved) {
      l.a = known[0];
      l.b = known[1];
    } else {
      ++unresolved;
    }
  }
  return unresolved;
}

int FillPeersFromLinks(std::vector<PortInfo>* ports, const std::vector<LinkInfo>& links) {
  std::map<std::string, std::string> peer;
  std::map<std::string, std::string> cable;
  for (const auto& l : links) {
    if (!l.resolved) continue;
    peer[l.a] = l.b;
    peer[l.b] = l.a;
    if (!l.cable_serial.empty()) cable[l.a] = cable[l.b] = l.cable_serial;
  }
  int filled = 0;
  for (auto& p : *ports) {
    if (p.cable_serial.empty()) {
      if (auto c = cable.find(p.name); c != cable.end()) p.cable_serial = c->second;
    }
    if (!p.peer.empty()) continue;
    auto it = peer.find(p.name);
    if (it == peer.end()) continue;
    p.peer = it->second;
    ++filled;
  }
  return filled;
}

void Inventory::Upsert(const PortInfo& port) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ports_.find(port.name);
  // What the indexes are made of (DescriptionKeys, NodeKeyOf; the description says switch or
  // host).
  bool reindex = it == ports_.end() || it->second.label != port.label ||
                 it->second.system_name != port.system_name ||
                 it->second.system_guid != port.system_guid ||
                 it->second.node_description != port.node_description ||
                 it->second.description != port.description || it->second.number != port.number;
  bool changed = reindex || it->second.peer != port.peer;
  if (reindex && it != ports_.end()) UnindexPort(it->second);
  PortInfo kept = port;
  kept.host = host_namer_.MachineOf(kept);
  if (it != ports_.end()) KeepCableSerial(it->second, &kept);
  if (reindex) IndexPort(kept);  // as stored: with the site's host pattern
  ports_[port.name] = std::move(kept);
  if (changed) generation_.fetch_add(1, std::memory_order_release);
}

bool Inventory::SetLinkState(const std::string& name, bool up) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ports_.find(name);
  if (it == ports_.end()) return false;
  PortInfo& p = it->second;
  if (p.disabled()) return true;
  p.logical_state = up ? "Active" : "Inactive";
  p.physical_state = up ? "Link Up" : "Link Down";
  return true;
}

bool Inventory::Contains(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return ports_.count(name) > 0;
}

bool Inventory::Placement(const std::string& name, bool* is_switch, std::string* node) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ports_.find(name);
  if (it == ports_.end()) return false;
  const PortInfo& p = it->second;
  if (p.system_name.empty() && p.node_description.empty()) return false;
  *is_switch = p.is_switch();
  *node = !p.host.empty() ? p.host : p.system_name.empty() ? p.node_description : p.system_name;
  return true;
}

std::optional<PortInfo> Inventory::Get(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ports_.find(name);
  if (it == ports_.end()) return std::nullopt;
  return it->second;
}

const PortInfo* Inventory::Peek(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ports_.find(name);
  return it == ports_.end() ? nullptr : &it->second;
}

std::vector<std::string> Inventory::LinkEnds(const std::vector<std::string>& ports) const {
  std::vector<std::string> ends;
  for (const auto& p : ports) {
    if (std::find(ends.begin(), ends.end(), p) == ends.end()) ends.push_back(p);
  }
  if (ends.size() >= 2) {
    // The observation names both ends itself (a link event): trust it over the inventory.
    ends.resize(2);
    std::sort(ends.begin(), ends.end());
    return ends;
  }
  ends.clear();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& p : ports) {
    if (std::find(ends.begin(), ends.end(), p) == ends.end()) ends.push_back(p);
    if (ends.size() >= 2) break;
    auto it = ports_.find(p);
    if (it != ports_.end() && !it->second.peer.empty() &&
        std::find(ends.begin(), ends.end(), it->second.peer) == ends.end()) {
      ends.push_back(it->second.peer);
    }
    if (ends.size() >= 2) break;
  }
  std::sort(ends.begin(), ends.end());
  return ends;
}

size_t Inventory::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ports_.size();
}

}  // namespace ufmr
