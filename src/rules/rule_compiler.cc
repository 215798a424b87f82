#include "rules/rule_compiler.h"

#include <algorithm>
#include <cmath>

#include "catalog/event_types.h"
#include "catalog/telemetry_fields.h"
#include "config/telemetry_columns.h"
#include "telemetry/telemetry_snapshot.h"

namespace ufmr {

namespace {

// While a list or macro expands, diagnostics name the file that defines it.
class InFile {
 public:
  InFile(FieldReader* reader, const std::string& file)
      : reader_(reader), file_(reader->file()), text_(reader->text()) {
    reader_->SetFile(file);
  }
  ~InFile() { reader_->SetFile(file_, text_); }
  InFile(const InFile&) = delete;
  InFile& operator=(const InFile&) = delete;

 private:
  FieldReader* reader_;
  std::string file_;
  const std::string* text_;
};

}  // namespace

void RuleCompiler::Compile(const RuleSource& source, std::vector<Rule>* rules) {
  if (!source.parsed || source.doc.IsNull() || !source.doc.IsMap()) return;
  reader_.SetFile(source.name, &source.text);
  YAML::Node list = source.doc["rules"];
  if (!list || !list.IsSequence()) return;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string path = "rules[" + std::to_string(i) + "]";
    try {
      CompileRule(list[i], path, rules);
    } catch (const YAML::Exception& e) {
      reader_.Error(list[i], path, "bad-rule", e.what());
    }
  }
}

void RuleCompiler::CheckInhibits(const std::vector<Rule>& rules) {
  std::set<std::string> names;
  for (const auto& r : rules) names.insert(r.name);
  for (const auto& [rule, refs] : inhibit_refs_) {
    for (const auto& [name, where] : refs) {
      if (names.count(name) || disabled_.count(name)) continue;
      Diagnostic d = where;
      d.code = "unknown-rule";
      d.message = "rule '" + rule + "' inhibits '" + name + "', which no rules file defines";
      diagnostics_->push_back(std::move(d));
    }
  }
}

void RuleCompiler::CheckDuplicateNames(const std::vector<Rule>& rules) {
  std::map<std::string, const Rule*> seen;
  for (const auto& r : rules) {
    auto [it, inserted] = seen.emplace(r.name, &r);
    if (inserted) continue;
    Diagnostic d;
    d.file = r.file;
    d.line = r.line;
    d.column = 1;
    d.code = "duplicate-name";
    d.message = "rule '" + r.name + "' is also defined at " + it->second->file + ":" +
                std::to_string(it->second->line);
    diagnostics_->push_back(std::move(d));
  }
}

// --- one rule --------------------------------------------------------------------------------

void RuleCompiler::CompileRule(const YAML::Node& node, const std::string& path,
                               std::vector<Rule>* out) {
  if (!node.IsMap()) {
    reader_.Error(node, path, "bad-rule",
                  "a rule is a mapping with name, match (or counter) and action");
    return;
  }
  int before = reader_.errors();
  reader_.CheckKeys(node, path,
                    {"name",   "description", "enabled", "scope",           "match",    "count",
                     "window", "for",         "clear",   "flapping",        "counter",  "delta",
                     "rate",   "ber",         "value",   "min_link_uptime", "inhibits", "action",
                     "mode",   "severity",    "title",   "repair_hint",     "soak"});
  Rule r;
  r.file = reader_.file();
  r.line = node.Mark().line + 1;
  bool switched_off = false;
  if (!CompileEnabled(node, path, &switched_off)) return;
  CompileName(node, path, &r);
  if (node["description"]) r.description = node["description"].as<std::string>("");
  CompileOutcome(node, path, &r);
  if (!CompileCondition(node, path, &r)) return;
  if (node["inhibits"]) CompileInhibits(node["inhibits"], path + ".inhibits", &r);
  if (reader_.errors() == before && !switched_off) out->push_back(std::move(r));
}

bool RuleCompiler::CompileEnabled(const YAML::Node& node, const std::string& path,
                                  bool* switched_off) {
  if (!node["enabled"]) return true;
  bool enabled = true;
  try {
    enabled = node["enabled"].as<bool>();
  } catch (const YAML::Exception&) {
    reader_.Error(node["enabled"], path + ".enabled", "bad-bool", "enabled must be true or false");
    return false;
  }
  if (!enabled) {
    // Still defined (another rule's inhibits may name it) and still checked, so switching it
    // back on cannot bring in a mistake; it just does not load.
    if (node["name"] && node["name"].IsScalar()) disabled_.insert(node["name"].Scalar());
    *switched_off = true;
  }
  return true;
}

void RuleCompiler::CompileName(const YAML::Node& node, const std::string& path, Rule* r) {
  if (!node["name"] || !node["name"].IsScalar() || node["name"].Scalar().empty()) {
    reader_.Error(node["name"] ? node["name"] : node, path + ".name", "missing-name",
                  "every rule needs a name");
    return;
  }
  r->name = node["name"].Scalar();
  if (!RE2::FullMatch(r->name, "[A-Za-z0-9_.:-]+")) {
    reader_.Error(node["name"], path + ".name", "bad-name",
                  "a rule name uses letters, digits and _ . : - only");
  }
}

void RuleCompiler::CompileOutcome(const YAML::Node& node, const std::string& path, Rule* r) {
  std::string word;
  if (node["scope"] &&
      reader_.Word(node["scope"], path + ".scope", {"port", "link", "switch", "node"}, &word)) {
    r->scope = word == "port"     ? RuleScope::kPort
               : word == "switch" ? RuleScope::kSwitch
               : word == "node"   ? RuleScope::kNode
                                  : RuleScope::kLink;
  }
  if (!node["action"]) {
    reader_.Error(node, path + ".action", "missing-action",
                  "every rule names its action: disable_port, isolate_port, "
                  "drain_then_disable, ticket_only or log_only");
  } else if (reader_.Word(
                 node["action"], path + ".action",
                 {"disable_port", "isolate_port", "drain_then_disable", "ticket_only", "log_only"},
                 &word)) {
    r->action = word == "disable_port"         ? RuleAction::kDisablePort
                : word == "isolate_port"       ? RuleAction::kIsolatePort
                : word == "drain_then_disable" ? RuleAction::kDrainThenDisable
                : word == "ticket_only"        ? RuleAction::kTicketOnly
                                               : RuleAction::kLogOnly;
  }
  if (node["mode"] && reader_.Word(node["mode"], path + ".mode", {"enforce", "shadow"}, &word)) {
    r->mode = word == "shadow" ? RuleMode::kShadow : RuleMode::kEnforce;
  }
  if (node["severity"]) {
    reader_.Word(node["severity"], path + ".severity",
                 {"critical", "major", "minor", "warning", "info"}, &r->severity);
  }
  if (node["title"]) reader_.Template(node["title"], path + ".title", &r->title);
  if (node["repair_hint"]) {
    reader_.Template(node["repair_hint"], path + ".repair_hint", &r->repair_hint);
  }
  if (!r->title.empty()) {
    r->title_template = std::make_shared<const MessageTemplate>(MessageTemplate::Parse(r->title));
  }
  if (!r->repair_hint.empty()) {
    r->hint_template =
        std::make_shared<const MessageTemplate>(MessageTemplate::Parse(r->repair_hint));
  }
  bool acts = TakesPortOut(r->action);
  if (node["soak"]) reader_.Duration(node["soak"], path + ".soak", &r->soak_s);
  if (acts && r->wide_scope()) {
    reader_.Error(node["action"], path + ".action", "bad-action",
                  "a switch- or node-scoped rule cannot act on one port: use ticket_only or "
                  "log_only");
  }
}

bool RuleCompiler::CompileCondition(const YAML::Node& node, const std::string& path, Rule* r) {
  int measures = 0;
  for (const char* k : {"delta", "rate", "ber", "value"}) measures += node[k] ? 1 : 0;
  bool is_counter = node["counter"] || measures > 0;
  bool is_flapping = static_cast<bool>(node["flapping"]);
  bool is_event = static_cast<bool>(node["match"]);
  if (is_counter + is_flapping > 1 || (is_counter && is_event)) {
    reader_.Error(node, path, "ambiguous-condition",
                  "a rule is one of: an event rule (match), a flapping rule (flapping) or a "
                  "counter rule (counter with delta, rate, ber or value)");
    return false;
  }
  if (!is_counter && !is_flapping && !is_event) {
    reader_.Error(node, path, "missing-condition",
                  "a rule needs 'match' (events), 'flapping' or 'counter' (telemetry)");
    return false;
  }
  if (node["for"]) reader_.Duration(node["for"], path + ".for", &r->for_s);
  if (node["window"]) reader_.Duration(node["window"], path + ".window", &r->window_s);
  if (is_counter) {
    CompileCounter(node, path, r, measures);
  } else {
    CompileEventRule(node, path, r, is_event, is_flapping);
  }
  return true;
}

// --- event and flapping rules ----------------------------------------------------------------

void RuleCompiler::CompileEventRule(const YAML::Node& node, const std::string& path, Rule* r,
                                    bool is_event, bool is_flapping) {
  r->kind = is_flapping ? Rule::Kind::kFlapping : Rule::Kind::kEvent;
  if (is_event) r->match = Match(node["match"], path + ".match");
  if (is_flapping) CompileFlapping(node, path, r);
  if (is_event && node["count"]) CompileEventCount(node, path, r);
  if (r->kind == Rule::Kind::kEvent && r->count > 1 && r->window_s <= 0) {
    reader_.Error(node["count"], path + ".window", "missing-window",
                  "count > 1 needs a window, e.g. window: 10m");
  }
  if (node["clear"]) CompileEventClear(node, path, r);
  if (r->kind == Rule::Kind::kEvent && r->for_s > 0 && !r->clear) {
    reader_.Error(node["for"], path + ".clear", "missing-clear",
                  "'for' on an event rule needs 'clear': the event that cancels the held finding");
  }
  if (node["min_link_uptime"]) {
    reader_.Error(node["min_link_uptime"], path + ".min_link_uptime", "not-for-events",
                  "min_link_uptime applies to counter rules");
  }
}

void RuleCompiler::CompileEventCount(const YAML::Node& node, const std::string& path, Rule* r) {
  double c = 0;
  if (!reader_.Number(node["count"], path + ".count", &c)) return;
  if (!(c >= 1 && c <= 1'000'000) || c != std::floor(c)) {
    reader_.Error(node["count"], path + ".count", "bad-count",
                  "count must be a whole number from 1 to 1000000");
  } else {
    r->count = static_cast<int>(c);
  }
}

void RuleCompiler::CompileEventClear(const YAML::Node& node, const std::string& path, Rule* r) {
  if (r->kind != Rule::Kind::kEvent) {
    reader_.Error(node["clear"], path + ".clear", "bad-clear",
                  "clear applies to event and counter rules; a flapping rule clears by its window");
  } else {
    r->clear = Match(node["clear"], path + ".clear");
  }
}

void RuleCompiler::CompileFlapping(const YAML::Node& node, const std::string& path, Rule* r) {
  YAML::Node f = node["flapping"];
  std::string p = path + ".flapping";
  if (!f.IsMap()) {
    reader_.Error(f, p, "bad-condition", "flapping is a mapping: {downs: 3, within: 10m}");
    return;
  }
  reader_.CheckKeys(f, p, {"downs", "within"});
  double downs = 0;
  if (!f["downs"] || !reader_.Number(f["downs"], p + ".downs", &downs) || downs < 2 ||
      downs > 1'000'000 || downs != std::floor(downs)) {
    reader_.Error(f["downs"] ? f["downs"] : f, p + ".downs", "bad-count",
                  "downs must be a whole number from 2 to 1000000");
  } else {
    r->count = static_cast<int>(downs);
  }
  if (!f["within"]) {
    reader_.Error(f, p + ".within", "missing-window", "flapping needs within: (e.g. 10m)");
  } else {
    reader_.Duration(f["within"], p + ".within", &r->window_s);
  }
  if (!node["match"]) r->match.event_ids = {329};  // "Link went down"
  if (r->wide_scope()) {
    reader_.Error(node["scope"], path + ".scope", "bad-scope",
                  "a flapping rule is scoped to a port or link");
  }
  if (node["count"]) {
    reader_.Error(node["count"], path + ".count", "not-for-flapping", "use flapping.downs");
  }
  for (const char* k : {"window", "for"}) {
    if (node[k]) {
      reader_.Error(
          node[k], path + "." + k, "not-for-flapping",
          std::string(k) + " does not apply to a flapping rule: flapping.within is its window");
    }
  }
}

// --- counter rules ---------------------------------------------------------------------------

void RuleCompiler::CompileCounter(const YAML::Node& node, const std::string& path, Rule* r,
                                  int measures) {
  r->kind = Rule::Kind::kCounter;
  if (!node["counter"] || !node["counter"].IsScalar() || node["counter"].Scalar().empty()) {
    // A ber condition without a counter judges the derived SymbolBER (set below).
    if (node["counter"] || !node["ber"]) {
      reader_.Error(node["counter"] ? node["counter"] : node, path + ".counter", "missing-counter",
                    "a counter rule names its counter, e.g. counter: SymbolErrorCounterExtended");
    }
  } else {
    r->counter = node["counter"].Scalar();
    if (r->counter != "SymbolBER" && ClassifyColumn(r->counter) != ColumnRole::kCounter) {
      reader_.Warn(node["counter"], path + ".counter", "untracked-counter",
                   "'" + r->counter +
                       "' is a level or identifier column, not a cumulative counter the "
                       "telemetry intake tracks: this rule will never fire");
    } else if (r->counter != "SymbolBER") {
      WarnUnknownCounter(node["counter"], path + ".counter", r->counter);
    }
  }
  if (measures != 1) {
    reader_.Error(node, path, measures ? "ambiguous-condition" : "missing-condition",
                  "a counter rule has exactly one of: delta, rate, ber, value (each {above: N})");
    return;
  }
  if (!CompileMeasure(node, path, r)) return;
  r->condition.clear_below = r->condition.above;
  CompileCounterClear(node, path, r);
  if (node["min_link_uptime"]) {
    reader_.Duration(node["min_link_uptime"], path + ".min_link_uptime", &r->min_link_uptime_s);
  }
  if (node["count"] || node["match"]) {
    reader_.Error(node["count"] ? node["count"] : node["match"], path, "not-for-counter",
                  "count and match apply to event rules");
  }
  if (r->wide_scope()) {
    reader_.Error(node["scope"], path + ".scope", "bad-scope",
                  "a counter rule is scoped to a port or link");
  }
}

bool RuleCompiler::CompileMeasure(const YAML::Node& node, const std::string& path, Rule* r) {
  for (const char* k : {"delta", "rate", "ber", "value"}) {
    YAML::Node c = node[k];
    if (!c) continue;
    std::string p = path + "." + k;
    std::string m = k;
    r->condition.measure = m == "delta"  ? CounterCondition::Measure::kDelta
                           : m == "rate" ? CounterCondition::Measure::kRate
                           : m == "ber"  ? CounterCondition::Measure::kBer
                                         : CounterCondition::Measure::kValue;
    if (!c.IsMap()) {
      reader_.Error(c, p, "bad-condition", std::string(k) + " is a mapping, e.g. {above: 100}");
      return false;
    }
    reader_.CheckKeys(c, p,
                      m == "rate" ? FieldReader::Keys{"above", "per"} : FieldReader::Keys{"above"});
    if (!c["above"]) {
      reader_.Error(c, p + ".above", "missing-threshold", "the threshold: above: N");
    } else {
      reader_.Number(c["above"], p + ".above", &r->condition.above);
    }
    if (m == "rate" && c["per"] && reader_.Duration(c["per"], p + ".per", &r->condition.per_s) &&
        r->condition.per_s <= 0) {
      reader_.Error(c["per"], p + ".per", "bad-duration", "per must be longer than 0s");
    }
    if (m == "ber" && r->counter.empty()) r->counter = "SymbolBER";
  }
  return true;
}

void RuleCompiler::CompileCounterClear(const YAML::Node& node, const std::string& path, Rule* r) {
  YAML::Node c = node["clear"];
  if (!c) return;
  if (!c.IsMap() || !c["below"]) {
    reader_.Error(c, path + ".clear", "bad-clear",
                  "a counter rule's clear is {below: N}: the level the measure must fall under");
    return;
  }
  reader_.CheckKeys(c, path + ".clear", {"below"});
  if (reader_.Number(c["below"], path + ".clear.below", &r->condition.clear_below) &&
      r->condition.clear_below > r->condition.above) {
    reader_.Error(c["below"], path + ".clear.below", "bad-clear",
                  "clear.below must not be above the firing threshold");
  }
}

// --- inhibits --------------------------------------------------------------------------------

void RuleCompiler::CompileInhibits(const YAML::Node& node, const std::string& path, Rule* r) {
  if (!r->wide_scope()) {
    reader_.Error(node, path, "bad-inhibit",
                  "only a switch- or node-scoped rule inhibits: it covers that switch's or "
                  "node's ports");
  }
  if (!node.IsMap() || !node["rules"]) {
    reader_.Error(node, path, "bad-inhibit", "inhibits is {rules: [names], for: 15m}");
    return;
  }
  reader_.CheckKeys(node, path, {"rules", "for"});
  r->inhibit_for_s = 600;
  if (node["for"]) reader_.Duration(node["for"], path + ".for", &r->inhibit_for_s);
  Values(node["rules"], path + ".rules", [&](const YAML::Node& n, const std::string& p) {
    r->inhibits.insert(n.Scalar());
    inhibit_refs_[r->name].emplace_back(n.Scalar(), reader_.Make(n, p, "", ""));
  });
}

// --- match -----------------------------------------------------------------------------------

EventMatch RuleCompiler::Match(const YAML::Node& node, const std::string& path) {
  EventMatch m;
  std::set<std::string> seen;
  std::vector<std::string> stack;
  CompileMatch(node, path, &m, &seen, &stack);
  if (seen.empty() && node.IsMap() && !node["use"]) {
    reader_.Error(node, path, "empty-match",
                  "a match needs at least one field, e.g. event_id: [329]");
  }
  return m;
}

void RuleCompiler::CompileMatch(const YAML::Node& node, const std::string& path, EventMatch* m,
                                std::set<std::string>* seen_fields,
                                std::vector<std::string>* stack) {
  if (!node.IsMap()) {
    reader_.Error(node, path, "bad-match",
                  "a match is a mapping of fields (event_id, description, ...)");
    return;
  }
  reader_.CheckKeys(node, path,
                    {"event_id", "name", "severity", "category", "object_type", "description",
                     "object", "switch", "host", "use"});
  auto once = [&](const char* field) {
    if (!node[field]) return false;
    if (!seen_fields->insert(field).second) {
      reader_.Error(
          node[field], path + "." + field, "conflicting-match",
          std::string("'") + field + "' is already set by this rule or one of its macros");
      return false;
    }
    return true;
  };
  if (node["use"]) UseMacros(node, path, m, seen_fields, stack);
  if (once("event_id")) {
    Values(node["event_id"], path + ".event_id", [&](const YAML::Node& n, const std::string& p) {
      try {
        int v = n.as<int>();
        if (v <= 0) throw YAML::Exception(n.Mark(), "");
        m->event_ids.insert(v);
        WarnUnknownEventId(n, p, v);
      } catch (const YAML::Exception&) {
        reader_.Error(n, p, "bad-event-id", "expected a positive UFM event id, e.g. 329");
      }
    });
  }
  const std::pair<const char*, std::set<std::string>*> words[] = {
      {"name", &m->names},
      {"severity", &m->severities},
      {"category", &m->categories},
      {"object_type", &m->object_types}};
  for (const auto& [field, set] : words) {
    if (!once(field)) continue;
    const bool is_name = set == &m->names;
    Values(node[field], path + "." + field,
           [&, set = set](const YAML::Node& n, const std::string& p) {
             set->insert(NormalizeMatchWord(n.Scalar()));
             if (is_name) WarnUnknownEventName(n, p);
           });
  }
  const std::pair<const char*, std::shared_ptr<const RE2>*> patterns[] = {
      {"description", &m->description},
      {"object", &m->object},
      {"switch", &m->switch_name},
      {"host", &m->host_name}};
  for (const auto& [field, re] : patterns) {
    if (once(field)) *re = reader_.Pattern(node[field], path + "." + field);
  }
}

void RuleCompiler::WarnUnknownEventId(const YAML::Node& n, const std::string& path, int id) {
  if (FindUfmEventType(id)) return;
  const UfmEventType* near = ClosestUfmEventType(id);
  reader_.Warn(
      n, path, "unknown-event-id",
      "UFM's event table has no event " + std::to_string(id) +
          (near ? "; did you mean " + std::to_string(near->id) + " (\"" + near->name + "\")?"
                : ""));
}

void RuleCompiler::WarnUnknownEventName(const YAML::Node& n, const std::string& path) {
  // As the rules match names: case ignored, '_' for a blank.
  const std::string word = NormalizeMatchWord(n.Scalar());
  for (const auto& t : UfmEventTypes()) {
    if (NormalizeMatchWord(t.name) == word) return;
  }
  const std::string near = ClosestUfmEventName(word);
  const UfmEventType* row = FindUfmEventTypeByName(near);
  reader_.Warn(n, path, "unknown-event-name",
               "UFM's event table has no event named '" + n.Scalar() + "'" +
                   (row ? "; did you mean '" + near + "' (" + std::to_string(row->id) + ")?" : ""));
}

void RuleCompiler::WarnUnknownCounter(const YAML::Node& n, const std::string& path,
                                      const std::string& counter) {
  // UFM Telemetry's documented fields, and the counter names a column map may map onto.
  if (IsUfmTelemetryField(counter) || !CanonicalTelemetryColumn(counter).empty()) return;
  std::string near;
  size_t best = 0;
  auto consider = [&](std::string_view name) {
    size_t d = EditDistance(AsciiLower(counter), AsciiLower(name));
    if (near.empty() || d < best) {
      near = std::string(name);
      best = d;
    }
  };
  for (const auto& f : UfmTelemetryFields()) consider(f.field);
  for (std::string_view c : KnownTelemetryColumns()) consider(c);
  reader_.Warn(n, path, "unknown-counter",
               "UFM Telemetry documents no counter '" + counter +
                   "': this rule can never fire unless a column of that name is configured" +
                   (near.empty() ? "" : "; did you mean '" + near + "'?"));
}

void RuleCompiler::UseMacros(const YAML::Node& node, const std::string& path, EventMatch* m,
                             std::set<std::string>* seen_fields, std::vector<std::string>* stack) {
  Values(node["use"], path + ".use", [&](const YAML::Node& n, const std::string& p) {
    std::string name = n.Scalar();
    auto it = definitions_->macros.find(name);
    if (it == definitions_->macros.end()) {
      reader_.Error(n, p, "unknown-macro",
                    "no macro named '" + name + "' (define it under 'macros:')");
      return;
    }
    if (std::find(stack->begin(), stack->end(), name) != stack->end()) {
      reader_.Error(n, p, "macro-cycle", "macro '" + name + "' uses itself");
      return;
    }
    it->second.used = true;
    stack->push_back(name);
    {
      InFile in(&reader_, it->second.file);
      CompileMatch(it->second.node, it->second.path, m, seen_fields, stack);
    }
    stack->pop_back();
  });
}

void RuleCompiler::Values(const YAML::Node& node, const std::string& path, const ValueFn& one,
                          int depth) {
  if (!node.IsSequence()) {
    Value(node, path, one, depth);
    return;
  }
  if (node.size() == 0) reader_.Error(node, path, "empty-list", "an empty list matches nothing");
  for (size_t i = 0; i < node.size(); ++i) {
    Value(node[i], path + "[" + std::to_string(i) + "]", one, depth);
  }
}

void RuleCompiler::Value(const YAML::Node& n, const std::string& p, const ValueFn& one, int depth) {
  if (n.IsScalar() && !n.Scalar().empty() && n.Scalar()[0] == '@') {
    std::string name = n.Scalar().substr(1);
    auto it = definitions_->lists.find(name);
    if (it == definitions_->lists.end()) {
      reader_.Error(n, p, "unknown-list",
                    "no list named '" + name + "' (define it under 'lists:')");
      return;
    }
    if (depth > 8) {
      reader_.Error(n, p, "list-cycle", "list '" + name + "' refers to itself");
      return;
    }
    it->second.used = true;
    InFile in(&reader_, it->second.file);
    Values(it->second.node, it->second.path, one, depth + 1);
    return;
  }
  if (!n.IsScalar()) {
    reader_.Error(n, p, "bad-value", "expected a value or a list of values");
    return;
  }
  one(n, p);
}

}  // namespace ufmr
