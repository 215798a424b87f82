// Covers LeadUp, the rise of a port's counters held from before its ticket: points come back
// oldest first with the value before and after each rise, a rise's "after" is not repeated as the
// next rise's "before", old points drop off a port's ring, the port that rose longest ago is
// forgotten when too many rise, points older than asked for are left out, Forget drops a port,
// and the memory held stays bounded however many ports rise.
#include "telemetry/lead_up.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace ufmr {
namespace {

const TimePoint kT0 = FromEpochSeconds(1'700'000'000);

TimePoint At(int s) { return kT0 + std::chrono::seconds(s); }

TEST(LeadUpTest, PointsComeBackOldestFirstWithTheValueBeforeEachRise) {
  LeadUp lead_up;
  lead_up.Rose("p_1", "SymbolErrorCounter", At(0), 10, At(60), 25);
  lead_up.Rose("p_1", "SymbolErrorCounter", At(60), 25, At(120), 70);  // 60 s is not repeated
  lead_up.Rose("p_1", "LinkDownedCounter", At(60), 1, At(120), 2);
  auto points = lead_up.Points("p_1", At(-3600));
  ASSERT_EQ(points.size(), 5u);
  EXPECT_EQ(points[0].at, At(0));
  EXPECT_EQ(points[0].value, 10u);
  EXPECT_EQ(points[1].at, At(60));
  EXPECT_EQ(points[4].at, At(120));
  int symbol_points = 0;
  for (const auto& p : points) symbol_points += p.counter == "SymbolErrorCounter";
  EXPECT_EQ(symbol_points, 3);
  EXPECT_TRUE(lead_up.Points("p_2", At(-3600)).empty()) << "a port that never rose";
  EXPECT_EQ(lead_up.Points("p_1", At(90)).size(), 2u) << "only points at or after `since`";
}

TEST(LeadUpTest, APortKeepsItsNewestPoints) {
  LeadUp lead_up(/*max_ports=*/10, /*points_per_port=*/4);
  for (int i = 0; i < 10; ++i) {
    lead_up.Rose("p_1", "SymbolErrorCounter", At(i * 60), i * 10, At(i * 60 + 60), i * 10 + 10);
  }
  auto points = lead_up.Points("p_1", At(-3600));
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points.front().at, At(420));
  EXPECT_EQ(points.back().at, At(600));
  EXPECT_EQ(points.back().value, 100u);
}

TEST(LeadUpTest, ThePortThatRoseLongestAgoIsForgottenFirst) {
  LeadUp lead_up(/*max_ports=*/2, /*points_per_port=*/8);
  lead_up.Rose("a_1", "SymbolErrorCounter", At(0), 0, At(60), 1);
  lead_up.Rose("b_1", "SymbolErrorCounter", At(0), 0, At(60), 1);
  lead_up.Rose("a_1", "SymbolErrorCounter", At(60), 1, At(120), 2);  // a rose again: b is older
  lead_up.Rose("c_1", "SymbolErrorCounter", At(60), 0, At(120), 1);
  EXPECT_EQ(lead_up.ports(), 2u);
  EXPECT_FALSE(lead_up.Points("a_1", At(-3600)).empty());
  EXPECT_TRUE(lead_up.Points("b_1", At(-3600)).empty());
  EXPECT_FALSE(lead_up.Points("c_1", At(-3600)).empty());
  lead_up.Forget("a_1");
  EXPECT_TRUE(lead_up.Points("a_1", At(-3600)).empty());
  EXPECT_EQ(lead_up.ports(), 1u);
  lead_up.Forget("nobody_1");  // nothing held: nothing happens
  EXPECT_EQ(lead_up.ports(), 1u);
}

TEST(LeadUpTest, MemoryStaysBoundedHoweverManyPortsRise) {
  LeadUp lead_up(/*max_ports=*/1000, /*points_per_port=*/32);
  auto fill = [&](int ports) {
    for (int round = 0; round < 40; ++round) {
      for (int p = 0; p < ports; ++p) {
        lead_up.Rose("0c42a10300e1f2" + std::to_string(p) + "_1", "SymbolErrorCounter",
                     At(round * 60), round, At(round * 60 + 60), round + 1);
      }
    }
  };
  fill(1000);
  const size_t full = lead_up.bytes();
  EXPECT_EQ(lead_up.ports(), 1000u);
  fill(5000);  // five times as many ports rise: the most recent 1000 are kept
  EXPECT_EQ(lead_up.ports(), 1000u);
  EXPECT_LE(lead_up.bytes(), full + full / 10);
  EXPECT_GT(full, 1000u * 32 * 16) << "bytes() counts the points";
}

}  // namespace
}  // namespace ufmr
