#include "rules/rule_reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ufmr {

namespace {

namespace fs = std::filesystem;

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream buf;
  buf << in.rdbuf();
  *out = buf.str();
  return true;
}

void Fail(const std::string& file, const std::string& code, const std::string& message,
          std::vector<Diagnostic>* diagnostics) {
  Diagnostic d;
  d.file = file;
  d.code = code;
  d.message = message;
  diagnostics->push_back(std::move(d));
}

// The rules files `path` names: itself, or the *.yaml / *.yml files directly inside a folder.
std::vector<std::string> FilesOf(const std::string& path, std::vector<Diagnostic>* diagnostics) {
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
      Fail(path, "no-rules", "no *.yaml rules files in this directory", diagnostics);
      diagnostics->back().warning = true;
    }
  } else if (fs::exists(path, ec)) {
    names.push_back(path);
  } else {
    Fail(path, "no-such-file", "no such file or directory", diagnostics);
  }
  return names;
}

}  // namespace

std::vector<RuleSource> ReadRuleSources(const std::vector<std::string>& paths,
                                        std::vector<Diagnostic>* diagnostics) {
  std::vector<RuleSource> sources;
  for (const auto& path : paths) {
    for (const auto& name : FilesOf(path, diagnostics)) {
      RuleSource source{name, "", {}, false};
      if (!ReadFile(name, &source.text)) {
        Fail(name, "unreadable", "cannot read the file", diagnostics);
        continue;
      }
      sources.push_back(std::move(source));
    }
  }
  if (paths.empty()) Fail("", "no-rules", "no rules files given", diagnostics);
  return sources;
}

void ParseRuleSources(std::vector<RuleSource>* sources, std::vector<Diagnostic>* diagnostics) {
  for (auto& source : *sources) {
    try {
      source.doc = YAML::Load(source.text);
      source.parsed = true;
    } catch (const YAML::ParserException& e) {
      Diagnostic d;
      d.file = source.name;
      d.line = e.mark.line + 1;
      d.column = e.mark.column + 1;
      d.code = "yaml-syntax";
      d.message = e.msg;
      diagnostics->push_back(std::move(d));
    }
  }
}

}  // namespace ufmr
