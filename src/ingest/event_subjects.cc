#include "ingest/event_subjects.h"

#include <re2/re2.h>

#include <algorithm>

#include "base/text.h"

namespace ufmr {

namespace {

bool IsSwitchKind(std::string_view kind) { return AsciiLower(kind) == "switch"; }

void Add(std::vector<PortSubject>* out, std::string_view guid, std::string_view number,
         std::string_view kind, std::string_view node) {
  PortSubject s;
  s.port = AsciiLower(guid) + "_" + std::string(number);
  for (const auto& existing : *out) {
    if (existing.port == s.port) return;
  }
  s.is_switch = IsSwitchKind(kind);
  node = TrimBlanks(node);
  // "T3-E21-N-U47:1/17/1": the node, then the port's label.
  size_t colon = node.find(':');
  if (colon != std::string_view::npos) {
    s.label = std::string(TrimBlanks(node.substr(colon + 1)));
    node = TrimBlanks(node.substr(0, colon));
  }
  s.node = std::string(node);
  out->push_back(std::move(s));
}

}  // namespace

std::vector<PortSubject> ExtractPortSubjects(std::string_view text) {
  static const RE2 older(R"(([0-9a-fA-F]{16})\s*\(\s*(\w+)\s*:\s*([^)]*)\)\s*:\s*(\d+))");
  static const RE2 newer(R"(\(\s*(\w+)\s*:\s*([^)]*)\)\s*(?:0x)?([0-9a-fA-F]{16})\s*:\s*(\d+))");
  std::vector<PortSubject> out;
  if (text.find('(') == std::string_view::npos) return out;
  // Both shapes, each in order; a message uses one of them.
  re2::StringPiece in(text.data(), text.size());
  re2::StringPiece guid, kind, node, number;
  while (RE2::FindAndConsume(&in, older, &guid, &kind, &node, &number)) {
    Add(&out, std::string_view(guid.data(), guid.size()),
        std::string_view(number.data(), number.size()), std::string_view(kind.data(), kind.size()),
        std::string_view(node.data(), node.size()));
  }
  in = re2::StringPiece(text.data(), text.size());
  while (RE2::FindAndConsume(&in, newer, &kind, &node, &guid, &number)) {
    Add(&out, std::string_view(guid.data(), guid.size()),
        std::string_view(number.data(), number.size()), std::string_view(kind.data(), kind.size()),
        std::string_view(node.data(), node.size()));
  }
  return out;
}

std::string NodeKey(std::string_view name) {
  name = TrimBlanks(name);
  size_t colon = name.find(':');
  if (colon != std::string_view::npos) name = TrimBlanks(name.substr(0, colon));
  std::string out = AsciiLower(name);
  // " hca-<n>" or " mlx5_<n>" at the end: the host's HCA, not the host.
  size_t space = out.find_last_of(" \t");
  if (space != std::string::npos) {
    std::string_view tail(out);
    tail.remove_prefix(space + 1);
    size_t digits_at = tail.rfind("hca-", 0) == 0 ? 4 : tail.rfind("mlx5_", 0) == 0 ? 5 : 0;
    bool digits = digits_at > 0 && tail.size() > digits_at &&
                  tail.find_first_not_of("0123456789", digits_at) == std::string_view::npos;
    if (digits) {
      out.resize(space);
      while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
    }
  }
  return out;
}

bool IsSwitchObjectType(std::string_view type) { return AsciiLower(type) == "switch"; }

bool IsHostObjectType(std::string_view type) {
  std::string t = AsciiLower(type);
  return t == "computer" || t == "host" || t == "node" || t == "server";
}

}  // namespace ufmr
