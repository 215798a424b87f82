#include "rules/rule_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "base/duration.h"
#include "telemetry/telemetry_snapshot.h"

namespace ufmr {

const std::vector<std::string>& TemplatePlaceholders() {
  static const std::vector<std::string> names = {
      "rule",      "reason",    "port",      "peer",    "port_label",   "peer_label",
      "port_node", "peer_node", "switch",    "node",    "cable_serial", "count",
      "window",    "value",     "threshold", "severity"};
  return names;
}

namespace {

using Keys = std::set<std::string>;
constexpr double kMaxRuleDurationS = 366.0 * 86400;

std::string FnvHex(const std::string& data) {
  // FNV-1a 64: a content fingerprint for evidence, not a security measure.
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Levenshtein distance, for "did you mean" on short keys.
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string Join(const Keys& keys) {
  std::string s;
  for (const auto& k : keys) s += (s.empty() ? "" : ", ") + k;
  return s;
}

struct SourceFile {
  std::string name;
  std::string text;
  YAML::Node doc;
  bool parsed = false;
};

struct NamedNode {
  std::string file;
  YAML::Node node;
  std::string path;
  bool used = false;
};

class Loader {
 public:
  explicit Loader(std::vector<Diagnostic>* diags) : diags_(diags) {}

  // Stage 1: parse.
  void Parse(SourceFile* f) {
    texts_[f->name] = f->text;
    try {
      f->doc = YAML::Load(f->text);
      f->parsed = true;
    } catch (const YAML::ParserException& e) {
      Diagnostic d;
      d.file = f->name;
      d.line = e.mark.line + 1;
      d.column = e.mark.column + 1;
      d.code = "yaml-syntax";
      d.message = e.msg;
      diags_->push_back(std::move(d));
    }
  }

  // Stage 2: collect lists and macros; check the document's shape.
  void Collect(SourceFile* f) {
    if (!f->parsed || f->doc.IsNull()) return;  // an empty file holds no rules
    file_ = f->name;
    const YAML::Node& doc = f->doc;
    if (!doc.IsMap()) {
      Error(doc, "", "bad-document",
            "a rules file is a mapping with 'rules:' (and 'lists:', 'macros:')");
      return;
    }
    CheckKeys(doc, "", {"rules", "lists", "macros"});
    if (doc["rules"] && !doc["rules"].IsSequence()) {
      Error(doc["rules"], "rules", "bad-document", "'rules' must be a list of rules");
    }
    for (const char* section : {"lists", "macros"}) {
      YAML::Node m = doc[section];
      if (!m) continue;
      if (!m.IsMap()) {
        Error(m, section, "bad-document",
              std::string("'") + section + "' must be a mapping of names");
        continue;
      }
      auto& table = std::string(section) == "lists" ? lists_ : macros_;
      for (const auto& kv : m) {
        std::string name = kv.first.Scalar();
        std::string path = std::string(section) + "." + name;
        auto it = table.find(name);
        if (it != table.end()) {
          Error(kv.first, path, "duplicate-name",
                std::string(section == std::string("lists") ? "list" : "macro") + " '" + name +
                    "' is also defined in " + it->second.file + " at " + Where(it->second.node));
          continue;
        }
        if (std::string(section) == "lists" && !kv.second.IsSequence()) {
          Error(kv.second, path, "bad-list", "a list is a YAML sequence of values");
          continue;
        }
        if (std::string(section) == "macros" && !kv.second.IsMap()) {
          Error(kv.second, path, "bad-macro", "a macro is a mapping of match fields");
          continue;
        }
        table[name] = NamedNode{file_, kv.second, path};
      }
    }
  }

  // Stage 3: compile the rules of one file.
  void Compile(const SourceFile& f, std::vector<Rule>* out) {
    if (!f.parsed || f.doc.IsNull() || !f.doc.IsMap()) return;
    file_ = f.name;
    YAML::Node list = f.doc["rules"];
    if (!list || !list.IsSequence()) return;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string path = "rules[" + std::to_string(i) + "]";
      try {
        CompileRule(list[i], path, out);
      } catch (const YAML::Exception& e) {
        Error(list[i], path, "bad-rule", e.what());
      }
    }
  }

  void WarnUnused() {
    for (auto* table : {&lists_, &macros_}) {
      for (const auto& [name, n] : *table) {
        if (n.used) continue;
        file_ = n.file;
        Warn(n.node, n.path, table == &lists_ ? "unused-list" : "unused-macro",
             std::string(table == &lists_ ? "list" : "macro") + " '" + name +
                 "' is not used by any rule");
      }
    }
  }

  // After every rule is compiled: inhibits must name rules that exist.
  void CheckInhibits(const std::vector<Rule>& rules) {
    std::set<std::string> names;
    for (const auto& r : rules) names.insert(r.name);
    for (const auto& [rule, refs] : inhibit_refs_) {
      for (const auto& [name, where] : refs) {
        if (names.count(name) || disabled_.count(name)) continue;
        Diagnostic d = where;
        d.code = "unknown-rule";
        d.message = "rule '" + rule + "' inhibits '" + name + "', which no rules file defines";
        diags_->push_back(std::move(d));
      }
    }
  }

 private:
  std::string Where(const YAML::Node& n) const {
    return "line " + std::to_string(n.Mark().line + 1);
  }

  Diagnostic Make(const YAML::Node& node, const std::string& path, const std::string& code,
                  const std::string& message, int column_offset = 0) const {
    Diagnostic d;
    d.file = file_;
    if (node.IsDefined() && node.Mark().line >= 0) {
      d.line = node.Mark().line + 1;
      d.column = node.Mark().column + 1 + column_offset;
    }
    d.path = path;
    d.code = code;
    d.message = message;
    return d;
  }
  void Error(const YAML::Node& node, const std::string& path, const std::string& code,
             const std::string& message, int column_offset = 0) {
    diags_->push_back(Make(node, path, code, message, column_offset));
    ++errors_;
  }
  void Warn(const YAML::Node& node, const std::string& path, const std::string& code,
            const std::string& message) {
    Diagnostic d = Make(node, path, code, message);
    d.warning = true;
    diags_->push_back(std::move(d));
  }

  void CheckKeys(const YAML::Node& map, const std::string& path, const Keys& allowed) {
    for (const auto& kv : map) {
      std::string key = kv.first.Scalar();
      if (allowed.count(key)) continue;
      // A typo is worth a warning, not a lost rule: the rest of the rule still loads. Say which
      // key was probably meant, so `mdoe: shadow` does not pass unnoticed.
      std::string near;
      for (const auto& a : allowed) {
        if (EditDistance(key, a) <= 2) near = a;
      }
      Warn(kv.first, path.empty() ? key : path + "." + key, "unknown-key",
           "unknown key '" + key + "' is ignored" +
               (near.empty() ? " (expected one of: " + Join(allowed) + ")"
                             : "; did you mean '" + near + "'?"));
    }
  }

  bool Duration(const YAML::Node& node, const std::string& path, double* out) {
    if (!node.IsScalar()) {
      Error(node, path, "bad-duration", "expected a duration like 30s, 10m, 2h");
      return false;
    }
    auto d = ParseDuration(node.Scalar());
    if (!d.ok()) {
      Error(node, path, "bad-duration", d.status().message());
      return false;
    }
    if (d.value() > kMaxRuleDurationS) {
      Error(node, path, "bad-duration", "at most 366d: longer windows and holds are not rules");
      return false;
    }
    *out = d.value();
    return true;
  }

  bool Number(const YAML::Node& node, const std::string& path, double* out) {
    double v = 0;
    try {
      if (!node.IsScalar()) throw YAML::Exception(node.Mark(), "");
      v = node.as<double>();
    } catch (const YAML::Exception&) {
      Error(node, path, "bad-number", "expected a number");
      return false;
    }
    if (!std::isfinite(v) || v < 0) {
      Error(node, path, "bad-number", "expected a finite number >= 0");
      return false;
    }
    *out = v;
    return true;
  }

  bool Word(const YAML::Node& node, const std::string& path, const Keys& allowed,
            std::string* out) {
    if (node.IsScalar() && allowed.count(node.Scalar())) {
      *out = node.Scalar();
      return true;
    }
    Error(node, path, "bad-" + path.substr(path.rfind('.') + 1),
          "expected one of: " + Join(allowed));
    return false;
  }

  // A list field: a scalar or a sequence; "@name" items expand a named list. Calls `one` for each
  // value with the node it came from (for diagnostics).
  void Values(const YAML::Node& node, const std::string& path,
              const std::function<void(const YAML::Node&, const std::string&)>& one,
              int depth = 0) {
    auto item = [&](const YAML::Node& n, const std::string& p) {
      if (n.IsScalar() && !n.Scalar().empty() && n.Scalar()[0] == '@') {
        std::string name = n.Scalar().substr(1);
        auto it = lists_.find(name);
        if (it == lists_.end()) {
          Error(n, p, "unknown-list", "no list named '" + name + "' (define it under 'lists:')");
          return;
        }
        if (depth > 8) {
          Error(n, p, "list-cycle", "list '" + name + "' refers to itself");
          return;
        }
        it->second.used = true;
        std::string saved = file_;
        file_ = it->second.file;
        Values(it->second.node, it->second.path, one, depth + 1);
        file_ = saved;
        return;
      }
      if (!n.IsScalar()) {
        Error(n, p, "bad-value", "expected a value or a list of values");
        return;
      }
      one(n, p);
    };
    if (node.IsSequence()) {
      if (node.size() == 0) Error(node, path, "empty-list", "an empty list matches nothing");
      for (size_t i = 0; i < node.size(); ++i) item(node[i], path + "[" + std::to_string(i) + "]");
    } else {
      item(node, path);
    }
  }

  std::shared_ptr<const RE2> Pattern(const YAML::Node& node, const std::string& path) {
    if (!node.IsScalar()) {
      Error(node, path, "bad-pattern", "expected one RE2 pattern (a string)");
      return nullptr;
    }
    RE2::Options opts;
    opts.set_log_errors(false);
    auto re = std::make_shared<RE2>(node.Scalar(), opts);
    if (!re->ok()) {
      Error(node, path, "bad-pattern", "invalid RE2 pattern: " + re->error());
      return nullptr;
    }
    return re;
  }

  // Merges the match fields of `node` (and the macros it uses) into *m.
  void CompileMatch(const YAML::Node& node, const std::string& path, EventMatch* m,
                    std::set<std::string>* seen_fields, std::vector<std::string>* stack) {
    if (!node.IsMap()) {
      Error(node, path, "bad-match", "a match is a mapping of fields (event_id, description, ...)");
      return;
    }
    CheckKeys(node, path,
              {"event_id", "name", "severity", "category", "object_type", "description", "object",
               "switch", "host", "use"});
    auto once = [&](const char* field) {
      if (!node[field]) return false;
      if (!seen_fields->insert(field).second) {
        Error(node[field], path + "." + field, "conflicting-match",
              std::string("'") + field + "' is already set by this rule or one of its macros");
        return false;
      }
      return true;
    };
    if (node["use"]) {
      Values(node["use"], path + ".use", [&](const YAML::Node& n, const std::string& p) {
        std::string name = n.Scalar();
        auto it = macros_.find(name);
        if (it == macros_.end()) {
          Error(n, p, "unknown-macro", "no macro named '" + name + "' (define it under 'macros:')");
          return;
        }
        if (std::find(stack->begin(), stack->end(), name) != stack->end()) {
          Error(n, p, "macro-cycle", "macro '" + name + "' uses itself");
          return;
        }
        it->second.used = true;
        stack->push_back(name);
        std::string saved = file_;
        file_ = it->second.file;
        CompileMatch(it->second.node, it->second.path, m, seen_fields, stack);
        file_ = saved;
        stack->pop_back();
      });
    }
    if (once("event_id")) {
      Values(node["event_id"], path + ".event_id", [&](const YAML::Node& n, const std::string& p) {
        try {
          int v = n.as<int>();
          if (v <= 0) throw YAML::Exception(n.Mark(), "");
          m->event_ids.insert(v);
        } catch (const YAML::Exception&) {
          Error(n, p, "bad-event-id", "expected a positive UFM event id, e.g. 329");
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
      Values(node[field], path + "." + field,
             [&, set = set](const YAML::Node& n, const std::string&) {
               set->insert(NormalizeMatchWord(n.Scalar()));
             });
    }
    const std::pair<const char*, std::shared_ptr<const RE2>*> patterns[] = {
        {"description", &m->description},
        {"object", &m->object},
        {"switch", &m->switch_name},
        {"host", &m->host_name}};
    for (const auto& [field, re] : patterns) {
      if (once(field)) *re = Pattern(node[field], path + "." + field);
    }
  }

  EventMatch Match(const YAML::Node& node, const std::string& path) {
    EventMatch m;
    std::set<std::string> seen;
    std::vector<std::string> stack;
    CompileMatch(node, path, &m, &seen, &stack);
    if (seen.empty() && node.IsMap() && !node["use"]) {
      Error(node, path, "empty-match", "a match needs at least one field, e.g. event_id: [329]");
    }
    return m;
  }

  void Template(const YAML::Node& node, const std::string& path, std::string* out) {
    if (!node.IsScalar()) {
      Error(node, path, "bad-template", "expected a string");
      return;
    }
    const std::string& s = node.Scalar();
    const auto& known = TemplatePlaceholders();
    // Where a piece of the value is in the file: quoting and folding move text around, so look
    // for it in the source from the scalar's start.
    size_t search_from = node.Mark().pos >= 0 ? static_cast<size_t>(node.Mark().pos) : 0;
    auto at = [&](const std::string& piece) {
      Diagnostic d = Make(node, path, "bad-template", "");
      auto text = texts_.find(file_);
      if (text == texts_.end()) return d;
      size_t pos = text->second.find(piece, search_from);
      if (pos == std::string::npos) return d;
      size_t line_start = text->second.rfind('\n', pos);
      line_start = line_start == std::string::npos ? 0 : line_start + 1;
      d.line =
          1 + static_cast<int>(std::count(text->second.begin(), text->second.begin() + pos, '\n'));
      d.column = 1 + static_cast<int>(pos - line_start);
      return d;
    };
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '{') continue;
      size_t end = s.find('}', i);
      if (end == std::string::npos) {
        Diagnostic d = at(s.substr(i, std::min<size_t>(s.size() - i, 16)));
        d.message = "'{' without a closing '}'";
        diags_->push_back(std::move(d));
        ++errors_;
        return;
      }
      std::string name = s.substr(i + 1, end - i - 1);
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        Diagnostic d = at("{" + name + "}");
        d.message = "unknown placeholder {" + name + "} (known: " + list + ")";
        diags_->push_back(std::move(d));
        ++errors_;
      }
      i = end;
    }
    *out = s;
  }

  void CompileRule(const YAML::Node& node, const std::string& path, std::vector<Rule>* out) {
    if (!node.IsMap()) {
      Error(node, path, "bad-rule", "a rule is a mapping with name, match (or counter) and action");
      return;
    }
    int before = errors_;
    CheckKeys(node, path,
              {"name",   "description", "enabled", "scope",           "match",    "count",
               "window", "for",         "clear",   "flapping",        "counter",  "delta",
               "rate",   "ber",         "value",   "min_link_uptime", "inhibits", "action",
               "mode",   "severity",    "title",   "repair_hint",     "soak"});
    Rule r;
    r.file = file_;
    r.line = node.Mark().line + 1;
    bool switched_off = false;
    if (node["enabled"]) {
      bool enabled = true;
      try {
        enabled = node["enabled"].as<bool>();
      } catch (const YAML::Exception&) {
        Error(node["enabled"], path + ".enabled", "bad-bool", "enabled must be true or false");
        return;
      }
      if (!enabled) {
        // Still defined (another rule's inhibits may name it) and still checked, so switching
        // it back on cannot bring in a mistake; it just does not load.
        if (node["name"] && node["name"].IsScalar()) disabled_.insert(node["name"].Scalar());
        switched_off = true;
      }
    }
    if (!node["name"] || !node["name"].IsScalar() || node["name"].Scalar().empty()) {
      Error(node["name"] ? node["name"] : node, path + ".name", "missing-name",
            "every rule needs a name");
    } else {
      r.name = node["name"].Scalar();
      if (!RE2::FullMatch(r.name, "[A-Za-z0-9_.:-]+")) {
        Error(node["name"], path + ".name", "bad-name",
              "a rule name uses letters, digits and _ . : - only");
      }
    }
    if (node["description"]) r.description = node["description"].as<std::string>("");

    std::string word;
    if (node["scope"] &&
        Word(node["scope"], path + ".scope", {"port", "link", "switch", "node"}, &word)) {
      r.scope = word == "port"     ? RuleScope::kPort
                : word == "switch" ? RuleScope::kSwitch
                : word == "node"   ? RuleScope::kNode
                                   : RuleScope::kLink;
    }
    if (!node["action"]) {
      Error(node, path + ".action", "missing-action",
            "every rule names its action: disable_port, isolate_port, ticket_only or log_only");
    } else if (Word(node["action"], path + ".action",
                    {"disable_port", "isolate_port", "ticket_only", "log_only"}, &word)) {
      r.action = word == "disable_port"   ? RuleAction::kDisablePort
                 : word == "isolate_port" ? RuleAction::kIsolatePort
                 : word == "ticket_only"  ? RuleAction::kTicketOnly
                                          : RuleAction::kLogOnly;
    }
    if (node["mode"] && Word(node["mode"], path + ".mode", {"enforce", "shadow"}, &word)) {
      r.mode = word == "shadow" ? RuleMode::kShadow : RuleMode::kEnforce;
    }
    if (node["severity"]) {
      Word(node["severity"], path + ".severity", {"critical", "major", "minor", "warning", "info"},
           &r.severity);
    }
    if (node["title"]) Template(node["title"], path + ".title", &r.title);
    if (node["repair_hint"]) Template(node["repair_hint"], path + ".repair_hint", &r.repair_hint);
    bool acts = r.action == RuleAction::kDisablePort || r.action == RuleAction::kIsolatePort;
    if (node["soak"]) Duration(node["soak"], path + ".soak", &r.soak_s);
    if (acts && (r.scope == RuleScope::kSwitch || r.scope == RuleScope::kNode)) {
      Error(node["action"], path + ".action", "bad-action",
            "a switch- or node-scoped rule cannot act on one port: use ticket_only or log_only");
    }

    // Which kind of rule: exactly one condition.
    const char* counter_measures[] = {"delta", "rate", "ber", "value"};
    int measures = 0;
    for (const char* k : counter_measures) measures += node[k] ? 1 : 0;
    bool is_counter = node["counter"] || measures > 0;
    bool is_flapping = static_cast<bool>(node["flapping"]);
    bool is_event = static_cast<bool>(node["match"]);
    if (is_counter + is_flapping > 1 || (is_counter && is_event)) {
      Error(node, path, "ambiguous-condition",
            "a rule is one of: an event rule (match), a flapping rule (flapping) or a counter "
            "rule (counter with delta, rate, ber or value)");
      return;
    }
    if (!is_counter && !is_flapping && !is_event) {
      Error(node, path, "missing-condition",
            "a rule needs 'match' (events), 'flapping' or 'counter' (telemetry)");
      return;
    }
    if (node["for"]) Duration(node["for"], path + ".for", &r.for_s);
    if (node["window"]) Duration(node["window"], path + ".window", &r.window_s);

    if (is_counter) {
      CompileCounter(node, path, &r, measures);
    } else {
      r.kind = is_flapping ? Rule::Kind::kFlapping : Rule::Kind::kEvent;
      if (is_event) r.match = Match(node["match"], path + ".match");
      if (is_flapping) CompileFlapping(node, path, &r);
      if (is_event && node["count"]) {
        double c = 0;
        if (Number(node["count"], path + ".count", &c)) {
          if (!(c >= 1 && c <= 1'000'000) || c != std::floor(c)) {
            Error(node["count"], path + ".count", "bad-count",
                  "count must be a whole number from 1 to 1000000");
          } else {
            r.count = static_cast<int>(c);
          }
        }
      }
      if (r.kind == Rule::Kind::kEvent && r.count > 1 && r.window_s <= 0) {
        Error(node["count"], path + ".window", "missing-window",
              "count > 1 needs a window, e.g. window: 10m");
      }
      if (node["clear"]) {
        if (r.kind != Rule::Kind::kEvent) {
          Error(node["clear"], path + ".clear", "bad-clear",
                "clear applies to event and counter rules; a flapping rule clears by its window");
        } else {
          r.clear = Match(node["clear"], path + ".clear");
        }
      }
      if (r.kind == Rule::Kind::kEvent && r.for_s > 0 && !r.clear) {
        Error(node["for"], path + ".clear", "missing-clear",
              "'for' on an event rule needs 'clear': the event that cancels the held finding");
      }
      if (node["min_link_uptime"]) {
        Error(node["min_link_uptime"], path + ".min_link_uptime", "not-for-events",
              "min_link_uptime applies to counter rules");
      }
    }
    if (node["inhibits"]) CompileInhibits(node["inhibits"], path + ".inhibits", &r);
    if (errors_ == before && !switched_off) out->push_back(std::move(r));
  }

  void CompileCounter(const YAML::Node& node, const std::string& path, Rule* r, int measures) {
    r->kind = Rule::Kind::kCounter;
    if (!node["counter"] || !node["counter"].IsScalar() || node["counter"].Scalar().empty()) {
      // A ber condition without a counter judges the derived SymbolBER (set below).
      if (node["counter"] || !node["ber"]) {
        Error(node["counter"] ? node["counter"] : node, path + ".counter", "missing-counter",
              "a counter rule names its counter, e.g. counter: SymbolErrorCounterExtended");
      }
    } else {
      r->counter = node["counter"].Scalar();
      if (r->counter != "SymbolBER" && ClassifyColumn(r->counter) != ColumnRole::kCounter) {
        Warn(node["counter"], path + ".counter", "untracked-counter",
             "'" + r->counter +
                 "' is a level or identifier column, not a cumulative counter the telemetry "
                 "intake tracks: this rule will never fire");
      }
    }
    if (measures != 1) {
      Error(node, path, measures ? "ambiguous-condition" : "missing-condition",
            "a counter rule has exactly one of: delta, rate, ber, value (each {above: N})");
      return;
    }
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
        Error(c, p, "bad-condition", std::string(k) + " is a mapping, e.g. {above: 100}");
        return;
      }
      CheckKeys(c, p, m == "rate" ? Keys{"above", "per"} : Keys{"above"});
      if (!c["above"]) {
        Error(c, p + ".above", "missing-threshold", "the threshold: above: N");
      } else {
        Number(c["above"], p + ".above", &r->condition.above);
      }
      if (m == "rate" && c["per"] && Duration(c["per"], p + ".per", &r->condition.per_s) &&
          r->condition.per_s <= 0) {
        Error(c["per"], p + ".per", "bad-duration", "per must be longer than 0s");
      }
      if (m == "ber" && r->counter.empty()) r->counter = "SymbolBER";
    }
    r->condition.clear_below = r->condition.above;
    if (YAML::Node c = node["clear"]) {
      if (!c.IsMap() || !c["below"]) {
        Error(c, path + ".clear", "bad-clear",
              "a counter rule's clear is {below: N}: the level the measure must fall under");
      } else {
        CheckKeys(c, path + ".clear", {"below"});
        if (Number(c["below"], path + ".clear.below", &r->condition.clear_below) &&
            r->condition.clear_below > r->condition.above) {
          Error(c["below"], path + ".clear.below", "bad-clear",
                "clear.below must not be above the firing threshold");
        }
      }
    }
    if (node["min_link_uptime"]) {
      Duration(node["min_link_uptime"], path + ".min_link_uptime", &r->min_link_uptime_s);
    }
    if (node["count"] || node["match"]) {
      Error(node["count"] ? node["count"] : node["match"], path, "not-for-counter",
            "count and match apply to event rules");
    }
    if (r->scope == RuleScope::kSwitch || r->scope == RuleScope::kNode) {
      Error(node["scope"], path + ".scope", "bad-scope",
            "a counter rule is scoped to a port or link");
    }
  }

  void CompileFlapping(const YAML::Node& node, const std::string& path, Rule* r) {
    YAML::Node f = node["flapping"];
    std::string p = path + ".flapping";
    if (!f.IsMap()) {
      Error(f, p, "bad-condition", "flapping is a mapping: {downs: 3, within: 10m}");
      return;
    }
    CheckKeys(f, p, {"downs", "within"});
    double downs = 0;
    if (!f["downs"] || !Number(f["downs"], p + ".downs", &downs) || downs < 2 ||
        downs > 1'000'000 || downs != std::floor(downs)) {
      Error(f["downs"] ? f["downs"] : f, p + ".downs", "bad-count",
            "downs must be a whole number from 2 to 1000000");
    } else {
      r->count = static_cast<int>(downs);
    }
    if (!f["within"]) {
      Error(f, p + ".within", "missing-window", "flapping needs within: (e.g. 10m)");
    } else {
      Duration(f["within"], p + ".within", &r->window_s);
    }
    if (!node["match"]) r->match.event_ids = {329};  // "Link went down"
    if (r->scope == RuleScope::kSwitch || r->scope == RuleScope::kNode) {
      Error(node["scope"], path + ".scope", "bad-scope",
            "a flapping rule is scoped to a port or link");
    }
    if (node["count"]) {
      Error(node["count"], path + ".count", "not-for-flapping", "use flapping.downs");
    }
    for (const char* k : {"window", "for"}) {
      if (node[k]) {
        Error(node[k], path + "." + k, "not-for-flapping",
              std::string(k) + " does not apply to a flapping rule: flapping.within is its window");
      }
    }
  }

  void CompileInhibits(const YAML::Node& node, const std::string& path, Rule* r) {
    if (r->scope != RuleScope::kSwitch && r->scope != RuleScope::kNode) {
      Error(node, path, "bad-inhibit",
            "only a switch- or node-scoped rule inhibits: it covers that switch's or node's ports");
    }
    if (!node.IsMap() || !node["rules"]) {
      Error(node, path, "bad-inhibit", "inhibits is {rules: [names], for: 15m}");
      return;
    }
    CheckKeys(node, path, {"rules", "for"});
    r->inhibit_for_s = 600;
    if (node["for"]) Duration(node["for"], path + ".for", &r->inhibit_for_s);
    Values(node["rules"], path + ".rules", [&](const YAML::Node& n, const std::string& p) {
      r->inhibits.insert(n.Scalar());
      inhibit_refs_[r->name].emplace_back(n.Scalar(), Make(n, p, "", ""));
    });
  }

  std::vector<Diagnostic>* diags_;
  std::map<std::string, std::string> texts_;  // file -> its text, to place diagnostics
  std::string file_;
  int errors_ = 0;
  std::map<std::string, NamedNode> lists_;
  std::map<std::string, NamedNode> macros_;
  std::map<std::string, std::vector<std::pair<std::string, Diagnostic>>> inhibit_refs_;
  std::set<std::string> disabled_;  // rules switched off with `enabled: false`
};

RuleLoadResult LoadSources(std::vector<SourceFile> files, std::vector<Diagnostic> diags) {
  std::vector<Rule> rules;
  Loader loader(&diags);
  for (auto& f : files) loader.Parse(&f);
  for (auto& f : files) loader.Collect(&f);
  for (const auto& f : files) loader.Compile(f, &rules);
  loader.WarnUnused();
  loader.CheckInhibits(rules);

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
    diags.push_back(std::move(d));
  }
  std::string all;
  for (const auto& f : files) {
    AttachSourceLines(f.name, f.text, &diags);
    // Names without their folder: the same files hash the same wherever they are read from.
    all += std::filesystem::path(f.name).filename().string() + "\n" + f.text;
  }
  RuleLoadResult result;
  if (!HasErrors(diags)) {
    auto set = std::make_shared<RuleSet>();
    set->rules = std::move(rules);
    set->hash = FnvHex(all);
    for (const auto& f : files) set->files.push_back(f.name);
    set->Index();
    result.rules = std::move(set);
  }
  result.diagnostics = std::move(diags);
  return result;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream buf;
  buf << in.rdbuf();
  *out = buf.str();
  return true;
}

}  // namespace

RuleLoadResult LoadRulesText(const std::string& text, const std::string& file) {
  return LoadSources({SourceFile{file, text, {}, false}}, {});
}

RuleLoadResult LoadRules(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<SourceFile> files;
  std::vector<Diagnostic> diags;
  auto fail = [&](const std::string& file, const std::string& code, const std::string& msg) {
    Diagnostic d;
    d.file = file;
    d.code = code;
    d.message = msg;
    diags.push_back(std::move(d));
  };
  for (const auto& path : paths) {
    std::error_code ec;
    std::vector<std::string> names;
    if (fs::is_directory(path, ec)) {
      for (const auto& entry : fs::directory_iterator(path, ec)) {
        auto ext = entry.path().extension().string();
        if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) {
          names.push_back(entry.path().string());
        }
      }
      std::sort(names.begin(), names.end());
      if (names.empty()) {
        fail(path, "no-rules", "no *.yaml rules files in this directory");
        diags.back().warning = true;
      }
    } else if (fs::exists(path, ec)) {
      names.push_back(path);
    } else {
      fail(path, "no-such-file", "no such file or directory");
      continue;
    }
    for (const auto& name : names) {
      SourceFile f{name, "", {}, false};
      if (!ReadFile(name, &f.text)) {
        fail(name, "unreadable", "cannot read the file");
        continue;
      }
      files.push_back(std::move(f));
    }
  }
  if (paths.empty()) fail("", "no-rules", "no rules files given");
  return LoadSources(std::move(files), std::move(diags));
}

RuleLoadResult LoadRulesDir(const std::string& dir) { return LoadRules({dir}); }

}  // namespace ufmr
