#include "core/rule_engine.h"

#include <algorithm>
#include <cstdio>

#include "core/duration.h"

namespace ufmr {

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
  } else {
    j["counter"] = o.counter;
    j["delta"] = o.delta;
    j["interval_s"] = o.interval_s;
    j["value"] = o.value;
  }
  return j;
}

RuleEngine::RuleEngine(std::shared_ptr<const RuleSet> rules, LinkResolver resolver)
    : rules_(std::move(rules)), resolver_(std::move(resolver)) {
  for (const auto& r : rules_->rules) by_name_[r.name] = &r;
}

std::optional<int64_t> RuleEngine::OldestEventInUse(const std::string& source) const {
  std::optional<int64_t> oldest;
  auto consider = [&oldest, &source](const nlohmann::json& o) {
    if (!o.contains("event_id") || o.value("source", "") != source) return;
    int64_t id = o["event_id"].get<int64_t>();
    if (!oldest || id < *oldest) oldest = id;
  };
  for (const auto& [key, window] : windows_) {
    for (const auto& [t, o] : window) consider(o);
  }
  for (const auto& [key, p] : pending_) {
    for (const auto& o : p.evidence["observations"]) consider(o);
  }
  return oldest;
}

bool RuleEngine::Matches(const Rule& r, const Observation& o) const {
  if (o.ports.empty()) return false;
  if (r.kind == Rule::Kind::kEvent) {
    if (o.kind != Observation::Kind::kEvent || !r.event_types.count(o.event_type)) return false;
    return !r.message || RE2::PartialMatch(o.description, *r.message);
  }
  if (o.kind != Observation::Kind::kCounter || o.counter != r.counter || o.interval_s <= 0) {
    return false;
  }
  if (r.value_above) return o.value > *r.value_above;
  return o.delta * r.per_s > r.rate_above * o.interval_s;  // rate > threshold, without division
}

std::vector<const Rule*> RuleEngine::Matching(const Observation& o) const {
  std::vector<const Rule*> out;
  for (const auto& r : rules_->rules) {
    if (Matches(r, o)) out.push_back(&r);
  }
  return out;
}

Finding RuleEngine::MakeFinding(const Rule& r, const std::vector<std::string>& ends, TimePoint t,
                                nlohmann::json evidence) const {
  Finding f;
  f.rule = r.name;
  f.action = r.action;
  f.ports = ends;
  f.link_key = LinkKey(ends);
  f.time = t;
  std::string detail;
  if (r.kind == Rule::Kind::kCounter && r.value_above) {
    char buf[96];
    std::snprintf(buf, sizeof(buf), " at %.3g, threshold %.3g",
                  evidence["observations"].back().value("value", 0.0), *r.value_above);
    detail = r.counter + buf;
  } else if (r.kind == Rule::Kind::kCounter) {
    const auto& o = evidence["observations"].back();
    double rate = o["delta"].get<double>() / o["interval_s"].get<double>() * r.per_s;
    detail = r.counter + " at " + std::to_string(static_cast<long long>(rate)) + " per " +
             FormatDuration(r.per_s) + ", threshold " +
             std::to_string(static_cast<long long>(r.rate_above));
  } else if (r.count > 1) {
    detail = std::to_string(r.count) + " matching events within " + FormatDuration(r.window_s);
  } else {
    detail = evidence["observations"].back().value("name", r.name);
    if (r.hold_s > 0) detail += ", not cleared within " + FormatDuration(r.hold_s);
  }
  f.reason = r.description.empty() ? detail : r.description + " (" + detail + ")";
  evidence["rule"] = {{"name", r.name}, {"file", r.file}, {"line", r.line}};
  evidence["rules_hash"] = rules_->hash;
  if (r.kind == Rule::Kind::kCounter) {
    evidence["threshold"] = {
        {"counter", r.counter}, {"rate_above", r.rate_above}, {"per_s", r.per_s}};
    if (r.value_above)
      evidence["threshold"] = {{"counter", r.counter}, {"value_above", *r.value_above}};
  } else {
    evidence["threshold"] = {{"count", r.count}, {"window_s", r.window_s}, {"hold_s", r.hold_s}};
  }
  f.evidence = std::move(evidence);
  return f;
}

std::vector<Finding> RuleEngine::Observe(const Observation& o) {
  std::vector<Finding> out;
  if (o.ports.empty()) return out;
  std::vector<std::string> ends = resolver_ ? resolver_(o.ports) : o.ports;
  if (ends.empty()) ends = o.ports;
  std::string link = LinkKey(ends);

  if (o.kind == Observation::Kind::kEvent) {
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (it->first.second == link && it->second.rule->clear_event_types.count(o.event_type)) {
        windows_.erase(it->first);
        it = pending_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& r : rules_->rules) {
    if (!Matches(r, o)) continue;
    auto key = std::make_pair(r.name, link);
    if (pending_.count(key)) continue;  // already waiting out its hold
    auto& window = windows_[key];
    window.emplace_back(o.time, ObservationToJson(o));
    if (r.count > 1) {
      while (!window.empty() &&
             std::chrono::duration<double>(o.time - window.front().first).count() > r.window_s) {
        window.pop_front();
      }
    }
    if (static_cast<int>(window.size()) < r.count) continue;
    nlohmann::json evidence{{"observations", nlohmann::json::array()}};
    for (auto& [t, j] : window) evidence["observations"].push_back(std::move(j));
    windows_.erase(key);
    if (r.hold_s > 0) {
      auto fire_at = o.time + std::chrono::duration_cast<TimePoint::duration>(Seconds(r.hold_s));
      pending_[key] = Pending{&r, ends, fire_at, std::move(evidence)};
    } else {
      out.push_back(MakeFinding(r, ends, o.time, std::move(evidence)));
    }
  }
  return out;
}

std::vector<Finding> RuleEngine::Tick(TimePoint now) {
  std::vector<Finding> out;
  // Forget counted observations that have left their rule's window.
  for (auto it = windows_.begin(); it != windows_.end();) {
    auto rule = by_name_.find(it->first.first);
    double window_s = rule == by_name_.end() ? 0 : rule->second->window_s;
    auto& w = it->second;
    while (!w.empty() && std::chrono::duration<double>(now - w.front().first).count() > window_s) {
      w.pop_front();
    }
    it = w.empty() ? windows_.erase(it) : std::next(it);
  }
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.fire_at <= now) {
      out.push_back(
          MakeFinding(*it->second.rule, it->second.ends, now, std::move(it->second.evidence)));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

void RuleEngine::Forget(const std::string& link_key) {
  for (auto it = windows_.begin(); it != windows_.end();) {
    it = it->first.second == link_key ? windows_.erase(it) : std::next(it);
  }
  for (auto it = pending_.begin(); it != pending_.end();) {
    it = it->first.second == link_key ? pending_.erase(it) : std::next(it);
  }
}

}  // namespace ufmr
