#include "ufm/inventory.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string_view>

#include "base/text.h"
#include "ufm/ufm_json.h"

namespace ufmr {

namespace {

// UFM may stop listing a link, and so its cable, once the link is down, and a single port's
// answer names no cable: a port keeps the serial it had unless it now faces another port than
// it did (a port that had no peer, its link down, is taken to face the same one again). Pool ids.
uint32_t KeptCableSerial(const PortRow& old, const PortRow& now) {
  if (now.cable_serial == 0 && (now.peer == 0 || old.peer == 0 || now.peer == old.peer)) {
    return old.cable_serial;
  }
  return now.cable_serial;
}

constexpr uint32_t kUnset = 0xffffffffu;

// A slot of Inventory::found_ for a name: from its last eight bytes (a port name's end varies
// most: "..._1", "..._32") and its length.
size_t FoundSlot(std::string_view name, size_t slots) {
  uint64_t tail = name.size();
  const size_t n = std::min<size_t>(name.size(), 8);
  if (n > 0) std::memcpy(&tail, name.data() + name.size() - n, n);
  return static_cast<size_t>(((tail ^ name.size()) * 0x9E3779B97F4A7C15ULL) >> 58) % slots;
}

}  // namespace

std::optional<PortId> Inventory::FindLocked(std::string_view name) const {
  Found& slot = found_[FoundSlot(name, kFoundSlots)];
  if (slot.name.size() == name.size() && !name.empty() && slot.name == name) {
    return present_[slot.id] ? std::optional<PortId>(slot.id) : std::nullopt;
  }
  auto pooled = pool_.Find(name);
  if (!pooled || *pooled >= by_name_.size() || by_name_[*pooled] == 0) return std::nullopt;
  const PortId id = by_name_[*pooled] - 1;
  slot.name.assign(name);  // the name has its PortId for the inventory's life
  slot.id = id;
  if (!present_[id]) return std::nullopt;
  return id;
}

PortId Inventory::RowFor(uint32_t name) {
  if (name >= by_name_.size()) by_name_.resize(std::max<size_t>(name + 1, by_name_.size() * 2), 0);
  if (by_name_[name] == 0) {
    rows_.push_back(PortRow{});
    rows_.back().name = name;
    present_.push_back(0);
    by_name_[name] = static_cast<PortId>(rows_.size());
  }
  return by_name_[name] - 1;
}

void Inventory::FillInfo(PortId id, PortInfo* p) const {
  const PortRow& r = rows_[id];
  for (const auto& f : kPortFields) {
    const std::string_view v = pool_.View(r.*f.row);
    (p->*f.info).assign(v.data(), v.size());
  }
  p->number = r.number;
}

std::vector<Inventory::PeerChange> Inventory::Replace(const PortTable& ports) {
  std::lock_guard<std::mutex> lock(mu_);
  // Each string of the new list interned once; each host port's machine named once per system.
  std::vector<uint32_t> pooled(ports.pool().size(), kUnset), machine(ports.pool().size(), kUnset);
  auto intern = [&](uint32_t id) {
    if (pooled[id] == kUnset) pooled[id] = pool_.Intern(ports.Text(id));
    return pooled[id];
  };
  std::vector<PeerChange> changes;
  std::vector<char> listed(rows_.size() + ports.size(), 0);
  PortInfo scratch;
  for (size_t i = 0; i < ports.size(); ++i) {
    const PortRow& in = ports.row(i);
    PortRow next;
    for (const auto& f : kPortFields) next.*f.row = intern(in.*f.row);
    next.number = in.number;
    const uint32_t by = in.system_name != 0 ? in.system_name : in.node_description;
    if (IsSwitchPort(ports.Text(in.description), ports.Text(in.node_description))) {
      next.host = 0;
    } else {
      if (machine[by] == kUnset) {
        scratch = ports.Get(i);
        machine[by] = pool_.Intern(host_namer_.MachineOf(scratch));
      }
      next.host = machine[by];
    }
    const PortId id = RowFor(next.name);
    if (present_[id]) {
      const PortRow& old = rows_[id];
      if (old.peer != next.peer && !listed[id]) {
        changes.push_back({std::string(Text(next.name)), std::string(Text(old.peer)),
                           std::string(Text(next.peer))});
      }
      next.cable_serial = KeptCableSerial(old, next);
    }
    rows_[id] = next;
    if (id >= listed.size()) listed.resize(id + 1, 0);
    listed[id] = 1;
  }
  size_ = 0;
  for (PortId id = 0; id < rows_.size(); ++id) {
    present_[id] = id < listed.size() && listed[id];
    size_ += present_[id];
  }
  std::sort(changes.begin(), changes.end(),
            [](const PeerChange& a, const PeerChange& b) { return a.port < b.port; });
  peeked_.clear();
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
  bool any = false;
  ForNodePorts(port, [&](PortId id) {
    out.push_back(MakeInfo(id));
    any = true;
  });
  if (!any) out.push_back(port);  // its node unknown, and itself not listed
  return out;
}

std::vector<NodeLink> Inventory::NodeLinks(const PortInfo& port) const {
  std::vector<NodeLink> out;
  std::lock_guard<std::mutex> lock(mu_);
  bool any = false;
  ForNodePorts(port, [&](PortId id) {
    const PortRow& r = rows_[id];
    out.push_back({std::string(Text(r.name)), std::string(Text(r.peer)),
                   LinkUpOf(Text(r.logical_state), Text(r.physical_state))});
    any = true;
  });
  if (!any) out.push_back({port.name, port.peer, port.link_up()});
  return out;
}

std::string Inventory::SystemNameOf(const std::string& system_guid) const {
  std::string g = AsciiLower(system_guid.rfind("0x", 0) == 0 ? system_guid.substr(2) : system_guid);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = system_names_.find(g);
  return it == system_names_.end() ? "" : it->second;
}

namespace {
std::vector<std::string> DescriptionKeys(const PortInfo& p);
}  // namespace

void Inventory::IndexDescriptions() {
  by_description_.Clear();
  by_node_.clear();
  system_names_.clear();
  PortInfo p;  // one, its strings' room kept from port to port
  for (PortId id = 0; id < rows_.size(); ++id) {
    if (!present_[id]) continue;
    FillInfo(id, &p);
    if (!p.system_guid.empty() && !p.system_name.empty()) {
      system_names_.emplace(AsciiLower(p.system_guid), p.system_name);
    }
    if (std::string key = NodeKeyOf(p); !key.empty()) by_node_[key].push_back(id);
    for (const auto& key : DescriptionKeys(p)) by_description_.Set(key, p.name);
  }
  for (auto& [key, ids] : by_node_) {
    std::sort(ids.begin(), ids.end(),
              [this](PortId a, PortId b) { return Text(rows_[a].name) < Text(rows_[b].name); });
  }
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

void Inventory::IndexPort(PortId id, const PortInfo& p) {
  if (!p.system_guid.empty() && !p.system_name.empty()) {
    system_names_.emplace(AsciiLower(p.system_guid), p.system_name);
  }
  if (std::string key = NodeKeyOf(p); !key.empty()) {
    auto& ids = by_node_[key];
    auto at = std::lower_bound(ids.begin(), ids.end(), p.name, [this](PortId a, const auto& name) {
      return Text(rows_[a].name) < std::string_view(name);
    });
    if (at == ids.end() || *at != id) ids.insert(at, id);
  }
  for (const auto& key : DescriptionKeys(p)) by_description_.Set(key, p.name);
}

void Inventory::UnindexPort(PortId id, const PortInfo& p) {
  for (const auto& key : DescriptionKeys(p)) {
    if (by_description_.Find(key) == p.name) by_description_.Erase(key);
  }
  const std::string key = NodeKeyOf(p);
  auto node = by_node_.find(key);
  if (!key.empty() && node != by_node_.end()) {
    std::erase(node->second, id);
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

std::optional<std::string_view> Inventory::FindRefLocked(std::string_view ref,
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
  auto name = FindRefLocked(ref, &key);
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
    auto name = FindRefLocked(ref, &key);
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
  const PortId id = RowFor(pool_.Intern(port.name));
  const bool known = present_[id];
  PortInfo old;
  if (known) FillInfo(id, &old);
  // What the indexes are made of (DescriptionKeys, NodeKeyOf; the description says switch or
  // host).
  bool reindex = !known || old.label != port.label || old.system_name != port.system_name ||
                 old.system_guid != port.system_guid ||
                 old.node_description != port.node_description ||
                 old.description != port.description || old.number != port.number;
  bool changed = reindex || old.peer != port.peer;
  if (reindex && known) UnindexPort(id, old);
  PortRow next;
  for (const auto& f : kPortFields) next.*f.row = pool_.Intern(port.*f.info);
  next.number = port.number;
  next.host = pool_.Intern(host_namer_.MachineOf(port));
  if (known) next.cable_serial = KeptCableSerial(rows_[id], next);
  rows_[id] = next;
  if (!known) {
    present_[id] = 1;
    ++size_;
  }
  if (reindex) IndexPort(id, MakeInfo(id));  // as stored: with the site's host pattern
  if (id < peeked_.size()) peeked_[id].reset();
  if (changed) generation_.fetch_add(1, std::memory_order_release);
}

bool Inventory::SetLinkState(const std::string& name, bool up) {
  std::lock_guard<std::mutex> lock(mu_);
  auto id = FindLocked(name);
  if (!id) return false;
  PortRow& r = rows_[*id];
  if (AdminStateOf(Text(r.logical_state), Text(r.physical_state)) == AdminState::kDisabled) {
    return true;
  }
  if (link_states_[0] == 0) {  // interned once: replay sets a state for every link event
    link_states_ = {pool_.Intern("Inactive"), pool_.Intern("Link Down"), pool_.Intern("Active"),
                    pool_.Intern("Link Up")};
  }
  r.logical_state = link_states_[up ? 2 : 0];
  r.physical_state = link_states_[up ? 3 : 1];
  if (*id < peeked_.size() && peeked_[*id]) {
    peeked_[*id]->logical_state = Text(r.logical_state);
    peeked_[*id]->physical_state = Text(r.physical_state);
  }
  return true;
}

bool Inventory::Contains(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return FindLocked(name).has_value();
}

std::optional<PortId> Inventory::IdOf(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return FindLocked(name);
}

std::string Inventory::NameOf(PortId id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return id < rows_.size() ? std::string(Text(rows_[id].name)) : "";
}

bool Inventory::Placement(const std::string& name, bool* is_switch, std::string* node) const {
  std::lock_guard<std::mutex> lock(mu_);
  LinkPlacement::Node placed;
  if (!PlacementLocked(name, &placed)) return false;
  *is_switch = placed.is_switch;
  node->assign(placed.name);
  return true;
}

bool Inventory::PlacementLocked(std::string_view name, LinkPlacement::Node* node) const {
  auto id = FindLocked(name);
  if (!id) return false;
  const PortRow& r = rows_[*id];
  if (r.system_name == 0 && r.node_description == 0) return false;
  node->placed = true;
  node->is_switch = IsSwitchPort(Text(r.description), Text(r.node_description));
  node->id = r.host != 0 ? r.host : r.system_name == 0 ? r.node_description : r.system_name;
  node->name = Text(node->id);
  return true;
}

std::optional<PortInfo> Inventory::Get(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto id = FindLocked(name);
  if (!id) return std::nullopt;
  return MakeInfo(*id);
}

const PortInfo* Inventory::Peek(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto id = FindLocked(name);
  if (!id) return nullptr;
  if (*id >= peeked_.size()) peeked_.resize(rows_.size());
  auto& kept = peeked_[*id];
  if (!kept) kept = std::make_unique<PortInfo>(MakeInfo(*id));
  return kept.get();
}

std::vector<std::string> Inventory::LinkEnds(const std::vector<std::string>& ports) const {
  std::vector<std::string> ends;
  std::lock_guard<std::mutex> lock(mu_);
  LinkEndsLocked(ports, &ends);
  return ends;
}

void Inventory::LinkEndsLocked(const std::vector<std::string>& ports,
                               std::vector<std::string>* ends) const {
  ends->clear();
  auto has = [&](std::string_view p) {
    return std::find(ends->begin(), ends->end(), p) != ends->end();
  };
  for (const auto& p : ports) {
    if (!has(p)) ends->push_back(p);
  }
  if (ends->size() >= 2) {
    // The observation names both ends itself (a link event): trust it over the inventory.
    ends->resize(2);
    std::sort(ends->begin(), ends->end());
    return;
  }
  ends->clear();
  for (const auto& p : ports) {
    if (!has(p)) ends->push_back(p);
    if (ends->size() >= 2) break;
    auto id = FindLocked(p);
    const std::string_view peer = id ? Text(rows_[*id].peer) : std::string_view();
    if (!peer.empty() && !has(peer)) ends->emplace_back(peer);
    if (ends->size() >= 2) break;
  }
  std::sort(ends->begin(), ends->end());
}

void Inventory::PlaceLink(const std::vector<std::string>& ports, LinkPlacement* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  LinkEndsLocked(ports, &out->ends);
  out->nodes.assign(out->ends.size(), LinkPlacement::Node{});
  for (size_t i = 0; i < out->ends.size(); ++i) PlacementLocked(out->ends[i], &out->nodes[i]);
}

size_t Inventory::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return size_;
}

size_t Inventory::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = pool_.bytes() + rows_.capacity() * sizeof(PortRow) + present_.capacity() +
             by_name_.capacity() * sizeof(PortId) + by_description_.arena_bytes() +
             by_description_.size() * 16;
  for (const auto& [key, ids] : by_node_)
    n += key.capacity() + ids.capacity() * sizeof(PortId) + 64;
  for (const auto& [guid, name] : system_names_) n += guid.capacity() + name.capacity() + 64;
  return n;
}

}  // namespace ufmr
