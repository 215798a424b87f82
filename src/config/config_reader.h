// Reader: how the config loader reads YAML (config.cc and the sections kept in their own files,
// such as notify_config.cc): typed reads of one key each (string, boolean, number, duration,
// list), every path read remembered (for the known-but-unread check), and the first error kept
// with its file position ("config.yaml:12:5: notify.route.group_wait: ...") or, for a key a
// --set gave, the flag. Private to src/config/.
#pragma once

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <vector>

namespace ufmr::config_internal {

struct Reader {
  std::string name;                  // the file's, for errors
  std::string error;                 // the first error, "" while none
  std::set<std::string> read;        // the dotted paths the loader looked up
  std::set<std::string> from_flags;  // the dotted paths a --set gave

  // Keeps the first error only: at `n`'s position in the file, or naming the --set of `key`.
  void Fail(const YAML::Node& n, const std::string& key, const std::string& msg);
  // Each reads parent[key] (its dotted path `path`) into *out when present; leaves *out alone
  // when absent; fails on a value of the wrong type or out of range.
  void Str(const YAML::Node& parent, const char* key, const std::string& path, std::string* out);
  void Bool(const YAML::Node& parent, const char* key, const std::string& path, bool* out);
  void Int(const YAML::Node& parent, const char* key, const std::string& path, int* out, int min,
           int max);
  void Num(const YAML::Node& parent, const char* key, const std::string& path, double* out,
           double min, double max);
  // A number of seconds or a duration string ("30s", "10m"), at least `min` seconds.
  void Secs(const YAML::Node& parent, const char* key, const std::string& path, double* out,
            double min);
  // A list of strings; a single string is a list of one ("" none).
  void Strings(const YAML::Node& parent, const char* key, const std::string& path,
               std::vector<std::string>* out);
  // The named section if it is a mapping; otherwise an error and an undefined node.
  YAML::Node Section(const YAML::Node& root, const char* key);
};

}  // namespace ufmr::config_internal
