// Inventory: the fabric's ports as UFM last reported them (GET /resources/ports), keyed by port
// name, with each port's peer, so a link can be named from either end. Each port is a row of ids
// into one StringPool (port_table.h) under a PortId that stays its own for the inventory's life,
// refresh after refresh: 100,000 ports cost some 20 MB, and a refresh updates the rows in place.
// A PortInfo is made of a row only where a caller asks for one. Refreshed by the pipeline thread,
// read by HTTP handlers: every method is thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/flat_string_map.h"
#include "base/status.h"
#include "ufm/host_names.h"
#include "ufm/port_info.h"
#include "ufm/port_table.h"
#include "ufm/string_pool.h"

namespace ufmr {

// One link from GET /resources/links: its two ends as port names.
struct LinkInfo {
  std::string a;
  std::string b;
  std::string cable_serial{};  // "" when UFM names none ("NA", "N/A", {})
  // What the answer says the ends are, most trusted first: the explicit port names
  // (source_port_name / destination_port_name, from 6.20), then the halves of "name" (in no
  // particular order: the guide's own example has them the other way round), then guid + port
  // (source_guid + source_port ...: before 6.20 a host end's GUID is the host system's, not the
  // port's, so these name a port only sometimes).
  std::vector<std::string> named{};
  std::vector<std::string> by_guid{};
  bool resolved = true;  // ResolveLinks: both ends name known ports
};

// The links response: a list (or {"data": [...]}); each link's ends are the first two of `named`,
// else of `by_guid`. Bad elements are skipped and counted.
Result<std::vector<LinkInfo>> ParseLinks(const std::string& body, int* skipped);

// Settles each link's ends against the ports UFM lists: the first two distinct known ports of
// `named`, then of `by_guid` (guid + port only when it names a known port). A link left without
// two is marked unresolved, its ends as parsed (never guessed). Returns how many are.
int ResolveLinks(std::vector<LinkInfo>* links,
                 const std::function<bool(const std::string&)>& known_port);

// Gives each port without a peer the other end of its link, when the links name one (and each
// port without a cable serial the link's). Unresolved links and ports the links do not mention
// are left out. Returns how many peers were filled in.
int FillPeersFromLinks(std::vector<PortInfo>* ports, const std::vector<LinkInfo>& links);

// A link as the rules engine places it for every event: LinkEnds, then Placement of each end,
// under one lock and without copying a port. Each placed end's node comes with the id of its
// name in the inventory's pool, which names that text for the inventory's life: a caller keeps
// what it works out from a node (its NodeKey) under that id.
struct LinkPlacement {
  std::vector<std::string> ends;  // as LinkEnds gives them
  struct Node {
    bool placed = false;  // as Placement answers
    bool is_switch = false;
    uint32_t id = 0;        // the name's pool id
    std::string_view name;  // the switch or host, as written: valid while the inventory lives
  };
  std::vector<Node> nodes;  // by end
};

// A port's stable number in an Inventory: its row, kept through refreshes (names only at the
// edges: logs, the API, the store).
using PortId = uint32_t;

// One port of a node as the last-link guard counts it: a few fields, not a whole PortInfo (the
// guard asks for every port of a 64-port switch on every finding that could cut one).
struct NodeLink {
  std::string name;
  std::string peer;
  bool up = false;  // PortInfo::link_up()
};

class Inventory {
 public:
  // A port whose peer is not what it was: a cable moved (or a link came or went).
  struct PeerChange {
    std::string port;
    std::string was;  // empty: the port had no peer (or was new)
    std::string now;  // empty: the port has no peer now
  };
  // Swaps in a fresh inventory; returns the peer changes against the previous one (none on the
  // first load, and none for ports that appear or disappear whole).
  // A port that no longer names its cable (UFM stops listing a link once it is down) keeps the
  // serial it had, unless it now faces another port than it did; so does one Upsert reads alone.
  std::vector<PeerChange> Replace(const PortTable& ports);
  std::vector<PeerChange> Replace(const std::vector<PortInfo>& ports) {
    return Replace(PortTable::From(ports));
  }
  // How host ports are grouped into machines (PortInfo::host); applies from the next Replace.
  void SetHostNamer(HostNamer namer);
  void Upsert(const PortInfo& port);
  // The link's state as an event tells it (replay: "Link is up" / "Link went down"): a port
  // disabled in UFM's list stays disabled. No index changes; the generation stays (nothing a
  // reader caches depends on the state). False when the port is unknown.
  bool SetLinkState(const std::string& name, bool up);
  bool Contains(const std::string& name) const;
  // The port's PortId while it is listed: the same through every refresh that lists it, and again
  // when it comes back after a refresh that did not.
  std::optional<PortId> IdOf(std::string_view name) const;
  // The name of a PortId this inventory gave ("" for any other).
  std::string NameOf(PortId id) const;
  std::optional<PortInfo> Get(const std::string& name) const;
  // The port, or null: a copy the inventory keeps until the port changes (Replace, Upsert,
  // SetLinkState, which also updates it), for an owner that no other thread changes the
  // inventory under (replay's guards read it for every decision).
  const PortInfo* Peek(const std::string& name) const;
  // Calls f(const PortInfo&) for the port, made from its row under the inventory's lock and kept
  // no longer than the call (a ticket list reads two ports per ticket); false when the port is
  // unknown. f must be short and must not call back into the inventory.
  template <typename F>
  bool With(const std::string& name, F&& f) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto id = FindLocked(name);
    if (!id) return false;
    f(MakeInfo(*id));
    return true;
  }
  // Calls f(const PortInfo&) for every port, under the inventory's lock (e.g. to index ports by
  // GUID once per generation). f must not call back into the inventory.
  template <typename F>
  void ForEachPort(F&& f) const {
    std::lock_guard<std::mutex> lock(mu_);
    PortInfo p;
    for (PortId id = 0; id < rows_.size(); ++id) {
      if (!present_[id]) continue;
      FillInfo(id, &p);
      f(static_cast<const PortInfo&>(p));
    }
  }
  // Bytes the ports and their indexes hold (rows, strings, indexes; not the allocator's slack).
  size_t bytes() const;
  // Which switch or host a port sits on (its system name, else its node description), without
  // copying the port: the rules engine's hot path. False when the port is unknown or unnamed.
  bool Placement(const std::string& name, bool* is_switch, std::string* node) const;
  // Both ends of the link the given ports belong to (peer added from inventory when known).
  std::vector<std::string> LinkEnds(const std::vector<std::string>& ports) const;
  // LinkEnds and each end's Placement at once, into *out (its buffers reused).
  void PlaceLink(const std::vector<std::string>& ports, LinkPlacement* out) const;
  // The port a UFM message names as "<node>:<label>" ("T2-E63-L-U37:1/19/2", the port's node
  // description; a leading "1/" ASIC prefix may be left out), or a host port as
  // "<node description>:<number>" ("c931f03p08 HCA-1:1"), "<host>:<dname>" ("luna-0218:HCA-1/1")
  // or "<host> <device>" ("r-ufm77 mlx5_0", when that adapter has one port), if known.
  // Case-insensitive.
  std::optional<std::string> FindByDescription(const std::string& ref) const;
  // `ports` (an event's, in its order), then each port a reference in `refs` names
  // (FindByDescription) that is not among them yet. None is looked up when `ports` names two
  // ports already: both ends of the link (see Observation::port_refs).
  std::vector<std::string> WithReferencedPorts(std::vector<std::string> ports,
                                               const std::vector<std::string>& refs) const;
  // Every port of the node (same system GUID, else the same system name) the port sits on,
  // itself included; just the port when its node is unknown.
  std::vector<PortInfo> NodePorts(const PortInfo& port) const;
  // The same ports, as NodeLinks.
  std::vector<NodeLink> NodeLinks(const PortInfo& port) const;
  // The system name of the switch or host with this system GUID (any case, "0x" or not), or "".
  std::string SystemNameOf(const std::string& system_guid) const;
  size_t size() const;
  // Bumped by every change (Replace, an Upsert that changed something): lets readers cache what
  // they derived from the inventory.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // The node a port sits on, as NodePorts groups them: a host port's machine (PortInfo::host, else
  // as the default HostNamer reads it) and system GUID (the adapters of one machine under one
  // host system are one host, however UFM names them; two machines that share a name are two);
  // a switch's system GUID and system name (either may be missing; both must agree, so two
  // switches a faulty inventory gives one GUID stay two); "" when none is known.
  static std::string NodeKeyOf(const PortInfo& p);

 private:
  // The port's row, if the inventory holds it now; with mu_ held.
  std::optional<PortId> FindLocked(std::string_view name) const;
  // LinkEnds' work, into *ends, and Placement's for one port; with mu_ held.
  void LinkEndsLocked(const std::vector<std::string>& ports, std::vector<std::string>* ends) const;
  bool PlacementLocked(std::string_view name, LinkPlacement::Node* node) const;
  // The row as a PortInfo (into *p: its strings' room is kept), with mu_ held.
  void FillInfo(PortId id, PortInfo* p) const;
  PortInfo MakeInfo(PortId id) const {
    PortInfo p;
    FillInfo(id, &p);
    return p;
  }
  std::string_view Text(uint32_t pooled) const { return pool_.View(pooled); }
  // The row for this name, made if it is new (absent until filled); with mu_ held.
  PortId RowFor(uint32_t name);
  // The indexes below, with mu_ held: all of them again (Replace), or one port in or out of them
  // (Upsert: a port learned costs what it indexes, not the whole inventory again).
  void IndexDescriptions();
  // FindByDescription's lookup, with mu_ held; *key is scratch space.
  std::optional<std::string_view> FindRefLocked(std::string_view ref, std::string* key) const;
  void IndexPort(PortId id, const PortInfo& p);
  void UnindexPort(PortId id, const PortInfo& p);
  // Calls f(PortId) for each port of the port's node (NodePorts), with mu_ held.
  template <typename F>
  void ForNodePorts(const PortInfo& port, F&& f) const {
    const std::string key = NodeKeyOf(port);
    auto it = key.empty() ? by_node_.end() : by_node_.find(key);
    if (it != by_node_.end()) {
      for (PortId id : it->second) f(id);
      return;
    }
    if (auto self = FindLocked(port.name)) f(*self);
  }

  mutable std::mutex mu_;
  StringPool pool_;              // every text of every port, names included
  std::vector<PortRow> rows_;    // by PortId
  std::vector<char> present_;    // by PortId: listed now (a row stays when its port goes)
  std::vector<PortId> by_name_;  // by the pool id of a name: its PortId + 1, 0 for none
  size_t size_ = 0;              // ports present
  // lower-case "<node>:<label>" -> name: looked up for most events (they name ports by
  // description), at 100,000 ports and more: flat, a lookup touches two places in memory.
  FlatStringMap by_description_;
  // node key -> its ports, sorted by name
  std::unordered_map<std::string, std::vector<PortId>> by_node_;
  // lower-case system GUID -> system name
  std::unordered_map<std::string, std::string> system_names_;
  // Peek's copies, by PortId: kept until the port changes (a replay's guards read them).
  mutable std::vector<std::unique_ptr<PortInfo>> peeked_;
  // The ports found last, by a few bytes of their names: an event's ports are looked up several
  // times in a row (its ends, their states, their placements, the guards), and a name's PortId
  // never changes, so one found is found again with a compare instead of a hash and a probe.
  struct Found {
    std::string name;
    PortId id = 0;
  };
  static constexpr size_t kFoundSlots = 64;
  mutable std::array<Found, kFoundSlots> found_{};
  std::atomic<uint64_t> generation_{0};
  // The pool ids of the states SetLinkState writes (down: logical, physical; up: the same), or 0s.
  std::array<uint32_t, 4> link_states_{};
  HostNamer host_namer_;
};

}  // namespace ufmr
