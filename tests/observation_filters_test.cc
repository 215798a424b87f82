// Covers each filter of src/filter/ alone: Sifting (an observation's ports as names, the
// inventory placing those its text names), HandDisableNotes (a 336 for someone else's disable is
// noted, not one from syslog nor one for a port this service is disabling), DuplicateFilter (the
// first arrival goes on and is counted, a copy from another source is dropped and counted as a
// duplicate, counters pass uncounted), ManualMarkFilter (a 702 MANUAL marks its ports, not one
// this service holds isolated), HandDisableFilter (a link's report within a minute of a noted
// disable only notes the link down), OwnDisableFilter (a report about a link this service holds
// disabled is dropped, by either end or through the peer, unless the link is under soak) and
// SoakFilter (a report about a link under soak is marked with its ends, unless read again).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "base/metrics.h"
#include "filter/duplicate_filter.h"
#include "filter/hand_disable_filter.h"
#include "filter/hand_disable_notes.h"
#include "filter/manual_mark_filter.h"
#include "filter/observation_filter.h"
#include "filter/own_disable_filter.h"
#include "filter/soak_filter.h"
#include "rules/finding.h"
#include "ufm/inventory.h"

namespace ufmr {
namespace {

const TimePoint kT0 = TimePoint(std::chrono::seconds(1'767'225'600));

// An event of `type` about `ports`, from `source`, read `at` seconds after kT0.
Observation Event(int type, std::vector<std::string> ports, const std::string& source = "rest",
                  double at = 0) {
  Observation o;
  o.event_type = type;
  o.source = source;
  if (type == 336) o.name = "Port Action Disable Succeeded";
  if (type == 329) o.name = "Link went down";
  o.ports = std::move(ports);
  o.time = kT0 + std::chrono::duration_cast<TimePoint::duration>(Seconds(at));
  o.ufm_timestamp = "2026-01-01 10:00:00";
  return o;
}

Observation Counter(const std::string& port) {
  Observation o;
  o.kind = Observation::Kind::kCounter;
  o.source = "telemetry";
  o.ports = {port};
  o.counter = "SymbolErrorCounter";
  o.delta = 5;
  o.time = kT0;
  return o;
}

class FakeHeld final : public HeldPorts {
 public:
  bool AnyDisabled() const override { return !disabled.empty(); }
  bool HoldsDisabled(const std::string& p) const override { return disabled.count(p) > 0; }
  bool HoldsIsolated(const std::string& p) const override { return isolated.count(p) > 0; }
  bool DisabledAt(const std::string& p, TimePoint) const override { return was.count(p) > 0; }
  bool IsolatedAt(const std::string& p, TimePoint) const override {
    return was_isolated.count(p) > 0;
  }
  std::set<std::string> disabled, isolated;
  std::set<std::string> was;           // disabled by the service when the event was stamped
  std::set<std::string> was_isolated;  // isolated by it then
};

class FakeSoaking final : public SoakingLinks {
 public:
  bool AnyUnderSoak() const override { return !links.empty(); }
  bool UnderSoak(const std::vector<std::string>& ends) const override {
    return links.count(LinkKey(ends)) > 0;
  }
  std::set<std::string> links;
};

class FilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Two links: sw_1 - host_1 and sw_2 - host_2; host_1's port is "node-1 HCA-1:1" in messages.
    auto port = [](const std::string& name, const std::string& peer) {
      PortInfo p;
      p.name = name;
      p.peer = peer;
      return p;
    };
    PortInfo sw1 = port("sw_1", "host_1"), host1 = port("host_1", "sw_1");
    PortInfo sw2 = port("sw_2", "host_2"), host2 = port("host_2", "sw_2");
    host1.description = "Computer IB Port";
    host1.node_description = "node-1 HCA-1";
    host1.number = 1;
    inventory_.Replace({sw1, host1, sw2, host2});
  }

  FilterVerdict Check(ObservationFilter& f, const Observation& o) {
    Sifting s(o, &inventory_);
    return f.Check(s);
  }

  Inventory inventory_;
  Metrics metrics_;
  FakeHeld held_;
  FakeSoaking soaking_;
};

TEST_F(FilterTest, SiftingNamesThePortsAnEventsTextPlaces) {
  Observation o = Event(702, {"sw_1"});
  o.port_refs = {"node-1 HCA-1:1", "unknown-node:3"};
  Sifting s(o, &inventory_);
  EXPECT_EQ(s.ports(), (std::vector<std::string>{"sw_1", "host_1"}));
  Sifting alone(o, nullptr);
  EXPECT_EQ(alone.ports(), std::vector<std::string>{"sw_1"}) << "without an inventory";
  EXPECT_FALSE(s.soak_ends);
  // An event naming both ends of its link: its references are not looked up.
  Observation link = Event(329, {"sw_1", "sw_2"});
  link.port_refs = {"node-1 HCA-1:1"};
  Sifting both(link, &inventory_);
  EXPECT_EQ(both.ports(), (std::vector<std::string>{"sw_1", "sw_2"}));
}

TEST_F(FilterTest, HandDisableNotesAPersonsDisableAndPassesEverything) {
  RecentDisables disables;
  HandDisableNotes notes(disables, held_);
  EXPECT_STREQ(notes.name(), "hand_disable_notes");
  EXPECT_EQ(Check(notes, Event(329, {"sw_1", "host_1"})), FilterVerdict::kPass);
  EXPECT_TRUE(disables.empty());
  EXPECT_EQ(Check(notes, Event(336, {"sw_1"}, "syslog")), FilterVerdict::kPass);
  EXPECT_TRUE(disables.empty()) << "a 336 from syslog is not trusted";
  held_.disabled = {"sw_1"};
  EXPECT_EQ(Check(notes, Event(336, {"sw_1"})), FilterVerdict::kPass);
  EXPECT_TRUE(disables.empty()) << "this service's own disable";
  held_.disabled.clear();
  EXPECT_EQ(Check(notes, Event(336, {"sw_1"}, "event_log")), FilterVerdict::kPass);
  EXPECT_FALSE(disables.empty());
  EXPECT_TRUE(disables.Covers(Event(329, {"sw_1", "host_1"}), {"sw_1", "host_1"}, inventory_));
}

TEST_F(FilterTest, DuplicateFilterPassesTheFirstArrivalAndCountsEach) {
  DuplicateFilter dups(metrics_, 0);
  EXPECT_STREQ(dups.name(), "duplicates");
  EXPECT_EQ(Check(dups, Event(329, {"sw_1", "host_1"}, "syslog")), FilterVerdict::kPass);
  EXPECT_EQ(Check(dups, Event(329, {"host_1", "sw_1"}, "rest")), FilterVerdict::kDrop);
  EXPECT_EQ(Check(dups, Event(329, {"sw_2", "host_2"}, "rest")), FilterVerdict::kPass);
  EXPECT_EQ(metrics_.Get("ufmr_events_total{source=\"syslog\"}"), 1);
  EXPECT_EQ(metrics_.Get("ufmr_events_total{source=\"rest\"}"), 1);
  EXPECT_EQ(metrics_.Get("ufmr_duplicate_events_total{source=\"rest\"}"), 1);
  auto lag = metrics_.GetHistogram("ufmr_event_lag_seconds{source=\"rest\"}");
  ASSERT_TRUE(lag);
  EXPECT_EQ(lag->count, 1u);

  Observation reread = Event(329, {"sw_1", "host_2"}, "event_log");
  reread.reread = true;
  EXPECT_EQ(Check(dups, reread), FilterVerdict::kPass);
  EXPECT_FALSE(metrics_.GetHistogram("ufmr_event_lag_seconds{source=\"event_log\"}"))
      << "an event read again after a restart has no lag worth knowing";

  EXPECT_EQ(Check(dups, Counter("sw_1")), FilterVerdict::kPass);
  EXPECT_EQ(Check(dups, Counter("sw_1")), FilterVerdict::kPass);
  EXPECT_EQ(metrics_.Get("ufmr_events_total{source=\"telemetry\"}"), 0);
}

TEST_F(FilterTest, ManualMarkFilterMarksAPersonsIsolationNotOurs) {
  ManualMarks marks;
  ManualMarkFilter filter(marks, held_);
  EXPECT_STREQ(filter.name(), "manual_marks");
  Observation manual = Event(702, {"sw_1"});
  manual.description = "Peer Port node-1 HCA-1:1 is considered by SM as unhealthy due to MANUAL.";
  manual.port_refs = {"node-1 HCA-1:1"};
  held_.isolated = {"sw_1"};
  EXPECT_EQ(Check(filter, manual), FilterVerdict::kPass);
  EXPECT_EQ(marks.Why("sw_1"), "") << "this service's own isolation";
  EXPECT_NE(marks.Why("host_1"), "") << "the port the text places";
  Observation other = Event(702, {"sw_2"});
  other.description = "Port is considered by SM as unhealthy due to HIGH_BER.";
  EXPECT_EQ(Check(filter, other), FilterVerdict::kPass);
  EXPECT_EQ(marks.Why("sw_2"), "") << "not a person's";
}

TEST_F(FilterTest, HandDisableFilterKeepsWhatFollowsAPersonsDisable) {
  RecentDisables disables;
  HandDisableFilter filter(disables, inventory_, metrics_);
  EXPECT_STREQ(filter.name(), "hand_disables");
  EXPECT_EQ(Check(filter, Event(329, {"sw_1", "host_1"})), FilterVerdict::kPass);
  disables.Note(Event(336, {"sw_1"}), {"sw_1"}, [](const std::string&) { return false; });
  EXPECT_EQ(Check(filter, Event(329, {"sw_1", "host_1"}, "rest", 1)), FilterVerdict::kNoteLinkDown);
  EXPECT_EQ(Check(filter, Event(113, {"host_1"}, "syslog", 2)), FilterVerdict::kNoteLinkDown)
      << "the peer, through the inventory";
  EXPECT_EQ(Check(filter, Event(329, {"sw_2", "host_2"}, "rest", 3)), FilterVerdict::kPass);
  EXPECT_EQ(Check(filter, Counter("sw_1")), FilterVerdict::kPass) << "counters are not judged";
  EXPECT_EQ(metrics_.Get("ufmr_events_after_hand_disable_total{source=\"rest\"}"), 1);
  EXPECT_EQ(metrics_.Get("ufmr_events_after_hand_disable_total{source=\"syslog\"}"), 1);
}

TEST_F(FilterTest, OwnDisableFilterDropsWhatALinkWeHoldReports) {
  OwnDisableFilter filter(held_, soaking_, inventory_, metrics_);
  EXPECT_STREQ(filter.name(), "own_disables");
  EXPECT_EQ(Check(filter, Event(329, {"sw_1", "host_1"})), FilterVerdict::kPass);
  held_.disabled = {"sw_1"};
  EXPECT_EQ(Check(filter, Event(329, {"host_1", "sw_1"})), FilterVerdict::kDrop);
  EXPECT_EQ(Check(filter, Event(113, {"host_1"}, "syslog")), FilterVerdict::kDrop)
      << "the held port is the peer of the one named";
  EXPECT_EQ(Check(filter, Event(329, {"sw_2", "host_2"})), FilterVerdict::kPass);
  EXPECT_EQ(Check(filter, Event(329, {})), FilterVerdict::kPass) << "no port";
  EXPECT_EQ(Check(filter, Counter("sw_1")), FilterVerdict::kPass) << "counters are not judged";
  EXPECT_EQ(metrics_.Get("ufmr_events_on_held_links_total{source=\"rest\"}"), 1);
  EXPECT_EQ(metrics_.Get("ufmr_events_on_held_links_total{source=\"syslog\"}"), 1);
  soaking_.links = {LinkKey({"sw_1", "host_1"})};
  EXPECT_EQ(Check(filter, Event(329, {"sw_1", "host_1"})), FilterVerdict::kPass)
      << "a link under soak is judged, not held";
}

// Read again after a restart, its ticket since closed and the port back, this service's own
// disable is still its own: its 336 is not a person's disable (which would swallow the link's
// next minute of real faults), and its link-down is not a fault; a fresh event on that port is
// judged as the port is now.
TEST_F(FilterTest, AnEventOfItsOwnUndoneDisableReadAgainIsStillItsOwn) {
  held_.was = {"sw_1"};  // disabled by the service when these events were stamped
  RecentDisables disables;
  HandDisableNotes notes(disables, held_);
  Observation own_336 = Event(336, {"sw_1"});
  own_336.reread = true;
  EXPECT_EQ(Check(notes, own_336), FilterVerdict::kPass);
  EXPECT_TRUE(disables.empty()) << "not noted as someone else's disable";
  OwnDisableFilter filter(held_, soaking_, inventory_, metrics_);
  Observation down = Event(329, {"sw_1", "host_1"});
  EXPECT_EQ(Check(filter, down), FilterVerdict::kPass) << "read now: the port is not held";
  down.reread = true;
  EXPECT_EQ(Check(filter, down), FilterVerdict::kDrop) << "read again: stamped while held";
  held_.was.clear();
  EXPECT_EQ(Check(filter, down), FilterVerdict::kPass);
  EXPECT_EQ(Check(notes, own_336), FilterVerdict::kPass);
  EXPECT_FALSE(disables.empty()) << "a disable the service never made is a person's";
  // Its own isolation's 702 MANUAL, read again after it was made healthy: not a person's.
  held_.was_isolated = {"sw_1"};
  ManualMarks marks;
  ManualMarkFilter manual(marks, held_);
  Observation own_702 = Event(702, {"sw_1"});
  own_702.description = "Port is considered by SM as unhealthy due to MANUAL.";
  own_702.reread = true;
  EXPECT_EQ(Check(manual, own_702), FilterVerdict::kPass);
  EXPECT_EQ(marks.Why("sw_1"), "") << "this service's own isolation, undone since";
  own_702.reread = false;  // fresh: a person isolating the port now
  EXPECT_EQ(Check(manual, own_702), FilterVerdict::kPass);
  EXPECT_NE(marks.Why("sw_1"), "") << "a fresh 702 is judged as the port is held now";
}

TEST_F(FilterTest, SoakFilterMarksWhatALinkUnderSoakReports) {
  SoakFilter filter(soaking_, inventory_);
  EXPECT_STREQ(filter.name(), "soak");
  Observation o = Event(329, {"host_1"});
  Sifting none(o, &inventory_);
  EXPECT_EQ(filter.Check(none), FilterVerdict::kPass);
  EXPECT_FALSE(none.soak_ends) << "nothing under soak";

  soaking_.links = {LinkKey({"sw_1", "host_1"})};
  Sifting marked(o, &inventory_);
  EXPECT_EQ(filter.Check(marked), FilterVerdict::kPass);
  ASSERT_TRUE(marked.soak_ends);
  EXPECT_EQ(LinkKey(*marked.soak_ends), LinkKey({"sw_1", "host_1"})) << "both ends";

  Observation counter = Counter("sw_1");
  Sifting sign(counter, &inventory_);
  EXPECT_EQ(filter.Check(sign), FilterVerdict::kPass);
  EXPECT_TRUE(sign.soak_ends) << "a counter's sign is judged too";

  Observation again = Event(329, {"sw_1", "host_1"});
  again.reread = true;
  Sifting reread(again, &inventory_);
  EXPECT_EQ(filter.Check(reread), FilterVerdict::kPass);
  EXPECT_FALSE(reread.soak_ends) << "read again after a restart: not news";

  Observation elsewhere = Event(329, {"sw_2", "host_2"});
  Sifting other(elsewhere, &inventory_);
  EXPECT_EQ(filter.Check(other), FilterVerdict::kPass);
  EXPECT_FALSE(other.soak_ends);
}

}  // namespace
}  // namespace ufmr
