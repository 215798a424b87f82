#include "core/utf8.h"

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

bool SanitizeUtf8(std::string_view s, std::string* out) {
  out->clear();
  out->reserve(s.size() + 16);
  bool replaced = false;
  for (size_t i = 0; i < s.size();) {
    size_t len = Utf8SequenceLength(s, i);
    if (len == 0) {
      out->append(kReplacementChar);
      replaced = true;
      ++i;
    } else {
      out->append(s.data() + i, len);
      i += len;
    }
  }
  return replaced;
}

}  // namespace ufmr
