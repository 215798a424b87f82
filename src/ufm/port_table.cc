#include "ufm/port_table.h"

#include <limits>

#include "ufm/inventory.h"

namespace ufmr {

const PortField kPortFields[14] = {
    {&PortInfo::name, &PortRow::name},
    {&PortInfo::guid, &PortRow::guid},
    {&PortInfo::system_guid, &PortRow::system_guid},
    {&PortInfo::system_name, &PortRow::system_name},
    {&PortInfo::node_description, &PortRow::node_description},
    {&PortInfo::description, &PortRow::description},
    {&PortInfo::label, &PortRow::label},
    {&PortInfo::logical_state, &PortRow::logical_state},
    {&PortInfo::physical_state, &PortRow::physical_state},
    {&PortInfo::peer, &PortRow::peer},
    {&PortInfo::active_speed, &PortRow::active_speed},
    {&PortInfo::active_width, &PortRow::active_width},
    {&PortInfo::cable_serial, &PortRow::cable_serial},
    {&PortInfo::host, &PortRow::host},
};

PortTable PortTable::From(const std::vector<PortInfo>& ports) {
  PortTable t;
  t.rows_.reserve(ports.size());
  for (const auto& p : ports) t.Add(p);
  return t;
}

void PortTable::Add(const PortInfo& p) {
  PortRow r;
  for (const auto& f : kPortFields) r.*f.row = pool_.Intern(p.*f.info);
  r.number = p.number;
  rows_.push_back(r);
  if (r.name >= listed_.size()) listed_.resize(pool_.size(), 0);
  listed_[r.name] = 1;
}

bool PortTable::Has(std::string_view name) const {
  auto id = pool_.Find(name);
  return id && *id < listed_.size() && listed_[*id] != 0 && !name.empty();
}

PortInfo PortTable::Get(size_t i) const {
  PortInfo p;
  const PortRow& r = rows_[i];
  for (const auto& f : kPortFields) p.*f.info = pool_.View(r.*f.row);
  p.number = r.number;
  return p;
}

std::vector<PortInfo> PortTable::ToVector() const {
  std::vector<PortInfo> out;
  out.reserve(rows_.size());
  for (size_t i = 0; i < rows_.size(); ++i) out.push_back(Get(i));
  return out;
}

int PortTable::FillPeersFromLinks(const std::vector<LinkInfo>& links) {
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  // By the pool id of a port's name: the peer's name and the cable's serial the links give.
  std::vector<uint32_t> peer(pool_.size(), kNone), cable(pool_.size(), 0);
  for (const auto& l : links) {
    if (!l.resolved) continue;
    auto a = pool_.Find(l.a), b = pool_.Find(l.b);
    if (!a || !b) continue;  // not a port of this list: nothing of it to fill in
    peer[*a] = *b;
    peer[*b] = *a;
    if (!l.cable_serial.empty()) cable[*a] = cable[*b] = pool_.Intern(l.cable_serial);
  }
  int filled = 0;
  for (auto& r : rows_) {
    if (r.cable_serial == 0 && r.name < cable.size()) r.cable_serial = cable[r.name];
    if (r.peer != 0 || r.name >= peer.size() || peer[r.name] == kNone) continue;
    r.peer = peer[r.name];
    ++filled;
  }
  return filled;
}

}  // namespace ufmr
