#include "ingest/event_log.h"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>

#include "base/utf8.h"

namespace ufmr {

namespace {

constexpr size_t kExcerptBytes = 120;
constexpr size_t kMaxNameBytes = 200;

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

constexpr Table kHex = MakeTable("abcdefABCDEF", true, false);
constexpr Table kWord = MakeTable("_", true, true);  // RE2's \b word characters (ASCII)

// Byte classes for the port-name scan (see ScanPortNames).
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

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsBlank(char c) { return c == ' ' || c == '\t'; }
inline bool Hex(char c) { return kHex[static_cast<unsigned char>(c)]; }
inline bool Word(char c) { return kWord[static_cast<unsigned char>(c)]; }
inline char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
inline char Upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

std::string_view Trim(std::string_view s) {
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

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHigh = 0x8080808080808080ULL;
constexpr bool kLittleEndian = std::endian::native == std::endian::little;

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

// Sixteen bytes at a time, with the compilers' portable vector types (SSE2 on x86-64, NEON on
// ARM): a comparison gives 0xFF in each byte that holds, and the first such byte is found from
// the two halves as 64-bit words.
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

// --- UTF-8 ------------------------------------------------------------------------------------

// True when s may hold a NUL byte or a byte >= 0x80 (then the exact check runs). Sixteen bytes at
// a time, then eight: for each byte b, ((b - 1) | b) has its high bit set iff b == 0 or b >= 0x80
// (a borrow only comes from a lower byte that is 0, which is already flagged).
bool MaybeNotPlainAscii(std::string_view s) {
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

// The first line of s, at most kExcerptBytes, cut on a UTF-8 boundary (s is valid UTF-8).
std::string Excerpt(std::string_view s) {
  s = s.substr(0, s.find('\n'));
  if (s.size() <= kExcerptBytes) return std::string(s);
  size_t cut = kExcerptBytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "...";
}

std::string_view CutUtf8(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut);
}

// --- Lists ------------------------------------------------------------------------------------

// Fills a vector<string> in place, de-duplicating, reusing the strings already in it (so a warm
// LogEntry parses without allocating). Call Finish() to drop the unused tail.
class ListWriter {
 public:
  explicit ListWriter(std::vector<std::string>* v) : v_(v) {}
  void Add(std::string_view s) {
    if (s.empty()) return;
    for (size_t i = 0; i < n_; ++i) {
      if ((*v_)[i] == s) return;
    }
    if (n_ < v_->size()) {
      (*v_)[n_].assign(s.data(), s.size());
    } else {
      v_->emplace_back(s);
    }
    ++n_;
  }
  void Finish() { v_->resize(n_); }
  size_t size() const { return n_; }

 private:
  std::vector<std::string>* v_;
  size_t n_ = 0;
};

// --- Port names -------------------------------------------------------------------------------

// The three forms ExtractPortNames (ufm_event.cc) matches with RE2, found by scanning for their
// anchor character and checking the 16 hex digits before it:
//   1. ([0-9a-fA-F]{16})_(\d{1,4})\b                          anchor '_'
//   2. \)(?:0x)?([0-9a-fA-F]{16}):(\d{1,4})\b                 anchor ':'
//   3. \b(?:0x)?([0-9a-fA-F]{16}) \([^)]*\) : (\d{1,4})\b     anchor '('
// Like FindAndConsume, a form's next match must start at or after the end of its previous one;
// results are ordered by where they end, as ExtractPortNames orders them.
// Every form needs 16 hex digits just before its anchor ('(' one byte further, after a space), so a
// byte that is not a hex digit rules out an anchor in the 16 bytes after it (17 for '('): the scan
// steps over them, and looks at about one byte in ten of plain text.

inline bool Hex16(const char* p) { return SkipHex(p, 0, 16) == 16; }

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

struct PortMatch {
  size_t end;
  uint8_t len;
  char name[24];  // 16 hex + '_' + up to 4 digits
};

template <typename Emit>
void ScanPortNames(std::string_view s, Emit&& emit) {
  std::array<PortMatch, 16> fixed;
  std::vector<PortMatch> overflow;
  size_t count = 0;
  auto add = [&](const char* guid, size_t end, int number) {
    PortMatch m;
    m.end = end;
    for (int k = 0; k < 16; ++k) m.name[k] = Lower(guid[k]);
    m.name[16] = '_';
    auto r = std::to_chars(m.name + 17, m.name + sizeof(m.name), number);
    m.len = static_cast<uint8_t>(r.ptr - m.name);
    if (count < fixed.size()) {
      fixed[count] = m;
    } else {
      if (overflow.empty()) overflow.assign(fixed.begin(), fixed.end());
      overflow.push_back(m);
    }
    ++count;
  };

  const char* d = s.data();
  const size_t n = s.size();
  size_t consumed[3] = {0, 0, 0};
  size_t close = std::string_view::npos;  // next ')' at or after the last '(' looked at
  bool no_close = false;                  // no ')' after some '(': form 3 cannot match anymore
  size_t next = 0;
  for (size_t p = 0; p < n; p = next) {
    unsigned char c = static_cast<unsigned char>(d[p]);
    switch (kPortClass[c]) {
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
    size_t end = 0;
    int number = 0;
    if (c == '_') {
      size_t g = p - 16;
      if (g < consumed[0] || !Hex16(d + g) || !PortNumber(s, p + 1, &end, &number)) continue;
      add(d + g, end, number);
      consumed[0] = end;
    } else if (c == ':') {
      size_t g = p - 16;
      size_t start;
      if (g >= 1 && d[g - 1] == ')') {
        start = g - 1;
      } else if (g >= 3 && d[g - 1] == 'x' && d[g - 2] == '0' && d[g - 3] == ')') {
        start = g - 3;
      } else {
        continue;
      }
      if (start < consumed[1] || !Hex16(d + g) || !PortNumber(s, p + 1, &end, &number)) continue;
      add(d + g, end, number);
      consumed[1] = end;
    } else {  // '('
      if (no_close || p < 17 || d[p - 1] != ' ') continue;
      size_t g = p - 17;
      size_t start;
      if (g == 0 || !Word(d[g - 1])) {
        start = g;
      } else if (g >= 2 && d[g - 1] == 'x' && d[g - 2] == '0' && (g == 2 || !Word(d[g - 3]))) {
        start = g - 2;
      } else {
        continue;
      }
      if (start < consumed[2] || !Hex16(d + g)) continue;
      if (close == std::string_view::npos || close < p) {
        close = s.find(')', p + 1);
        if (close == std::string_view::npos) {
          no_close = true;
          continue;
        }
      }
      if (close + 4 > n || d[close + 1] != ' ' || d[close + 2] != ':' || d[close + 3] != ' ' ||
          !PortNumber(s, close + 4, &end, &number)) {
        continue;
      }
      add(d + g, end, number);
      consumed[2] = end;
    }
  }
  PortMatch* m = overflow.empty() ? fixed.data() : overflow.data();
  // Stable insertion sort by end (few matches; forms never tie on an end position).
  for (size_t i = 1; i < count; ++i) {
    PortMatch x = m[i];
    size_t j = i;
    while (j > 0 && m[j - 1].end > x.end) {
      m[j] = m[j - 1];
      --j;
    }
    m[j] = x;
  }
  for (size_t i = 0; i < count; ++i) emit(std::string_view(m[i].name, m[i].len));
}

// --- Object and message details ---------------------------------------------------------------

// "1/17/1", "17/1": digits, then one or more "/digits".
bool IsLabel(std::string_view s) {
  size_t i = 0;
  int groups = 0;
  while (i < s.size()) {
    size_t k = i;
    while (k < s.size() && IsDigit(s[k])) ++k;
    if (k == i) return false;
    ++groups;
    if (k == s.size()) break;
    if (s[k] != '/') return false;
    i = k + 1;
    if (i == s.size()) return false;
  }
  return groups >= 2;
}

bool IsSingleWord(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsAlpha(c)) return false;
  }
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (Lower(a[k]) != Lower(b[k])) return false;
  }
  return true;
}

// A port number as UFM writes it in an object ("16"): 1 to 4 digits, written back without leading
// zeros (as ExtractPortNames writes numbers). Empty when s is not one.
struct PortNumberText {
  char text[8] = {};
  uint8_t len = 0;
  std::string_view view() const { return std::string_view(text, len); }
};
PortNumberText ParsePortNumber(std::string_view s) {
  PortNumberText out;
  if (s.empty() || s.size() > 4) return out;
  int v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return out;
    v = v * 10 + (c - '0');
  }
  out.len =
      static_cast<uint8_t>(std::to_chars(out.text, out.text + sizeof(out.text), v).ptr - out.text);
  return out;
}

// One port as an IBPort object or a "Peer info:" names it, split on " / " (labels hold '/'):
//   "default(34) / Switch: c931ibsw-leaf01 / NA / 16"   older: site, node, label or NA, number
//   "Default / Switch: T2-E63-L-U37 / 1/19/2"           newer: site, node, label
//   "Computer: c931f03p08 HCA-1 / 1"                    a host's port (Peer info)
struct PortRef {
  std::string_view kind;  // "Switch", "Computer", ...: the word before the node's ':'
  std::string_view node;  // the first node named
  std::string_view label;
  PortNumberText number;  // a number segment after the node
  bool is_switch() const { return EqualsIgnoreCase(kind, "Switch"); }
};

// Splits `text`; every node and label it names also goes to node_names and labels when given.
PortRef SplitPortRef(std::string_view text, ListWriter* node_names, ListWriter* labels) {
  PortRef r;
  while (!text.empty()) {
    size_t sep = text.find(" / ");
    std::string_view seg = Trim(text.substr(0, sep));
    text = sep == std::string_view::npos ? std::string_view() : text.substr(sep + 3);
    size_t colon = seg.find(':');
    if (colon != std::string_view::npos && IsSingleWord(Trim(seg.substr(0, colon)))) {
      std::string_view name = Trim(seg.substr(colon + 1));
      if (name.empty()) continue;
      if (node_names) node_names->Add(name);
      if (r.node.empty()) {
        r.node = name;
        r.kind = Trim(seg.substr(0, colon));
      }
    } else if (IsLabel(seg)) {  // "NA" (no label) is not one
      if (labels) labels->Add(seg);
      if (r.label.empty()) r.label = seg;
    } else if (!r.node.empty()) {
      if (PortNumberText n = ParsePortNumber(seg); n.len > 0) r.number = n;
    }
  }
  return r;
}

// "<dev_id>_<number>" into *name when the object names a switch port by number and dev_id is a
// 16-hex-digit GUID: a switch's ports are named by the switch GUID. Never for a host: its dev_id
// may be the node GUID while its ports are named by port GUIDs.
bool DevIdPortName(const PortRef& r, std::string_view dev_id, std::array<char, 24>* name) {
  if (!r.is_switch() || r.number.len == 0) return false;
  if (dev_id.size() == 18 && dev_id[0] == '0' && (dev_id[1] == 'x' || dev_id[1] == 'X')) {
    dev_id.remove_prefix(2);
  }
  if (dev_id.size() != 16 || !Hex16(dev_id.data())) return false;
  for (size_t k = 0; k < 16; ++k) (*name)[k] = Lower(dev_id[k]);
  (*name)[16] = '_';
  std::memcpy(name->data() + 17, r.number.text, r.number.len);
  return true;
}

bool IsPortObjectType(std::string_view type) { return type == "IBPort" || type == "Port"; }

struct Details {
  ListWriter node_names;
  ListWriter labels;
  ListWriter port_descriptions;
  ListWriter peers;
  std::string* cable_serial;
  std::string description_buffer;  // "NAME:LABEL" built here

  void Describe(std::string_view node, std::string_view label) {
    description_buffer.assign(node);
    description_buffer.push_back(':');
    description_buffer.append(label);
    port_descriptions.Add(description_buffer);
  }

  // "<node>:<label>", or "<node>:<number>" when there is no label: a switch without labels and a
  // host port carry their number where a label would be (the inventory indexes them so). False
  // when the reference names no port.
  bool DescribePort(const PortRef& r) {
    if (r.node.empty()) return false;
    if (!r.label.empty()) {
      Describe(r.node, r.label);
    } else if (r.number.len > 0) {
      Describe(r.node, r.number.view());
    } else {
      return false;
    }
    return true;
  }

  // "NAME:LABEL" (a port's node description) or just a name.
  void NodeRef(std::string_view ref, bool port_ref) {
    ref = Trim(ref);
    size_t colon = ref.rfind(':');
    if (colon != std::string_view::npos && IsLabel(ref.substr(colon + 1))) {
      std::string_view node = Trim(ref.substr(0, colon));
      std::string_view label = ref.substr(colon + 1);
      node_names.Add(node);
      labels.Add(label);
      if (!node.empty()) Describe(node, label);
    } else if (!port_ref) {
      node_names.Add(ref);
    }
  }

  // "Computer: c931f03p08 HCA-1 / 1" or "Default / Switch: T2-E63-L-U37 / 1/4/2" after "Peer
  // info:".
  void PeerInfo(std::string_view ref) {
    PortRef r = SplitPortRef(ref, &node_names, &labels);
    if (DescribePort(r)) peers.Add(description_buffer);
  }
};

// The event's own port from its object: "<dev_id>_<number>" for a switch's IBPort, otherwise a
// port description for the inventory. Other object texts ("Source G_N  TO Dest: G_M",
// "default / Switch: NAME / 1/17/1", "Computer: NAME", "default", "Grid") give their node names
// and labels, and a switch object with a label its port description.
void ObjectDetails(std::string_view type, std::string_view object, std::string_view dev_id,
                   ListWriter* ports, Details* d) {
  PortRef r = SplitPortRef(object, &d->node_names, &d->labels);
  if (!IsPortObjectType(type)) {
    if (type == "Switch" && !r.node.empty() && !r.label.empty()) d->Describe(r.node, r.label);
    return;
  }
  std::array<char, 24> name;
  if (DevIdPortName(r, dev_id, &name)) {
    ports->Add(std::string_view(name.data(), 17 + r.number.len));
    return;
  }
  d->DescribePort(r);
}

// The first of '(', 'P', 'S' (the anchors below) in m[i, n), or n.
inline size_t NextDetailAnchor(const char* p, size_t n, size_t i) {
  return FindAny3(p, i, n, '(', 'P', 'S');
}

// The peer a threshold event names after "Peer info:" (from k), up to the end of its sentence or
// line: "Computer: c931f03p08 HCA-1 / 1." or "Default / Switch: T2-E63-L-U37 / 1/4/2.". Returns
// where it ends.
size_t PeerInfo(std::string_view m, size_t k, Details* d) {
  size_t e = m.find('\n', k);
  if (e == std::string_view::npos) e = m.size();
  // A host name holds no ". ": anything after one is another sentence.
  if (size_t stop = m.substr(k, e - k).find(". "); stop != std::string_view::npos) e = k + stop + 1;
  std::string_view ref = Trim(m.substr(k, e - k));
  while (!ref.empty() && ref.back() == '.') ref.remove_suffix(1);
  d->PeerInfo(ref);
  return e;
}

// Message forms: "(Switch: mellanox-SX6036)", "(Computer: fsgb001 HCA-1)",
// "(Switch:T3-E21-N-U47:1/17/1)", "Peer Port T2-E63-L-U37:1/19/2 is ...", "cable S/N: MT23...".
void MessageDetails(std::string_view m, Details* d) {
  const char* p = m.data();
  const size_t n = m.size();
  for (size_t i = NextDetailAnchor(p, n, 0); i < n; i = NextDetailAnchor(p, n, i + 1)) {
    unsigned char c = static_cast<unsigned char>(p[i]);
    if (c == '(') {
      size_t k = i + 1;
      while (k < n && IsAlpha(p[k])) ++k;
      if (k == i + 1 || k >= n || p[k] != ':') continue;
      size_t close = m.find(')', k);
      if (close == std::string_view::npos) return;  // no ')' anywhere after: nothing more to find
      std::string_view inner = m.substr(k + 1, close - k - 1);
      if (inner.size() > 256 || inner.find('(') != std::string_view::npos ||
          inner.find('\n') != std::string_view::npos) {
        continue;
      }
      d->NodeRef(inner, false);
      i = close;
    } else if (c == 'P') {
      constexpr std::string_view kPeerInfo = "Peer info:";
      if (m.compare(i, kPeerInfo.size(), kPeerInfo) == 0) {
        i = PeerInfo(m, i + kPeerInfo.size(), d) - 1;
        continue;
      }
      constexpr std::string_view kPeer = "Peer Port ";
      if (m.compare(i, kPeer.size(), kPeer) != 0) continue;
      size_t k = i + kPeer.size();
      while (k < n && IsBlank(p[k])) ++k;
      size_t e = k;
      while (e < n && !IsBlank(p[e]) && p[e] != '\n' && p[e] != ',' && p[e] != ';') ++e;
      std::string_view ref = m.substr(k, e - k);
      while (!ref.empty() && (ref.back() == '.' || ref.back() == ':')) ref.remove_suffix(1);
      if (!ref.empty()) {
        d->peers.Add(ref);
        d->NodeRef(ref, true);
      }
      i = e - 1;
    } else {  // 'S'
      constexpr std::string_view kSerial = "S/N:";
      if (!d->cable_serial->empty() || m.compare(i, kSerial.size(), kSerial) != 0) continue;
      size_t k = i + kSerial.size();
      while (k < n && IsBlank(p[k])) ++k;
      size_t e = k;
      while (e < n && !IsBlank(p[e]) && p[e] != '\n' && p[e] != ',' && p[e] != ';') ++e;
      std::string_view serial = m.substr(k, e - k);
      while (!serial.empty() && serial.back() == '.') serial.remove_suffix(1);
      d->cable_serial->assign(serial);
      i = e == k ? k : e - 1;
    }
  }
}

// --- Header ----------------------------------------------------------------------------------

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view s) : s_(s) {}

  size_t pos() const { return i_; }
  bool AtEnd() const { return i_ >= s_.size(); }
  char Peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool LookingAt(std::string_view w) const { return s_.compare(i_, w.size(), w) == 0; }
  void Skip(size_t n) { i_ += n; }

  // At least one blank when `required`.
  bool Blanks(bool required) {
    size_t start = i_;
    while (i_ < s_.size() && IsBlank(s_[i_])) ++i_;
    return !required || i_ > start;
  }

  // "[digits]": up to max_digits digits.
  bool BracketNumber(size_t max_digits, int64_t* out) {
    if (Peek() != '[') return false;
    size_t k = i_ + 1;
    int64_t v = 0;
    while (k < s_.size() && IsDigit(s_[k]) && k - i_ - 1 < max_digits) {
      v = v * 10 + (s_[k] - '0');
      ++k;
    }
    if (k == i_ + 1 || k >= s_.size() || s_[k] != ']') return false;
    *out = v;
    i_ = k + 1;
    return true;
  }

  // "[...]" with nested brackets, on one line: the text inside.
  bool Bracketed(std::string_view* out) {
    if (Peek() != '[') return false;
    int depth = 0;
    const char* d = s_.data();
    const size_t n = s_.size();
    for (size_t k = i_; (k = FindAny3(d, k, n, '[', ']', '\n')) < n; ++k) {
      char c = d[k];
      if (c == '\n') return false;
      if (c == '[') {
        ++depth;
      } else if (--depth == 0) {
        *out = s_.substr(i_ + 1, k - i_ - 1);
        i_ = k + 1;
        return true;
      }
    }
    return false;
  }

  // Letters (the severity).
  std::string_view Letters() {
    size_t start = i_;
    while (i_ < s_.size() && IsAlpha(s_[i_])) ++i_;
    return s_.substr(start, i_ - start);
  }

  // The object type: up to '[' or ':' on this line, trimmed.
  std::string_view ObjectType() {
    size_t start = i_;
    i_ = FindAny3(s_.data(), i_, s_.size(), '[', ':', '\n');
    std::string_view t = s_.substr(start, i_ - start);
    while (!t.empty() && IsBlank(t.back())) t.remove_suffix(1);
    return t;
  }

  std::string_view Rest() const { return i_ < s_.size() ? s_.substr(i_) : std::string_view(); }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

// --- Public -----------------------------------------------------------------------------------

bool IsEventLogEntryStart(std::string_view line) {
  // YYYY-MM-DD HH:MM:SS.mmm
  // 0123456789012345678901 2
  if (line.size() < 23) return false;
  const char* p = line.data();
  if constexpr (kLittleEndian) {
    // Bytes 0-7, 8-15 and 15-22 (the last two overlap by one digit).
    static constexpr Shape kDate("####-##-"), kDayTime("## ##:##"), kSeconds("#:##.###");
    if (!FitsShape(Load8(p), kDate) || !FitsShape(Load8(p + 8), kDayTime) ||
        !FitsShape(Load8(p + 15), kSeconds)) {
      return false;
    }
  } else {
    constexpr std::string_view kShape = "####-##-## ##:##:##.###";
    for (size_t k = 0; k < kShape.size(); ++k) {
      if (kShape[k] == '#' ? !IsDigit(p[k]) : p[k] != kShape[k]) return false;
    }
  }
  int month = Two(p + 5), day = Two(p + 8), hour = Two(p + 11), minute = Two(p + 14),
      second = Two(p + 17);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 &&
         second <= 60;
}

EventLogAssembler::EventLogAssembler(size_t max_entry_bytes)
    : max_entry_bytes_(max_entry_bytes == 0 ? kDefaultMaxEntryBytes : max_entry_bytes) {}

bool EventLogAssembler::Add(std::string_view line, uint64_t offset, uint64_t file_id,
                            RawLogEntry* completed) {
  ++stats_.lines;
  // Syslog-forwarded records can end in NUL; a writer that kept its offset across a truncation
  // leaves NULs in front; CR-LF line ends.
  while (!line.empty() && (line.back() == '\0' || line.back() == '\r')) line.remove_suffix(1);
  while (!line.empty() && line.front() == '\0') line.remove_prefix(1);

  const bool start = IsEventLogEntryStart(line);
  bool done = false;
  if (open_ && (start || file_id != current_.file_id)) done = Flush(completed);

  if (!open_) {
    if (Trim(line).empty()) {
      ++stats_.empty_lines_skipped;
      return done;
    }
    current_.text.clear();
    current_.file_id = file_id;
    current_.offset = offset;
    current_.lines = 0;
    current_.truncated = false;
    current_.dropped_bytes = 0;
    current_.starts_with_timestamp = start;
    open_ = true;
  } else {
    ++stats_.continuation_lines;
    Append("\n");
  }
  Append(line);
  ++current_.lines;
  return done;
}

void EventLogAssembler::Append(std::string_view bytes) {
  if (current_.truncated) {
    current_.dropped_bytes += bytes.size();
    return;
  }
  size_t room = max_entry_bytes_ - current_.text.size();
  if (bytes.size() > room) {
    current_.text.append(bytes.data(), room);
    current_.truncated = true;
    current_.dropped_bytes += bytes.size() - room;
    return;
  }
  current_.text.append(bytes.data(), bytes.size());
}

bool EventLogAssembler::Flush(RawLogEntry* completed) {
  if (!open_) return false;
  open_ = false;
  ++stats_.entries;
  if (!current_.starts_with_timestamp) ++stats_.orphan_entries;
  if (current_.truncated) ++stats_.truncated_entries;
  std::swap(*completed, current_);
  return true;
}

std::optional<EventLogAssembler::Pending> EventLogAssembler::pending() const {
  if (!open_) return std::nullopt;
  return Pending{current_.file_id, current_.offset};
}

Status ParseEventLogEntry(std::string_view text, LogEntry* out) {
  // As the assembler does, for text passed straight in (a syslog record can end in NUL).
  while (!text.empty() && (text.back() == '\0' || text.back() == '\r')) text.remove_suffix(1);
  while (!text.empty() && text.front() == '\0') text.remove_prefix(1);
  std::string cleaned;
  out->invalid_utf8 = false;
  if (MaybeNotPlainAscii(text)) {
    out->invalid_utf8 = SanitizeUtf8(text, &cleaned);
    if (out->invalid_utf8) text = cleaned;
  }
  text = Trim(text);
  if (!IsEventLogEntryStart(text)) {
    return Status::InvalidArgument(
        "event log: entry does not start with a timestamp 'YYYY-MM-DD HH:MM:SS.mmm': '" +
        Excerpt(text) + "'");
  }
  HeaderParser h(text);
  auto fail = [&](const std::string& what) {
    return Status::InvalidArgument("event log: " + what + " at column " +
                                   std::to_string(h.pos() + 1) + ": '" + Excerpt(text) + "'");
  };
  out->timestamp.assign(text.substr(0, 23));
  h.Skip(23);
  if (!h.Blanks(true)) return fail("expected a space after the timestamp");
  int64_t index = 0, event_id = 0;
  if (!h.BracketNumber(18, &index)) return fail("expected '[<index>]'");
  out->index = index;
  h.Blanks(false);
  if (!h.BracketNumber(9, &event_id)) return fail("expected '[<event id>]'");
  out->event_id = static_cast<int>(event_id);
  if (!h.Blanks(true)) return fail("expected a space before the severity");
  std::string_view severity = h.Letters();
  if (severity.empty()) return fail("expected a severity (CRITICAL, WARNING, MINOR, INFO)");
  out->severity.resize(severity.size());
  for (size_t k = 0; k < severity.size(); ++k) out->severity[k] = Upper(severity[k]);
  if (!h.Blanks(true)) return fail("expected a space after the severity");

  out->site.clear();
  std::string_view category;
  if (h.LookingAt("Site [")) {
    h.Skip(5);
    std::string_view site;
    if (!h.Bracketed(&site)) return fail("unterminated 'Site [...]'");
    out->site.assign(Trim(site));
    h.Blanks(false);
  }
  if (!h.Bracketed(&category)) return fail("expected '[<category>]'");
  // The optional site written as "[Site [<site>]]": a bracket holding "Site [...]", then the
  // real category.
  if (out->site.empty() && category.substr(0, 6) == "Site [" && category.back() == ']') {
    h.Blanks(false);
    if (h.Peek() == '[') {
      out->site.assign(Trim(category.substr(6, category.size() - 7)));
      if (!h.Bracketed(&category)) return fail("expected '[<category>]'");
    }
  }
  out->category.assign(Trim(category));
  h.Blanks(false);
  std::string_view object_type = h.ObjectType();
  if (object_type.empty()) return fail("expected an object type (Link, Switch, Port, ...)");
  out->object_type.assign(object_type);
  std::string_view object;
  if (h.Peek() == '[') {
    if (!h.Bracketed(&object)) return fail("unterminated '[' in the object");
  }
  out->object.assign(Trim(object));
  h.Blanks(false);
  out->dev_id.clear();
  if (h.LookingAt("[dev_id:")) {
    std::string_view dev;
    if (!h.Bracketed(&dev)) return fail("unterminated '[dev_id: ...]'");
    dev = Trim(dev.substr(7));
    out->dev_id.resize(dev.size());
    for (size_t k = 0; k < dev.size(); ++k) out->dev_id[k] = Lower(dev[k]);
    h.Blanks(false);
  }
  if (h.Peek() != ':') return fail("expected ':' before the message");
  h.Skip(1);
  h.Blanks(false);
  std::string_view message = Trim(h.Rest());
  out->message.assign(message);

  out->cable_serial.clear();
  ListWriter ports(&out->ports);
  Details d{
      ListWriter(&out->node_names), ListWriter(&out->labels), ListWriter(&out->port_descriptions),
      ListWriter(&out->peers),      &out->cable_serial,       {}};
  // The event's own port first (an IBPort object's), so a peer is never taken for it.
  ObjectDetails(out->object_type, out->object, out->dev_id, &ports, &d);
  auto add_port = [&ports](std::string_view name) { ports.Add(name); };
  ScanPortNames(out->object, add_port);
  // An object that names ports is the authority: the old Link form's message names the HCA by its
  // node GUID ("e41d2d0300ff4938 (Computer: c931f02p18 HCA-1) : 2" for port e41d2d0300ff4939_2).
  if (ports.size() == 0) ScanPortNames(out->message, add_port);
  ports.Finish();
  MessageDetails(out->message, &d);
  d.node_names.Finish();
  d.labels.Finish();
  d.port_descriptions.Finish();
  d.peers.Finish();
  out->file_id = 0;
  out->offset = 0;
  out->truncated = false;
  return Status::Ok();
}

Status ParseEventLogEntry(const RawLogEntry& raw, LogEntry* out) {
  Status s = ParseEventLogEntry(raw.text, out);
  out->file_id = raw.file_id;
  out->offset = raw.offset;
  out->truncated = raw.truncated;
  return s;
}

Result<LogEntry> ParseEventLogEntry(std::string_view text) {
  LogEntry e;
  Status s = ParseEventLogEntry(text, &e);
  if (!s.ok()) return s;
  return e;
}

std::string ObjectPortName(std::string_view object_type, std::string_view object,
                           std::string_view dev_id) {
  if (!IsPortObjectType(object_type)) return "";
  std::array<char, 24> name;
  PortRef r = SplitPortRef(object, nullptr, nullptr);
  if (!DevIdPortName(r, dev_id, &name)) return "";
  return std::string(name.data(), 17 + r.number.len);
}

void AppendPortNames(std::string_view text, std::vector<std::string>* out) {
  ScanPortNames(text, [out](std::string_view name) {
    for (const auto& have : *out) {
      if (have == name) return;
    }
    out->emplace_back(name);
  });
}

namespace {

// The fields a REST event carries, normalized as UFM's REST API writes them ("Link went down",
// "Warning", "Fabric Topology"), written straight into a UfmEvent or an Observation.
template <typename Event>
void FillEventFields(const LogEntry& e, Event* u) {
  std::string_view first = std::string_view(e.message).substr(0, e.message.find('\n'));
  size_t colon = first.find(": ");
  std::string_view name = colon == std::string_view::npos ? first : first.substr(0, colon);
  name = Trim(name);
  while (!name.empty() && name.back() == '.') name.remove_suffix(1);
  u->name.assign(CutUtf8(name, kMaxNameBytes));
  u->severity = e.severity;
  for (size_t k = 1; k < u->severity.size(); ++k) u->severity[k] = Lower(u->severity[k]);
  u->category = e.category;
  for (char& c : u->category) {
    if (c == '_') c = ' ';
  }
  u->object_type = e.object_type;
  u->object_name = e.object;
  u->description = e.message;
}

}  // namespace

UfmEvent ToUfmEvent(const LogEntry& e) {
  UfmEvent u;
  u.id = e.index;
  u.event_type = e.event_id;
  FillEventFields(e, &u);
  u.timestamp = e.timestamp;
  u.object_path = e.object;
  return u;
}

Observation ToObservation(const LogEntry& e, TimePoint received) {
  // As ToObservation(ToUfmEvent(e)) would, without the intermediate copies (the hot path of
  // reading the event log).
  Observation o;
  o.kind = Observation::Kind::kEvent;
  o.time = received;
  o.source = "event_log";
  o.event_id = e.index;
  o.event_type = e.event_id;
  FillEventFields(e, &o);
  o.ufm_timestamp = e.timestamp;
  o.dev_id = e.dev_id;
  o.cable_serial = e.cable_serial;
  o.ports = e.ports;
  o.port_refs = e.port_descriptions;
  return o;
}

}  // namespace ufmr
