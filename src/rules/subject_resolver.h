// Subject resolver: who an observation is about: the link's ends and the switches and hosts they
// sit on, from the port inventory first and from the event's own text for ends the inventory
// lacks; events about a whole switch or host name it as their object. Resolutions of events are
// remembered per set of ports until the inventory changes (the hot path: a storm names the same
// links again and again). Part of the rules engine (rule_engine.h); not thread-safe (the
// remembered resolutions change on const calls).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ingest/observation.h"
#include "ufm/inventory.h"

namespace ufmr {

struct ObservationSubjects {
  std::vector<std::string> ends;
  std::string link_key;
  std::map<std::string, std::string> switches;  // NodeKey -> name as written
  std::map<std::string, std::string> hosts;
  // Each placed end and the NodeKey of its switch (or host), in the order of the ends.
  std::vector<std::pair<std::string, std::string>> port_switch;
  std::vector<std::pair<std::string, std::string>> port_host;
  // The switch and node scope entities ("switch:<key>", name as written, one port of it): made
  // when a switch or node rule asks, not for every event (most rules are about the link).
  struct Entity {
    std::string key, name, port;
  };
  std::vector<Entity> switch_entities() const { return Entities(true); }
  std::vector<Entity> host_entities() const { return Entities(false); }
  // The inventory's generation when these were resolved (0 without an inventory).
  uint64_t generation = 0;

 private:
  std::vector<Entity> Entities(bool switches) const;
};

class SubjectResolver {
 public:
  // `inventory` may be null: ports, switches and hosts then come from the events' text only.
  // It must outlive the resolver.
  explicit SubjectResolver(const Inventory* inventory) : inventory_(inventory) {}

  ObservationSubjects Resolve(const Observation& o) const;
  // Resolve, remembered per set of ports until the inventory changes.
  std::shared_ptr<const ObservationSubjects> ResolveCached(const Observation& o) const;
  // The observation's ports, with "<node>:<label>" references resolved through the inventory.
  std::vector<std::string> PortsOf(const Observation& o) const;
  // The NodeKeys of the switches and hosts where the inventory now places the link the ports
  // belong to (its peer end added), as Resolve would key them, without the rest of a resolution:
  // what inhibition asks of every finding.
  struct Nodes {
    std::vector<std::string> switches;
    std::vector<std::string> hosts;
  };
  Nodes InventoryNodes(const std::vector<std::string>& ports) const;

  bool has_inventory() const { return inventory_ != nullptr; }
  // The inventory's generation now (0 without an inventory): as ObservationSubjects::generation.
  uint64_t generation() const;
  // Off: ResolveCached resolves every time. Replay learns a large fabric port by port, and each
  // port learned makes every remembered resolution stale: remembering them cost it more than
  // resolving again (a 30-day replay of a 100,000-port fabric: 39 % of its time when measured).
  void SetRemember(bool on) {
    remember_ = on;
    resolved_.clear();
  }

 private:
  // Places each end on its switch or host: the inventory first, then the event's text.
  void PlaceEnds(const Observation& o, ObservationSubjects* s) const;
  // An event about a whole switch or host (no ports) names it as its object.
  void PlaceObject(const Observation& o, ObservationSubjects* s) const;

  // A placed node's NodeKey, worked out once per node (by its name's id in the inventory).
  const std::string& KeyOf(const LinkPlacement::Node& node) const;

  const Inventory* inventory_;
  mutable LinkPlacement placement_;  // the last PlaceLink's answer: its buffers kept
  // NodeKeys by the node name's pool id: index + 1 into node_keys_, 0 for none yet (a flat
  // index: read for every placed end, one load where a hash table cost two misses at 25,000
  // nodes).
  mutable std::vector<uint32_t> key_of_node_;
  mutable std::deque<std::string> node_keys_;  // a deque: a key handed out stays where it is
  mutable std::unordered_map<std::string, std::shared_ptr<const ObservationSubjects>> resolved_;
  mutable std::string key_;  // the key being looked up: its buffer kept from call to call
  bool remember_ = true;
};

}  // namespace ufmr
