// Covers src/base/flat_string_map.h: set, replace, find and erase; empty and long keys and
// values; a long random mix of changes checked step by step against std::unordered_map (growth,
// erased slots reused and dropped by a rehash, the arena reclaimed); views valid until a change.
#include "base/flat_string_map.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>

namespace ufmr {
namespace {

TEST(FlatStringMapTest, SetFindReplaceErase) {
  FlatStringMap m;
  EXPECT_EQ(m.Find("a"), std::nullopt);
  EXPECT_FALSE(m.Erase("a"));
  m.Set("leaf-1:17/1", "9c0591030090e000_33");
  m.Set("host-a hca-1:1", "e41d2d0300a4f482_1");
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.Find("leaf-1:17/1"), "9c0591030090e000_33");
  EXPECT_EQ(m.Find("host-a hca-1:1"), "e41d2d0300a4f482_1");
  EXPECT_EQ(m.Find("leaf-1:17/2"), std::nullopt);
  EXPECT_EQ(m.Find("LEAF-1:17/1"), std::nullopt);  // keys are compared as they are
  m.Set("leaf-1:17/1", "other");
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.Find("leaf-1:17/1"), "other");
  EXPECT_TRUE(m.Erase("leaf-1:17/1"));
  EXPECT_FALSE(m.Erase("leaf-1:17/1"));
  EXPECT_EQ(m.Find("leaf-1:17/1"), std::nullopt);
  EXPECT_EQ(m.size(), 1u);
  // Set again after its erasure: found again, once.
  m.Set("leaf-1:17/1", "back");
  EXPECT_EQ(m.Find("leaf-1:17/1"), "back");
  EXPECT_EQ(m.size(), 2u);
  m.Clear();
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(m.Find("host-a hca-1:1"), std::nullopt);
  m.Set("x", "y");
  EXPECT_EQ(m.Find("x"), "y");
}

TEST(FlatStringMapTest, EmptyAndLongKeysAndValues) {
  FlatStringMap m;
  m.Set("", "empty key");
  m.Set("empty value", "");
  const std::string long_key(100'000, 'k');
  const std::string long_value(70'000, 'v');
  m.Set(long_key, long_value);
  EXPECT_EQ(m.Find(""), "empty key");
  EXPECT_EQ(m.Find("empty value"), "");
  EXPECT_TRUE(m.Find("empty value").has_value());
  EXPECT_EQ(m.Find(long_key), long_value);
  EXPECT_EQ(m.Find(long_key.substr(1)), std::nullopt);
  // Keys that differ in their last byte, or only in length.
  m.Set("ab", "1");
  m.Set("ac", "2");
  m.Set("a", "3");
  EXPECT_EQ(m.Find("ab"), "1");
  EXPECT_EQ(m.Find("ac"), "2");
  EXPECT_EQ(m.Find("a"), "3");
}

// Random sets (new keys and replacements) and erasures over a small key space, so slots are
// erased, reused and rehashed again and again, and replaced entries leave dead bytes behind:
// after every step the map agrees with std::unordered_map on every key ever used.
TEST(FlatStringMapTest, AgreesWithAnUnorderedMapThroughAMixOfChanges) {
  std::mt19937 rng(7);
  FlatStringMap m;
  std::unordered_map<std::string, std::string> want;
  auto key = [&](int k) { return "node-" + std::to_string(k) + ":1/" + std::to_string(k % 37); };
  size_t most_bytes = 0;
  for (int step = 0; step < 20'000; ++step) {
    const int k = static_cast<int>(rng() % 3000);
    const unsigned op = rng() % 10;
    if (op < 6) {
      const std::string value(rng() % 40, static_cast<char>('a' + step % 26));
      m.Set(key(k), value);
      want[key(k)] = value;
    } else {
      EXPECT_EQ(m.Erase(key(k)), want.erase(key(k)) > 0) << key(k);
    }
    ASSERT_EQ(m.size(), want.size());
    most_bytes = std::max(most_bytes, m.arena_bytes());
    if (step % 1000 == 999) {
      for (int j = 0; j < 3000; ++j) {
        auto it = want.find(key(j));
        auto got = m.Find(key(j));
        if (it == want.end()) {
          ASSERT_EQ(got, std::nullopt) << key(j);
        } else {
          ASSERT_TRUE(got.has_value()) << key(j);
          ASSERT_EQ(*got, it->second) << key(j);
        }
      }
    }
  }
  // 12,000 sets of about 40 bytes each were written; the arena holds what is live, and at most
  // as much again of dead bytes.
  size_t live = 0;
  for (const auto& [k, v] : want) live += 8 + k.size() + v.size();
  EXPECT_LE(m.arena_bytes(), 2 * live + 4096);
  EXPECT_LT(most_bytes, 12'000u * 40u);
}

// Erasing everything and setting new keys reuses the table: it does not grow with the number of
// keys ever set, only with the number live at once.
TEST(FlatStringMapTest, ManyKeysSetAndErasedInTurn) {
  FlatStringMap m;
  for (int round = 0; round < 50; ++round) {
    for (int k = 0; k < 1000; ++k) m.Set(std::to_string(round) + "/" + std::to_string(k), "v");
    ASSERT_EQ(m.size(), 1000u);
    for (int k = 0; k < 1000; ++k)
      ASSERT_TRUE(m.Erase(std::to_string(round) + "/" + std::to_string(k)));
    ASSERT_EQ(m.size(), 0u);
  }
  EXPECT_LT(m.arena_bytes(), 64u * 1000u);
  m.Set("last", "one");
  EXPECT_EQ(m.Find("last"), "one");
  EXPECT_EQ(m.Find("49/999"), std::nullopt);
}

}  // namespace
}  // namespace ufmr
