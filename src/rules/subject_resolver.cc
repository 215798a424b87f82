#include "rules/subject_resolver.h"

#include <algorithm>
#include <optional>

#include "ingest/event_subjects.h"
#include "rules/finding.h"
#include "ufm/inventory.h"

namespace ufmr {

namespace {

// "default / Switch: sw-1 / 1/17/1" -> "sw-1"; a bare name stays as it is.
std::string ObjectNodeName(const std::string& object) {
  size_t colon = object.find(':');
  std::string name = object;
  if (colon != std::string::npos) {
    name = object.substr(colon + 1);
    size_t sep = name.find(" / ");
    if (sep != std::string::npos) name = name.substr(0, sep);
  }
  size_t b = name.find_first_not_of(' ');
  size_t e = name.find_last_not_of(' ');
  return b == std::string::npos ? "" : name.substr(b, e - b + 1);
}

}  // namespace

uint64_t SubjectResolver::generation() const { return inventory_ ? inventory_->generation() : 0; }

ObservationSubjects SubjectResolver::Resolve(const Observation& o) const {
  ObservationSubjects s;
  s.generation = generation();  // before: a change while resolving makes it stale, not wrong
  placement_.nodes.clear();
  if (inventory_ && !o.ports.empty()) {
    inventory_->PlaceLink(o.ports, &placement_);
    s.ends = placement_.ends;
  }
  if (s.ends.empty()) s.ends = o.ports;
  s.link_key = LinkKey(s.ends);
  PlaceEnds(o, &s);
  PlaceObject(o, &s);
  return s;
}

std::vector<ObservationSubjects::Entity> ObservationSubjects::Entities(bool sw) const {
  std::vector<Entity> out;
  const auto& by_port = sw ? port_switch : port_host;
  for (const auto& [k, n] : sw ? switches : hosts) {
    // Switch/node rules count distinct ports; an event about the whole object counts as one.
    const std::string* port = nullptr;  // the greatest of its ports, by name
    for (const auto& [p, pk] : by_port) {
      if (pk == k && (!port || p > *port)) port = &p;
    }
    out.push_back({(sw ? "switch:" : "node:") + k, n, port ? *port : std::string()});
  }
  return out;
}

const std::string& SubjectResolver::KeyOf(const LinkPlacement::Node& node) const {
  if (node.id >= key_of_node_.size()) {
    key_of_node_.resize(std::max<size_t>(node.id + 1, key_of_node_.size() * 2), 0);
  }
  uint32_t& k = key_of_node_[node.id];
  if (k == 0) {
    node_keys_.push_back(NodeKey(node.name));
    k = static_cast<uint32_t>(node_keys_.size());
  }
  return node_keys_[k - 1];
}

void SubjectResolver::PlaceEnds(const Observation& o, ObservationSubjects* s) const {
  auto place = [&](const std::string& port, bool is_switch, std::string_view name,
                   const std::string& key) {
    if (name.empty()) return;
    auto& placed = is_switch ? s->port_switch : s->port_host;
    auto it = std::find_if(placed.begin(), placed.end(), [&](auto& e) { return e.first == port; });
    if (it != placed.end()) {
      it->second = key;  // placed again (the text names it twice): the last place holds
    } else {
      placed.emplace_back(port, key);
    }
    (is_switch ? s->switches : s->hosts).emplace(key, name);
  };
  // The inventory first (placement_, as Resolve asked it); the event's own text (parsed once,
  // only when needed) for ends it lacks.
  std::optional<std::vector<PortSubject>> named;
  for (size_t i = 0; i < s->ends.size(); ++i) {
    const std::string& port = s->ends[i];
    if (i < placement_.nodes.size() && placement_.nodes[i].placed) {
      const auto& node = placement_.nodes[i];
      if (!node.name.empty()) place(port, node.is_switch, node.name, KeyOf(node));
      continue;
    }
    if (o.kind != Observation::Kind::kEvent) continue;
    if (!named) named = ExtractPortSubjects(o.description);
    for (const auto& n : *named) {
      if (n.port == port) place(port, n.is_switch, n.node, NodeKey(n.node));
    }
  }
}

void SubjectResolver::PlaceObject(const Observation& o, ObservationSubjects* s) const {
  // Events about a whole switch or host (907 switch down, 331 node down) name it as the object.
  if (o.kind != Observation::Kind::kEvent || !s->ends.empty()) return;
  std::string name = ObjectNodeName(o.object_name);
  // REST names a switch event's object by the switch's GUID: the inventory knows its name.
  if (inventory_ && !name.empty()) {
    if (std::string known = inventory_->SystemNameOf(name); !known.empty()) name = known;
  }
  if (IsSwitchObjectType(o.object_type) && !name.empty()) {
    s->switches.emplace(NodeKey(name), name);
  } else if (IsHostObjectType(o.object_type) && !name.empty()) {
    s->hosts.emplace(NodeKey(name), name);
  }
}

std::vector<std::string> SubjectResolver::PortsOf(const Observation& o) const {
  return inventory_ ? inventory_->WithReferencedPorts(o.ports, o.port_refs) : o.ports;
}

SubjectResolver::Nodes SubjectResolver::InventoryNodes(
    const std::vector<std::string>& ports) const {
  Nodes nodes;
  if (!inventory_ || ports.empty()) return nodes;
  inventory_->PlaceLink(ports, &placement_);
  for (const auto& node : placement_.nodes) {
    if (!node.placed) continue;
    (node.is_switch ? nodes.switches : nodes.hosts).push_back(KeyOf(node));
  }
  return nodes;
}

std::shared_ptr<const ObservationSubjects> SubjectResolver::ResolveCached(
    const Observation& o) const {
  // Whole-object events (no ports) name their switch or host in the object: not cached.
  if (!remember_ || o.ports.empty() || o.kind != Observation::Kind::kEvent) {
    return std::make_shared<const ObservationSubjects>(Resolve(o));
  }
  if (resolved_.size() > 100'000) resolved_.clear();
  key_.clear();
  for (const auto& p : o.ports) key_.append(p).push_back('|');
  // A resolution made before the inventory last changed is made again when next asked for, in
  // place: a change forgets none of the others' memory at once.
  const uint64_t now = generation();
  auto it = resolved_.find(key_);
  if (it != resolved_.end()) {
    if (it->second->generation != now)
      it->second = std::make_shared<const ObservationSubjects>(Resolve(o));
    return it->second;
  }
  auto s = std::make_shared<const ObservationSubjects>(Resolve(o));
  resolved_.emplace(key_, s);
  return s;
}

}  // namespace ufmr
