#include "telemetry/telemetry_port.h"

namespace ufmr {

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool ParseGuid(std::string_view text, uint64_t* out) {
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
  }
  if (text.empty() || text.size() > 16) return false;
  uint64_t v = 0;
  for (char c : text) {
    int d = HexDigit(c);
    if (d < 0) return false;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  *out = v;
  return true;
}

bool ParsePortNumber(std::string_view text, uint32_t* out) {
  if (text.empty() || text.size() > 5) return false;
  uint32_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  if (v > kMaxPortNumber) return false;
  *out = v;
  return true;
}

std::string PortName(const PortKey& key) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i)
    out[static_cast<size_t>(i)] = kHex[(key.guid >> ((15 - i) * 4)) & 0xf];
  out += '_';
  out += std::to_string(key.number);
  return out;
}

bool ParsePortName(std::string_view name, PortKey* out) {
  size_t us = name.find('_');
  if (us != 16) return false;
  PortKey k;
  if (!ParseGuid(name.substr(0, 16), &k.guid) || !ParsePortNumber(name.substr(17), &k.number)) {
    return false;
  }
  *out = k;
  return true;
}

size_t PortKeyHash::operator()(const PortKey& k) const {
  // splitmix64's finalizer over the GUID mixed with the port number.
  uint64_t h = k.guid ^ (static_cast<uint64_t>(k.number) * 0x9e3779b97f4a7c15ULL);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return static_cast<size_t>(h);
}

uint32_t PortIndex::Find(const PortKey& key) const {
  if (table_.empty()) return kNone;
  const size_t mask = table_.size() - 1;
  for (size_t i = PortKeyHash()(key) & mask;; i = (i + 1) & mask) {
    const Entry& e = table_[i];
    if (e.slot == kNone) return kNone;
    if (e.guid == key.guid && e.number == key.number) return e.slot;
  }
}

std::pair<uint32_t, bool> PortIndex::Insert(const PortKey& key, uint32_t hint) {
  if (hint < keys_.size() && keys_[hint] == key) return {hint, false};
  if ((keys_.size() + 1) * 2 > table_.size()) Rehash(table_.empty() ? 16 : table_.size() * 2);
  const size_t mask = table_.size() - 1;
  for (size_t i = PortKeyHash()(key) & mask;; i = (i + 1) & mask) {
    Entry& e = table_[i];
    if (e.slot == kNone) {
      e = Entry{key.guid, key.number, static_cast<uint32_t>(keys_.size())};
      keys_.push_back(key);
      return {e.slot, true};
    }
    if (e.guid == key.guid && e.number == key.number) return {e.slot, false};
  }
}

void PortIndex::Reserve(size_t n) {
  size_t capacity = 16;
  while (capacity < n * 2) capacity *= 2;
  if (capacity > table_.size()) Rehash(capacity);
  keys_.reserve(n);
}

void PortIndex::Rehash(size_t capacity) {
  std::vector<Entry> old;
  old.swap(table_);
  table_.assign(capacity, Entry{0, 0, kNone});
  const size_t mask = capacity - 1;
  for (const Entry& e : old) {
    if (e.slot == kNone) continue;
    size_t i = PortKeyHash()(PortKey{e.guid, e.number}) & mask;
    while (table_[i].slot != kNone) i = (i + 1) & mask;
    table_[i] = e;
  }
}

}  // namespace ufmr
