#include "ufm/string_pool.h"

#include <cstring>

namespace ufmr {

namespace {
constexpr size_t kChunk = 256 * 1024;  // a chunk of text; a longer string gets its own
}  // namespace

StringPool::StringPool() {
  entries_.push_back({"", 0, Hash("")});
  slots_.assign(64, 0);
}

uint32_t StringPool::Hash(std::string_view s) {
  // FNV-1a, 64 bits folded: short keys, computed once per string.
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return static_cast<uint32_t>(h ^ (h >> 32));
}

std::optional<uint32_t> StringPool::Find(std::string_view s) const {
  if (s.empty()) return 0;
  const uint32_t h = Hash(s);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const uint32_t slot = slots_[i];
    if (slot == 0) return std::nullopt;
    const Entry& e = entries_[slot - 1];
    if (e.hash == h && e.size == s.size() && std::memcmp(e.text, s.data(), s.size()) == 0) {
      return slot - 1;
    }
  }
}

uint32_t StringPool::Intern(std::string_view s) {
  if (s.empty()) return 0;
  const uint32_t h = Hash(s);
  size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  for (;; i = (i + 1) & mask) {
    const uint32_t slot = slots_[i];
    if (slot == 0) break;
    const Entry& e = entries_[slot - 1];
    if (e.hash == h && e.size == s.size() && std::memcmp(e.text, s.data(), s.size()) == 0) {
      return slot - 1;
    }
  }
  const auto id = static_cast<uint32_t>(entries_.size());
  entries_.push_back({Store(s), static_cast<uint32_t>(s.size()), h});
  slots_[i] = id + 1;
  if (entries_.size() * 2 > slots_.size()) Grow();  // at most half full
  return id;
}

const char* StringPool::Store(std::string_view s) {
  text_bytes_ += s.size();
  if (s.size() > kChunk / 4) {  // a long string alone
    big_.push_back(std::make_unique<char[]>(s.size()));
    std::memcpy(big_.back().get(), s.data(), s.size());
    return big_.back().get();
  }
  if (chunks_.empty() || chunk_used_ + s.size() > kChunk) {
    chunks_.push_back(std::make_unique<char[]>(kChunk));
    chunk_used_ = 0;
  }
  char* at = chunks_.back().get() + chunk_used_;
  std::memcpy(at, s.data(), s.size());
  chunk_used_ += s.size();
  return at;
}

void StringPool::Grow() {
  std::vector<uint32_t> next(slots_.size() * 2, 0);
  const size_t mask = next.size() - 1;
  for (uint32_t id = 1; id < entries_.size(); ++id) {
    size_t i = entries_[id].hash & mask;
    while (next[i] != 0) i = (i + 1) & mask;
    next[i] = id + 1;
  }
  slots_ = std::move(next);
}

size_t StringPool::bytes() const {
  return text_bytes_ + entries_.capacity() * sizeof(Entry) + slots_.capacity() * sizeof(uint32_t);
}

}  // namespace ufmr
