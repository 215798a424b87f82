#include "rules/event_rules.h"

#include <algorithm>

#include "base/duration.h"

namespace ufmr {

namespace {

// The finding of an event rule on `entity`, with the observations `seen` as its evidence.
Finding EventFinding(const Rule& r, const ObservationSubjects& s, const std::string& entity,
                     const std::string& name, std::string reason, TimePoint t,
                     const std::vector<SeenObservation>& seen, const FindingSink& sink) {
  Finding f = MakeFinding(r, s, t, sink.rules_hash(), !sink.observations(), sink.threshold(r));
  if (r.wide_scope()) {
    f.ports.clear();
    f.link_key = entity;
    (r.scope == RuleScope::kSwitch ? f.switch_name : f.node_name) = name;
  }
  f.reason = std::move(reason);
  for (auto it = seen.rbegin(); it != seen.rend() && f.cable_serial.empty(); ++it) {
    f.cable_serial = it->obs->cable_serial;  // the newest event that names it
  }
  if (!sink.observations()) return f;
  f.observed.reserve(std::min(seen.size(), kMaxFindingEvidence));
  for (const auto& w : seen) {
    if (f.observed.size() >= kMaxFindingEvidence) break;
    f.observed.push_back(w.obs);
  }
  return f;
}

// Why a rule matched: the count it reached in its window, or the event's name.
std::string MatchReason(const Rule& r, const Observation& o, int have) {
  if (r.count > 1) {
    return std::to_string(have) +
           (r.wide_scope() ? " ports with matching events within " : " matching events within ") +
           FormatDuration(r.window_s);
  }
  return o.name.empty() ? "event " + std::to_string(o.event_type) : o.name;
}

// Whether each match of the rule is a finding of its own that leaves nothing behind: one event
// is enough, nothing holds it, and nothing keeps it active or inhibits with it.
bool FiresAtOnce(const Rule& r) {
  return r.count <= 1 && r.for_s <= 0 && !r.clear && !r.wide_scope() && r.inhibits.empty();
}

// How long an active switch or node episode without a clear event lasts after its last match.
double QuietAfter(const Rule& r) { return std::max({r.window_s, r.inhibit_for_s, 60.0}); }

// Calls `one` for each scope entity of rule `r` the event names.
template <typename Fn>
void ForEachEntity(const Rule& r, EventView& view, Fn one) {
  const ObservationSubjects& s = view.subjects();
  switch (r.scope) {
    case RuleScope::kPort:
      for (const auto& p : view.obs().ports) one(p, p, p);
      break;
    case RuleScope::kLink:
      if (!s.link_key.empty()) one(s.link_key, s.link_key, s.link_key);
      break;
    case RuleScope::kSwitch:
      for (const auto& e : s.switch_entities()) one(e.key, e.name, e.port);
      break;
    case RuleScope::kNode:
      for (const auto& e : s.host_entities()) one(e.key, e.name, e.port);
      break;
  }
}

}  // namespace

// --- EventView -------------------------------------------------------------------------------

bool EventView::Matches(const EventMatch& m) {
  if (!m.event_ids.empty() && !m.event_ids.count(o_.event_type)) return false;
  if (!m.severities.empty() && !m.severities.count(Word(o_.severity, &severity_))) return false;
  if (!m.names.empty() && !m.names.count(Word(o_.name, &name_))) return false;
  if (!m.categories.empty() && !m.categories.count(Word(o_.category, &category_))) return false;
  if (!m.object_types.empty() && !m.object_types.count(Word(o_.object_type, &object_type_))) {
    return false;
  }
  if (m.description && !MatchesDescription(m)) return false;
  if (m.object && !RE2::PartialMatch(o_.object_name, *m.object)) return false;
  auto any = [](const std::map<std::string, std::string>& names, const RE2& re) {
    for (const auto& [key, name] : names) {
      if (RE2::PartialMatch(name, re)) return true;
    }
    return false;
  };
  if (m.switch_name && !any(subjects().switches, *m.switch_name)) return false;
  if (m.host_name && !any(subjects().hosts, *m.host_name)) return false;
  return true;
}

bool EventView::MatchesDescription(const EventMatch& m) {
  if (m.description_set_index < 0 || !rules_.descriptions) {
    return RE2::PartialMatch(o_.description, *m.description);
  }
  // Every description pattern of the rule set in one pass, once per event.
  if (!hits_done_) {
    rules_.descriptions->Match(o_.description, &hits_);
    std::sort(hits_.begin(), hits_.end());
    hits_done_ = true;
  }
  return std::binary_search(hits_.begin(), hits_.end(), m.description_set_index);
}

const std::string& EventView::Word(const std::string& raw, std::optional<std::string>* cache) {
  if (!*cache) *cache = NormalizeMatchWord(raw);
  return **cache;
}

const std::shared_ptr<const ObservationSubjects>& EventView::shared_subjects() {
  if (!subjects_) subjects_ = resolver_.ResolveCached(o_);
  return subjects_;
}

const std::shared_ptr<const Observation>& EventView::shared() {
  if (!shared_) shared_ = std::make_shared<const Observation>(o_);
  return shared_;
}

// --- matching and clearing -------------------------------------------------------------------

void EventRules::Clear(const Rule& r, EventView& view, Inhibitors* inhibitors) {
  ForEachEntity(r, view,
                [&](const std::string& entity, const std::string& name, const std::string&) {
                  held_.Cancel(r, entity);
                  auto& states = events_[r.index];
                  if (auto it = states.find(entity); it != states.end()) states.erase(it);
                  if (!r.inhibits.empty()) inhibitors->Extend(r, entity, name, view.obs().time);
                });
}

void EventRules::Match(const Rule& r, EventView& view, Inhibitors* inhibitors, FindingSink* sink) {
  ForEachEntity(r, view,
                [&](const std::string& key, const std::string& name, const std::string& port) {
                  MatchEntity(r, view, Entity{key, name, port}, inhibitors, sink);
                });
}

void EventRules::MatchEntity(const Rule& r, EventView& view, const Entity& e,
                             Inhibitors* inhibitors, FindingSink* sink) {
  const Observation& o = view.obs();
  auto& states = events_[r.index];
  // What Count and Fire would do for it, without a state made and dropped per match. Such a rule
  // leaves no state behind (a reload carries state over only to the same count, hold, clear and
  // scope); one found all the same is followed below.
  if (FiresAtOnce(r) && (states.empty() || states.count(e.key) == 0)) {
    // The finding is made from the event here and now. Without observations as evidence it is
    // read in place, not copied to be kept (a pointer that owns nothing, alive for this call).
    const std::vector<SeenObservation> seen{
        {o.time, std::hash<std::string>{}(e.port),
         sink->observations()
             ? view.shared()
             : std::shared_ptr<const Observation>(std::shared_ptr<const Observation>(), &o)}};
    sink->Emit(
        r,
        EventFinding(r, view.subjects(), e.key, e.name, MatchReason(r, o, 1), o.time, seen, *sink),
        &view.subjects());
    return;
  }
  auto slot = states.find(e.key);
  if (slot == states.end()) slot = states.emplace(e.key, EventState{}).first;
  EventState& st = slot->second;
  st.rule = &r;
  if (st.active) {
    // Already fired for this episode: a reboot keeps inhibiting while its events go on.
    st.last_match = o.time;
    if (!r.inhibits.empty()) inhibitors->Extend(r, e.key, e.name, o.time);
    Reschedule(e.key, &st);
    return;
  }
  if (held_.Join(r, e.key, {o.time, std::hash<std::string>{}(e.port), view.shared()})) {
    Reschedule(e.key, &st);
    return;
  }
  int have = Count(r, view, e, &st);
  if (have >= r.count) {
    // The state may be gone after it (a finding that is not active keeps none).
    Fire(r, view, e, have, &st, inhibitors, sink);
    return;
  }
  Reschedule(e.key, &st);
}

int EventRules::Count(const Rule& r, EventView& view, const Entity& e, EventState* st) {
  const TimePoint t = view.obs().time;
  st->window.push_back({t, std::hash<std::string>{}(e.port), view.shared()});
  st->last_match = t;
  while (!st->window.empty() && SecondsFrom(st->window.front().time, t) > r.window_s) {
    st->window.pop_front();
  }
  int have = static_cast<int>(st->window.size());
  if (r.wide_scope()) {
    std::vector<size_t> ports;
    ports.reserve(st->window.size());
    for (const auto& w : st->window) ports.push_back(w.port);
    std::sort(ports.begin(), ports.end());
    have = static_cast<int>(std::unique(ports.begin(), ports.end()) - ports.begin());
  }
  return have;
}

void EventRules::Fire(const Rule& r, EventView& view, const Entity& e, int have, EventState* st,
                      Inhibitors* inhibitors, FindingSink* sink) {
  const Observation& o = view.obs();
  std::string reason = MatchReason(r, o, have);
  std::vector<SeenObservation> seen(st->window.begin(), st->window.end());
  st->window.clear();
  // Rules with a clear event, and switch/node rules, stay active until cleared (or quiet).
  st->active = r.clear.has_value() || r.wide_scope();
  if (!r.inhibits.empty()) inhibitors->Extend(r, e.key, e.name, o.time);
  if (r.for_s > 0) {
    // Held: the finding is built only if the hold runs out (most holds end in a clear).
    held_.Hold({&r, view.shared_subjects(), e.key, e.name,
                reason + ", not cleared within " + FormatDuration(r.for_s),
                TimeAfter(o.time, r.for_s), std::move(seen)});
    st->active = false;  // a held finding is not active until it fires
    Reschedule(e.key, st);
    return;
  }
  Finding f =
      EventFinding(r, view.subjects(), e.key, e.name, std::move(reason), o.time, seen, *sink);
  if (st->active) {
    Reschedule(e.key, st);
  } else {
    events_[r.index].erase(e.key);
  }
  sink->Emit(r, std::move(f), &view.subjects());
}

void EventRules::FireHeld(TimePoint now, FindingSink* sink) {
  for (auto& h : held_.TakeDue(now)) {
    // `seen` holds the window that started the hold, then every match since: the evidence.
    Finding f = EventFinding(*h.rule, *h.subjects, h.entity, h.name, std::move(h.reason), h.fire_at,
                             h.seen, *sink);
    // It fired: active until its clear event, so the episode is one finding.
    EventState& st = events_[h.rule->index][h.entity];
    st.rule = h.rule;
    st.active = true;
    st.last_match = f.time;
    Reschedule(h.entity, &st);
    sink->Emit(*h.rule, std::move(f), h.subjects.get());
  }
}

// --- housekeeping ----------------------------------------------------------------------------

bool EventRules::Age(EventState* st, TimePoint now) {
  const Rule& rule = *st->rule;
  while (!st->window.empty() && SecondsFrom(st->window.front().time, now) > rule.window_s) {
    st->window.pop_front();
  }
  // An active switch/node finding without a clear event ends once its events stop.
  if (st->active && !rule.clear && SecondsFrom(st->last_match, now) > QuietAfter(rule)) {
    st->active = false;
  }
  return !st->active && st->window.empty();
}

std::optional<TimePoint> EventRules::NextLook(const EventState& st) {
  const Rule& rule = *st.rule;
  if (!st.active && st.window.empty()) return TimePoint{};  // at once: nothing is left
  std::optional<TimePoint> due;
  if (!st.window.empty()) due = TimeAfter(st.window.front().time, rule.window_s);
  if (st.active && !rule.clear) {
    TimePoint quiet = TimeAfter(st.last_match, QuietAfter(rule));
    if (!due || quiet < *due) due = quiet;
  }
  return due;
}

void EventRules::Sweep(TimePoint now) {
  LookAtDue(&expiry_, &events_, now, [&](const std::string& key, EventState& st) {
    if (Age(&st, now)) return true;
    Reschedule(key, &st);
    return false;
  });
}

void EventRules::Forget(const std::set<std::string>& entities) {
  ForgetEntities(&events_, entities);
  held_.Forget(entities);
}

void EventRules::ForgetOf(size_t rule, const std::set<std::string>& entities) {
  ForgetEntitiesOf(&events_, rule, entities);
  held_.ForgetOf(rule, entities);
}

void EventRules::Adopt(EventRules&& old, const RuleMapping& mapping) {
  AdoptPerRule(&old.events_, mapping, &events_);
  held_.Adopt(std::move(old.held_), mapping);
  RescheduleAll(&expiry_, &events_,
                [this](const std::string& key, EventState* st) { Reschedule(key, st); });
}

void EventRules::Visit(double max_window_s,
                       const std::function<void(const SeenObservation&)>& visit) const {
  for (const auto& states : events_) {
    for (const auto& [entity, st] : states) {
      if (!st.rule || st.rule->window_s > max_window_s) continue;
      for (const auto& s : st.window) visit(s);
    }
  }
  held_.Visit(visit);
}

}  // namespace ufmr
