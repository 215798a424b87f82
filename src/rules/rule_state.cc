#include "rules/rule_state.h"

#include "rules/subject_resolver.h"

namespace ufmr {

std::string LinkKey(const std::vector<std::string>& ports) {
  // A link event names its two ends, a port event one: those are built without a sorted copy.
  if (ports.size() == 1) return ports.front();
  if (ports.size() == 2) {
    const std::string& a = std::min(ports[0], ports[1]);
    const std::string& b = std::max(ports[0], ports[1]);
    if (a == b || a.empty()) return b;
    std::string key;
    key.reserve(a.size() + 1 + b.size());
    return key.append(a).append(1, '|').append(b);
  }
  std::vector<std::string> sorted = ports;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string key;
  for (const auto& p : sorted) key += (key.empty() ? "" : "|") + p;
  return key;
}

RuleMapping MapRules(const RuleSet& old_rules, const RulesByName& new_rules) {
  RuleMapping mapping(old_rules.rules.size(), nullptr);
  for (size_t i = 0; i < old_rules.rules.size(); ++i) {
    const Rule& was = old_rules.rules[i];
    auto now = new_rules.find(was.name);
    if (now != new_rules.end() && ConditionSignature(*now->second) == ConditionSignature(was)) {
      mapping[i] = now->second;
    }
  }
  return mapping;
}

nlohmann::json EvidenceJson(const Finding& f) {
  nlohmann::json evidence = f.evidence;
  if (f.observed.empty()) return evidence;
  if (!evidence.is_object()) evidence = nlohmann::json::object();
  auto& list = evidence["observations"];
  if (!list.is_array()) list = nlohmann::json::array();
  auto& items = list.get_ref<nlohmann::json::array_t&>();
  items.reserve(items.size() + f.observed.size());
  for (const auto& o : f.observed) items.push_back(ObservationToJson(*o));
  return evidence;
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
    if (o.reread) m.emplace("reread", true);  // read again after a restart (act/decided_once.h)
  } else {
    m.emplace("counter", o.counter);
    m.emplace("delta", o.delta);
    m.emplace("interval_s", o.interval_s);
    m.emplace("value", o.value);
  }
  return j;
}

nlohmann::json RuleThreshold(const Rule& r) {
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
  return threshold;
}

Finding MakeFinding(const Rule& r, const ObservationSubjects& s, TimePoint t,
                    const std::string& rules_hash, bool lean,
                    std::shared_ptr<const nlohmann::json> threshold) {
  Finding f;
  f.rule = r.name;
  f.action = r.action;
  f.mode = r.mode;
  f.scope = r.scope;
  f.severity = r.severity;
  // The rule's parsed templates are shared, not copied as text.
  f.title_template = r.title_template;
  f.hint_template = r.hint_template;
  if (!f.title_template) f.title = r.title;
  if (!f.hint_template) f.repair_hint = r.repair_hint;
  f.ports = s.ends;
  f.link_key = s.link_key;
  f.switches = s.switches;
  f.hosts = s.hosts;
  f.time = t;
  f.rules_hash = rules_hash;
  f.threshold =
      threshold ? std::move(threshold) : std::make_shared<const nlohmann::json>(RuleThreshold(r));
  f.evidence = nlohmann::json(nlohmann::json::value_t::object);
  if (lean) return f;
  auto& evidence = f.evidence.get_ref<nlohmann::json::object_t&>();
  evidence.emplace("observations", nlohmann::json::value_t::array);
  nlohmann::json rule(nlohmann::json::value_t::object);
  rule["name"] = r.name;
  rule["file"] = r.file;
  rule["line"] = r.line;
  evidence.emplace("rule", std::move(rule));
  evidence.emplace("rules_hash", rules_hash);
  f.evidence["threshold"] = *f.threshold;
  return f;
}

}  // namespace ufmr
