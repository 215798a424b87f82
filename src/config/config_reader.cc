#include "config/config_reader.h"

#include <sstream>

#include "base/duration.h"

namespace ufmr::config_internal {

void Reader::Fail(const YAML::Node& n, const std::string& key, const std::string& msg) {
  if (!error.empty()) return;
  if (from_flags.count(key)) {
    error = "--set " + key + ": " + msg;
    return;
  }
  error = name;
  if (n.IsDefined() && n.Mark().line >= 0) {
    error += ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1);
  }
  error += ": " + key + ": " + msg;
}

void Reader::Str(const YAML::Node& parent, const char* key, const std::string& path,
                 std::string* out) {
  read.insert(path);
  YAML::Node n = parent[key];
  if (!n) return;
  if (!n.IsScalar()) return Fail(n, path, "expected a string");
  *out = n.Scalar();
}

void Reader::Bool(const YAML::Node& parent, const char* key, const std::string& path, bool* out) {
  read.insert(path);
  YAML::Node n = parent[key];
  if (!n) return;
  try {
    *out = n.as<bool>();
  } catch (const YAML::Exception&) {
    Fail(n, path, "expected true or false");
  }
}

void Reader::Int(const YAML::Node& parent, const char* key, const std::string& path, int* out,
                 int min, int max) {
  read.insert(path);
  YAML::Node n = parent[key];
  if (!n) return;
  try {
    int v = n.as<int>();
    if (v < min || v > max) {
      return Fail(n, path,
                  "must be between " + std::to_string(min) + " and " + std::to_string(max));
    }
    *out = v;
  } catch (const YAML::Exception&) {
    Fail(n, path, "expected an integer");
  }
}

void Reader::Num(const YAML::Node& parent, const char* key, const std::string& path, double* out,
                 double min, double max) {
  read.insert(path);
  YAML::Node n = parent[key];
  if (!n) return;
  double v = 0;
  try {
    if (!n.IsScalar()) throw YAML::Exception(n.Mark(), "not a scalar");
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    return Fail(n, path, "expected a number");
  }
  if (!(v >= min && v <= max)) {
    std::ostringstream m;
    m << "must be between " << min << " and " << max;
    return Fail(n, path, m.str());
  }
  *out = v;
}

// Accepts a number of seconds or a duration string ("30s", "10m").
void Reader::Secs(const YAML::Node& parent, const char* key, const std::string& path, double* out,
                  double min) {
  read.insert(path);
  YAML::Node n = parent[key];
  if (!n) return;
  if (!n.IsScalar()) return Fail(n, path, "expected a duration");
  auto d = ParseDuration(n.Scalar());
  if (!d.ok()) return Fail(n, path, d.status().message());
  if (d.value() < min) return Fail(n, path, "must be at least " + FormatDuration(min));
  *out = d.value();
}

// The named section if it is a mapping; otherwise an error and an undefined node.
YAML::Node Reader::Section(const YAML::Node& root, const char* key) {
  YAML::Node n = root[key];
  if (!n) return n;
  if (!n.IsMap()) {
    Fail(n, key, "expected a mapping of settings");
    return YAML::Node(YAML::NodeType::Undefined);
  }
  return n;
}

void Reader::Strings(const YAML::Node& parent, const char* key, const std::string& path,
                     std::vector<std::string>* out) {
  read.insert(path);
  YAML::Node n = parent[key];
  if (!n || n.IsNull()) return;
  if (n.IsScalar()) {  // one item, as a --set or a documented default gives
    out->clear();
    if (!n.Scalar().empty()) out->push_back(n.Scalar());
    return;
  }
  if (!n.IsSequence()) return Fail(n, path, "expected a list of strings");
  out->clear();
  for (const auto& item : n) {
    if (!item.IsScalar()) return Fail(item, path, "expected a list of strings");
    out->push_back(item.Scalar());
  }
}

}  // namespace ufmr::config_internal
