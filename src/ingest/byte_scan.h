// Byte-level scanning primitives of the event-log parser and the port-name scan (internal to
// src/ingest): character tables and classes, 8-byte shape checks, 16-byte searches (the
// compilers' portable vector types: SSE2 on x86-64, NEON on ARM) and the plain-ASCII check.
// Everything is inline and works on bytes the caller owns; pure functions, thread-safe.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace ufmr::byte_scan {

using Table = std::array<bool, 256>;

constexpr Table MakeTable(std::string_view chars, bool digits, bool letters) {
  Table t{};
  for (char c : chars) t[static_cast<unsigned char>(c)] = true;
  for (int c = 0; c < 256; ++c) {
    if (digits && c >= '0' && c <= '9') t[c] = true;
    if (letters && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) t[c] = true;
  }
  return t;
}

inline constexpr Table kHex = MakeTable("abcdefABCDEF", true, false);
inline constexpr Table kWord = MakeTable("_", true, true);  // RE2's \b word characters (ASCII)

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsBlank(char c) { return c == ' ' || c == '\t'; }
inline bool Hex(char c) { return kHex[static_cast<unsigned char>(c)]; }
inline bool Word(char c) { return kWord[static_cast<unsigned char>(c)]; }
inline char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
inline char Upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

// s without leading and trailing blanks, CRs and line ends.
inline std::string_view Trim(std::string_view s) {
  while (!s.empty() && (IsBlank(s.front()) || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (IsBlank(s.back()) || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Two digits at p, as a number.
inline int Two(const char* p) { return (p[0] - '0') * 10 + (p[1] - '0'); }

// --- Eight bytes at a time --------------------------------------------------------------------

inline constexpr uint64_t kOnes = 0x0101010101010101ULL;
inline constexpr uint64_t kHigh = 0x8080808080808080ULL;
inline constexpr bool kLittleEndian = std::endian::native == std::endian::little;

inline uint64_t Load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// Masks for FitsShape: a shape of 8 bytes, '#' for a digit and any other byte for itself.
struct Shape {
  uint64_t literal_mask = 0, literal = 0, literal_as_zeros = 0;
  explicit constexpr Shape(const char (&shape)[9]) {
    for (int k = 0; k < 8; ++k) {
      uint64_t byte = uint64_t{0xFF} << (8 * k);
      if (shape[k] == '#') continue;
      literal_mask |= byte;
      literal |= uint64_t{static_cast<unsigned char>(shape[k])} << (8 * k);
      literal_as_zeros |= uint64_t{'0'} << (8 * k);
    }
  }
};

// True when the 8 bytes in w (little-endian) fit the shape. The literal bytes are compared, then
// replaced by '0' so that every byte must be a digit: 0x30..0x39 are the bytes whose high nibble
// is 3 both before and after adding 6 (no carry crosses a byte once the high nibbles are 3).
inline bool FitsShape(uint64_t w, const Shape& shape) {
  constexpr uint64_t kHighNibbles = 0xF0F0F0F0F0F0F0F0ULL;
  constexpr uint64_t kThrees = kOnes * 0x30;
  if ((w & shape.literal_mask) != shape.literal) return false;
  uint64_t x = (w & ~shape.literal_mask) | shape.literal_as_zeros;
  return (x & kHighNibbles) == kThrees && ((x + kOnes * 6) & kHighNibbles) == kThrees;
}

// --- Sixteen bytes at a time ------------------------------------------------------------------

// A comparison gives 0xFF in each byte that holds, and the first such byte is found from the two
// halves as 64-bit words.
using Bytes16 = unsigned char __attribute__((vector_size(16)));

inline Bytes16 Load16(const char* p) {
  Bytes16 v;
  std::memcpy(&v, p, 16);
  return v;
}

// Offset of the first 0xFF byte of a comparison result, or 16 when there is none.
inline size_t FirstSet(Bytes16 m) {
  uint64_t half[2];
  std::memcpy(half, &m, 16);
  if (half[0] != 0) return static_cast<size_t>(std::countr_zero(half[0])) / 8;
  if (half[1] != 0) return 8 + static_cast<size_t>(std::countr_zero(half[1])) / 8;
  return 16;
}

// The first byte of p[i, n) that is a, b or c; n when there is none.
inline size_t FindAny3(const char* p, size_t i, size_t n, char a, char b, char c) {
  if constexpr (kLittleEndian) {
    const auto ua = static_cast<unsigned char>(a), ub = static_cast<unsigned char>(b),
               uc = static_cast<unsigned char>(c);
    for (; i + 16 <= n; i += 16) {
      Bytes16 v = Load16(p + i);
      size_t k = FirstSet(reinterpret_cast<Bytes16>((v == ua) | (v == ub) | (v == uc)));
      if (k < 16) return i + k;
    }
  }
  for (; i < n; ++i) {
    if (p[i] == a || p[i] == b || p[i] == c) return i;
  }
  return n;
}

// The first byte of p[i, n) that is not a hex digit; n when there is none.
inline size_t SkipHex(const char* p, size_t i, size_t n) {
  if constexpr (kLittleEndian) {
    for (; i + 16 <= n; i += 16) {
      Bytes16 v = Load16(p + i);
      Bytes16 folded = v | 0x20;  // 'A'-'F' to 'a'-'f'; other bytes are not letters then either
      auto hex = ((v >= '0') & (v <= '9')) | ((folded >= 'a') & (folded <= 'f'));
      size_t k = FirstSet(reinterpret_cast<Bytes16>(~hex));
      if (k < 16) return i + k;
    }
  }
  while (i < n && Hex(p[i])) ++i;
  return i;
}

// True when the 16 bytes at p are hex digits.
inline bool Hex16(const char* p) { return SkipHex(p, 0, 16) == 16; }

// --- UTF-8 ------------------------------------------------------------------------------------

// True when s may hold a NUL byte or a byte >= 0x80 (then the exact check runs). Sixteen bytes at
// a time, then eight: for each byte b, ((b - 1) | b) has its high bit set iff b == 0 or b >= 0x80
// (a borrow only comes from a lower byte that is 0, which is already flagged).
inline bool MaybeNotPlainAscii(std::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  size_t i = 0;
  if constexpr (kLittleEndian) {
    for (; i + 16 <= n; i += 16) {
      Bytes16 v = Load16(p + i);
      if (FirstSet(reinterpret_cast<Bytes16>((v == 0) | (v >= 0x80))) < 16) return true;
    }
  }
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    std::memcpy(&v, p + i, 8);
    if (((v - kOnes) | v) & kHigh) return true;
  }
  for (; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(p[i]);
    if (c == 0 || c >= 0x80) return true;
  }
  return false;
}

}  // namespace ufmr::byte_scan
