#include "base/flat_string_map.h"

#include <cstring>
#include <functional>
#include <stdexcept>

namespace ufmr {

namespace {

uint64_t HashOf(std::string_view key) { return std::hash<std::string_view>{}(key); }

uint32_t ReadLength(const char* p) {
  uint32_t n;
  std::memcpy(&n, p, sizeof(n));
  return n;
}

}  // namespace

std::string_view FlatStringMap::KeyAt(uint32_t at) const {
  return {arena_.data() + at + kHeader, ReadLength(arena_.data() + at)};
}

std::string_view FlatStringMap::ValueAt(uint32_t at) const {
  const uint32_t key_length = ReadLength(arena_.data() + at);
  return {arena_.data() + at + kHeader + key_length, ReadLength(arena_.data() + at + 4)};
}

size_t FlatStringMap::EntryBytes(uint32_t at) const {
  return kHeader + ReadLength(arena_.data() + at) + ReadLength(arena_.data() + at + 4);
}

uint32_t FlatStringMap::Append(std::string_view key, std::string_view value) {
  const size_t at = arena_.size();
  if (at + kHeader + key.size() + value.size() >= kErased) {
    throw std::length_error("FlatStringMap: more than 4 GB of keys and values");
  }
  const uint32_t lengths[2] = {static_cast<uint32_t>(key.size()),
                               static_cast<uint32_t>(value.size())};
  arena_.append(reinterpret_cast<const char*>(lengths), kHeader);
  arena_.append(key).append(value);
  return static_cast<uint32_t>(at);
}

size_t FlatStringMap::Probe(std::string_view key, uint64_t hash, bool* found) const {
  const size_t mask = slots_.size() - 1;
  size_t erased = slots_.size();  // none passed yet
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.at == kEmpty) {
      *found = false;
      return erased < slots_.size() ? erased : i;
    }
    if (s.at == kErased) {
      if (erased == slots_.size()) erased = i;
    } else if (s.hash == hash && KeyAt(s.at) == key) {
      *found = true;
      return i;
    }
  }
}

void FlatStringMap::Set(std::string_view key, std::string_view value) {
  // At most half the slots in use or erased: probes stay short and always meet an empty slot.
  if ((size_ + erased_ + 1) * 2 > slots_.size()) {
    Rehash(slots_.empty()                    ? 16
           : (size_ + 1) * 4 > slots_.size() ? slots_.size() * 2
                                             : slots_.size());
  }
  const uint64_t hash = HashOf(key);
  bool found = false;
  Slot& s = slots_[Probe(key, hash, &found)];
  if (found) {
    dead_bytes_ += EntryBytes(s.at);
  } else {
    if (s.at == kErased) --erased_;
    ++size_;
  }
  s.hash = hash;
  s.at = Append(key, value);
  ReclaimIfWasteful();
}

bool FlatStringMap::Erase(std::string_view key) {
  if (size_ == 0) return false;
  bool found = false;
  Slot& s = slots_[Probe(key, HashOf(key), &found)];
  if (!found) return false;
  dead_bytes_ += EntryBytes(s.at);
  s.at = kErased;
  --size_;
  ++erased_;
  ReclaimIfWasteful();
  return true;
}

std::optional<std::string_view> FlatStringMap::Find(std::string_view key) const {
  if (size_ == 0) return std::nullopt;
  bool found = false;
  const Slot& s = slots_[Probe(key, HashOf(key), &found)];
  if (!found) return std::nullopt;
  return ValueAt(s.at);
}

void FlatStringMap::Clear() {
  slots_.clear();
  arena_.clear();
  size_ = erased_ = dead_bytes_ = 0;
}

void FlatStringMap::Rehash(size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{});
  const size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (s.at >= kErased) continue;
    size_t i = s.hash & mask;
    while (slots_[i].at != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
  erased_ = 0;
}

void FlatStringMap::ReclaimIfWasteful() {
  if (dead_bytes_ < 4096 || dead_bytes_ <= arena_.size() - dead_bytes_) return;
  std::string live;
  live.reserve(arena_.size() - dead_bytes_);
  for (Slot& s : slots_) {
    if (s.at >= kErased) continue;
    const size_t bytes = EntryBytes(s.at);
    const size_t at = live.size();
    live.append(arena_, s.at, bytes);
    s.at = static_cast<uint32_t>(at);
  }
  arena_.swap(live);
  dead_bytes_ = 0;
}

}  // namespace ufmr
