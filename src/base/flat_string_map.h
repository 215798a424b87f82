// FlatStringMap: a map from strings to strings kept in two flat arrays, for a large index that is
// looked up on a hot path: a table of slots (each a key's hash and where its entry is) probed in
// place, and one byte arena holding each entry's key and value side by side. A lookup touches one
// slot and one arena entry, where a std::unordered_map of strings touches a bucket, a node, the
// key's heap string and the value's. Changing an entry appends it again; the space left behind is
// reclaimed once it outweighs the live entries. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ufmr {

class FlatStringMap {
 public:
  // Adds the key, or gives it a new value.
  void Set(std::string_view key, std::string_view value);
  // Removes the key; false when it was absent.
  bool Erase(std::string_view key);
  // The key's value, valid until the map next changes; none when the key is absent.
  std::optional<std::string_view> Find(std::string_view key) const;
  void Clear();
  size_t size() const { return size_; }
  // The arena's bytes, dead ones included (for tests of its reclaiming).
  size_t arena_bytes() const { return arena_.size(); }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t at = kEmpty;  // the entry's offset in arena_, or kEmpty / kErased
  };
  static constexpr uint32_t kEmpty = 0xffffffffu;
  static constexpr uint32_t kErased = 0xfffffffeu;
  static constexpr size_t kHeader = 8;  // the key's and the value's lengths, 4 bytes each

  // The slot holding `key`, else the slot it would go in (the first erased one passed, else the
  // empty one that ended the probe). The table must not be empty.
  size_t Probe(std::string_view key, uint64_t hash, bool* found) const;
  std::string_view KeyAt(uint32_t at) const;
  std::string_view ValueAt(uint32_t at) const;
  size_t EntryBytes(uint32_t at) const;
  uint32_t Append(std::string_view key, std::string_view value);
  // Rebuilds the table at `capacity` slots (a power of two) without the erased marks.
  void Rehash(size_t capacity);
  // Copies the live entries into a new arena, when dead bytes outweigh live ones.
  void ReclaimIfWasteful();

  std::vector<Slot> slots_;
  std::string arena_;
  size_t size_ = 0;
  size_t erased_ = 0;      // slots marked kErased
  size_t dead_bytes_ = 0;  // arena bytes of replaced or erased entries
};

}  // namespace ufmr
