// Covers LiveRules::Tick's judgment of holds rebuilt from events read again after a restart: one
// that ran out well before the newest event the last leader read (its horizon) was that leader's
// to fire or see cleared, and is marked read again (FindingRecorder then decides nothing); one
// that runs out after it, or was made from fresh events, or with no restart behind it, is news.
// A finding marked so drops its own rule's count on the link, and no other rule's.
#include "loop/live_rules.h"

#include <gtest/gtest.h>

#include <memory>

#include "base/metrics.h"
#include "config/config.h"
#include "rules/rule_loader.h"
#include "ufm/inventory.h"

namespace ufmr {
namespace {

using std::chrono::seconds;

constexpr const char* kHold = R"(rules:
  - name: link_down
    match: {event_id: [329]}
    for: 30s
    clear: {event_id: [328]}
    action: disable_port
)";

const TimePoint kT0 = TimePoint(seconds(1'767'225'600));

Observation LinkDown(bool reread) {
  Observation o;
  o.kind = Observation::Kind::kEvent;
  o.time = kT0;
  o.source = "rest";
  o.event_id = 7;
  o.event_type = 329;
  o.name = "Link went down";
  o.ufm_timestamp = "2026-01-01 00:00:00";
  o.ports = {"sw_1", "host_1"};
  o.reread = reread;
  return o;
}

// LiveRules with rules from `yaml`, and what it needs to live.
struct Live {
  explicit Live(const char* yaml) {
    auto loaded = LoadRulesText(yaml, "test.yaml");
    EXPECT_TRUE(loaded.ok()) << loaded.Report();
    live = std::make_unique<LiveRules>(config, inventory, metrics, loaded.rules);
  }
  // Observes a link-down (read again or not) at kT0.
  void Down(bool reread, std::vector<Finding>* out) {
    const Observation o = LinkDown(reread);
    Sifting s(o, &inventory);
    live->Observe(s, FilterVerdict::kPass, out);
  }
  Config config;
  Inventory inventory;
  Metrics metrics;
  std::unique_ptr<LiveRules> live;
};

// The findings of one hold on a link-down (read again or not), ticked 31 s on with `horizon`.
std::vector<Finding> HeldFindings(bool reread, std::optional<TimePoint> horizon) {
  Live l(kHold);
  std::vector<Finding> out;
  l.Down(reread, &out);
  EXPECT_TRUE(out.empty()) << "held, not yet a finding";
  l.live->Tick(kT0 + seconds(31), horizon, &out);
  return out;
}

bool MarkedReadAgain(const std::vector<Finding>& f) {
  return f.size() == 1 && f[0].evidence.value("reread", false);
}

TEST(LiveRulesTickTest, AHoldReadAgainThatRanOutWhileTheLastLeaderReadOnIsItsJudgment) {
  auto before = HeldFindings(true, kT0 + seconds(40));
  ASSERT_EQ(before.size(), 1u);
  EXPECT_TRUE(MarkedReadAgain(before)) << "ran out at 30 s; the last leader read on to 40 s";
}

TEST(LiveRulesTickTest, AHoldThatRunsOutAfterTheHorizonOrFromFreshEventsIsNews) {
  auto after = HeldFindings(true, kT0 + seconds(29));
  ASSERT_EQ(after.size(), 1u);
  EXPECT_FALSE(MarkedReadAgain(after)) << "the last leader stopped reading before it ran out";
  auto margin = HeldFindings(true, kT0 + seconds(39));
  ASSERT_EQ(margin.size(), 1u);
  EXPECT_FALSE(MarkedReadAgain(margin)) << "within the margin: the trigger decides";
  auto fresh = HeldFindings(false, kT0 + seconds(40));
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_FALSE(MarkedReadAgain(fresh)) << "made from events read for the first time";
  auto no_restart = HeldFindings(true, std::nullopt);
  ASSERT_EQ(no_restart.size(), 1u);
  EXPECT_FALSE(MarkedReadAgain(no_restart));
}

// A finding made again from an event read again drops its own rule's count on the link, not
// another rule's: a cut still held for the link (the last leader died within its hold) stays due.
TEST(LiveRulesTickTest, AFindingReadAgainForgetsOnlyItsOwnRulesCount) {
  Live l(R"(rules:
  - name: downs_now
    match: {event_id: [329]}
    action: ticket_only
  - name: link_down
    match: {event_id: [329]}
    for: 30s
    clear: {event_id: [328]}
    action: disable_port
)");
  std::vector<Finding> out;
  l.Down(true, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule, "downs_now");
  EXPECT_TRUE(MarkedReadAgain(out));
  out.clear();
  l.live->Tick(kT0 + seconds(31), std::nullopt, &out);
  ASSERT_EQ(out.size(), 1u) << "the hold of the other rule was dropped";
  EXPECT_EQ(out[0].rule, "link_down");
}

}  // namespace
}  // namespace ufmr
