#include "base/diagnostic.h"

#include <algorithm>
#include <sstream>

namespace ufmr {

std::string Diagnostic::ToString() const {
  std::ostringstream s;
  s << (file.empty() ? "<input>" : file);
  if (line > 0) s << ":" << line << ":" << std::max(column, 1);
  s << ": " << (warning ? "warning" : "error") << "[" << code << "]: " << message;
  if (!path.empty()) s << " (at " << path << ")";
  if (!source_line.empty()) {
    s << "\n  " << source_line << "\n  ";
    // Keep tabs as tabs so the caret lines up under the column.
    int col = std::max(column, 1);
    for (int i = 0; i + 1 < col && i < static_cast<int>(source_line.size()); ++i) {
      s << (source_line[i] == '\t' ? '\t' : ' ');
    }
    s << "^";
  }
  return s.str();
}

nlohmann::json Diagnostic::ToJson() const {
  nlohmann::json j{{"file", file},
                   {"line", line},
                   {"column", column},
                   {"path", path},
                   {"code", code},
                   {"message", message},
                   {"severity", warning ? "warning" : "error"}};
  if (!source_line.empty()) j["source_line"] = source_line;
  return j;
}

void AttachSourceLines(const std::string& file, const std::string& text,
                       std::vector<Diagnostic>* diagnostics) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(std::move(l));
  }
  for (auto& d : *diagnostics) {
    if (d.file != file || d.line <= 0 || d.line > static_cast<int>(lines.size())) continue;
    if (d.source_line.empty()) d.source_line = lines[d.line - 1];
  }
}

bool HasErrors(const std::vector<Diagnostic>& diagnostics) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return !d.warning; });
}

std::string RenderDiagnosticsText(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  int errors = 0, warnings = 0;
  for (const auto& d : diagnostics) {
    out += d.ToString() + "\n";
    (d.warning ? warnings : errors) += 1;
  }
  if (errors + warnings > 0) {
    out += std::to_string(errors) + (errors == 1 ? " error, " : " errors, ") +
           std::to_string(warnings) + (warnings == 1 ? " warning\n" : " warnings\n");
  }
  return out;
}

nlohmann::json RenderDiagnosticsJson(const std::vector<Diagnostic>& diagnostics) {
  nlohmann::json list = nlohmann::json::array();
  int errors = 0, warnings = 0;
  for (const auto& d : diagnostics) {
    list.push_back(d.ToJson());
    (d.warning ? warnings : errors) += 1;
  }
  return {{"ok", errors == 0}, {"errors", errors}, {"warnings", warnings}, {"diagnostics", list}};
}

}  // namespace ufmr
