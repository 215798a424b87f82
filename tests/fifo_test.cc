// Fifo: first in, first out across compaction; popped items are released at once; an emptied
// queue starts over.
#include "base/fifo.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <random>
#include <vector>

namespace ufmr {
namespace {

TEST(FifoTest, StartsEmpty) {
  Fifo<int> q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.begin(), q.end());
}

TEST(FifoTest, FirstInFirstOut) {
  Fifo<int> q;
  for (int i = 0; i < 5; ++i) q.push_back(i);
  EXPECT_EQ(q.size(), 5u);
  EXPECT_EQ(q.front(), 0);
  EXPECT_EQ(q.back(), 4);
  q.pop_front();
  q.pop_front();
  EXPECT_EQ(q.front(), 2);
  EXPECT_EQ(std::vector<int>(q.begin(), q.end()), (std::vector<int>{2, 3, 4}));
  q.clear();
  EXPECT_TRUE(q.empty());
}

TEST(FifoTest, SameOrderAsADequeThroughCompaction) {
  // Random pushes and pops, long enough to compact many times: the contents always match.
  Fifo<int> q;
  std::deque<int> want;
  std::mt19937 rng(7);
  for (int step = 0; step < 20000; ++step) {
    if (want.empty() || rng() % 3 != 0) {
      q.emplace_back(step);
      want.push_back(step);
    } else {
      q.pop_front();
      want.pop_front();
    }
    ASSERT_EQ(q.size(), want.size());
    if (!want.empty()) {
      ASSERT_EQ(q.front(), want.front());
      ASSERT_EQ(q.back(), want.back());
    }
    if (step % 997 == 0) {
      ASSERT_EQ(std::vector<int>(q.begin(), q.end()), std::vector<int>(want.begin(), want.end()));
    }
  }
}

TEST(FifoTest, APoppedItemIsReleasedAtOnce) {
  Fifo<std::shared_ptr<int>> q;
  auto held = std::make_shared<int>(1);
  q.push_back(held);
  q.push_back(std::make_shared<int>(2));
  EXPECT_EQ(held.use_count(), 2);
  q.pop_front();
  EXPECT_EQ(held.use_count(), 1);  // not kept until the front is compacted away
  EXPECT_EQ(*q.front(), 2);
}

}  // namespace
}  // namespace ufmr
