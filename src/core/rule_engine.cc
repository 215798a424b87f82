#include "core/rule_engine.h"

#include <algorithm>
#include <cstdio>

#include "core/duration.h"
#include "core/event_subjects.h"
#include "core/inventory.h"

namespace ufmr {

namespace {

constexpr size_t kMaxEvidence = 50;
constexpr int kLinkDownEvent = 329;
constexpr const char* kLinkDownedCounter = "LinkDownedCounterExtended";

TimePoint After(TimePoint t, double seconds) {
  return t + std::chrono::duration_cast<TimePoint::duration>(Seconds(seconds));
}
double Between(TimePoint a, TimePoint b) { return std::chrono::duration<double>(b - a).count(); }

std::string Key(const std::string& rule, const std::string& entity) {
  return rule + '\x1f' + entity;
}
std::string EntityOf(const std::string& key) { return key.substr(key.find('\x1f') + 1); }
std::string RuleOf(const std::string& key) { return key.substr(0, key.find('\x1f')); }

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
  nlohmann::json j{{"time", FormatIsoTime(o.time)}, {"source", o.source}, {"ports", o.ports}};
  if (o.kind == Observation::Kind::kEvent) {
    j["event_id"] = o.event_id;
    j["event_type"] = o.event_type;
    j["name"] = o.name;
    j["severity"] = o.severity;
    j["description"] = o.description;
    j["ufm_timestamp"] = o.ufm_timestamp;
    if (!o.object_name.empty()) j["object"] = o.object_name;
  } else {
    j["counter"] = o.counter;
    j["delta"] = o.delta;
    j["interval_s"] = o.interval_s;
    j["value"] = o.value;
  }
  return j;
}

// One event, with the normalized words and pattern hits every rule's match looks at, computed
// once and only when some rule needs them.
class RuleEngine::EventView {
 public:
  EventView(const RuleEngine& engine, const Observation& o) : engine_(engine), o_(o) {}
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

  const Subjects& subjects() {
    if (!subjects_) subjects_ = engine_.Resolve(o_);
    return *subjects_;
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

  const RuleEngine& engine_;
  const Observation& o_;
  std::optional<std::string> severity_, name_, category_, object_type_;
  std::vector<int> hits_;
  bool hits_done_ = false;
  std::optional<Subjects> subjects_;
};

RuleEngine::RuleEngine(std::shared_ptr<const RuleSet> rules, const Inventory* inventory)
    : rules_(std::move(rules)), inventory_(inventory) {
  for (const auto& r : rules_->rules) by_name_[r.name] = &r;
}

RuleEngine::Subjects RuleEngine::Resolve(const Observation& o) const {
  Subjects s;
  s.ends = inventory_ && !o.ports.empty() ? inventory_->LinkEnds(o.ports) : o.ports;
  if (s.ends.empty()) s.ends = o.ports;
  s.link_key = LinkKey(s.ends);
  s.cable_serial = o.cable_serial;
  std::vector<PortSubject> named;
  if (o.kind == Observation::Kind::kEvent) named = ExtractPortSubjects(o.description);
  auto place = [&](const std::string& port, bool is_switch, const std::string& name) {
    if (name.empty()) return;
    std::string key = NodeKey(name);
    if (is_switch) {
      s.switches.emplace(key, name);
      s.port_switch[port] = key;
    } else {
      s.hosts.emplace(key, name);
      s.port_host[port] = key;
    }
  };
  for (const auto& port : s.ends) {
    std::optional<PortInfo> info = inventory_ ? inventory_->Get(port) : std::nullopt;
    if (info && !(info->system_name.empty() && info->node_description.empty())) {
      place(port, info->is_switch(),
            info->system_name.empty() ? info->node_description : info->system_name);
      continue;
    }
    for (const auto& n : named) {
      if (n.port == port) place(port, n.is_switch, n.node);
    }
  }
  // Events about a whole switch or host (907 switch down, 331 node down) name it as the object.
  if (o.kind == Observation::Kind::kEvent && s.ends.empty()) {
    std::string name = ObjectNodeName(o.object_name);
    if (IsSwitchObjectType(o.object_type) && !name.empty()) {
      s.switches.emplace(NodeKey(name), name);
    } else if (IsHostObjectType(o.object_type) && !name.empty()) {
      s.hosts.emplace(NodeKey(name), name);
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
  std::vector<std::pair<std::string, std::string>> entities;  // (entity, name)
  switch (r.scope) {
    case RuleScope::kPort:
      for (const auto& p : view.obs().ports) entities.emplace_back(p, p);
      break;
    case RuleScope::kLink:
      if (!s.link_key.empty()) entities.emplace_back(s.link_key, s.link_key);
      break;
    case RuleScope::kSwitch:
      for (const auto& [k, n] : s.switches) entities.emplace_back("switch:" + k, n);
      break;
    case RuleScope::kNode:
      for (const auto& [k, n] : s.hosts) entities.emplace_back("node:" + k, n);
      break;
  }
  for (const auto& [entity, name] : entities) {
    std::string key = Key(r.name, entity);
    pending_.erase(key);
    events_.erase(key);
    if (!r.inhibits.empty()) ExtendInhibitor(r, entity, name, view.obs().time);
  }
}

void RuleEngine::MatchEventRule(const Rule& r, EventView& view, std::vector<Finding>* out) {
  const Observation& o = view.obs();
  if (r.kind == Rule::Kind::kFlapping) {
    CountDown(r, o, view.subjects(), out);
    return;
  }
  const Subjects& s = view.subjects();
  struct Target {
    std::string entity, name, port;
  };
  std::vector<Target> targets;
  switch (r.scope) {
    case RuleScope::kPort:
      if (!o.ports.empty()) targets.push_back({o.ports.front(), o.ports.front(), o.ports.front()});
      break;
    case RuleScope::kLink:
      if (!s.link_key.empty()) targets.push_back({s.link_key, s.link_key, s.link_key});
      break;
    case RuleScope::kSwitch:
    case RuleScope::kNode: {
      bool sw = r.scope == RuleScope::kSwitch;
      const auto& names = sw ? s.switches : s.hosts;
      const auto& by_port = sw ? s.port_switch : s.port_host;
      for (const auto& [k, n] : names) {
        // Count distinct ports of the switch or node; an event about the whole object is one.
        std::string port;
        for (const auto& [p, pk] : by_port) {
          if (pk == k) port = p;
        }
        targets.push_back({(sw ? "switch:" : "node:") + k, n, port});
      }
      break;
    }
  }
  for (const auto& t : targets) {
    std::string key = Key(r.name, t.entity);
    EventState& st = events_[key];
    if (st.active) {
      // Already fired for this episode: a reboot keeps inhibiting while its events go on.
      st.last_match = o.time;
      if (!r.inhibits.empty()) ExtendInhibitor(r, t.entity, t.name, o.time);
      continue;
    }
    if (auto p = pending_.find(key); p != pending_.end()) {
      if (p->second.seen.size() < kMaxEvidence) {
        p->second.seen.push_back({o.time, t.port, o.event_id, o.source, ObservationToJson(o)});
      }
      continue;
    }
    st.window.push_back({o.time, t.port, o.event_id, o.source, ObservationToJson(o)});
    st.last_match = o.time;
    while (!st.window.empty() && Between(st.window.front().time, o.time) > r.window_s) {
      st.window.pop_front();
    }
    int have = static_cast<int>(st.window.size());
    if (r.scope == RuleScope::kSwitch || r.scope == RuleScope::kNode) {
      std::set<std::string> ports;
      for (const auto& w : st.window) ports.insert(w.port);
      have = static_cast<int>(ports.size());
    }
    if (have < r.count) continue;

    Subjects fs = s;
    if (r.scope == RuleScope::kSwitch || r.scope == RuleScope::kNode) {
      fs.ends.clear();
      fs.link_key = t.entity;
    }
    Finding f = MakeFinding(r, fs, o.time);
    if (r.scope == RuleScope::kSwitch) f.switch_name = t.name;
    if (r.scope == RuleScope::kNode) f.node_name = t.name;
    for (const auto& w : st.window) f.evidence["observations"].push_back(w.json);
    if (r.count > 1) {
      f.reason = std::to_string(have) +
                 (r.scope == RuleScope::kSwitch || r.scope == RuleScope::kNode
                      ? " ports with matching events within "
                      : " matching events within ") +
                 FormatDuration(r.window_s);
    } else {
      f.reason = o.name.empty() ? "event " + std::to_string(o.event_type) : o.name;
    }
    std::vector<Seen> seen(st.window.begin(), st.window.end());
    st.window.clear();
    // Rules with a clear event, and switch/node rules, stay active until cleared (or quiet).
    st.active = r.clear.has_value() || r.scope == RuleScope::kSwitch || r.scope == RuleScope::kNode;
    if (!r.inhibits.empty()) ExtendInhibitor(r, t.entity, t.name, o.time);
    if (r.for_s > 0) {
      f.reason += ", not cleared within " + FormatDuration(r.for_s);
      pending_[key] = Pending{r.name, std::move(f), After(o.time, r.for_s), std::move(seen)};
      st.active = false;  // a held finding is not active until it fires
      continue;
    }
    if (!st.active) events_.erase(key);
    Emit(r, std::move(f), out);
  }
}

void RuleEngine::CountDown(const Rule& r, const Observation& o, const Subjects& s,
                           std::vector<Finding>* out) {
  if (s.link_key.empty()) return;
  std::string key = Key(r.name, s.link_key);
  FlapState& st = flaps_[key];
  auto trim = [&](TimePoint now) {
    while (!st.events.empty() && Between(st.events.front().time, now) > r.window_s) {
      st.events.pop_front();
    }
    for (auto& [port, downs] : st.counter_downs) {
      while (!downs.empty() && Between(downs.front().first, now) > r.window_s) downs.pop_front();
    }
  };
  if (o.kind == Observation::Kind::kEvent) {
    st.events.push_back({o.time, o.ports.empty() ? "" : o.ports.front(), o.event_id, o.source,
                         ObservationToJson(o)});
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
  double downs = std::max(static_cast<double>(st.events.size()), from_counters);
  if (st.active || downs < r.count) return;
  st.active = true;  // until the link is quiet for a whole window
  Finding f = MakeFinding(r, s, o.time);
  f.reason = std::to_string(static_cast<long long>(downs)) + " link-down transitions within " +
             FormatDuration(r.window_s);
  for (const auto& e : st.events) f.evidence["observations"].push_back(e.json);
  if (from_counters > 0) {
    f.evidence["counter_downs"] = from_counters;
    f.evidence["observations"].push_back(ObservationToJson(o));
  }
  st.events.clear();
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
    std::string key = Key(r->name, port);
    CounterState& st = counters_[key];
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
      if (m < r->condition.clear_below) st.active = false;
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
  f.cable_serial = s.cable_serial;
  f.switches = s.switches;
  f.hosts = s.hosts;
  f.time = t;
  f.rules_hash = rules_->hash;
  f.evidence = {{"observations", nlohmann::json::array()},
                {"rule", {{"name", r.name}, {"file", r.file}, {"line", r.line}}},
                {"rules_hash", rules_->hash}};
  nlohmann::json threshold{{"scope", RuleScopeName(r.scope)}};
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
  // The switches and hosts the finding's observations named, and what the inventory says now.
  Subjects s;
  s.switches = f.switches;
  s.hosts = f.hosts;
  if (!f.ports.empty()) {
    Observation probe;
    probe.ports = f.ports;
    Subjects now = Resolve(probe);
    s.switches.insert(now.switches.begin(), now.switches.end());
    s.hosts.insert(now.hosts.begin(), now.hosts.end());
  }
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
  for (const auto& [k, n] : s.switches) {
    if (auto why = check("switch:" + k, "switch"); !why.empty()) return why;
  }
  for (const auto& [k, n] : s.hosts) {
    if (auto why = check("node:" + k, "node"); !why.empty()) return why;
  }
  return "";
}

void RuleEngine::Tick(TimePoint now, std::vector<Finding>* out) {
  for (auto it = events_.begin(); it != events_.end();) {
    auto r = by_name_.find(RuleOf(it->first));
    if (r == by_name_.end()) {
      it = events_.erase(it);
      continue;
    }
    const Rule& rule = *r->second;
    EventState& st = it->second;
    while (!st.window.empty() && Between(st.window.front().time, now) > rule.window_s) {
      st.window.pop_front();
    }
    // An active switch/node finding without a clear event ends once its events stop.
    bool quiet = st.active && !rule.clear &&
                 Between(st.last_match, now) > std::max({rule.window_s, rule.inhibit_for_s, 60.0});
    if (quiet) st.active = false;
    it = (!st.active && st.window.empty()) ? events_.erase(it) : std::next(it);
  }
  for (auto it = flaps_.begin(); it != flaps_.end();) {
    auto r = by_name_.find(RuleOf(it->first));
    double window = r == by_name_.end() ? 0 : r->second->window_s;
    FlapState& st = it->second;
    if (st.active && Between(st.last_down, now) > window) st.active = false;
    while (!st.events.empty() && Between(st.events.front().time, now) > window)
      st.events.pop_front();
    bool empty = st.events.empty();
    for (auto& [port, downs] : st.counter_downs) {
      while (!downs.empty() && Between(downs.front().first, now) > window) downs.pop_front();
      empty = empty && downs.empty();
    }
    it = (!st.active && empty) ? flaps_.erase(it) : std::next(it);
  }
  for (auto it = counters_.begin(); it != counters_.end();) {
    auto r = by_name_.find(RuleOf(it->first));
    if (r == by_name_.end()) {
      it = counters_.erase(it);
      continue;
    }
    CounterState& st = it->second;
    double interval = st.samples.empty() ? 0.0 : st.samples.back().second.interval_s;
    // The next sample is due about one interval after the last: until it is late, a quiet
    // window is only the gap between samples, not a clean link.
    if (!st.samples.empty() && Between(st.samples.back().first, now) < interval * 1.5) {
      ++it;
      continue;
    }
    double window = std::max(r->second->window_s, interval);
    while (!st.samples.empty() && Between(st.samples.front().first, now) >= window) {
      st.samples.pop_front();
    }
    if (Measure(*r->second, st, now) < r->second->condition.clear_below) {
      st.active = false;
      if (st.samples.empty()) st.above_since.reset();
    }
    it = (st.samples.empty() && !st.active) ? counters_.erase(it) : std::next(it);
  }
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.fire_at > now) {
      ++it;
      continue;
    }
    auto r = by_name_.find(it->second.rule);
    if (r != by_name_.end()) {
      Finding f = std::move(it->second.finding);
      f.time = it->second.fire_at;
      // `seen` holds the window that started the hold, then every match since: the evidence.
      f.evidence["observations"] = nlohmann::json::array();
      for (const auto& s : it->second.seen) {
        if (f.evidence["observations"].size() >= kMaxEvidence) break;
        f.evidence["observations"].push_back(s.json);
      }
      // It fired: active until its clear event, so the episode is one finding.
      EventState& st = events_[it->first];
      st.active = true;
      st.last_match = f.time;
      Emit(*r->second, std::move(f), out);
    }
    it = pending_.erase(it);
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

const Rule* RuleEngine::BreaksSoak(const Observation& o) const {
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
  auto drop = [&](auto& map) {
    for (auto it = map.begin(); it != map.end();) {
      it = names.count(EntityOf(it->first)) ? map.erase(it) : std::next(it);
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
    if (s.event_id <= 0 || s.source != source) return;
    if (!oldest || s.event_id < *oldest) oldest = s.event_id;
  };
  for (const auto& [key, st] : events_) {
    for (const auto& s : st.window) consider(s);
  }
  for (const auto& [key, p] : pending_) {
    for (const auto& s : p.seen) consider(s);
  }
  for (const auto& [key, st] : flaps_) {
    for (const auto& s : st.events) consider(s);
  }
  return oldest;
}

void RuleEngine::AdoptState(RuleEngine&& old) {
  auto same_kind = [&](const std::string& key) {
    auto now = by_name_.find(RuleOf(key));
    auto was = old.by_name_.find(RuleOf(key));
    return now != by_name_.end() && was != old.by_name_.end() &&
           now->second->kind == was->second->kind && now->second->scope == was->second->scope;
  };
  auto take = [&](auto& from, auto& to) {
    for (auto& [key, value] : from) {
      if (same_kind(key)) to.emplace(key, std::move(value));
    }
  };
  take(old.events_, events_);
  take(old.pending_, pending_);
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
