#include "ingest/event_subjects.h"

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

// Character classes as RE2 has them (\s, \w): the shapes were first written as patterns.
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }
bool IsWord(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

size_t SkipSpaces(std::string_view t, size_t i) {
  while (i < t.size() && IsSpace(t[i])) ++i;
  return i;
}

bool HexAt(std::string_view t, size_t i) {
  if (i + 16 > t.size()) return false;
  for (size_t k = i; k < i + 16; ++k) {
    if (!IsHex(t[k])) return false;
  }
  return true;
}

// "(<kind> : <node>)" with t[open] == '(': the kind (a word), the node (up to the first ')'),
// and where the text goes on after the ')'.
struct Paren {
  std::string_view kind, node;
  size_t end = 0;
};
bool ReadParen(std::string_view t, size_t open, Paren* p) {
  size_t i = SkipSpaces(t, open + 1);
  const size_t kind = i;
  while (i < t.size() && IsWord(t[i])) ++i;
  if (i == kind) return false;
  p->kind = t.substr(kind, i - kind);
  i = SkipSpaces(t, i);
  if (i >= t.size() || t[i] != ':') return false;
  i = SkipSpaces(t, i + 1);
  const size_t close = t.find(')', i);
  if (close == std::string_view::npos) return false;
  p->node = t.substr(i, close - i);
  p->end = close + 1;
  return true;
}

// " : <digits>" from i: the digits, and where the text goes on after them.
bool ReadNumber(std::string_view t, size_t i, std::string_view* number, size_t* end) {
  i = SkipSpaces(t, i);
  if (i >= t.size() || t[i] != ':') return false;
  i = SkipSpaces(t, i + 1);
  const size_t digits = i;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  if (i == digits) return false;
  *number = t.substr(digits, i - digits);
  *end = i;
  return true;
}

// The older shape, "<16 hex> (<kind>: <node>) : <n>", each in order.
void AddOlder(std::string_view t, std::vector<PortSubject>* out) {
  size_t from = 0;  // where the last one ended: the next starts after it
  for (size_t open = t.find('('); open != std::string_view::npos; open = t.find('(', open + 1)) {
    size_t hex_end = open;
    while (hex_end > from && IsSpace(t[hex_end - 1])) --hex_end;
    Paren p;
    std::string_view number;
    size_t end = 0;
    if (hex_end < from + 16 || !HexAt(t, hex_end - 16) || !ReadParen(t, open, &p) ||
        !ReadNumber(t, p.end, &number, &end)) {
      continue;
    }
    Add(out, t.substr(hex_end - 16, 16), number, p.kind, p.node);
    from = end;
    if (end > open) open = end - 1;
  }
}

// The newer shape, "(<kind>: <node>) [0x]<16 hex> : <n>", each in order.
void AddNewer(std::string_view t, std::vector<PortSubject>* out) {
  for (size_t open = t.find('('); open != std::string_view::npos; open = t.find('(', open + 1)) {
    Paren p;
    if (!ReadParen(t, open, &p)) continue;
    size_t hex = SkipSpaces(t, p.end);
    if (t.substr(hex, 2) == "0x" && HexAt(t, hex + 2)) hex += 2;
    std::string_view number;
    size_t end = 0;
    if (!HexAt(t, hex) || !ReadNumber(t, hex + 16, &number, &end)) continue;
    Add(out, t.substr(hex, 16), number, p.kind, p.node);
    open = end - 1;
  }
}

}  // namespace

std::vector<PortSubject> ExtractPortSubjects(std::string_view text) {
  // Scanned by hand (this runs on every event replay reads): a message uses one of the shapes.
  std::vector<PortSubject> out;
  if (text.find('(') == std::string_view::npos) return out;
  AddOlder(text, &out);
  AddNewer(text, &out);
  return out;
}

std::string NodeKey(std::string_view name) {
  name = TrimBlanks(name);
  size_t colon = name.find(':');
  if (colon != std::string_view::npos) name = TrimBlanks(name.substr(0, colon));
  // " hca-<n>" or " mlx5_<n>" at the end: the host's HCA, not the host. Cut before lowering, so
  // the key is the only string made (every placed end of every event comes here).
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  size_t last_word = name.size();
  while (last_word > 0 && !blank(name[last_word - 1])) --last_word;
  if (last_word > 0) {
    std::string_view tail = name.substr(last_word);
    auto starts = [&](std::string_view prefix) {
      if (tail.size() <= prefix.size()) return false;
      for (size_t i = 0; i < prefix.size(); ++i) {
        char c = tail[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != prefix[i]) return false;
      }
      return true;
    };
    size_t digits_at = starts("hca-") ? 4 : starts("mlx5_") ? 5 : 0;
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (digits_at > 0 && std::all_of(tail.begin() + digits_at, tail.end(), digit)) {
      name = name.substr(0, last_word);
      while (!name.empty() && blank(name.back())) name.remove_suffix(1);
    }
  }
  return AsciiLower(name);
}

bool IsSwitchObjectType(std::string_view type) { return AsciiLower(type) == "switch"; }

bool IsHostObjectType(std::string_view type) {
  std::string t = AsciiLower(type);
  return t == "computer" || t == "host" || t == "node" || t == "server";
}

}  // namespace ufmr
