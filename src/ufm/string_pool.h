// StringPool: interned strings, each kept once and named by a small id that stays valid as long
// as the pool (id 0 is ""). The fabric's ports repeat most of what they say (a switch's name,
// "Switch IB Port", "Active", "NDR"), and a port's name is its id everywhere from parsing to a
// decision, so ports are rows of ids into a pool rather than records of strings. Views stay valid
// while the pool lives (its text is kept in chunks that never move). Not thread-safe: its owner
// locks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace ufmr {

class StringPool {
 public:
  StringPool();
  StringPool(StringPool&&) noexcept = default;
  StringPool& operator=(StringPool&&) noexcept = default;

  // The id of `s`, added if it is new.
  uint32_t Intern(std::string_view s);
  // The id of `s` if the pool holds it.
  std::optional<uint32_t> Find(std::string_view s) const;
  std::string_view View(uint32_t id) const {
    const Entry& e = entries_[id];
    return {e.text, e.size};
  }
  // How many strings (with ""), and the bytes the pool holds in all.
  size_t size() const { return entries_.size(); }
  size_t bytes() const;

 private:
  struct Entry {
    const char* text;
    uint32_t size;
    uint32_t hash;
  };
  static uint32_t Hash(std::string_view s);
  const char* Store(std::string_view s);
  void Grow();

  std::vector<Entry> entries_;
  std::vector<uint32_t> slots_;                  // open addressing: id + 1, 0 when empty
  std::vector<std::unique_ptr<char[]>> chunks_;  // filled in turn, kChunk bytes each
  std::vector<std::unique_ptr<char[]>> big_;     // one long string each
  size_t chunk_used_ = 0;
  size_t text_bytes_ = 0;
};

}  // namespace ufmr
