// Covers the act stage's memory of what it holds: OwnPorts (a disable is held from the pass that
// records it; a confirmed or uncertain disable stays held, a failed one or one a person did first
// does not; an enable that did not fail ends the hold; isolations are held once confirmed and end
// with an un-isolation or drift) and BreakerWindow (findings counted within the window, the count
// forgotten after a re-arm, and only then).
#include "act/own_ports.h"

#include <gtest/gtest.h>

#include "act/breaker_window.h"

namespace ufmr {
namespace {

using Outcome = ActionExecutor::Outcome;

PortAction Action(const std::string& action, const std::string& port) {
  PortAction a;
  a.action = action;
  a.port = port;
  return a;
}

TEST(OwnPortsTest, ADisableIsHeldUnlessItFailedOrAPersonDidItFirst) {
  OwnPorts own;
  EXPECT_FALSE(own.AnyDisabled());
  own.AddDisabling({"p1", "p2", "p3", "p4"});
  EXPECT_TRUE(own.AnyDisabled());
  own.OnOutcome(Action("disable", "p1"), Outcome::kConfirmed);
  own.OnOutcome(Action("disable", "p2"), Outcome::kUncertain);
  own.OnOutcome(Action("disable", "p3"), Outcome::kFailed);
  own.OnOutcome(Action("disable", "p4"), Outcome::kAlreadyDoneByHand);
  EXPECT_TRUE(own.HoldsDisabled("p1"));
  EXPECT_TRUE(own.HoldsDisabled("p2")) << "an uncertain cut is held as ours";
  EXPECT_FALSE(own.HoldsDisabled("p3"));
  EXPECT_FALSE(own.HoldsDisabled("p4")) << "a person's";
}

TEST(OwnPortsTest, AnEnableThatDidNotFailEndsTheHold) {
  OwnPorts own;
  own.AddDisabling({"p1", "p2"});
  own.OnOutcome(Action("enable", "p1"), Outcome::kFailed);
  own.OnOutcome(Action("enable", "p2"), Outcome::kAlreadyDoneByHand);
  EXPECT_TRUE(own.HoldsDisabled("p1"));
  EXPECT_FALSE(own.HoldsDisabled("p2"));
}

TEST(OwnPortsTest, IsolationsAreHeldOnceConfirmed) {
  OwnPorts own;
  own.OnOutcome(Action("isolate", "p1"), Outcome::kUncertain);
  EXPECT_FALSE(own.HoldsIsolated("p1"));
  own.OnOutcome(Action("isolate", "p1"), Outcome::kConfirmed);
  own.OnOutcome(Action("isolate", "p2"), Outcome::kConfirmed);
  EXPECT_TRUE(own.HoldsIsolated("p1"));
  EXPECT_FALSE(own.HoldsDisabled("p1")) << "isolated, not disabled";
  own.OnOutcome(Action("unisolate", "p1"), Outcome::kConfirmed);
  EXPECT_FALSE(own.HoldsIsolated("p1"));
  own.DropIsolation("p2");  // drift
  EXPECT_FALSE(own.HoldsIsolated("p2"));
  own.SetIsolations({"p3"});
  EXPECT_TRUE(own.HoldsIsolated("p3"));
  EXPECT_FALSE(own.disables_loaded());
}

// Read again after a restart, an event is the service's own when UFM stamped it while the service
// held the port; a fault just after the enable is not (a span that ran on for a minute after the
// enable swallowed the reread link-down of a real fault 10 to 20 s after a repair: the campaign).
TEST(OwnPortsTest, AFaultSoonAfterTheEnableIsNotTheServicesOwn) {
  OwnPorts own;
  const double now = ToEpochSeconds(SystemClock().Now());
  PortAction disable = Action("disable", "p1");
  disable.created_at = now - 120;
  own.OnOutcome(disable, Outcome::kConfirmed);
  auto at = [&](double s) { return FromEpochSeconds(now + s); };
  EXPECT_TRUE(own.DisabledAt("p1", at(-60))) << "while held";
  EXPECT_TRUE(own.DisabledAt("p1", at(-122))) << "UFM's stamp a little before the request";
  EXPECT_FALSE(own.DisabledAt("p1", at(-130))) << "before the disable";
  EXPECT_TRUE(own.DisabledAt("p1", at(600))) << "still held: no end yet";
  own.OnOutcome(Action("enable", "p1"), Outcome::kConfirmed);
  EXPECT_TRUE(own.DisabledAt("p1", at(-1))) << "the enable's own link-up";
  EXPECT_FALSE(own.DisabledAt("p1", at(10))) << "a fault 10 s after the enable is a fault";
  EXPECT_FALSE(own.DisabledAt("p2", at(-60))) << "another port";
  EXPECT_FALSE(own.IsolatedAt("p1", at(-60))) << "disabled, not isolated";
}

TEST(BreakerWindowTest, CountsWithinTheWindowAndForgetsOnlyAfterARearm) {
  const TimePoint t0 = TimePoint(std::chrono::seconds(1'767'225'600));
  auto at = [&](int s) { return t0 + std::chrono::seconds(s); };
  BreakerWindow window;
  EXPECT_EQ(window.Count(at(0), 60), 1);
  EXPECT_EQ(window.Count(at(30), 60), 2);
  EXPECT_EQ(window.Count(at(60), 60), 3) << "the window's edge is in it";
  EXPECT_EQ(window.Count(at(61), 60), 3) << "the first fell out";
  window.ForgetIfRearmed();
  EXPECT_EQ(window.Count(at(62), 60), 4) << "not re-armed: nothing forgotten";
  window.Rearm();
  window.ForgetIfRearmed();
  EXPECT_EQ(window.Count(at(63), 60), 1);
}

}  // namespace
}  // namespace ufmr
