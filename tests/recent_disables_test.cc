// Covers src/filter/recent_disables.h: a 336 notes the ports it names but those this service is
// disabling; an event about a noted port's link stamped from 2 s before the 336 to a minute after
// it is covered (by either end, or through the inventory's peer when it names one port), by UFM's
// timestamps when both parse (a backlog read at once, or an older event read after the 336, is
// judged by when UFM stamped it), else by intake time; a 336 for an enable ends the minute early;
// a 337 (port action failed) and a 336 for another action note nothing; the 336 and 337
// themselves are never covered; a port noted twice (two sources) is reported once.
#include "filter/recent_disables.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ufm/inventory.h"

namespace ufmr {
namespace {

const TimePoint kT0 = TimePoint(std::chrono::seconds(1'767'225'600));

// An event read at `at` seconds after kT0; `stamp`, if given, is UFM's timestamp of it. A 336 or
// 337 is named for a disable, as UFM names a port action's event.
Observation Event(int type, std::vector<std::string> ports, double at, std::string stamp = "") {
  Observation o;
  o.event_type = type;
  if (type == 336) o.name = "Port Action Disable Succeeded";
  if (type == 337) o.name = "Port Action Disable Failed";
  o.ports = std::move(ports);
  o.time = kT0 + std::chrono::duration_cast<TimePoint::duration>(Seconds(at));
  o.ufm_timestamp = std::move(stamp);
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

  // Notes a 336 about `port` read at `at`, no port of it this service's.
  std::vector<std::string> Disabled(const std::string& port, double at, std::string stamp = "") {
    return disables_.Note(Event(336, {port}, at, std::move(stamp)), {port},
                          [](const std::string&) { return false; });
  }
  bool Covers(const Observation& o) { return disables_.Covers(o, o.ports, inventory_); }

  Inventory inventory_;
  RecentDisables disables_;
};

TEST_F(RecentDisablesTest, TheLinkOfAPortSomeoneDisabledIsCoveredForAMinute) {
  EXPECT_FALSE(Covers(Event(329, {"sw_1", "host_1"}, 0)));
  EXPECT_TRUE(disables_.empty());
  EXPECT_EQ(Disabled("sw_1", 0), std::vector<std::string>{"sw_1"});
  EXPECT_TRUE(Covers(Event(329, {"sw_1", "host_1"}, 1)));
  EXPECT_TRUE(Covers(Event(329, {"host_1", "sw_1"}, 2))) << "either end";
  EXPECT_TRUE(Covers(Event(113, {"host_1"}, 3))) << "the peer, through the inventory";
  EXPECT_FALSE(Covers(Event(329, {"sw_2", "host_2"}, 4))) << "another link";
  EXPECT_FALSE(Covers(Event(336, {"sw_1"}, 5))) << "the 336 itself";
  EXPECT_TRUE(Covers(Event(329, {"sw_1", "host_1"}, 60)));
  EXPECT_FALSE(Covers(Event(329, {"sw_1", "host_1"}, 61))) << "a minute on";
  EXPECT_FALSE(Covers(Event(329, {"sw_1", "host_1"}, -3))) << "read before the 336";
}

TEST_F(RecentDisablesTest, UfmsTimestampsDecideWhenBothHaveOne) {
  Disabled("sw_1", 100, "2026-01-01 10:00:00");
  // Read together (a backlog, or an event read late from another source): UFM's stamps say.
  EXPECT_TRUE(Covers(Event(329, {"sw_1", "host_1"}, 100, "2026-01-01 10:00:00")));
  EXPECT_TRUE(Covers(Event(329, {"sw_1", "host_1"}, 100, "2026-01-01 10:00:59.500")));
  EXPECT_TRUE(Covers(Event(329, {"sw_1", "host_1"}, 100, "2026-01-01 09:59:58"))) << "2 s slack";
  EXPECT_FALSE(Covers(Event(329, {"sw_1", "host_1"}, 100, "2026-01-01 09:59:00")))
      << "a fault UFM saw before the disable";
  EXPECT_FALSE(Covers(Event(329, {"sw_1", "host_1"}, 100, "2026-01-01 11:00:00")))
      << "a fault an hour after the disable, read in the same backlog";
  // Without a stamp on one side, intake time decides.
  EXPECT_TRUE(Covers(Event(329, {"sw_1", "host_1"}, 130)));
  EXPECT_FALSE(Covers(Event(329, {"sw_1", "host_1"}, 170)));
  // Ten minutes of intake on, the note is forgotten whatever the stamps say.
  EXPECT_FALSE(Covers(Event(329, {"sw_1", "host_1"}, 701, "2026-01-01 10:00:10")));
  EXPECT_TRUE(disables_.empty());
}

TEST_F(RecentDisablesTest, ThisServicesOwnDisablesAreNotNoted) {
  auto ours = [](const std::string& port) { return port == "sw_1"; };
  EXPECT_TRUE(disables_.Note(Event(336, {"sw_1"}, 0), {"sw_1"}, ours).empty());
  EXPECT_FALSE(Covers(Event(329, {"sw_1", "host_1"}, 1)));
}

TEST_F(RecentDisablesTest, AnEnableEndsTheMinuteAndOtherEventsNoteNothing) {
  EXPECT_EQ(Disabled("sw_1", 0), std::vector<std::string>{"sw_1"});
  EXPECT_TRUE(Disabled("sw_1", 1).empty()) << "the same 336 from a second source";
  auto none = [](const std::string&) { return false; };
  Observation enabled = Event(336, {"sw_1"}, 10);
  enabled.name = "Port Action Enable Succeeded";
  EXPECT_TRUE(disables_.Note(enabled, {"sw_1"}, none).empty());
  EXPECT_FALSE(Covers(Event(328, {"sw_1", "host_1"}, 11)));
  EXPECT_TRUE(disables_.Note(Event(329, {"sw_1"}, 12), {"sw_1"}, none).empty());
  EXPECT_FALSE(Covers(Event(329, {"sw_1", "host_1"}, 13)));
}

// 336 and 337 are "port action succeeded" and "port action failed" for any action (IBM CAST's UFM
// event table); the name or message says which action.
TEST_F(RecentDisablesTest, OnlyASucceededDisableIsNoted) {
  auto none = [](const std::string&) { return false; };
  EXPECT_TRUE(disables_.Note(Event(337, {"sw_1"}, 0), {"sw_1"}, none).empty())
      << "a failed disable changed nothing";
  EXPECT_FALSE(Covers(Event(329, {"sw_1", "host_1"}, 1)));
  Observation reset = Event(336, {"sw_1"}, 2);
  reset.name = "Port Action Succeeded";
  reset.description = "Reset port action on port sw_1 succeeded";
  EXPECT_TRUE(disables_.Note(reset, {"sw_1"}, none).empty()) << "a reset is no disable";
  Observation unnamed = Event(336, {"sw_1"}, 3);
  unnamed.name = "Port Action Succeeded";
  EXPECT_TRUE(disables_.Note(unnamed, {"sw_1"}, none).empty()) << "no action named";
  Observation in_message = Event(336, {"sw_1"}, 4);
  in_message.name = "Port Action Succeeded";
  in_message.description = "Disable port action on port sw_1 succeeded";
  EXPECT_EQ(disables_.Note(in_message, {"sw_1"}, none), std::vector<std::string>{"sw_1"})
      << "the message names the action";
  EXPECT_EQ(RecentDisables::ActionOf(in_message), "disable");
  EXPECT_EQ(RecentDisables::ActionOf(reset), "");
  Observation both = Event(336, {"sw_1"}, 5);
  both.name = "Port Action Succeeded";
  both.description = "Enable port action on port sw_1 (disabled before) succeeded";
  EXPECT_EQ(RecentDisables::ActionOf(both), "enable") << "the action is the word named first";
}

}  // namespace
}  // namespace ufmr
