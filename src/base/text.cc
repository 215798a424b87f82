#include "base/text.h"

namespace ufmr {

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

namespace {

bool Blank(char c) { return c == ' ' || c == '\t'; }
bool Space(char c) { return Blank(c) || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

template <typename Pred>
std::string_view TrimIf(std::string_view s, Pred strip) {
  while (!s.empty() && strip(s.front())) s.remove_prefix(1);
  while (!s.empty() && strip(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view TrimBlanks(std::string_view s) { return TrimIf(s, Blank); }
std::string_view TrimSpace(std::string_view s) { return TrimIf(s, Space); }

}  // namespace ufmr
