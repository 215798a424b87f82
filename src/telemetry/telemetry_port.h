// Telemetry port identity: a port as UFM Telemetry names it (64-bit port GUID + port number),
// its parsing from GUID/number cells, its inventory name ("<16 hex>_<n>"), and PortIndex, a flat
// open-addressing hash map from PortKey to a dense slot number (0, 1, 2, ... in insertion order).
// Values and PortIndex are plain data: owned by their user, not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ufmr {

struct PortKey {
  uint64_t guid = 0;
  uint32_t number = 0;
  friend bool operator==(const PortKey&, const PortKey&) = default;
};

// The largest port number accepted (larger values are input errors).
inline constexpr uint32_t kMaxPortNumber = 4096;

// "0x0002c90300f172a2", "0002C90300F172A2", "2c90300f172a2": optional 0x/0X, 1 to 16 hex digits.
bool ParseGuid(std::string_view text, uint64_t* out);
// Decimal digits only, 0..kMaxPortNumber.
bool ParsePortNumber(std::string_view text, uint32_t* out);
// The inventory's port name: the GUID as 16 lower-case hex digits, '_', the number.
std::string PortName(const PortKey& key);
// The reverse of PortName; false for anything else.
bool ParsePortName(std::string_view name, PortKey* out);

struct PortKeyHash {
  size_t operator()(const PortKey& k) const;
};

class PortIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // The slot of `key`, or kNone.
  uint32_t Find(const PortKey& key) const;
  // The slot of `key`, and whether it was added now (new keys get slot size() - 1). `hint` is a
  // guess of the slot (e.g. the previous one + 1: snapshots list ports in the same order each
  // time); a right guess costs one comparison instead of a hash probe.
  std::pair<uint32_t, bool> Insert(const PortKey& key, uint32_t hint = kNone);
  // The key of a slot (< size()).
  const PortKey& key(uint32_t slot) const { return keys_[slot]; }
  size_t size() const { return keys_.size(); }
  void Reserve(size_t n);
  // Bytes of heap memory held.
  size_t bytes() const {
    return table_.capacity() * sizeof(Entry) + keys_.capacity() * sizeof(PortKey);
  }

 private:
  struct Entry {
    uint64_t guid;
    uint32_t number;
    uint32_t slot;  // kNone: empty
  };
  void Rehash(size_t capacity);

  std::vector<Entry> table_;   // power-of-two size, load factor <= 1/2
  std::vector<PortKey> keys_;  // by slot
};

}  // namespace ufmr
