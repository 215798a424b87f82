#include "base/utf8.h"

#include <cstdint>
#include <cstring>

namespace ufmr {

namespace {
constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD
}  // namespace

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  auto cont = [&](size_t k, unsigned lo, unsigned hi) {
    return k < s.size() && at(k) >= lo && at(k) <= hi;
  };
  unsigned char c = at(i);
  if (c == 0) return 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1, 0x80, 0xBF) ? 2 : 0;
  if (c == 0xE0) return cont(i + 1, 0xA0, 0xBF) && cont(i + 2, 0x80, 0xBF) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
    return cont(i + 1, 0x80, 0xBF) && cont(i + 2, 0x80, 0xBF) ? 3 : 0;
  }
  if (c == 0xED) return cont(i + 1, 0x80, 0x9F) && cont(i + 2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xF0) {
    return cont(i + 1, 0x90, 0xBF) && cont(i + 2, 0x80, 0xBF) && cont(i + 3, 0x80, 0xBF) ? 4 : 0;
  }
  if (c >= 0xF1 && c <= 0xF3) {
    return cont(i + 1, 0x80, 0xBF) && cont(i + 2, 0x80, 0xBF) && cont(i + 3, 0x80, 0xBF) ? 4 : 0;
  }
  if (c == 0xF4) {
    return cont(i + 1, 0x80, 0x8F) && cont(i + 2, 0x80, 0xBF) && cont(i + 3, 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

size_t FirstInvalidUtf8(std::string_view s, size_t from) {
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  size_t i = from;
  while (i < s.size()) {
    // Runs of ASCII without NUL, 8 bytes at a time: the bulk of any UFM answer.
    while (i + 8 <= s.size()) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, sizeof(w));
      if ((w & kHigh) != 0 || ((w - kOnes) & ~w & kHigh) != 0) break;  // non-ASCII, or a NUL
      i += 8;
    }
    if (i >= s.size()) break;
    const size_t len = Utf8SequenceLength(s, i);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

bool SanitizeUtf8(std::string_view s, std::string* out) {
  out->clear();
  out->reserve(s.size() + 16);
  bool replaced = false;
  size_t start = 0;
  for (;;) {
    const size_t bad = FirstInvalidUtf8(s, start);
    if (bad == std::string_view::npos) {
      out->append(s.substr(start));
      return replaced;
    }
    out->append(s.substr(start, bad - start));
    out->append(kReplacementChar);
    replaced = true;
    start = bad + 1;
  }
}

std::string ForLog(std::string_view s, size_t max) {
  bool cut = false;
  if (s.size() > max) {
    size_t at = max;
    while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
    s = s.substr(0, at);
    cut = true;
  }
  std::string clean;
  if (SanitizeUtf8(s, &clean)) s = clean;
  std::string out;
  out.reserve(s.size() + (cut ? 3 : 0));
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f || c == '\\') {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    } else {
      out.push_back(ch);
    }
  }
  if (cut) out += "...";
  return out;
}

}  // namespace ufmr
