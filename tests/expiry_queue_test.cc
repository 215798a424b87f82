// Covers src/base/expiry_queue.h: entries come out earliest first and only once due; a state's
// later due time does not add an entry while an earlier one is live, an earlier one does (the
// live one is then stale: its due time no longer matches the state's); no due time, no entry.
#include "base/expiry_queue.h"

#include <gtest/gtest.h>

#include <optional>

namespace ufmr {
namespace {

TimePoint At(int s) { return TimePoint(std::chrono::seconds(1'767'225'600 + s)); }

TEST(ExpiryQueueTest, EntriesComeOutEarliestFirstWhenDue) {
  ExpiryQueue q;
  std::optional<TimePoint> a, b, c;
  q.Schedule(At(30), 0, "a", &a);
  q.Schedule(At(10), 1, "b", &b);
  q.Schedule(At(20), 0, "c", &c);
  EXPECT_EQ(q.size(), 3u);
  EXPECT_TRUE(q.TakeDue(At(9)).empty());
  auto due = q.TakeDue(At(20));
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(due[0].entity, "b");
  EXPECT_EQ(due[0].rule, 1u);
  EXPECT_EQ(due[0].due, At(10));
  EXPECT_EQ(due[1].entity, "c");
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.TakeDue(At(100)).at(0).entity, "a");
  EXPECT_EQ(q.size(), 0u);
}

TEST(ExpiryQueueTest, ALaterDueTimeWaitsForTheLiveEntryAnEarlierOneReplacesIt) {
  ExpiryQueue q;
  std::optional<TimePoint> scheduled;
  q.Schedule(At(10), 0, "link", &scheduled);
  q.Schedule(At(50), 0, "link", &scheduled);  // later: the live entry looks first
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(scheduled, At(10));
  q.Schedule(At(5), 0, "link", &scheduled);  // earlier: a new entry, the old one stale
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(scheduled, At(5));
  auto due = q.TakeDue(At(10));
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(due[0].due, scheduled);  // live: the state's own due time
  EXPECT_NE(due[1].due, scheduled);  // stale: dropped by the caller
}

TEST(ExpiryQueueTest, NoDueTimeNoEntryAndClearForgetsAll) {
  ExpiryQueue q;
  std::optional<TimePoint> scheduled;
  q.Schedule(std::nullopt, 0, "x", &scheduled);
  EXPECT_EQ(q.size(), 0u);
  EXPECT_FALSE(scheduled.has_value());
  q.Schedule(At(1), 0, "x", &scheduled);
  q.Clear();
  EXPECT_EQ(q.size(), 0u);
  EXPECT_TRUE(q.TakeDue(At(2)).empty());
}

}  // namespace
}  // namespace ufmr
