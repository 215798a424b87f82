// HostPortIndex: the inventory's host (HCA) ports by port GUID, to name telemetry rows of hosts.
// A host's telemetry row does not carry UFM's port number ("port_num in the telemetry is
// different from the ufm", as NVIDIA's own plugins put it), but its port_guid is the port's own:
// the row is the inventory port with that GUID. Switch ports all share the switch's GUID, so
// their rows keep `<guid>_<port_num>`; they are not indexed. Built from the inventory when its
// generation moves. Owned by the telemetry intake; not thread-safe (Refresh reads the inventory
// under the inventory's own lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "telemetry/telemetry_port.h"

namespace ufmr {

class Inventory;

class HostPortIndex {
 public:
  // Rebuilds from the inventory's host ports unless its generation is the one last built from.
  // Returns whether it rebuilt.
  bool Refresh(const Inventory& inventory);
  // One host port: its port GUID and the inventory's key (name) for it. A GUID given for two
  // different keys is ambiguous, and then matches nothing.
  void Add(uint64_t port_guid, const PortKey& inventory_key);
  void Clear();

  // The inventory key of the host port with this port GUID, if exactly one.
  std::optional<PortKey> Find(uint64_t port_guid) const;
  // Gives each row whose GUID is a host port's that port's inventory key. Returns the rows that
  // changed.
  size_t Resolve(std::vector<PortKey>* ports) const;
  // Whether Resolve would change any of `ports`.
  bool Changes(const std::vector<PortKey>& ports) const;

  size_t size() const { return keys_.size(); }

 private:
  static constexpr uint32_t kAmbiguous = UINT32_MAX;  // as a key's number: two ports, no match

  PortIndex index_;            // {port GUID, 0} -> slot
  std::vector<PortKey> keys_;  // by slot: the inventory's key
  std::optional<uint64_t> generation_;
};

}  // namespace ufmr
