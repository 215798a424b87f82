// EventDeduper: one UFM event read from two sources (REST without milliseconds, the log with
// them; ports in either order) is one observation; distinct events stay distinct; keys expire.
#include "core/event_dedup.h"

#include <gtest/gtest.h>

namespace ufmr {
namespace {

Observation Event(int type, const std::string& ts, std::vector<std::string> ports,
                  TimePoint at = TimePoint(std::chrono::seconds(1000))) {
  Observation o;
  o.kind = Observation::Kind::kEvent;
  o.event_type = type;
  o.ufm_timestamp = ts;
  o.ports = std::move(ports);
  o.time = at;
  return o;
}

TEST(EventDeduperTest, SameEventFromTwoSourcesIsOne) {
  EventDeduper d;
  EXPECT_TRUE(d.FirstSighting(Event(329, "2026-11-29 18:46:32", {"a_1", "b_2"})));
  EXPECT_FALSE(d.FirstSighting(Event(329, "2026-11-29 18:46:32.123", {"b_2", "a_1"})));
}

TEST(EventDeduperTest, DifferentTypeSecondOrPortsAreDistinct) {
  EventDeduper d;
  EXPECT_TRUE(d.FirstSighting(Event(329, "2026-11-29 18:46:32", {"a_1", "b_2"})));
  EXPECT_TRUE(d.FirstSighting(Event(328, "2026-11-29 18:46:32", {"a_1", "b_2"})));
  EXPECT_TRUE(d.FirstSighting(Event(329, "2026-11-29 18:46:33", {"a_1", "b_2"})));
  EXPECT_TRUE(d.FirstSighting(Event(329, "2026-11-29 18:46:32", {"a_1", "c_3"})));
}

TEST(EventDeduperTest, CountersAlwaysPass) {
  EventDeduper d;
  Observation c;
  c.kind = Observation::Kind::kCounter;
  EXPECT_TRUE(d.FirstSighting(c));
  EXPECT_TRUE(d.FirstSighting(c));
  EXPECT_EQ(d.size(), 0u);
}

TEST(EventDeduperTest, KeysExpireAfterTheWindow) {
  EventDeduper d(60);
  TimePoint t0(std::chrono::seconds(1000));
  EXPECT_TRUE(d.FirstSighting(Event(329, "2026-11-29 18:46:32", {"a_1"}, t0)));
  EXPECT_FALSE(
      d.FirstSighting(Event(329, "2026-11-29 18:46:32", {"a_1"}, t0 + std::chrono::seconds(30))));
  EXPECT_TRUE(d.FirstSighting(Event(1, "x", {"z_1"}, t0 + std::chrono::seconds(120))));
  EXPECT_EQ(d.size(), 1u) << "the old key was forgotten";
  EXPECT_TRUE(
      d.FirstSighting(Event(329, "2026-11-29 18:46:32", {"a_1"}, t0 + std::chrono::seconds(121))));
}

}  // namespace
}  // namespace ufmr
