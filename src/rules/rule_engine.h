// RuleEngine: matches Observations against a RuleSet and emits Findings. Event rules count
// matching events per port, link, switch or node over a sliding window and may hold a finding
// (`for`) until a clear event cancels it; flapping rules count a link's down transitions; counter
// rules compare a delta, rate, BER or level over a window with a threshold, with a separate clear
// level (hysteresis). A fired rule stays active for its entity until it clears, so one episode is
// one finding. Switch- and node-level findings inhibit the port findings they cover (a reboot is
// not a bad cable). Owned by the pipeline thread; not thread-safe. Time comes only from the
// observations and Tick, so replay drives it with recorded timestamps.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/fifo.h"
#include "ingest/observation.h"
#include "rules/finding.h"
#include "rules/rules.h"

namespace ufmr {

class Inventory;

class RuleEngine {
 public:
  // `inventory` may be null: ports, switches and hosts then come from the events' text only.
  // It must outlive the engine.
  RuleEngine(std::shared_ptr<const RuleSet> rules, const Inventory* inventory);

  // Appends the findings this observation completes now (rules without `for`).
  void Observe(const Observation& o, std::vector<Finding>* out);
  // A link-down kept from the rules (it follows someone's disable): no rule judges it, but the
  // link's uptime (a counter rule's min_link_uptime) starts again from it.
  void NoteLinkDown(const Observation& o, const std::vector<std::string>& ports);
  // Appends held findings whose `for` has passed without a clear; ages windows and clears counter
  // conditions that fell under their clear level.
  void Tick(TimePoint now, std::vector<Finding>* out);

  // For a link under soak: the first rule whose clear condition this observation breaks (any
  // matching event; a counter sample at or above the rule's clear level), or null.
  const Rule* BreaksSoak(const Observation& o);
  // Drops counting state for a link (its key or either end), e.g. once it has a ticket.
  void Forget(const std::string& link_key);

  // The smallest UFM event id that counting or holding state still depends on, if any. The
  // persisted event cursor must stay below it, so a restart replays what memory held. Windows
  // longer than an hour do not count (they would hold the cursor back for as long).
  // Only observations from `source` count (each source has its own cursor and ids).
  std::optional<int64_t> OldestEventInUse(const std::string& source = "rest") const;

  // Hot reload: takes over the state of `old` for rules that keep their name and kind.
  void AdoptState(RuleEngine&& old);

  size_t pending() const {
    size_t n = 0;
    for (const auto& m : pending_) n += m.size();
    return n;
  }
  const RuleSet& rules() const { return *rules_; }
  const std::shared_ptr<const RuleSet>& rule_set() const { return rules_; }

  // Who an observation is about: the link's ends and the switches and hosts they sit on.
  struct Subjects {
    std::vector<std::string> ends;
    std::string link_key;
    std::map<std::string, std::string> switches;  // NodeKey -> name as written
    std::map<std::string, std::string> hosts;
    std::map<std::string, std::string> port_switch;  // port -> NodeKey of its switch
    std::map<std::string, std::string> port_host;    // port -> NodeKey of its host
    // The switch and node scope entities ("switch:<key>", name as written, one port of it).
    struct Entity {
      std::string key, name, port;
    };
    std::vector<Entity> switch_entities, host_entities;
  };
  Subjects Resolve(const Observation& o) const;
  // Resolve, remembered per set of ports until the inventory changes (the hot path: a storm
  // names the same links again and again). `inventory_only`: for an observation without text
  // (a probe of a finding's ports), remembered apart from events'.
  std::shared_ptr<const Subjects> ResolveCached(const Observation& o,
                                                bool inventory_only = false) const;
  // The observation's ports, with "<node>:<label>" references resolved through the inventory.
  std::vector<std::string> PortsOf(const Observation& o) const;

 private:
  struct Seen {  // one matching observation held in a window
    TimePoint time;
    size_t port = 0;  // hash of the port it counts for (switch/node scopes count distinct ports)
    // Shared by every window the observation sits in; made JSON only when a finding fires.
    std::shared_ptr<const Observation> obs;
  };
  struct EventState {
    const Rule* rule = nullptr;
    Fifo<Seen> window;
    bool active = false;  // fired, not yet cleared
    TimePoint last_match;
  };
  struct Pending {
    const Rule* rule = nullptr;
    std::shared_ptr<const Subjects> subjects;
    std::string entity;  // the scope entity, and its name as written
    std::string name;
    std::string reason;
    TimePoint fire_at;
    std::vector<Seen> seen;
  };
  struct CounterState {
    const Rule* rule = nullptr;
    Fifo<std::pair<TimePoint, Observation>> samples;
    bool active = false;
    std::optional<TimePoint> above_since;
  };
  struct FlapState {
    const Rule* rule = nullptr;
    Fifo<TimePoint> down_times;  // every down event in the window: what is counted
    Fifo<Seen> events;           // the newest of them (kMaxEvidence), as evidence
    std::map<std::string, Fifo<std::pair<TimePoint, double>>> counter_downs;
    bool active = false;
    TimePoint last_down;
  };
  struct Inhibitor {
    std::string rule;
    std::string entity_name;
    TimePoint until;
  };
  class EventView;

  void Sweep(TimePoint now);
  void FireHeld(TimePoint now, std::vector<Finding>* out);
  void ObserveEvent(const Observation& o, std::vector<Finding>* out);
  void ObserveCounter(const Observation& o, std::vector<Finding>* out);
  void MatchEventRule(const Rule& r, EventView& view, std::vector<Finding>* out);
  void ClearEventRule(const Rule& r, EventView& view);
  void CountDown(const Rule& r, const Observation& o, const Subjects& s, std::vector<Finding>* out,
                 const std::shared_ptr<const Observation>& shared = nullptr);
  void Emit(const Rule& r, Finding f, std::vector<Finding>* out);
  Finding MakeFinding(const Rule& r, const Subjects& s, TimePoint t) const;
  Finding EventFinding(const Rule& r, const Subjects& s, const std::string& entity,
                       const std::string& name, std::string reason, TimePoint t,
                       const std::vector<Seen>& seen) const;
  double Measure(const Rule& r, const CounterState& st, TimePoint now) const;
  std::string InhibitedBy(const std::string& rule, const Finding& f, TimePoint t) const;
  void ExtendInhibitor(const Rule& r, const std::string& entity, const std::string& name,
                       TimePoint t);
  bool RecentlyDown(const std::vector<std::string>& ports, TimePoint t, double within_s) const;

  std::shared_ptr<const RuleSet> rules_;
  const Inventory* inventory_;
  std::unordered_map<std::string, const Rule*> by_name_;
  // Keyed by rule name + '\x1f' + entity.
  // State per rule (by Rule::index), then per scope entity (a link key, a port, "switch:<key>").
  struct EntityHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <typename T>
  using ByEntity = std::unordered_map<std::string, T, EntityHash, std::equal_to<>>;
  std::vector<ByEntity<EventState>> events_;
  std::vector<ByEntity<Pending>> pending_;
  std::vector<ByEntity<CounterState>> counters_;
  std::vector<ByEntity<FlapState>> flaps_;
  std::map<std::string, std::vector<Inhibitor>> inhibitors_;  // "switch:<key>" / "node:<key>"
  std::unordered_map<std::string, TimePoint> last_down_;      // port -> last link-down seen
  mutable std::unordered_map<std::string, std::shared_ptr<const Subjects>> resolved_;
  mutable uint64_t resolved_generation_ = 0;
  TimePoint next_sweep_{};
  // No held finding is due before this (none when empty): FireHeld skips its scan until then.
  std::optional<TimePoint> next_due_;
};

nlohmann::json ObservationToJson(const Observation& o);

}  // namespace ufmr
