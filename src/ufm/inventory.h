// Inventory: the fabric's ports as UFM last reported them (GET /resources/ports), keyed by port
// name, with each port's peer, so a link can be named from either end. Refreshed by the pipeline
// thread, read by HTTP handlers: every method is thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/flat_string_map.h"
#include "base/status.h"
#include "ufm/host_names.h"

namespace ufmr {

// Whether a port is administratively out of service, as far as UFM's answer tells. In InfiniBand,
// "disabled" is a physical state: UFM may report a disabled port with physical_state "Disabled"
// and logical_state "Down", or with logical_state "Disabled"; a port that is up or training is
// plainly enabled; a port that is just "Down" / "Link Down" may be either (a disabled port on some
// versions, or an enabled port whose cable is broken), and is kUnknown.
enum class AdminState { kDisabled, kEnabled, kUnknown };

struct PortInfo {
  std::string name;  // <guid>_<n>
  std::string guid;
  std::string system_guid;  // systemID, needed for actions
  std::string system_name;
  std::string node_description;
  std::string description;  // "Switch IB Port", "Computer IB Port"
  // The port's label as UFM displays it: its "dname" ("1/3/1" on switches that have labels, else
  // the number as text), else what follows the colon in a switch port's node_description. UFM's
  // port objects have no "label" field, and external_number is not a label.
  std::string label;
  int number = 0;
  std::string logical_state;
  std::string physical_state;
  std::string peer;
  std::string active_speed{};  // "NDR", "HDR", ...: with the width, the link's rate (BER)
  std::string active_width{};  // "4x"
  std::string cable_serial{};  // the link's cable, when UFM names it (ports or links)
  // The machine a host port sits on ("r-ufm77" for "r-ufm77 mlx5_0"): the inventory sets it by
  // its HostNamer (ufm/host_names.h); "" for a switch port.
  std::string host{};

  bool is_switch() const;
  // A disabled port is never up, whatever physical state it last reported.
  bool link_up() const;
  AdminState admin_state() const;
  bool disabled() const { return admin_state() == AdminState::kDisabled; }
  nlohmann::json ToJson() const;
};

// Reads one element of /resources/ports; tolerates missing fields but needs a name.
Result<PortInfo> ParsePortInfo(const nlohmann::json& j);
// The whole response: a list (or {"data": [...]}); bad elements are skipped and counted.
Result<std::vector<PortInfo>> ParsePorts(const std::string& body, int* skipped);

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
  std::vector<PeerChange> Replace(std::vector<PortInfo> ports);
  // How host ports are grouped into machines (PortInfo::host); applies from the next Replace.
  void SetHostNamer(HostNamer namer);
  void Upsert(const PortInfo& port);
  // The link's state as an event tells it (replay: "Link is up" / "Link went down"): a port
  // disabled in UFM's list stays disabled. No index changes; the generation stays (nothing a
  // reader caches depends on the state). False when the port is unknown.
  bool SetLinkState(const std::string& name, bool up);
  bool Contains(const std::string& name) const;
  std::optional<PortInfo> Get(const std::string& name) const;
  // The port itself, not a copy, or null: only for an owner that no other thread changes the
  // inventory under (replay). Valid until the port is replaced or removed (Replace, Upsert).
  const PortInfo* Peek(const std::string& name) const;
  // Calls f(const PortInfo&) for the port, under the inventory's lock and without copying it (a
  // ticket list reads two ports per ticket); false when the port is unknown. f must be short and
  // must not call back into the inventory.
  template <typename F>
  bool With(const std::string& name, F&& f) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ports_.find(name);
    if (it == ports_.end()) return false;
    f(it->second);
    return true;
  }
  // Calls f(const PortInfo&) for every port, under the inventory's lock (e.g. to index ports by
  // GUID once per generation). f must not call back into the inventory.
  template <typename F>
  void ForEachPort(F&& f) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, port] : ports_) f(port);
  }
  // Which switch or host a port sits on (its system name, else its node description), without
  // copying the port: the rules engine's hot path. False when the port is unknown or unnamed.
  bool Placement(const std::string& name, bool* is_switch, std::string* node) const;
  // Both ends of the link the given ports belong to (peer added from inventory when known).
  std::vector<std::string> LinkEnds(const std::vector<std::string>& ports) const;
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
  // The indexes below, with mu_ held: all of them again (Replace), or one port in or out of them
  // (Upsert: a port learned costs what it indexes, not the whole inventory again).
  void IndexDescriptions();
  // FindByDescription's lookup, with mu_ held; *key is scratch space.
  std::optional<std::string_view> FindLocked(std::string_view ref, std::string* key) const;
  void IndexPort(const PortInfo& p);
  void UnindexPort(const PortInfo& p);
  // Calls f(const PortInfo&) for each port of the port's node (NodePorts), with mu_ held.
  template <typename F>
  void ForNodePorts(const PortInfo& port, F&& f) const {
    const std::string key = NodeKeyOf(port);
    auto it = key.empty() ? by_node_.end() : by_node_.find(key);
    if (it == by_node_.end()) {
      auto self = ports_.find(port.name);
      f(self != ports_.end() ? self->second : port);
      return;
    }
    for (const auto& name : it->second) {
      auto p = ports_.find(name);
      if (p != ports_.end()) f(p->second);
    }
  }

  mutable std::mutex mu_;
  // Hash maps: looked up on every event, never walked in order.
  std::unordered_map<std::string, PortInfo> ports_;
  // lower-case "<node>:<label>" -> name: looked up for most events (they name ports by
  // description), at 100,000 ports and more: flat, a lookup touches two places in memory.
  FlatStringMap by_description_;
  // node key -> its ports' names, sorted
  std::unordered_map<std::string, std::vector<std::string>> by_node_;
  // lower-case system GUID -> system name
  std::unordered_map<std::string, std::string> system_names_;
  std::atomic<uint64_t> generation_{0};
  HostNamer host_namer_;
};

}  // namespace ufmr
