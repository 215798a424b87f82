// FieldReader: reads the fields of a rules file's YAML with diagnostics, for the collect and
// compile stages of loading rules (rule_collector.h, rule_compiler.h). It knows which file it
// reads (every Diagnostic names it, at the node's 1-based line and column), counts the errors it
// reported, warns about unknown keys (with "did you mean"), and reads typed values: durations,
// numbers, words from a fixed set, RE2 patterns and title templates. Not thread-safe; one per
// stage of one load.
#pragma once

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "base/text.h"  // EditDistance, for "did you mean"

namespace ufmr {

class FieldReader {
 public:
  using Keys = std::set<std::string>;

  // Diagnostics are appended to *diagnostics, which must outlive the reader.
  explicit FieldReader(std::vector<Diagnostic>* diagnostics) : diagnostics_(diagnostics) {}

  // The file diagnostics name, and its text (to place a template's placeholders; may be null).
  void SetFile(const std::string& file, const std::string* text = nullptr) {
    file_ = file;
    text_ = text;
  }
  const std::string& file() const { return file_; }
  const std::string* text() const { return text_; }
  // Errors reported so far (warnings do not count).
  int errors() const { return errors_; }

  // A diagnostic at `node` (unplaced when the node is not in the file).
  Diagnostic Make(const YAML::Node& node, const std::string& path, const std::string& code,
                  const std::string& message) const;
  void Error(const YAML::Node& node, const std::string& path, const std::string& code,
             const std::string& message);
  void Warn(const YAML::Node& node, const std::string& path, const std::string& code,
            const std::string& message);
  // Warns about every key of `map` not in `allowed`: a typo loses a field, not the rule.
  void CheckKeys(const YAML::Node& map, const std::string& path, const Keys& allowed);

  // Each reads `node` into *out and returns true, or reports an error and returns false.
  // A duration ("30s", "10m"; at most 366d), in seconds.
  bool Duration(const YAML::Node& node, const std::string& path, double* out);
  // A finite number >= 0.
  bool Number(const YAML::Node& node, const std::string& path, double* out);
  // One of `allowed`; the error code is "bad-" and the path's last field.
  bool Word(const YAML::Node& node, const std::string& path, const Keys& allowed, std::string* out);
  // One RE2 pattern, compiled; null after an error.
  std::shared_ptr<const RE2> Pattern(const YAML::Node& node, const std::string& path);
  // A title or repair hint: every {placeholder} must be one of TemplatePlaceholders(); an error
  // points at the placeholder itself, wherever quoting or folding put it in the file.
  void Template(const YAML::Node& node, const std::string& path, std::string* out);

 private:
  // A bad-template diagnostic at the first `piece` of the file's text from the scalar's start.
  Diagnostic TemplateErrorAt(const YAML::Node& node, const std::string& path,
                             const std::string& piece, const std::string& message) const;

  std::vector<Diagnostic>* diagnostics_;
  std::string file_;
  const std::string* text_ = nullptr;
  int errors_ = 0;
};

}  // namespace ufmr
