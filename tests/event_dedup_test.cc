// EventDeduper: one UFM event read from two sources (REST without milliseconds, the log with
// them; ports in either order) is one observation; distinct events stay distinct; keys expire.
#include "filter/event_dedup.h"

#include <gtest/gtest.h>

namespace ufmr {
namespace {

Observation Event(int type, const std::string& ts, std::vector<std::string> ports,
                  TimePoint at = TimePoint(std::chrono::seconds(1000)),
                  const std::string& source = "rest") {
  Observation o;
  o.source = source;
  o.kind = Observation::Kind::kEvent;
  o.event_type = type;
  o.ufm_timestamp = ts;
  o.ports = std::move(ports);
  o.time = at;
  return o;
}

TEST(EventDeduperTest, SameEventFromTwoSourcesIsOne) {
  EventDeduper d;
  TimePoint t(std::chrono::seconds(1000));
  EXPECT_TRUE(d.FirstSighting(Event(329, "2026-11-29 18:46:32", {"a_1", "b_2"}, t, "rest")));
  EXPECT_FALSE(
      d.FirstSighting(Event(329, "2026-11-29 18:46:32.123", {"b_2", "a_1"}, t, "event_log")));
}

TEST(EventDeduperTest, RepeatsWithinOneSecondAreCountedOncePerSource) {
  // A link that goes down twice in one second: two events from each source, two observations.
  EventDeduper d;
  TimePoint t(std::chrono::seconds(1000));
  auto down = [&](const std::string& source) {
    return d.FirstSighting(Event(329, "2026-11-29 18:46:32", {"a_1", "b_2"}, t, source));
  };
  EXPECT_TRUE(down("event_log"));
  EXPECT_TRUE(down("event_log"));
  EXPECT_FALSE(down("rest"));
  EXPECT_FALSE(down("rest"));
  EXPECT_TRUE(down("rest")) << "a third one only REST has seen is new";
  EXPECT_FALSE(down("syslog"));
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
  auto seen = [&](int type, int after_s, const std::string& source) {
    return d.FirstSighting(
        Event(type, "2026-11-29 18:46:32", {"a_1"}, t0 + std::chrono::seconds(after_s), source));
  };
  EXPECT_TRUE(seen(329, 0, "rest"));
  EXPECT_FALSE(seen(329, 30, "event_log"));
  EXPECT_TRUE(seen(1, 120, "rest"));
  EXPECT_EQ(d.size(), 1u) << "the old key was forgotten";
  EXPECT_TRUE(seen(329, 121, "event_log")) << "a sighting after the window is new";
}

}  // namespace
}  // namespace ufmr
