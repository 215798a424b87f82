// Covers src/filter/filter_chain.h and intake_filters.h: a chain runs its filters in the order
// they were added, the first that does not pass an observation decides and the filters after it
// do not see it, and an empty chain passes everything; the service's chain (IntakeFilters) has
// the documented order, and the order shows: a 336 brought first by syslog is still noted from
// UFM's own copy (notes before duplicates), a duplicate is counted once and marks nothing, a
// person's disable of a link this service also holds notes the link down rather than dropping it
// (hand disables before own disables), and a held link under soak is judged (soak last).
#include "filter/filter_chain.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/metrics.h"
#include "filter/intake_filters.h"
#include "rules/finding.h"
#include "ufm/inventory.h"

namespace ufmr {
namespace {

const TimePoint kT0 = TimePoint(std::chrono::seconds(1'767'225'600));

Observation Event(int type, std::vector<std::string> ports, const std::string& source = "rest",
                  double at = 0) {
  Observation o;
  o.event_type = type;
  o.source = source;
  if (type == 336) o.name = "Port Action Disable Succeeded";
  if (type == 329) o.name = "Link went down";
  o.ports = std::move(ports);
  o.time = kT0 + std::chrono::duration_cast<TimePoint::duration>(Seconds(at));
  o.ufm_timestamp = "2026-01-01 10:00:0" + std::to_string(static_cast<int>(at) % 10);
  return o;
}

// A filter that records that it saw an observation, and answers `verdict`.
class Recording final : public ObservationFilter {
 public:
  Recording(std::string name, FilterVerdict verdict, std::vector<std::string>* seen)
      : name_(std::move(name)), verdict_(verdict), seen_(seen) {}
  const char* name() const override { return name_.c_str(); }
  FilterVerdict Check(Sifting&) override {
    seen_->push_back(name_);
    return verdict_;
  }

 private:
  std::string name_;
  FilterVerdict verdict_;
  std::vector<std::string>* seen_;
};

TEST(FilterChainTest, RunsInOrderAndTheFirstThatDoesNotPassDecides) {
  std::vector<std::string> seen;
  FilterChain chain;
  Observation o = Event(329, {"a", "b"});
  Sifting empty(o, nullptr);
  EXPECT_EQ(chain.Run(empty), FilterVerdict::kPass) << "an empty chain passes everything";

  chain.Add(std::make_unique<Recording>("first", FilterVerdict::kPass, &seen));
  chain.Add(std::make_unique<Recording>("second", FilterVerdict::kNoteLinkDown, &seen));
  chain.Add(std::make_unique<Recording>("third", FilterVerdict::kDrop, &seen));
  EXPECT_EQ(chain.names(), (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(chain.size(), 3u);
  Sifting s(o, nullptr);
  EXPECT_EQ(chain.Run(s), FilterVerdict::kNoteLinkDown);
  EXPECT_EQ(seen, (std::vector<std::string>{"first", "second"})) << "third never saw it";
}

TEST(FilterChainTest, WhatPassesEveryFilterPasses) {
  std::vector<std::string> seen;
  FilterChain chain;
  chain.Add(std::make_unique<Recording>("a", FilterVerdict::kPass, &seen));
  chain.Add(std::make_unique<Recording>("b", FilterVerdict::kPass, &seen));
  Observation o = Event(329, {"a", "b"});
  Sifting s(o, nullptr);
  EXPECT_EQ(chain.Run(s), FilterVerdict::kPass);
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
  EXPECT_STREQ(FilterVerdictName(FilterVerdict::kPass), "pass");
  EXPECT_STREQ(FilterVerdictName(FilterVerdict::kDrop), "drop");
  EXPECT_STREQ(FilterVerdictName(FilterVerdict::kNoteLinkDown), "note_link_down");
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

class IntakeFiltersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto port = [](const std::string& name, const std::string& peer) {
      PortInfo p;
      p.name = name;
      p.peer = peer;
      return p;
    };
    inventory_.Replace({port("sw_1", "host_1"), port("host_1", "sw_1"), port("sw_2", "host_2"),
                        port("host_2", "sw_2")});
  }

  // What the filters make of `o`; the soak filter's mark to `soak_ends`, if given.
  FilterVerdict Run(const Observation& o,
                    std::optional<std::vector<std::string>>* soak_ends = nullptr) {
    Sifting s(o, &inventory_);
    FilterVerdict v = filters_.Run(s);
    if (soak_ends) *soak_ends = s.soak_ends;
    return v;
  }

  Inventory inventory_;
  Metrics metrics_;
  FakeHeld held_;
  FakeSoaking soaking_;
  ManualMarks marks_;
  IntakeFilters filters_{{inventory_, metrics_, held_, soaking_, marks_, 0}};
};

TEST_F(IntakeFiltersTest, TheOrderIsTheDocumentedOne) {
  EXPECT_EQ(filters_.order(),
            (std::vector<std::string>{"hand_disable_notes", "duplicates", "manual_marks",
                                      "hand_disables", "own_disables", "soak"}));
}

TEST_F(IntakeFiltersTest, UfmsCopyOfA336CountsEvenWhenSyslogBroughtItFirst) {
  EXPECT_EQ(Run(Event(336, {"sw_1"}, "syslog", 0)), FilterVerdict::kPass);
  EXPECT_EQ(Run(Event(336, {"sw_1"}, "rest", 0)), FilterVerdict::kDrop) << "a duplicate";
  EXPECT_EQ(Run(Event(329, {"sw_1", "host_1"}, "rest", 1)), FilterVerdict::kNoteLinkDown)
      << "noted from REST's copy, before the duplicate filter dropped it";
}

TEST_F(IntakeFiltersTest, ADuplicateIsCountedOnceAndMarksNothing) {
  Observation manual = Event(702, {"sw_1"}, "syslog");
  manual.description = "Port is considered by SM as unhealthy due to MANUAL.";
  EXPECT_EQ(Run(manual), FilterVerdict::kPass);
  EXPECT_NE(marks_.Why("sw_1"), "");
  marks_.Retain({});
  manual.source = "rest";
  EXPECT_EQ(Run(manual), FilterVerdict::kDrop);
  EXPECT_EQ(marks_.Why("sw_1"), "") << "the duplicate filter stands before the marks";
  EXPECT_EQ(metrics_.Get("ufmr_events_total{source=\"syslog\"}"), 1);
  EXPECT_EQ(metrics_.Get("ufmr_duplicate_events_total{source=\"rest\"}"), 1);
}

TEST_F(IntakeFiltersTest, APersonsDisableOfAHeldLinkNotesTheLinkDown) {
  held_.disabled = {"sw_2"};
  EXPECT_EQ(Run(Event(329, {"sw_2", "host_2"}, "rest", 1)), FilterVerdict::kDrop) << "ours";
  EXPECT_EQ(Run(Event(336, {"host_2"}, "rest", 2)), FilterVerdict::kDrop)
      << "about a held link, so kept from the rules, but noted first";
  EXPECT_EQ(Run(Event(329, {"sw_2", "host_2"}, "rest", 3)), FilterVerdict::kNoteLinkDown)
      << "the person's disable is judged before this service's own";
  EXPECT_EQ(metrics_.Get("ufmr_events_on_held_links_total{source=\"rest\"}"), 2);
  EXPECT_EQ(metrics_.Get("ufmr_events_after_hand_disable_total{source=\"rest\"}"), 1);
}

TEST_F(IntakeFiltersTest, AHeldLinkUnderSoakIsJudged) {
  held_.disabled = {"sw_1"};
  soaking_.links = {LinkKey({"sw_1", "host_1"})};
  std::optional<std::vector<std::string>> ends;
  EXPECT_EQ(Run(Event(329, {"host_1", "sw_1"}), &ends), FilterVerdict::kPass);
  ASSERT_TRUE(ends);
  EXPECT_EQ(LinkKey(*ends), LinkKey({"sw_1", "host_1"}));
}

}  // namespace
}  // namespace ufmr
