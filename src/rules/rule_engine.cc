#include "rules/rule_engine.h"

#include <algorithm>
#include <cstdio>

#include "base/duration.h"
#include "ingest/event_subjects.h"
#include "ufm/inventory.h"

namespace ufmr {

namespace {

constexpr size_t kMaxEvidence = 50;
constexpr double kSweepS = 5;
constexpr double kMaxCursorHoldS = 3600;
constexpr int kLinkDownEvent = 329;
constexpr const char* kLinkDownedCounter = "LinkDownedCounterExtended";

TimePoint After(TimePoint t, double seconds) {
  // Saturated: the loader caps durations, but a time point must never wrap into the past.
  seconds = std::clamp(seconds, 0.0, 1e9);
  return t + std::chrono::duration_cast<TimePoint::duration>(Seconds(seconds));
}

// Under its clear level: the episode is over. A clear level of 0 means "no errors at all".
bool Cleared(const Rule& r, double measure) {
  return r.condition.clear_below > 0 ? measure < r.condition.clear_below : measure <= 0;
}
double Between(TimePoint a, TimePoint b) { return std::chrono::duration<double>(b - a).count(); }

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

std::string Fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", v);
  return buf;
}

}  // namespace

std::string LinkKey(const std::vector<std::string>& ports) {
  std::vector<std::string> sorted = ports;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string key;
  for (const auto& p : sorted) key += (key.empty() ? "" : "|") + p;
  return key;
}

nlohmann::json ObservationToJson(const Observation& o) {
  // Built in place (a braced list would copy every member twice): evidence is made for every
  // finding, and a finding can hold fifty observations.
  nlohmann::json j(nlohmann::json::value_t::object);
  auto& m = j.get_ref<nlohmann::json::object_t&>();
  m.emplace("time", FormatIsoTime(o.time));
  m.emplace("source", o.source);
  auto& ports = m.emplace("ports", nlohmann::json::value_t::array).first->second;
  auto& list = ports.get_ref<nlohmann::json::array_t&>();
  list.reserve(o.ports.size());
  for (const auto& p : o.ports) list.emplace_back(p);
  if (o.kind == Observation::Kind::kEvent) {
    m.emplace("event_id", o.event_id);
    m.emplace("event_type", o.event_type);
    m.emplace("name", o.name);
    m.emplace("severity", o.severity);
    m.emplace("description", o.description);
    m.emplace("ufm_timestamp", o.ufm_timestamp);
    if (!o.object_name.empty()) m.emplace("object", o.object_name);
  } else {
    m.emplace("counter", o.counter);
    m.emplace("delta", o.delta);
    m.emplace("interval_s", o.interval_s);
    m.emplace("value", o.value);
  }
  return j;
}

// One event, with the normalized words and pattern hits every rule's match looks at, computed
// once and only when some rule needs them.
class RuleEngine::EventView {
 public:
  EventView(RuleEngine& engine, const Observation& o) : engine_(engine), o_(o) {}
  const Observation& obs() const { return o_; }

  bool Matches(const EventMatch& m) {
    if (!m.event_ids.empty() && !m.event_ids.count(o_.event_type)) return false;
    if (!m.severities.empty() && !m.severities.count(Word(o_.severity, &severity_))) return false;
    if (!m.names.empty() && !m.names.count(Word(o_.name, &name_))) return false;
    if (!m.categories.empty() && !m.categories.count(Word(o_.category, &category_))) return false;
    if (!m.object_types.empty() && !m.object_types.count(Word(o_.object_type, &object_type_))) {
      return false;
    }
    if (m.description) {
      if (m.description_set_index >= 0 && engine_.rules_->descriptions) {
        if (!hits_done_) {
          engine_.rules_->descriptions->Match(o_.description, &hits_);
          std::sort(hits_.begin(), hits_.end());
          hits_done_ = true;
        }
        if (!std::binary_search(hits_.begin(), hits_.end(), m.description_set_index)) return false;
      } else if (!RE2::PartialMatch(o_.description, *m.description)) {
        return false;
      }
    }
    if (m.object && !RE2::PartialMatch(o_.object_name, *m.object)) return false;
    if (m.switch_name && !AnyMatches(subjects().switches, *m.switch_name)) return false;
    if (m.host_name && !AnyMatches(subjects().hosts, *m.host_name)) return false;
    return true;
  }

  const Subjects& subjects() { return *shared_subjects(); }
  const std::shared_ptr<const Subjects>& shared_subjects() {
    if (!subjects_) subjects_ = engine_.ResolveCached(o_);
    return subjects_;
  }
  // One copy of the observation, shared by every window that keeps it.
  const std::shared_ptr<const Observation>& shared() {
    if (!shared_) shared_ = std::make_shared<const Observation>(o_);
    return shared_;
  }

 private:
  static bool AnyMatches(const std::map<std::string, std::string>& names, const RE2& re) {
    for (const auto& [key, name] : names) {
      if (RE2::PartialMatch(name, re)) return true;
    }
    return false;
  }
  const std::string& Word(const std::string& raw, std::optional<std::string>* cache) {
    if (!*cache) *cache = NormalizeMatchWord(raw);
    return **cache;
  }

  RuleEngine& engine_;
  const Observation& o_;
  std::optional<std::string> severity_, name_, category_, object_type_;
  std::vector<int> hits_;
  bool hits_done_ = false;
  std::shared_ptr<const Subjects> subjects_;
  std::shared_ptr<const Observation> shared_;
};

RuleEngine::RuleEngine(std::shared_ptr<const RuleSet> rules, const Inventory* inventory)
    : rules_(std::move(rules)), inventory_(inventory) {
  for (const auto& r : rules_->rules) by_name_[r.name] = &r;
  const size_t n = rules_->rules.size();
  events_.resize(n);
  pending_.resize(n);
  counters_.resize(n);
  flaps_.resize(n);
}

RuleEngine::Subjects RuleEngine::Resolve(const Observation& o) const {
  Subjects s;
  s.ends = inventory_ && !o.ports.empty() ? inventory_->LinkEnds(o.ports) : o.ports;
  if (s.ends.empty()) s.ends = o.ports;
  s.link_key = LinkKey(s.ends);
  auto place = [&](const std::string& port, bool is_switch, const std::string& name) {
    if (name.empty()) return;
    std::string key = NodeKey(name);
    if (is_switch) {
      s.port_switch[port] = key;
      s.switches.emplace(std::move(key), name);
    } else {
      s.port_host[port] = key;
      s.hosts.emplace(std::move(key), name);
    }
  };
  // The inventory first; the event's own text (parsed once, only when needed) for ends it lacks.
  std::optional<std::vector<PortSubject>> named;
  std::string node;
  for (const auto& port : s.ends) {
    bool is_switch = false;
    if (inventory_ && inventory_->Placement(port, &is_switch, &node)) {
      place(port, is_switch, node);
      continue;
    }
    if (o.kind != Observation::Kind::kEvent) continue;
    if (!named) named = ExtractPortSubjects(o.description);
    for (const auto& n : *named) {
      if (n.port == port) place(port, n.is_switch, n.node);
    }
  }
  // Events about a whole switch or host (907 switch down, 331 node down) name it as the object.
  if (o.kind == Observation::Kind::kEvent && s.ends.empty()) {
    std::string name = ObjectNodeName(o.object_name);
    // REST names a switch event's object by the switch's GUID: the inventory knows its name.
    if (inventory_ && !name.empty()) {
      if (std::string known = inventory_->SystemNameOf(name); !known.empty()) name = known;
    }
    if (IsSwitchObjectType(o.object_type) && !name.empty()) {
      s.switches.emplace(NodeKey(name), name);
    } else if (IsHostObjectType(o.object_type) && !name.empty()) {
      s.hosts.emplace(NodeKey(name), name);
    }
  }
  for (bool sw : {true, false}) {
    const auto& names = sw ? s.switches : s.hosts;
    const auto& by_port = sw ? s.port_switch : s.port_host;
    auto& out = sw ? s.switch_entities : s.host_entities;
    for (const auto& [k, n] : names) {
      // Switch/node rules count distinct ports; an event about the whole object counts as one.
      std::string port;
      for (const auto& [p, pk] : by_port) {
        if (pk == k) port = p;
      }
      out.push_back({(sw ? "switch:" : "node:") + k, n, port});
    }
  }
  return s;
}

std::vector<std::string> RuleEngine::PortsOf(const Observation& o) const {
  std::vector<std::string> ports = o.ports;
  if (!inventory_) return ports;
  for (const auto& ref : o.port_refs) {
    auto name = inventory_->FindByDescription(ref);
    if (name && std::find(ports.begin(), ports.end(), *name) == ports.end()) ports.push_back(*name);
  }
  return ports;
}

std::shared_ptr<const RuleEngine::Subjects> RuleEngine::ResolveCached(const Observation& o,
                                                                      bool inventory_only) const {
  uint64_t generation = inventory_ ? inventory_->generation() : 0;
  if (generation != resolved_generation_ || resolved_.size() > 100'000) {
    resolved_.clear();
    resolved_generation_ = generation;
  }
  // Whole-object events (no ports) name their switch or host in the object: not cached.
  if (o.ports.empty() || o.kind != Observation::Kind::kEvent) {
    return std::make_shared<const Subjects>(Resolve(o));
  }
  // An event's own text may place ports the inventory does not know; a resolution from the
  // inventory alone is kept apart from those.
  size_t length = 1;
  for (const auto& p : o.ports) length += p.size() + 1;
  std::string key;
  key.reserve(length);
  if (inventory_only) key.push_back('\x1f');
  for (const auto& p : o.ports) key.append(p).push_back('|');
  auto it = resolved_.find(key);
  if (it != resolved_.end()) return it->second;
  auto s = std::make_shared<const Subjects>(Resolve(o));
  resolved_.emplace(std::move(key), s);
  return s;
}

void RuleEngine::Observe(const Observation& o, std::vector<Finding>* out) {
  if (o.ports.empty() && !o.port_refs.empty() && inventory_) {
    // Event 702 and friends name ports as "<node>:<label>": find them, then go on as usual.
    Observation named = o;
    named.ports = PortsOf(o);
    if (!named.ports.empty()) return Observe(named, out);
  }
  if (o.kind == Observation::Kind::kEvent) {
    ObserveEvent(o, out);
  } else {
    ObserveCounter(o, out);
  }
}

void RuleEngine::NoteLinkDown(const Observation& o, const std::vector<std::string>& ports) {
  if (o.event_type != kLinkDownEvent) return;
  for (const auto& p : ports) last_down_[p] = o.time;
}

void RuleEngine::ObserveEvent(const Observation& o, std::vector<Finding>* out) {
  if (o.event_type == kLinkDownEvent) {
    for (const auto& p : o.ports) last_down_[p] = o.time;
  }
  const auto& index = rules_->by_event_id;
  auto it = index.find(o.event_type);
  if (it == index.end() && rules_->any_event.empty()) return;  // the common case: no rule cares
  EventView view(*this, o);
  auto consider = [&](const Rule* r) {
    if (r->clear && view.Matches(*r->clear)) ClearEventRule(*r, view);
    if (view.Matches(r->match)) MatchEventRule(*r, view, out);
  };
  if (it != index.end()) {
    for (const Rule* r : it->second) consider(r);
  }
  for (const Rule* r : rules_->any_event) consider(r);
}

void RuleEngine::ClearEventRule(const Rule& r, EventView& view) {
  const Subjects& s = view.subjects();
  auto clear = [&](const std::string& entity, const std::string& name) {
    auto& held = pending_[r.index];
    if (auto it = held.find(entity); it != held.end()) held.erase(it);
    auto& states = events_[r.index];
    if (auto it = states.find(entity); it != states.end()) states.erase(it);
    if (!r.inhibits.empty()) ExtendInhibitor(r, entity, name, view.obs().time);
  };
  switch (r.scope) {
    case RuleScope::kPort:
      for (const auto& p : view.obs().ports) clear(p, p);
      break;
    case RuleScope::kLink:
      if (!s.link_key.empty()) clear(s.link_key, s.link_key);
      break;
    case RuleScope::kSwitch:
      for (const auto& e : s.switch_entities) clear(e.key, e.name);
      break;
    case RuleScope::kNode:
      for (const auto& e : s.host_entities) clear(e.key, e.name);
      break;
  }
}

void RuleEngine::MatchEventRule(const Rule& r, EventView& view, std::vector<Finding>* out) {
  const Observation& o = view.obs();
  if (r.kind == Rule::Kind::kFlapping) {
    CountDown(r, o, view.subjects(), out, view.shared());
    return;
  }
  const Subjects& s = view.subjects();
  auto& states = events_[r.index];
  auto& held = pending_[r.index];
  // One scope entity: its name as written, and the port it counts for.
  auto match = [&](const std::string& entity, const std::string& name, const std::string& port) {
    auto slot = states.find(entity);
    if (slot == states.end()) slot = states.emplace(entity, EventState{}).first;
    EventState& st = slot->second;
    st.rule = &r;
    if (st.active) {
      // Already fired for this episode: a reboot keeps inhibiting while its events go on.
      st.last_match = o.time;
      if (!r.inhibits.empty()) ExtendInhibitor(r, entity, name, o.time);
      return;
    }
    if (auto p = held.find(entity); p != held.end()) {
      if (p->second.seen.size() < kMaxEvidence) {
        p->second.seen.push_back({o.time, std::hash<std::string>{}(port), view.shared()});
      }
      return;
    }
    st.window.push_back({o.time, std::hash<std::string>{}(port), view.shared()});
    st.last_match = o.time;
    while (!st.window.empty() && Between(st.window.front().time, o.time) > r.window_s) {
      st.window.pop_front();
    }
    int have = static_cast<int>(st.window.size());
    if (r.scope == RuleScope::kSwitch || r.scope == RuleScope::kNode) {
      std::vector<size_t> ports;
      ports.reserve(st.window.size());
      for (const auto& w : st.window) ports.push_back(w.port);
      std::sort(ports.begin(), ports.end());
      have = static_cast<int>(std::unique(ports.begin(), ports.end()) - ports.begin());
    }
    if (have < r.count) return;

    std::string reason;
    if (r.count > 1) {
      reason = std::to_string(have) +
               (r.scope == RuleScope::kSwitch || r.scope == RuleScope::kNode
                    ? " ports with matching events within "
                    : " matching events within ") +
               FormatDuration(r.window_s);
    } else {
      reason = o.name.empty() ? "event " + std::to_string(o.event_type) : o.name;
    }
    std::vector<Seen> seen(st.window.begin(), st.window.end());
    st.window.clear();
    // Rules with a clear event, and switch/node rules, stay active until cleared (or quiet).
    st.active = r.clear.has_value() || r.scope == RuleScope::kSwitch || r.scope == RuleScope::kNode;
    if (!r.inhibits.empty()) ExtendInhibitor(r, entity, name, o.time);
    if (r.for_s > 0) {
      // Held: the finding is built only if the hold runs out (most holds end in a clear).
      const TimePoint fire_at = After(o.time, r.for_s);
      held[entity] = Pending{&r,
                             view.shared_subjects(),
                             entity,
                             name,
                             reason + ", not cleared within " + FormatDuration(r.for_s),
                             fire_at,
                             std::move(seen)};
      if (!next_due_ || fire_at < *next_due_) next_due_ = fire_at;
      st.active = false;  // a held finding is not active until it fires
      return;
    }
    Finding f = EventFinding(r, s, entity, name, std::move(reason), o.time, seen);
    if (!st.active) states.erase(entity);
    Emit(r, std::move(f), out);
  };
  switch (r.scope) {
    case RuleScope::kPort:
      for (const auto& p : o.ports) match(p, p, p);
      break;
    case RuleScope::kLink:
      if (!s.link_key.empty()) match(s.link_key, s.link_key, s.link_key);
      break;
    case RuleScope::kSwitch:
      for (const auto& e : s.switch_entities) match(e.key, e.name, e.port);
      break;
    case RuleScope::kNode:
      for (const auto& e : s.host_entities) match(e.key, e.name, e.port);
      break;
  }
}

void RuleEngine::CountDown(const Rule& r, const Observation& o, const Subjects& s,
                           std::vector<Finding>* out,
                           const std::shared_ptr<const Observation>& shared) {
  if (s.link_key.empty()) return;
  auto& flaps = flaps_[r.index];
  auto slot = flaps.find(s.link_key);
  if (slot == flaps.end()) slot = flaps.emplace(s.link_key, FlapState{}).first;
  FlapState& st = slot->second;
  st.rule = &r;
  auto trim = [&](TimePoint now) {
    while (!st.down_times.empty() && Between(st.down_times.front(), now) > r.window_s) {
      st.down_times.pop_front();
    }
    while (!st.events.empty() && Between(st.events.front().time, now) > r.window_s) {
      st.events.pop_front();
    }
    for (auto& [port, downs] : st.counter_downs) {
      while (!downs.empty() && Between(downs.front().first, now) > r.window_s) downs.pop_front();
    }
  };
  if (o.kind == Observation::Kind::kEvent) {
    // A day-long window on a flapping link sees thousands of downs: count them all, keep only
    // the newest as evidence.
    st.down_times.push_back(o.time);
    if (st.events.size() >= kMaxEvidence) st.events.pop_front();
    st.events.push_back({o.time, 0, shared ? shared : std::make_shared<const Observation>(o)});
  } else {
    st.counter_downs[o.ports.front()].emplace_back(o.time, o.delta);
  }
  st.last_down = o.time;
  trim(o.time);
  double from_counters = 0;
  for (const auto& [port, downs] : st.counter_downs) {
    double sum = 0;
    for (const auto& d : downs) sum += d.second;
    from_counters = std::max(from_counters, sum);
  }
  double downs = std::max(static_cast<double>(st.down_times.size()), from_counters);
  if (st.active || downs < r.count) return;
  st.active = true;  // until the link is quiet for a whole window
  Finding f = MakeFinding(r, s, o.time);
  f.reason = std::to_string(static_cast<long long>(downs)) + " link-down transitions within " +
             FormatDuration(r.window_s);
  auto& observations = f.evidence["observations"].get_ref<nlohmann::json::array_t&>();
  observations.reserve(st.events.size() + 1);
  for (const auto& e : st.events) observations.push_back(ObservationToJson(*e.obs));
  if (from_counters > 0) {
    f.evidence["counter_downs"] = from_counters;
    observations.push_back(ObservationToJson(o));
  }
  st.events.clear();
  st.down_times.clear();
  st.counter_downs.clear();
  Emit(r, std::move(f), out);
}

void RuleEngine::ObserveCounter(const Observation& o, std::vector<Finding>* out) {
  if (o.ports.empty() || o.interval_s <= 0) return;
  if (o.counter == kLinkDownedCounter && o.delta > 0) {
    last_down_[o.ports.front()] = o.time;
  }
  auto it = rules_->by_counter.find(o.counter);
  if (it == rules_->by_counter.end()) return;
  std::optional<Subjects> subjects;
  auto get_subjects = [&]() -> const Subjects& {
    if (!subjects) subjects = Resolve(o);
    return *subjects;
  };
  for (const Rule* r : it->second) {
    if (r->kind == Rule::Kind::kFlapping) {
      if (o.delta > 0) CountDown(*r, o, get_subjects(), out);
      continue;
    }
    const std::string& port = o.ports.front();
    CounterState& st = counters_[r->index][port];
    st.rule = r;
    if (r->min_link_uptime_s > 0 &&
        RecentlyDown(get_subjects().ends.empty() ? o.ports : get_subjects().ends, o.time,
                     r->min_link_uptime_s)) {
      // The link trained recently: its error counts say nothing yet. Start the window afresh.
      st.samples.clear();
      st.above_since.reset();
      continue;
    }
    st.samples.emplace_back(o.time, o);
    // Samples that left the window count no more (Measure skips them): drop them, or a port
    // that reports on time keeps every sample it ever sent (Tick prunes only late ones).
    double window = std::max(r->window_s, o.interval_s);
    while (Between(st.samples.front().first, o.time) >= window) st.samples.pop_front();
    double m = Measure(*r, st, o.time);
    if (m <= r->condition.above) {
      st.above_since.reset();
      if (Cleared(*r, m)) st.active = false;
      continue;
    }
    if (st.active) continue;
    if (!st.above_since) st.above_since = o.time;
    if (Between(*st.above_since, o.time) < r->for_s) continue;
    st.active = true;
    Finding f = MakeFinding(*r, get_subjects(), o.time);
    std::string what = r->counter;
    switch (r->condition.measure) {
      case CounterCondition::Measure::kRate:
        f.reason = what + " at " + Fmt(m) + " per " + FormatDuration(r->condition.per_s) +
                   ", threshold " + Fmt(r->condition.above);
        break;
      case CounterCondition::Measure::kDelta:
        f.reason = what + " rose by " + Fmt(m) + ", threshold " + Fmt(r->condition.above);
        break;
      case CounterCondition::Measure::kBer:
      case CounterCondition::Measure::kValue:
        f.reason = what + " at " + Fmt(m) + ", threshold " + Fmt(r->condition.above);
        break;
    }
    if (r->window_s > 0) f.reason += " over " + FormatDuration(r->window_s);
    if (r->for_s > 0) f.reason += " for " + FormatDuration(r->for_s);
    f.reason += " on " + port;
    for (const auto& [t, s] : st.samples) {
      if (f.evidence["observations"].size() >= kMaxEvidence) break;
      f.evidence["observations"].push_back(ObservationToJson(s));
    }
    f.evidence["measured"] = m;
    Emit(*r, std::move(f), out);
  }
}

double RuleEngine::Measure(const Rule& r, const CounterState& st, TimePoint now) const {
  if (st.samples.empty()) return 0;
  // Telemetry reports only counters that moved: quiet samples are missing, not zeros. So a
  // window's rate divides by the window, not by the samples' intervals.
  double window = std::max(r.window_s, st.samples.back().second.interval_s);
  double sum = 0, weighted = 0;
  for (const auto& [t, o] : st.samples) {
    if (Between(t, now) >= window) continue;
    sum += o.delta;
    weighted += o.value * o.interval_s;
  }
  switch (r.condition.measure) {
    case CounterCondition::Measure::kDelta:
      return sum;
    case CounterCondition::Measure::kRate:
      return sum / window * r.condition.per_s;
    case CounterCondition::Measure::kBer:
      return weighted / window;
    case CounterCondition::Measure::kValue:
      return Between(st.samples.back().first, now) < window ? st.samples.back().second.value : 0;
  }
  return 0;
}

bool RuleEngine::RecentlyDown(const std::vector<std::string>& ports, TimePoint t,
                              double within_s) const {
  for (const auto& p : ports) {
    auto it = last_down_.find(p);
    if (it != last_down_.end() && Between(it->second, t) < within_s) return true;
  }
  return false;
}

Finding RuleEngine::EventFinding(const Rule& r, const Subjects& s, const std::string& entity,
                                 const std::string& name, std::string reason, TimePoint t,
                                 const std::vector<Seen>& seen) const {
  Finding f = MakeFinding(r, s, t);
  if (r.scope == RuleScope::kSwitch || r.scope == RuleScope::kNode) {
    f.ports.clear();
    f.link_key = entity;
    (r.scope == RuleScope::kSwitch ? f.switch_name : f.node_name) = name;
  }
  f.reason = std::move(reason);
  for (auto it = seen.rbegin(); it != seen.rend() && f.cable_serial.empty(); ++it) {
    f.cable_serial = it->obs->cable_serial;  // the newest event that names it
  }
  auto& observations = f.evidence["observations"].get_ref<nlohmann::json::array_t&>();
  observations.reserve(std::min(seen.size(), kMaxEvidence));
  for (const auto& w : seen) {
    if (observations.size() >= kMaxEvidence) break;
    observations.push_back(ObservationToJson(*w.obs));
  }
  return f;
}

Finding RuleEngine::MakeFinding(const Rule& r, const Subjects& s, TimePoint t) const {
  Finding f;
  f.rule = r.name;
  f.action = r.action;
  f.mode = r.mode;
  f.scope = r.scope;
  f.severity = r.severity;
  f.title = r.title;
  f.repair_hint = r.repair_hint;
  f.ports = s.ends;
  f.link_key = s.link_key;
  f.switches = s.switches;
  f.hosts = s.hosts;
  f.time = t;
  f.rules_hash = rules_->hash;
  f.evidence = nlohmann::json(nlohmann::json::value_t::object);
  auto& evidence = f.evidence.get_ref<nlohmann::json::object_t&>();
  evidence.emplace("observations", nlohmann::json::value_t::array);
  nlohmann::json rule(nlohmann::json::value_t::object);
  rule["name"] = r.name;
  rule["file"] = r.file;
  rule["line"] = r.line;
  evidence.emplace("rule", std::move(rule));
  evidence.emplace("rules_hash", rules_->hash);
  nlohmann::json threshold(nlohmann::json::value_t::object);
  threshold["scope"] = RuleScopeName(r.scope);
  if (r.kind == Rule::Kind::kCounter) {
    threshold["counter"] = r.counter;
    threshold["measure"] = CounterMeasureName(r.condition.measure);
    threshold["above"] = r.condition.above;
    threshold["clear_below"] = r.condition.clear_below;
    if (r.condition.measure == CounterCondition::Measure::kRate) {
      threshold["per_s"] = r.condition.per_s;
    }
    if (r.min_link_uptime_s > 0) threshold["min_link_uptime_s"] = r.min_link_uptime_s;
  } else {
    threshold["count"] = r.count;
  }
  threshold["window_s"] = r.window_s;
  threshold["for_s"] = r.for_s;
  f.evidence["threshold"] = std::move(threshold);
  return f;
}

void RuleEngine::Emit(const Rule& r, Finding f, std::vector<Finding>* out) {
  if (r.scope == RuleScope::kPort || r.scope == RuleScope::kLink) {
    f.inhibited_by = InhibitedBy(r.name, f, f.time);
  }
  if (!r.description.empty()) f.reason = r.description + " (" + f.reason + ")";
  out->push_back(std::move(f));
}

void RuleEngine::ExtendInhibitor(const Rule& r, const std::string& entity, const std::string& name,
                                 TimePoint t) {
  auto& list = inhibitors_[entity];
  TimePoint until = After(t, r.inhibit_for_s);
  for (auto& i : list) {
    if (i.rule == r.name) {
      i.until = std::max(i.until, until);
      return;
    }
  }
  list.push_back({r.name, name, until});
}

std::string RuleEngine::InhibitedBy(const std::string& rule, const Finding& f, TimePoint t) const {
  if (inhibitors_.empty()) return "";
  auto check = [&](const std::string& entity, const char* what) -> std::string {
    auto it = inhibitors_.find(entity);
    if (it == inhibitors_.end()) return "";
    for (const auto& i : it->second) {
      if (i.until < t) continue;
      auto r = by_name_.find(i.rule);
      if (r == by_name_.end() || !r->second->inhibits.count(rule)) continue;
      return i.rule + " on " + what + " " + i.entity_name;
    }
    return "";
  };
  // The switches and hosts the finding's observations named, then what the inventory says now.
  std::shared_ptr<const Subjects> now;
  if (!f.ports.empty()) {
    Observation probe;
    probe.ports = f.ports;
    now = ResolveCached(probe, /*inventory_only=*/true);
  }
  // Each name once, in key order (as the two maps merged would give them).
  std::vector<const std::string*> keys;
  std::string entity;
  for (bool sw : {true, false}) {
    keys.clear();
    for (const auto& [k, n] : sw ? f.switches : f.hosts) keys.push_back(&k);
    if (now) {
      for (const auto& [k, n] : sw ? now->switches : now->hosts) keys.push_back(&k);
    }
    std::sort(keys.begin(), keys.end(), [](auto* a, auto* b) { return *a < *b; });
    keys.erase(std::unique(keys.begin(), keys.end(), [](auto* a, auto* b) { return *a == *b; }),
               keys.end());
    for (const std::string* key : keys) {
      entity.assign(sw ? "switch:" : "node:").append(*key);
      if (auto why = check(entity, sw ? "switch" : "node"); !why.empty()) return why;
    }
  }
  return "";
}

void RuleEngine::Tick(TimePoint now, std::vector<Finding>* out) {
  // Ageing windows and ending quiet episodes is housekeeping: a few seconds late is harmless,
  // and the sweep visits every entry, so it runs at most every kSweepS of UFM time. Held
  // findings below are checked on every tick.
  if (now >= next_sweep_) {
    next_sweep_ = After(now, kSweepS);
    Sweep(now);
  }
  FireHeld(now, out);
}

void RuleEngine::Sweep(TimePoint now) {
  for (auto& states : events_) {
    for (auto it = states.begin(); it != states.end();) {
      EventState& st = it->second;
      const Rule& rule = *st.rule;
      while (!st.window.empty() && Between(st.window.front().time, now) > rule.window_s) {
        st.window.pop_front();
      }
      // An active switch/node finding without a clear event ends once its events stop.
      bool quiet =
          st.active && !rule.clear &&
          Between(st.last_match, now) > std::max({rule.window_s, rule.inhibit_for_s, 60.0});
      if (quiet) st.active = false;
      it = (!st.active && st.window.empty()) ? states.erase(it) : std::next(it);
    }
  }
  for (auto& flaps : flaps_) {
    for (auto it = flaps.begin(); it != flaps.end();) {
      FlapState& st = it->second;
      double window = st.rule->window_s;
      if (st.active && Between(st.last_down, now) > window) st.active = false;
      while (!st.events.empty() && Between(st.events.front().time, now) > window)
        st.events.pop_front();
      while (!st.down_times.empty() && Between(st.down_times.front(), now) > window)
        st.down_times.pop_front();
      bool empty = st.down_times.empty();
      for (auto& [port, downs] : st.counter_downs) {
        while (!downs.empty() && Between(downs.front().first, now) > window) downs.pop_front();
        empty = empty && downs.empty();
      }
      it = (!st.active && empty) ? flaps.erase(it) : std::next(it);
    }
  }
  for (auto& counters : counters_) {
    for (auto it = counters.begin(); it != counters.end();) {
      CounterState& st = it->second;
      const Rule* rule = st.rule;
      double interval = st.samples.empty() ? 0.0 : st.samples.back().second.interval_s;
      // The next sample is due about one interval after the last: until it is late, a quiet
      // window is only the gap between samples, not a clean link.
      if (!st.samples.empty() && Between(st.samples.back().first, now) < interval * 1.5) {
        ++it;
        continue;
      }
      double window = std::max(rule->window_s, interval);
      while (!st.samples.empty() && Between(st.samples.front().first, now) >= window) {
        st.samples.pop_front();
      }
      if (Cleared(*rule, Measure(*rule, st, now))) {
        st.active = false;
        if (st.samples.empty()) st.above_since.reset();
      }
      it = (st.samples.empty() && !st.active) ? counters.erase(it) : std::next(it);
    }
  }
}

void RuleEngine::FireHeld(TimePoint now, std::vector<Finding>* out) {
  // next_due_ is never later than the earliest hold (a hold cleared since leaves it early, which
  // costs one scan), so nothing is due before it.
  if (next_due_ && *next_due_ <= now) {
    // Held findings that are due, in the order they fell due (then by key: deterministic).
    struct Due {
      TimePoint when;
      size_t index;
      const std::string* entity;  // the map's key: stays valid while other entries are erased
    };
    std::vector<Due> due;
    next_due_.reset();
    for (size_t i = 0; i < pending_.size(); ++i) {
      for (const auto& [entity, p] : pending_[i]) {
        if (p.fire_at <= now) {
          due.push_back({p.fire_at, i, &entity});
        } else if (!next_due_ || p.fire_at < *next_due_) {
          next_due_ = p.fire_at;
        }
      }
    }
    std::sort(due.begin(), due.end(), [](const Due& a, const Due& b) {
      if (a.when != b.when) return a.when < b.when;
      if (a.index != b.index) return a.index < b.index;
      return *a.entity < *b.entity;
    });
    for (const Due& d : due) {
      auto& held = pending_[d.index];
      auto it = held.find(*d.entity);
      Pending& p = it->second;
      // `seen` holds the window that started the hold, then every match since: the evidence.
      Finding f = EventFinding(*p.rule, *p.subjects, p.entity, p.name, std::move(p.reason),
                               p.fire_at, p.seen);
      // It fired: active until its clear event, so the episode is one finding.
      EventState& st = events_[d.index][p.entity];
      st.rule = p.rule;
      st.active = true;
      st.last_match = f.time;
      const Rule& rule = *p.rule;
      held.erase(it);
      Emit(rule, std::move(f), out);
    }
  }
  // Last: a held finding that fired above is judged against the inhibitors of its own time.
  for (auto it = inhibitors_.begin(); it != inhibitors_.end();) {
    auto& list = it->second;
    list.erase(
        std::remove_if(list.begin(), list.end(), [&](const Inhibitor& i) { return i.until < now; }),
        list.end());
    it = list.empty() ? inhibitors_.erase(it) : std::next(it);
  }
}

const Rule* RuleEngine::BreaksSoak(const Observation& o) {
  // Only rules that would take the link out judge a repair: shadow and record-only rules do not,
  // and neither do switch- or node-level ones.
  auto judges = [](const Rule* r) {
    return r->mode == RuleMode::kEnforce &&
           (r->action == RuleAction::kDisablePort || r->action == RuleAction::kIsolatePort) &&
           (r->scope == RuleScope::kPort || r->scope == RuleScope::kLink);
  };
  if (o.kind == Observation::Kind::kEvent) {
    EventView view(*this, o);
    auto it = rules_->by_event_id.find(o.event_type);
    auto check = [&](const Rule* r) { return judges(r) && view.Matches(r->match); };
    if (it != rules_->by_event_id.end()) {
      for (const Rule* r : it->second) {
        if (check(r)) return r;
      }
    }
    for (const Rule* r : rules_->any_event) {
      if (check(r)) return r;
    }
    return nullptr;
  }
  auto it = rules_->by_counter.find(o.counter);
  if (it == rules_->by_counter.end() || o.interval_s <= 0) return nullptr;
  for (const Rule* r : it->second) {
    if (!judges(r)) continue;
    if (r->kind == Rule::Kind::kFlapping) {
      if (o.delta > 0) return r;  // the link went down during the soak
      continue;
    }
    // A link that just came back up has no meaningful BER yet (the enable that starts the soak
    // is such a moment): the rule's own uptime requirement holds here too.
    if (r->min_link_uptime_s > 0 && RecentlyDown(o.ports, o.time, r->min_link_uptime_s)) continue;
    // One sample against the clear level: the hysteresis a repaired link must stay under.
    double m = 0;
    switch (r->condition.measure) {
      case CounterCondition::Measure::kDelta:
        m = o.delta;
        break;
      case CounterCondition::Measure::kRate:
        m = o.delta / o.interval_s * r->condition.per_s;
        break;
      case CounterCondition::Measure::kBer:
      case CounterCondition::Measure::kValue:
        m = o.value;
        break;
    }
    bool breaks = r->condition.clear_below > 0 ? m >= r->condition.clear_below : m > 0;
    if (breaks) return r;
  }
  return nullptr;
}

void RuleEngine::Forget(const std::string& link_key) {
  std::set<std::string> names{link_key};
  for (size_t start = 0; start <= link_key.size();) {
    size_t bar = link_key.find('|', start);
    names.insert(
        link_key.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  auto drop = [&](auto& per_rule) {
    for (auto& map : per_rule) {
      for (const auto& name : names) map.erase(name);
    }
  };
  drop(events_);
  drop(pending_);
  drop(flaps_);
  // Counter conditions keep their state: a rule that fired stays active until its measure falls
  // under the clear level, so a link that stays bad is one finding, not one per sample.
}

std::optional<int64_t> RuleEngine::OldestEventInUse(const std::string& source) const {
  std::optional<int64_t> oldest;
  auto consider = [&](const Seen& s) {
    const int64_t id = s.obs ? s.obs->event_id : 0;
    if (id <= 0 || s.obs->source != source) return;
    if (!oldest || id < *oldest) oldest = id;
  };
  // Only short windows hold the cursor back: a day-long window (repeated_link_downs) would keep
  // it a day behind, and replaying a day of events after a restart would re-judge old faults.
  // Such windows start empty after a restart.
  auto holds_cursor = [](const Rule* r) { return r && r->window_s <= kMaxCursorHoldS; };
  for (const auto& states : events_) {
    for (const auto& [entity, st] : states) {
      if (!holds_cursor(st.rule)) continue;
      for (const auto& s : st.window) consider(s);
    }
  }
  for (const auto& held : pending_) {
    for (const auto& [entity, p] : held) {
      for (const auto& s : p.seen) consider(s);  // a hold is short (`for`) and must survive
    }
  }
  for (const auto& flaps : flaps_) {
    for (const auto& [entity, st] : flaps) {
      if (!holds_cursor(st.rule)) continue;
      for (const auto& s : st.events) consider(s);
    }
  }
  return oldest;
}

void RuleEngine::AdoptState(RuleEngine&& old) {
  // A rule that keeps its name, kind and scope keeps its state (now under the new rule).
  auto take = [&](auto& from, auto& to) {
    for (size_t i = 0; i < from.size(); ++i) {
      const Rule& was = old.rules_->rules[i];
      auto now = by_name_.find(was.name);
      // Same name is not enough: state counted under another condition (another counter,
      // measure, match or window) would be judged by the new one.
      if (now == by_name_.end() || ConditionSignature(*now->second) != ConditionSignature(was)) {
        continue;
      }
      auto& target = to[now->second->index];
      for (auto& [entity, value] : from[i]) {
        value.rule = now->second;
        target.emplace(entity, std::move(value));
      }
    }
  };
  take(old.events_, events_);
  take(old.pending_, pending_);
  if (old.next_due_ && (!next_due_ || *old.next_due_ < *next_due_)) {
    next_due_ = old.next_due_;  // as early as any hold taken over
  }
  take(old.counters_, counters_);
  take(old.flaps_, flaps_);
  for (auto& [entity, list] : old.inhibitors_) {
    for (auto& i : list) {
      if (by_name_.count(i.rule)) inhibitors_[entity].push_back(std::move(i));
    }
  }
  last_down_ = std::move(old.last_down_);
}

}  // namespace ufmr
