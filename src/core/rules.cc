#include "core/rules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "core/duration.h"

namespace ufmr {

const char* RuleActionName(RuleAction a) {
  switch (a) {
    case RuleAction::kDisable:
      return "disable";
    case RuleAction::kTicketOnly:
      return "ticket_only";
  }
  return "?";
}

std::string Diagnostic::ToString() const {
  std::ostringstream s;
  s << file;
  if (line > 0) s << ":" << line << ":" << column;
  s << ": " << (warning ? "warning" : "error") << " [" << code << "]";
  if (!path.empty()) s << " at " << path;
  s << ": " << message;
  return s.str();
}

std::string RuleLoadResult::Report() const {
  std::string out;
  for (const auto& d : diagnostics) out += d.ToString() + "\n";
  return out;
}

namespace {

class Loader {
 public:
  Loader(std::string file, std::vector<Diagnostic>* diags)
      : file_(std::move(file)), diags_(diags) {}

  void Error(const YAML::Node& node, const std::string& path, const std::string& code,
             const std::string& message) {
    Diagnostic d;
    d.file = file_;
    if (node.IsDefined() && node.Mark().line >= 0) {
      d.line = node.Mark().line + 1;
      d.column = node.Mark().column + 1;
    }
    d.path = path;
    d.code = code;
    d.message = message;
    diags_->push_back(std::move(d));
    ++errors_;
  }

  int errors() const { return errors_; }

  void CheckKeys(const YAML::Node& map, const std::string& path,
                 const std::set<std::string>& allowed) {
    for (const auto& kv : map) {
      std::string key = kv.first.Scalar();
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        Error(kv.first, path.empty() ? key : path + "." + key, "unknown-key",
              "unknown key '" + key + "' (expected one of: " + list + ")");
      }
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
    *out = d.value();
    return true;
  }

  bool Number(const YAML::Node& node, const std::string& path, double* out) {
    try {
      *out = node.as<double>();
      return true;
    } catch (const YAML::Exception&) {
      Error(node, path, "bad-number", "expected a number");
      return false;
    }
  }

  bool IntList(const YAML::Node& node, const std::string& path, std::set<int>* out) {
    auto one = [&](const YAML::Node& n, const std::string& p) {
      try {
        int v = n.as<int>();
        if (v <= 0) throw YAML::Exception(n.Mark(), "");
        out->insert(v);
        return true;
      } catch (const YAML::Exception&) {
        Error(n, p, "bad-event-type", "expected a positive UFM event id");
        return false;
      }
    };
    if (node.IsSequence()) {
      bool ok = node.size() > 0;
      if (!ok) Error(node, path, "bad-event-type", "empty list of event ids");
      for (size_t i = 0; i < node.size(); ++i) {
        ok = one(node[i], path + "[" + std::to_string(i) + "]") && ok;
      }
      return ok;
    }
    return one(node, path);
  }

  void LoadRule(const YAML::Node& node, const std::string& path, std::vector<Rule>* out) {
    if (!node.IsMap()) {
      Error(node, path, "bad-rule", "a rule is a mapping with name, when and action");
      return;
    }
    int before = errors_;
    CheckKeys(node, path,
              {"name", "description", "when", "count", "window", "hold", "clear_event_type",
               "action", "enabled"});
    Rule r;
    r.file = file_;
    r.line = node.Mark().line + 1;
    if (node["enabled"]) {
      bool enabled = true;
      try {
        enabled = node["enabled"].as<bool>();
      } catch (const YAML::Exception&) {
        Error(node["enabled"], path + ".enabled", "bad-bool", "enabled must be true or false");
        return;
      }
      if (!enabled) return;
    }
    if (!node["name"] || !node["name"].IsScalar() || node["name"].Scalar().empty()) {
      Error(node, path + ".name", "missing-name", "every rule needs a name");
    } else {
      r.name = node["name"].Scalar();
    }
    if (node["description"]) r.description = node["description"].as<std::string>("");
    std::string action = node["action"] ? node["action"].as<std::string>("") : "";
    if (action == "disable") {
      r.action = RuleAction::kDisable;
    } else if (action == "ticket_only") {
      r.action = RuleAction::kTicketOnly;
    } else {
      Error(node["action"] ? node["action"] : node, path + ".action", "bad-action",
            "action must be 'disable' or 'ticket_only'");
    }
    YAML::Node when = node["when"];
    if (!when || !when.IsMap()) {
      Error(when ? when : node, path + ".when", "missing-when",
            "'when' must say what matches: event_type (and message) or counter and rate_above");
      return;
    }
    CheckKeys(when, path + ".when",
              {"event_type", "message", "counter", "rate_above", "per", "value_above"});
    bool is_event = static_cast<bool>(when["event_type"]);
    bool is_counter = static_cast<bool>(when["counter"]);
    if (is_event == is_counter) {
      Error(when, path + ".when", "ambiguous-when",
            "'when' needs exactly one of event_type or counter");
      return;
    }
    if (is_event) {
      r.kind = Rule::Kind::kEvent;
      IntList(when["event_type"], path + ".when.event_type", &r.event_types);
      if (when["message"] && !when["message"].IsScalar()) {
        Error(when["message"], path + ".when.message", "bad-pattern",
              "message must be one RE2 pattern (a string)");
      } else if (when["message"]) {
        auto re = std::make_shared<RE2>(when["message"].as<std::string>(""), RE2::Quiet);
        if (!re->ok()) {
          Error(when["message"], path + ".when.message", "bad-pattern",
                "invalid RE2 pattern: " + re->error());
        } else {
          r.message = re;
        }
      }
      if (node["count"]) {
        double c = 0;
        if (Number(node["count"], path + ".count", &c)) {
          if (!(c >= 1 && c <= 1'000'000) || c != std::floor(c)) {
            Error(node["count"], path + ".count", "bad-count",
                  "count must be an integer from 1 to 1000000");
          } else {
            r.count = static_cast<int>(c);
          }
        }
      }
      if (node["window"]) Duration(node["window"], path + ".window", &r.window_s);
      if (r.count > 1 && r.window_s <= 0) {
        Error(node, path + ".window", "missing-window", "count > 1 needs a window, e.g. 10m");
      }
      if (node["hold"]) Duration(node["hold"], path + ".hold", &r.hold_s);
      if (node["clear_event_type"]) {
        IntList(node["clear_event_type"], path + ".clear_event_type", &r.clear_event_types);
      }
      if (r.hold_s > 0 && r.clear_event_types.empty()) {
        Error(node, path + ".clear_event_type", "missing-clear",
              "hold needs clear_event_type: the event that cancels a pending finding");
      }
    } else {
      r.kind = Rule::Kind::kCounter;
      r.counter = when["counter"].as<std::string>("");
      if (r.counter.empty()) Error(when["counter"], path + ".when.counter", "bad-counter", "empty");
      if (when["value_above"]) {
        double v = 0;
        if (when["rate_above"] || when["per"]) {
          Error(when["value_above"], path + ".when.value_above", "ambiguous-threshold",
                "value_above compares a level; it takes neither rate_above nor per");
        } else if (Number(when["value_above"], path + ".when.value_above", &v) &&
                   !std::isfinite(v)) {
          Error(when["value_above"], path + ".when.value_above", "bad-number",
                "must be a finite number");
        } else {
          r.value_above = v;
        }
      } else if (!when["rate_above"]) {
        Error(when, path + ".when.rate_above", "missing-rate",
              "a counter rule needs rate_above (errors per 'per') or value_above (a level)");
      } else if (Number(when["rate_above"], path + ".when.rate_above", &r.rate_above) &&
                 !(r.rate_above >= 0 && std::isfinite(r.rate_above))) {
        Error(when["rate_above"], path + ".when.rate_above", "bad-number",
              "must be a finite number >= 0");
      }
      if (when["per"] && Duration(when["per"], path + ".when.per", &r.per_s) && r.per_s <= 0) {
        Error(when["per"], path + ".when.per", "bad-duration", "per must be > 0");
      }
      for (const char* k : {"count", "window", "hold", "clear_event_type"}) {
        if (node[k]) {
          Error(node[k], path + "." + k, "not-for-counter",
                std::string(k) + " applies to event rules only");
        }
      }
    }
    if (errors_ == before) out->push_back(std::move(r));
  }

 private:
  std::string file_;
  std::vector<Diagnostic>* diags_;
  int errors_ = 0;
};

void LoadDocument(const std::string& text, const std::string& file, std::vector<Rule>* rules,
                  std::vector<Diagnostic>* diags) {
  Loader loader(file, diags);
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    Diagnostic d;
    d.file = file;
    d.line = e.mark.line + 1;
    d.column = e.mark.column + 1;
    d.code = "yaml-syntax";
    d.message = e.msg;
    diags->push_back(std::move(d));
    return;
  }
  if (doc.IsNull()) return;  // an empty file holds no rules
  if (!doc.IsMap() || !doc["rules"] || !doc["rules"].IsSequence()) {
    loader.Error(doc, "", "bad-document", "a rules file is a mapping with a 'rules:' list");
    return;
  }
  loader.CheckKeys(doc, "", {"rules"});
  YAML::Node list = doc["rules"];
  for (size_t i = 0; i < list.size(); ++i) {
    try {
      loader.LoadRule(list[i], "rules[" + std::to_string(i) + "]", rules);
    } catch (const YAML::Exception& e) {
      loader.Error(list[i], "rules[" + std::to_string(i) + "]", "bad-rule", e.what());
    }
  }
}

std::string HashHex(const std::string& data) {
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

RuleLoadResult Finish(std::vector<Rule> rules, std::vector<Diagnostic> diags,
                      const std::string& all_text, std::vector<std::string> files) {
  std::map<std::string, const Rule*> seen;
  for (const auto& r : rules) {
    auto [it, inserted] = seen.emplace(r.name, &r);
    if (!inserted) {
      Diagnostic d;
      d.file = r.file;
      d.line = r.line;
      d.column = 1;
      d.code = "duplicate-name";
      d.message = "rule '" + r.name + "' is also defined at " + it->second->file + ":" +
                  std::to_string(it->second->line);
      diags.push_back(std::move(d));
    }
  }
  RuleLoadResult result;
  bool errors = std::any_of(diags.begin(), diags.end(), [](const auto& d) { return !d.warning; });
  result.diagnostics = std::move(diags);
  if (!errors) {
    result.rules = std::make_unique<RuleSet>();
    result.rules->rules = std::move(rules);
    result.rules->hash = HashHex(all_text);
    result.rules->files = std::move(files);
  }
  return result;
}

}  // namespace

RuleLoadResult LoadRulesText(const std::string& text, const std::string& file) {
  std::vector<Rule> rules;
  std::vector<Diagnostic> diags;
  LoadDocument(text, file, &rules, &diags);
  return Finish(std::move(rules), std::move(diags), text, {file});
}

RuleLoadResult LoadRulesDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<Rule> rules;
  std::vector<Diagnostic> diags;
  std::vector<std::string> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    Diagnostic d;
    d.file = dir;
    d.code = "no-rules-dir";
    d.message = "rules directory does not exist or is not a directory";
    diags.push_back(std::move(d));
    return Finish({}, std::move(diags), "", {});
  }
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    auto ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    all += f + "\n" + buf.str();
    LoadDocument(buf.str(), f, &rules, &diags);
  }
  if (files.empty()) {
    Diagnostic d;
    d.file = dir;
    d.code = "no-rules";
    d.message = "no *.yaml rules files found";
    d.warning = true;
    diags.push_back(std::move(d));
  }
  return Finish(std::move(rules), std::move(diags), all, std::move(files));
}

}  // namespace ufmr
