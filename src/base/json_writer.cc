#include "base/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "base/utf8.h"

namespace ufmr {

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  out_ += '}';
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  out_ += ']';
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  AppendQuoted(key, &out_);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view s) {
  BeforeValue();
  AppendQuoted(s, &out_);
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t v) {
  BeforeValue();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out_.append(buf, static_cast<size_t>(r.ptr - buf));
  return *this;
}

JsonWriter& JsonWriter::Number(double v, int decimals) {
  if (!std::isfinite(v)) return Null();
  BeforeValue();
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  if (n < 0 || static_cast<size_t>(n) >= sizeof(buf)) {
    n = std::snprintf(buf, sizeof(buf), "%.17g", v);  // too large for fixed notation
  }
  std::string_view text(buf, n > 0 ? std::min(static_cast<size_t>(n), sizeof(buf) - 1) : 0);
  if (text.find('.') != std::string_view::npos && text.find('e') == std::string_view::npos) {
    while (!text.empty() && text.back() == '0') text.remove_suffix(1);
    if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  }
  if (text == "-0") text = "0";
  out_.append(text);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool v) {
  BeforeValue();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

namespace {

// Whether any byte of the eight in x is one JSON does not take as it is: a control character,
// a non-ASCII byte (checked as UTF-8 one by one), '"' or '\\'.
bool AnySpecial(uint64_t x) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  auto has_zero = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  const uint64_t below_space = (x - kOnes * 0x20) & ~x & kHigh;
  const uint64_t quote = has_zero(x ^ (kOnes * '"'));
  const uint64_t backslash = has_zero(x ^ (kOnes * '\\'));
  return (below_space | (x & kHigh) | quote | backslash) != 0;
}

bool Plain(unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }

// How many bytes from `from` on are written as they are (nearly all of a ticket's text): eight
// at a time while none of them is special.
size_t PlainRunEnd(std::string_view s, size_t from) {
  size_t i = from;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, s.data() + i, sizeof x);
    if (AnySpecial(x)) break;
  }
  while (i < s.size() && Plain(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

}  // namespace

void JsonWriter::AppendQuoted(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  size_t i = PlainRunEnd(s, 0);
  if (i == s.size()) {  // the common case: nothing to escape
    out->append(1, '"').append(s).append(1, '"');
    return;
  }
  out->reserve(out->size() + s.size() + 2);
  out->append(1, '"').append(s.data(), i);
  while (i < s.size()) {
    // A run of characters written as they are, in one append.
    const size_t plain = PlainRunEnd(s, i);
    if (plain > i) {
      out->append(s.data() + i, plain - i);
      i = plain;
      continue;
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80 || c == 0) {
      size_t len = Utf8SequenceLength(s, i);
      if (len == 0) {
        *out += "\\ufffd";
        ++i;
      } else {
        out->append(s.substr(i, len));
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (c < 0x20) {
          *out += "\\u00";
          *out += kHex[c >> 4];
          *out += kHex[c & 0xf];
        } else {
          *out += static_cast<char>(c);
        }
    }
    ++i;
  }
  *out += '"';
}

}  // namespace ufmr
