// Diagnostic: one problem found in an engineer-owned file (rules, rule tests), said the way a
// compiler says it: file:line:column (1-based), the path of the item inside the file, a stable
// code, a message, and the source line with a caret under the column. Warnings never block a
// load. Plain data; the render functions are pure and thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ufmr {

struct Diagnostic {
  std::string file;
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown
  std::string path;  // the item inside the file, e.g. rules[2].match.event_id
  std::string code;  // stable, e.g. "unknown-key"
  std::string message;
  bool warning = false;
  std::string source_line;  // the text of `line`, when known

  // "file:line:col: error[code]: message (at path)" and, when known, the source line with a caret.
  std::string ToString() const;
  nlohmann::json ToJson() const;
};

// Fills source_line for diagnostics of `file` from its text.
void AttachSourceLines(const std::string& file, const std::string& text,
                       std::vector<Diagnostic>* diagnostics);

bool HasErrors(const std::vector<Diagnostic>& diagnostics);

// Text: one diagnostic after another, then a summary line ("2 errors, 1 warning").
// JSON: {"ok": bool, "errors": N, "warnings": N, "diagnostics": [...]}.
std::string RenderDiagnosticsText(const std::vector<Diagnostic>& diagnostics);
nlohmann::json RenderDiagnosticsJson(const std::vector<Diagnostic>& diagnostics);

}  // namespace ufmr
