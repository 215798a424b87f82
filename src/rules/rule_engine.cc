#include "rules/rule_engine.h"

#include <set>

namespace ufmr {

namespace {

// The sweep visits every entry: it runs at most this often, in the observations' time.
constexpr double kSweepS = 5;
// Only windows up to this long hold the persisted event cursor back (OldestEventInUse).
constexpr double kMaxCursorHoldS = 3600;
constexpr int kLinkDownEvent = 329;
constexpr const char* kLinkDownedCounter = "LinkDownedCounterExtended";

// Only rules that would take a link out judge its repair: shadow and record-only rules do not,
// and neither do switch- or node-level ones.
bool JudgesSoak(const Rule* r) {
  return r->mode == RuleMode::kEnforce && TakesPortOut(r->action) &&
         (r->scope == RuleScope::kPort || r->scope == RuleScope::kLink);
}

}  // namespace

RuleEngine::RuleEngine(std::shared_ptr<const RuleSet> rules, const Inventory* inventory)
    : rules_(std::move(rules)),
      resolver_(inventory),
      event_rules_(rules_->rules.size()),
      flapping_rules_(rules_->rules.size()),
      counter_rules_(rules_->rules.size()) {
  for (const auto& r : rules_->rules) {
    by_name_[r.name] = &r;
    thresholds_.push_back(std::make_shared<const nlohmann::json>(RuleThreshold(r)));
  }
}

RuleEngine::Subjects RuleEngine::Resolve(const Observation& o) const {
  return resolver_.Resolve(o);
}

std::shared_ptr<const RuleEngine::Subjects> RuleEngine::ResolveCached(const Observation& o) const {
  return resolver_.ResolveCached(o);
}

std::vector<std::string> RuleEngine::PortsOf(const Observation& o) const {
  return resolver_.PortsOf(o);
}

bool RuleEngine::Considers(const Observation& o) const {
  return o.kind != Observation::Kind::kEvent || o.event_type == kLinkDownEvent ||
         AnyEventRuleFor(o);
}

void RuleEngine::Observe(const Observation& o, std::vector<Finding>* out) {
  if (!Considers(o)) return;  // before its ports are looked up: most events are such
  if (o.ports.empty() && !o.port_refs.empty() && resolver_.has_inventory()) {
    // Event 702 and friends name ports as "<node>:<label>": find them, then go on as usual.
    Observation named = o;
    named.ports = PortsOf(o);
    if (!named.ports.empty()) return Observe(named, out);
  }
  if (o.kind == Observation::Kind::kEvent) {
    ObserveEvent(o, nullptr, out);
  } else {
    ObserveCounter(o, out);
  }
}

void RuleEngine::Observe(Observation&& o, std::vector<Finding>* out) {
  if (o.kind != Observation::Kind::kEvent || (o.ports.empty() && !o.port_refs.empty()) ||
      !AnyEventRuleFor(o)) {
    return Observe(static_cast<const Observation&>(o), out);
  }
  auto shared = std::make_shared<const Observation>(std::move(o));
  ObserveEvent(*shared, shared, out);
}

bool RuleEngine::AnyEventRuleFor(const Observation& o) const {
  return !rules_->any_event.empty() || rules_->by_event_id.count(o.event_type) > 0;
}

void RuleEngine::NoteLinkDown(const Observation& o, const std::vector<std::string>& ports) {
  if (o.event_type != kLinkDownEvent) return;
  for (const auto& p : ports) link_downs_.Note(p, o.time);
}

void RuleEngine::ObserveEvent(const Observation& o, std::shared_ptr<const Observation> shared,
                              std::vector<Finding>* out) {
  if (o.event_type == kLinkDownEvent) {
    for (const auto& p : o.ports) link_downs_.Note(p, o.time);
  }
  const auto& index = rules_->by_event_id;
  auto it = index.find(o.event_type);
  if (it == index.end() && rules_->any_event.empty()) return;  // the common case: no rule cares
  EventView view(*rules_, resolver_, o, std::move(shared));
  FindingSink sink = Sink(out);
  auto consider = [&](const Rule* r) {
    if (r->clear && view.Matches(*r->clear)) event_rules_.Clear(*r, view, &inhibitors_);
    if (!view.Matches(r->match)) return;
    if (r->kind == Rule::Kind::kFlapping) {
      flapping_rules_.CountDown(*r, o, view.subjects(), &sink,
                                sink.observations() ? view.shared() : nullptr);
    } else {
      event_rules_.Match(*r, view, &inhibitors_, &sink);
    }
  };
  if (it != index.end()) {
    for (const Rule* r : it->second) consider(r);
  }
  for (const Rule* r : rules_->any_event) consider(r);
}

void RuleEngine::ObserveCounter(const Observation& o, std::vector<Finding>* out) {
  if (o.ports.empty() || o.interval_s <= 0) return;
  if (o.counter == kLinkDownedCounter && o.delta > 0) link_downs_.Note(o.ports.front(), o.time);
  auto it = rules_->by_counter.find(o.counter);
  if (it == rules_->by_counter.end()) return;
  std::optional<Subjects> subjects;
  auto get_subjects = [&]() -> const Subjects& {
    if (!subjects) subjects = Resolve(o);
    return *subjects;
  };
  FindingSink sink = Sink(out);
  for (const Rule* r : it->second) {
    if (r->kind == Rule::Kind::kFlapping) {
      if (o.delta > 0) flapping_rules_.CountDown(*r, o, get_subjects(), &sink);
      continue;
    }
    counter_rules_.Observe(*r, o, link_downs_, get_subjects, &sink);
  }
}

void RuleEngine::Tick(TimePoint now, std::vector<Finding>* out) {
  // Ageing windows and ending quiet episodes is housekeeping: a few seconds late is harmless,
  // and the sweep visits every entry, so it runs at most every kSweepS of UFM time. Held
  // findings below are checked on every tick.
  if (now >= next_sweep_) {
    next_sweep_ = TimeAfter(now, kSweepS);
    Sweep(now);
  }
  FindingSink sink = Sink(out);
  event_rules_.FireHeld(now, &sink);
  // Last: a held finding that fired above is judged against the inhibitors of its own time.
  inhibitors_.Expire(now);
}

void RuleEngine::Sweep(TimePoint now) {
  event_rules_.Sweep(now);
  flapping_rules_.Sweep(now);
  counter_rules_.Sweep(now);
}

const Rule* RuleEngine::BreaksSoak(const Observation& o) {
  if (o.kind == Observation::Kind::kEvent) {
    EventView view(*rules_, resolver_, o);
    auto it = rules_->by_event_id.find(o.event_type);
    auto check = [&](const Rule* r) { return JudgesSoak(r) && view.Matches(r->match); };
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
    if (!JudgesSoak(r)) continue;
    if (r->kind == Rule::Kind::kFlapping) {
      if (o.delta > 0) return r;  // the link went down during the soak
      continue;
    }
    // A link that just came back up has no meaningful BER yet (the enable that starts the soak
    // is such a moment): the rule's own uptime requirement holds here too.
    if (r->min_link_uptime_s > 0 &&
        link_downs_.RecentlyDown(o.ports, o.time, r->min_link_uptime_s)) {
      continue;
    }
    if (CounterRules::BreaksClearLevel(*r, o)) return r;
  }
  return nullptr;
}

namespace {

// A link's key and each of its ends: what its state is kept under.
std::set<std::string> LinkNames(const std::string& link_key) {
  std::set<std::string> names{link_key};
  for (size_t start = 0; start <= link_key.size();) {
    size_t bar = link_key.find('|', start);
    names.insert(
        link_key.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return names;
}

}  // namespace

void RuleEngine::ForgetRule(const std::string& rule, const std::string& link_key) {
  auto it = by_name_.find(rule);
  if (it == by_name_.end()) return;
  const std::set<std::string> names = LinkNames(link_key);
  event_rules_.ForgetOf(it->second->index, names);
  flapping_rules_.ForgetOf(it->second->index, names);
}

void RuleEngine::Forget(const std::string& link_key) {
  const std::set<std::string> names = LinkNames(link_key);
  event_rules_.Forget(names);
  flapping_rules_.Forget(names);
  // Counter conditions keep their state: a rule that fired stays active until its measure falls
  // under the clear level, so a link that stays bad is one finding, not one per sample.
}

std::optional<int64_t> RuleEngine::OldestEventInUse(const std::string& source) const {
  std::optional<int64_t> oldest;
  auto consider = [&](const SeenObservation& s) {
    const int64_t id = s.obs ? s.obs->event_id : 0;
    if (id <= 0 || s.obs->source != source) return;
    if (!oldest || id < *oldest) oldest = id;
  };
  // Only short windows hold the cursor back: a day-long window (repeated_link_downs) would keep
  // it a day behind, and replaying a day of events after a restart would re-judge old faults.
  // Such windows start empty after a restart. A hold is short (`for`) and always counts.
  event_rules_.Visit(kMaxCursorHoldS, consider);
  flapping_rules_.Visit(kMaxCursorHoldS, consider);
  return oldest;
}

void RuleEngine::AdoptState(RuleEngine&& old) {
  // A rule that keeps its name and condition keeps its state (now under the new rule).
  const RuleMapping mapping = MapRules(*old.rules_, by_name_);
  event_rules_.Adopt(std::move(old.event_rules_), mapping);
  counter_rules_.Adopt(std::move(old.counter_rules_), mapping);
  flapping_rules_.Adopt(std::move(old.flapping_rules_), mapping);
  inhibitors_.Adopt(std::move(old.inhibitors_), by_name_);
  link_downs_ = std::move(old.link_downs_);
}

}  // namespace ufmr
