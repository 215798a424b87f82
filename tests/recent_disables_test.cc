// Covers src/core/recent_disables.h: a 336 notes the ports it names but those this service is
// disabling; an event about a noted port's link within the minute after is covered (by either
// end, or through the inventory's peer when it names one port), later ones are not; a 337 ends
// the minute early; the 336 and 337 themselves are never covered.
#include "core/recent_disables.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/inventory.h"

namespace ufmr {
namespace {

const TimePoint kT0 = TimePoint(std::chrono::seconds(1'767'225'600));

Observation Event(int type, std::vector<std::string> ports, double at) {
  Observation o;
  o.event_type = type;
  o.ports = std::move(ports);
  o.time = kT0 + std::chrono::duration_cast<TimePoint::duration>(Seconds(at));
  return o;
}

class RecentDisablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PortInfo sw;
    sw.name = "sw_1";
    sw.peer = "host_1";
    PortInfo host;
    host.name = "host_1";
    host.peer = "sw_1";
    inventory_.Replace({sw, host});
  }

  // Notes a 336 about `port` at `at`, no port of it this service's.
  std::vector<std::string> Disabled(const std::string& port, double at) {
    return disables_.Note(Event(336, {port}, at), {port}, [](const std::string&) { return false; });
  }

  Inventory inventory_;
  RecentDisables disables_;
};

TEST_F(RecentDisablesTest, TheLinkOfAPortSomeoneDisabledIsCoveredForAMinute) {
  EXPECT_FALSE(disables_.Covers(Event(329, {"sw_1", "host_1"}, 0), inventory_));
  EXPECT_EQ(Disabled("sw_1", 0), std::vector<std::string>{"sw_1"});
  EXPECT_TRUE(disables_.Covers(Event(329, {"sw_1", "host_1"}, 1), inventory_));
  EXPECT_TRUE(disables_.Covers(Event(329, {"host_1", "sw_1"}, 2), inventory_)) << "either end";
  EXPECT_TRUE(disables_.Covers(Event(113, {"host_1"}, 3), inventory_)) << "the peer, by inventory";
  EXPECT_FALSE(disables_.Covers(Event(329, {"sw_2", "host_2"}, 4), inventory_)) << "another link";
  EXPECT_FALSE(disables_.Covers(Event(336, {"sw_1"}, 5), inventory_)) << "the 336 itself";
  EXPECT_TRUE(disables_.Covers(Event(329, {"sw_1", "host_1"}, 60), inventory_));
  EXPECT_FALSE(disables_.Covers(Event(329, {"sw_1", "host_1"}, 61), inventory_)) << "a minute on";
  EXPECT_FALSE(disables_.Covers(Event(329, {"sw_1", "host_1"}, 1), inventory_)) << "forgotten";
}

TEST_F(RecentDisablesTest, ThisServicesOwnDisablesAreNotNoted) {
  auto ours = [](const std::string& port) { return port == "sw_1"; };
  EXPECT_TRUE(disables_.Note(Event(336, {"sw_1"}, 0), {"sw_1"}, ours).empty());
  EXPECT_FALSE(disables_.Covers(Event(329, {"sw_1", "host_1"}, 1), inventory_));
}

TEST_F(RecentDisablesTest, AnEnableEndsTheMinuteAndOtherEventsNoteNothing) {
  Disabled("sw_1", 0);
  auto none = [](const std::string&) { return false; };
  EXPECT_TRUE(disables_.Note(Event(337, {"sw_1"}, 10), {"sw_1"}, none).empty());
  EXPECT_FALSE(disables_.Covers(Event(328, {"sw_1", "host_1"}, 11), inventory_));
  EXPECT_TRUE(disables_.Note(Event(329, {"sw_1"}, 12), {"sw_1"}, none).empty());
  EXPECT_FALSE(disables_.Covers(Event(329, {"sw_1", "host_1"}, 13), inventory_));
}

}  // namespace
}  // namespace ufmr
