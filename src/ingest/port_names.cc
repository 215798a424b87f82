#include "ingest/port_names.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <utility>

#include "ingest/byte_scan.h"
#include "ufm/ufm_json.h"

namespace ufmr {

std::vector<std::string> ExtractPortNames(const std::string& text) {
  static const RE2 kName("([0-9a-fA-F]{16})_(\\d{1,4})\\b");
  static const RE2 kColon("\\)(?:0x)?([0-9a-fA-F]{16}):(\\d{1,4})\\b");
  static const RE2 kOldLog("\\b(?:0x)?([0-9a-fA-F]{16}) \\([^)]*\\) : (\\d{1,4})\\b");
  std::vector<std::pair<size_t, std::string>> found;
  for (const RE2* re : {&kName, &kColon, &kOldLog}) {
    re2::StringPiece input(text);
    std::string guid, num;
    while (RE2::FindAndConsume(&input, *re, &guid, &num)) {
      size_t pos = static_cast<size_t>(input.data() - text.data());
      found.emplace_back(pos, AsciiLower(guid) + "_" + std::to_string(std::stoi(num)));
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& [pos, name] : found) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

// --- The hand-written scan --------------------------------------------------------------------
//
// The three forms ExtractPortNames matches with RE2, found by scanning for their anchor character
// and checking the 16 hex digits before it:
//   1. ([0-9a-fA-F]{16})_(\d{1,4})\b                          anchor '_'
//   2. \)(?:0x)?([0-9a-fA-F]{16}):(\d{1,4})\b                 anchor ':'
//   3. \b(?:0x)?([0-9a-fA-F]{16}) \([^)]*\) : (\d{1,4})\b     anchor '('
// Like FindAndConsume, a form's next match must start at or after the end of its previous one;
// results are ordered by where they end, as ExtractPortNames orders them.
// Every form needs 16 hex digits just before its anchor ('(' one byte further, after a space), so a
// byte that is not a hex digit rules out an anchor in the 16 bytes after it (17 for '('): the scan
// steps over them, and looks at about one byte in ten of plain text.

using byte_scan::Hex16;
using byte_scan::IsDigit;
using byte_scan::Lower;
using byte_scan::SkipHex;
using byte_scan::Word;

void FoundPortNames::Add(const char* guid, size_t end, int number) {
  Match m;
  m.end = end;
  for (int k = 0; k < 16; ++k) m.name[k] = Lower(guid[k]);
  m.name[16] = '_';
  auto r = std::to_chars(m.name + 17, m.name + sizeof(m.name), number);
  m.len = static_cast<uint8_t>(r.ptr - m.name);
  if (count_ < fixed_.size()) {
    fixed_[count_] = m;
  } else {
    if (overflow_.empty()) overflow_.assign(fixed_.begin(), fixed_.end());
    overflow_.push_back(m);
  }
  ++count_;
}

void FoundPortNames::SortByEnd() {
  Match* m = overflow_.empty() ? fixed_.data() : overflow_.data();
  // Insertion sort: few matches.
  for (size_t i = 1; i < count_; ++i) {
    Match x = m[i];
    size_t j = i;
    while (j > 0 && m[j - 1].end > x.end) {
      m[j] = m[j - 1];
      --j;
    }
    m[j] = x;
  }
}

namespace {

// Byte classes for the scan's steps.
enum PortByte : uint8_t { kOtherByte, kHexByte, kAnchorByte, kSpaceByte };
constexpr std::array<uint8_t, 256> MakePortClasses() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
      t[c] = kHexByte;
    }
  }
  t['_'] = t[':'] = t['('] = kAnchorByte;
  t[' '] = kSpaceByte;
  return t;
}
constexpr std::array<uint8_t, 256> kPortClass = MakePortClasses();

// \d{1,4}\b at s[i]: sets *end and *value.
inline bool PortNumber(std::string_view s, size_t i, size_t* end, int* value) {
  size_t k = 0;
  int v = 0;
  while (i + k < s.size() && IsDigit(s[i + k]) && k < 5) {
    v = v * 10 + (s[i + k] - '0');
    ++k;
  }
  if (k == 0 || k > 4) return false;
  if (i + k < s.size() && Word(s[i + k])) return false;
  *end = i + k;
  *value = v;
  return true;
}

}  // namespace

// The check of each form at its anchor, for one scan of one text (ScanPortNames steps to the
// anchors).
class PortNameScanner {
 public:
  PortNameScanner(std::string_view s, FoundPortNames* found) : s_(s), found_(found) {}

  // The anchor at s_[p] (p >= 16): a match of its form goes to *found_.
  void At(size_t p) {
    if (s_[p] == '_') {
      AtUnderscore(p);
    } else if (s_[p] == ':') {
      AtColon(p);
    } else {
      AtParen(p);
    }
  }

 private:
  // Form 1: "<16 hex>_<n>".
  void AtUnderscore(size_t p) {
    const char* d = s_.data();
    size_t g = p - 16, end = 0;
    int number = 0;
    if (g < consumed_[0] || !Hex16(d + g) || !PortNumber(s_, p + 1, &end, &number)) return;
    found_->Add(d + g, end, number);
    consumed_[0] = end;
  }

  // Form 2: ")<16 hex>:<n>", ")0x<16 hex>:<n>".
  void AtColon(size_t p) {
    const char* d = s_.data();
    size_t g = p - 16, start, end = 0;
    int number = 0;
    if (g >= 1 && d[g - 1] == ')') {
      start = g - 1;
    } else if (g >= 3 && d[g - 1] == 'x' && d[g - 2] == '0' && d[g - 3] == ')') {
      start = g - 3;
    } else {
      return;
    }
    if (start < consumed_[1] || !Hex16(d + g) || !PortNumber(s_, p + 1, &end, &number)) return;
    found_->Add(d + g, end, number);
    consumed_[1] = end;
  }

  // Form 3: "<16 hex> (...) : <n>" at a word boundary, the GUID with or without "0x".
  void AtParen(size_t p) {
    const char* d = s_.data();
    if (no_close_ || p < 17 || d[p - 1] != ' ') return;
    size_t g = p - 17, start;
    if (g == 0 || !Word(d[g - 1])) {
      start = g;
    } else if (g >= 2 && d[g - 1] == 'x' && d[g - 2] == '0' && (g == 2 || !Word(d[g - 3]))) {
      start = g - 2;
    } else {
      return;
    }
    if (start < consumed_[2] || !Hex16(d + g)) return;
    if (close_ == std::string_view::npos || close_ < p) {
      close_ = s_.find(')', p + 1);
      if (close_ == std::string_view::npos) {
        no_close_ = true;
        return;
      }
    }
    size_t end = 0;
    int number = 0;
    if (close_ + 4 > s_.size() || d[close_ + 1] != ' ' || d[close_ + 2] != ':' ||
        d[close_ + 3] != ' ' || !PortNumber(s_, close_ + 4, &end, &number)) {
      return;
    }
    found_->Add(d + g, end, number);
    consumed_[2] = end;
  }

  std::string_view s_;
  FoundPortNames* found_;
  size_t consumed_[3] = {0, 0, 0};         // per form: where its last match ended
  size_t close_ = std::string_view::npos;  // next ')' at or after the last '(' looked at
  bool no_close_ = false;                  // no ')' after some '(': form 3 cannot match anymore
};

void ScanPortNames(std::string_view text, FoundPortNames* found) {
  found->Clear();
  PortNameScanner scanner(text, found);
  const char* d = text.data();
  const size_t n = text.size();
  size_t next = 0;
  for (size_t p = 0; p < n; p = next) {
    switch (kPortClass[static_cast<unsigned char>(d[p])]) {
      case kHexByte:  // only the byte after a run of hex digits can be an anchor
        next = SkipHex(d, p + 1, n);
        continue;
      case kSpaceByte:  // only a '(' right after it can be an anchor before p + 17
        next = (p + 1 < n && d[p + 1] == '(') ? p + 1 : p + 17;
        continue;
      case kOtherByte:
        next = p + 17;
        continue;
      default:  // an anchor; like any byte that is not a hex digit, it rules out the next 16
        next = p + 17;
        if (p < 16) continue;
        break;
    }
    scanner.At(p);
  }
  if (found->size() > 1) found->SortByEnd();
}

void AppendPortNames(std::string_view text, std::vector<std::string>* out) {
  FoundPortNames found;
  ScanPortNames(text, &found);
  for (size_t i = 0; i < found.size(); ++i) {
    std::string_view name = found[i];
    if (std::find(out->begin(), out->end(), name) == out->end()) out->emplace_back(name);
  }
}

}  // namespace ufmr
