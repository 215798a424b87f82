#include "telemetry/telemetry_hosts.h"

#include "ufm/inventory.h"

namespace ufmr {

bool HostPortIndex::Refresh(const Inventory& inventory) {
  const uint64_t generation = inventory.generation();  // before reading: a change since rebuilds
  if (generation_ == generation) return false;
  Clear();
  inventory.ForEachPort([this](const PortInfo& p) {
    if (p.is_switch()) return;
    PortKey key;
    uint64_t guid = 0;
    if (!ParsePortName(p.name, &key) || !ParseGuid(p.guid, &guid)) return;
    Add(guid, key);
  });
  generation_ = generation;
  return true;
}

void HostPortIndex::Add(uint64_t port_guid, const PortKey& inventory_key) {
  auto [slot, added] = index_.Insert(PortKey{port_guid, 0});
  if (added) {
    keys_.push_back(inventory_key);
  } else if (keys_[slot] != inventory_key) {
    keys_[slot].number = kAmbiguous;  // two host ports claim the GUID: trust neither
  }
}

void HostPortIndex::Clear() {
  index_ = PortIndex();
  keys_.clear();
  generation_.reset();
}

std::optional<PortKey> HostPortIndex::Find(uint64_t port_guid) const {
  const uint32_t slot = index_.Find(PortKey{port_guid, 0});
  if (slot == PortIndex::kNone || keys_[slot].number == kAmbiguous) return std::nullopt;
  return keys_[slot];
}

size_t HostPortIndex::Resolve(std::vector<PortKey>* ports) const {
  if (keys_.empty()) return 0;
  size_t changed = 0;
  for (PortKey& p : *ports) {
    std::optional<PortKey> host = Find(p.guid);
    if (host && *host != p) {
      p = *host;
      ++changed;
    }
  }
  return changed;
}

bool HostPortIndex::Changes(const std::vector<PortKey>& ports) const {
  if (keys_.empty()) return false;
  for (const PortKey& p : ports) {
    std::optional<PortKey> host = Find(p.guid);
    if (host && *host != p) return true;
  }
  return false;
}

}  // namespace ufmr
