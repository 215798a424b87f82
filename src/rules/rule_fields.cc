#include "rules/rule_fields.h"

#include <algorithm>
#include <cmath>

#include "base/duration.h"
#include "rules/rules.h"

namespace ufmr {

namespace {

constexpr double kMaxRuleDurationS = 366.0 * 86400;

std::string Join(const FieldReader::Keys& keys) {
  std::string s;
  for (const auto& k : keys) s += (s.empty() ? "" : ", ") + k;
  return s;
}

}  // namespace

Diagnostic FieldReader::Make(const YAML::Node& node, const std::string& path,
                             const std::string& code, const std::string& message) const {
  Diagnostic d;
  d.file = file_;
  if (node.IsDefined() && node.Mark().line >= 0) {
    d.line = node.Mark().line + 1;
    d.column = node.Mark().column + 1;
  }
  d.path = path;
  d.code = code;
  d.message = message;
  return d;
}

void FieldReader::Error(const YAML::Node& node, const std::string& path, const std::string& code,
                        const std::string& message) {
  diagnostics_->push_back(Make(node, path, code, message));
  ++errors_;
}

void FieldReader::Warn(const YAML::Node& node, const std::string& path, const std::string& code,
                       const std::string& message) {
  Diagnostic d = Make(node, path, code, message);
  d.warning = true;
  diagnostics_->push_back(std::move(d));
}

void FieldReader::CheckKeys(const YAML::Node& map, const std::string& path, const Keys& allowed) {
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

bool FieldReader::Duration(const YAML::Node& node, const std::string& path, double* out) {
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

bool FieldReader::Number(const YAML::Node& node, const std::string& path, double* out) {
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

bool FieldReader::Word(const YAML::Node& node, const std::string& path, const Keys& allowed,
                       std::string* out) {
  if (node.IsScalar() && allowed.count(node.Scalar())) {
    *out = node.Scalar();
    return true;
  }
  Error(node, path, "bad-" + path.substr(path.rfind('.') + 1), "expected one of: " + Join(allowed));
  return false;
}

std::shared_ptr<const RE2> FieldReader::Pattern(const YAML::Node& node, const std::string& path) {
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

Diagnostic FieldReader::TemplateErrorAt(const YAML::Node& node, const std::string& path,
                                        const std::string& piece,
                                        const std::string& message) const {
  Diagnostic d = Make(node, path, "bad-template", message);
  if (!text_) return d;
  // Quoting and folding move text around: look for the piece in the source from the scalar's
  // start.
  size_t search_from = node.Mark().pos >= 0 ? static_cast<size_t>(node.Mark().pos) : 0;
  size_t pos = text_->find(piece, search_from);
  if (pos == std::string::npos) return d;
  size_t line_start = text_->rfind('\n', pos);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  d.line = 1 + static_cast<int>(std::count(text_->begin(), text_->begin() + pos, '\n'));
  d.column = 1 + static_cast<int>(pos - line_start);
  return d;
}

void FieldReader::Template(const YAML::Node& node, const std::string& path, std::string* out) {
  if (!node.IsScalar()) {
    Error(node, path, "bad-template", "expected a string");
    return;
  }
  const std::string& s = node.Scalar();
  const auto& known = TemplatePlaceholders();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '{') continue;
    size_t end = s.find('}', i);
    if (end == std::string::npos) {
      diagnostics_->push_back(TemplateErrorAt(node, path,
                                              s.substr(i, std::min<size_t>(s.size() - i, 16)),
                                              "'{' without a closing '}'"));
      ++errors_;
      return;
    }
    std::string name = s.substr(i + 1, end - i - 1);
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      diagnostics_->push_back(
          TemplateErrorAt(node, path, "{" + name + "}",
                          "unknown placeholder {" + name + "} (known: " + list + ")"));
      ++errors_;
    }
    i = end;
  }
  *out = s;
}

}  // namespace ufmr
