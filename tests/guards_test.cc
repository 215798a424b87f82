// Covers src/decide/guards/: each guard of the decision stage alone, through Guard::Check, letting
// a finding pass and holding it (kind, note, and what the decision records either way); the
// order of the Decider's list; GuardContext's port to act on. How the guards decide together:
// decision_test.cc.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "decide/decision.h"
#include "decide/guards/decider.h"
#include "decide/guards/guard.h"
#include "decide/guards/guard_context.h"
#include "decide/guards/guard_list.h"
#include "support/fake_decision_context.h"

namespace ufmr {

namespace {

using testing::AddFabric;
using testing::FakeDecisionContext;
using testing::kHost;
using testing::kHost2;
using testing::kSpine;
using testing::kSpineUp;
using testing::kSw;
using testing::kSwUp;
using testing::kT0;
using testing::LinkFinding;
using testing::MakeSilence;

// A fabric, a link-down finding on leaf-1 1/17/1 <-> host-a HCA-1 and the default policy; a test
// changes what its guard reads, then checks the guard alone.
struct World {
  World() { AddFabric(&ctx); }
  GuardOutcome Check(const Guard& guard) {
    GuardContext context(finding, ctx, policy);
    return guard.Check(finding, context);
  }
  FakeDecisionContext ctx;
  Finding finding = LinkFinding();
  DecisionPolicy policy;
};

void ExpectPass(const GuardOutcome& o) {
  EXPECT_FALSE(o.holds) << o.why;
  EXPECT_EQ(o.why, "");
  EXPECT_FALSE(o.trips_breaker.has_value());
}

void ExpectHold(const GuardOutcome& o, DecisionKind kind, const std::string& why) {
  EXPECT_TRUE(o.holds);
  EXPECT_EQ(o.kind, kind) << DecisionKindName(o.kind);
  EXPECT_EQ(o.why, why);
}

std::vector<std::string> Names(const std::vector<std::unique_ptr<Guard>>& guards) {
  std::vector<std::string> out;
  for (const auto& g : guards) out.push_back(g->name());
  return out;
}

// --- the list --------------------------------------------------------------------------------

TEST(GuardsTest, TheDeciderChecksThemInTheDocumentedOrder) {
  // docs/ARCHITECTURE.md, stage 5; the second open_ticket is the port to act on already held out
  // of service for another ticket.
  const std::vector<std::string> documented = {
      "inhibited", "silenced",   "open_ticket", "shadow",    "log_only", "ticket_only",
      "no_port",   "manual",     "open_ticket", "last_link", "cooldown", "breaker",
      "cap",       "switch_cap", "rate_limit",  "dry_run"};
  EXPECT_EQ(Names(DecisionGuards()), documented);
  EXPECT_EQ(Names(Decider(DecisionPolicy{}).guards()), documented);
}

// --- each guard alone ------------------------------------------------------------------------

TEST(GuardsTest, Inhibited) {
  auto guard = MakeInhibitedGuard();
  EXPECT_STREQ(guard->name(), "inhibited");
  World w;
  ExpectPass(w.Check(*guard));
  w.finding.inhibited_by = "switch_reboot on switch leaf-1";
  ExpectHold(w.Check(*guard), DecisionKind::kSuppressed,
             "covered by switch_reboot on switch leaf-1");
}

TEST(GuardsTest, Silenced) {
  auto guard = MakeSilencedGuard();
  EXPECT_STREQ(guard->name(), "silenced");
  World w;
  w.ctx.silences = SilenceSet({MakeSilence(7, "", "spine-1", "")});
  GuardOutcome pass = w.Check(*guard);
  ExpectPass(pass);
  EXPECT_FALSE(pass.silence_id.has_value());
  // The subject: the link's ports, the switch and host they sit on.
  EXPECT_EQ(w.ctx.last_subject.ports, (std::vector<std::string>{kSw, kHost}));
  EXPECT_EQ(w.ctx.last_subject.switches, std::vector<std::string>{"leaf-1"});
  EXPECT_EQ(w.ctx.last_subject.hosts, std::vector<std::string>{"host-a HCA-1"});

  w.ctx.silences = SilenceSet({MakeSilence(7, "", "leaf-.*", "")});
  GuardOutcome hold = w.Check(*guard);
  ExpectHold(hold, DecisionKind::kSuppressed,
             "silenced until 2026-01-01T01:00:30.000Z: cable work in row 3");
  ASSERT_TRUE(hold.silence_id.has_value());
  EXPECT_EQ(*hold.silence_id, 7);
}

TEST(GuardsTest, OpenTicket) {
  auto guard = MakeOpenTicketGuard();
  EXPECT_STREQ(guard->name(), "open_ticket");
  World w;
  GuardOutcome none = w.Check(*guard);
  ExpectPass(none);
  EXPECT_FALSE(none.ticket_id.has_value());

  w.ctx.tickets[w.finding.link_key] = {41, true};  // a port action was taken for it
  GuardOutcome hold = w.Check(*guard);
  ExpectHold(hold, DecisionKind::kSuppressed, "ticket 41 is already open for it");
  ASSERT_TRUE(hold.ticket_id.has_value());
  EXPECT_EQ(*hold.ticket_id, 41);

  // A ticket-only ticket and an enforcing rule that acts: passes, naming the ticket it upgrades.
  w.ctx.tickets[w.finding.link_key] = {42, false};
  GuardOutcome upgrade = w.Check(*guard);
  ExpectPass(upgrade);
  ASSERT_TRUE(upgrade.ticket_id.has_value());
  EXPECT_EQ(*upgrade.ticket_id, 42);
  // Not upgraded by a shadow rule, nor by a rule that does not act.
  w.finding.mode = RuleMode::kShadow;
  ExpectHold(w.Check(*guard), DecisionKind::kSuppressed, "ticket 42 is already open for it");
  w.finding.mode = RuleMode::kEnforce;
  w.finding.action = RuleAction::kTicketOnly;
  ExpectHold(w.Check(*guard), DecisionKind::kSuppressed, "ticket 42 is already open for it");
}

TEST(GuardsTest, Shadow) {
  auto guard = MakeShadowGuard();
  EXPECT_STREQ(guard->name(), "shadow");
  World w;
  ExpectPass(w.Check(*guard));
  w.finding.mode = RuleMode::kShadow;
  ExpectHold(w.Check(*guard), DecisionKind::kFinding, "shadow mode: would disable " + kSw);
  w.finding.action = RuleAction::kIsolatePort;
  ExpectHold(w.Check(*guard), DecisionKind::kFinding, "shadow mode: would isolate " + kSw);
  w.finding.action = RuleAction::kTicketOnly;
  ExpectHold(w.Check(*guard), DecisionKind::kFinding, "shadow mode: recorded only");
  // No end known to UFM: what it would have cut is the link's first end.
  w.finding.action = RuleAction::kDisablePort;
  w.ctx.ports.clear();
  ExpectHold(w.Check(*guard), DecisionKind::kFinding, "shadow mode: would disable " + kSw);
}

TEST(GuardsTest, LogOnly) {
  auto guard = MakeLogOnlyGuard();
  EXPECT_STREQ(guard->name(), "log_only");
  World w;
  ExpectPass(w.Check(*guard));
  w.finding.action = RuleAction::kTicketOnly;
  ExpectPass(w.Check(*guard));
  w.finding.action = RuleAction::kLogOnly;
  ExpectHold(w.Check(*guard), DecisionKind::kFinding, "the rule asks for a record only");
}

TEST(GuardsTest, TicketOnly) {
  auto guard = MakeTicketOnlyGuard();
  EXPECT_STREQ(guard->name(), "ticket_only");
  World w;
  ExpectPass(w.Check(*guard));
  w.finding.action = RuleAction::kLogOnly;
  ExpectPass(w.Check(*guard));
  w.finding.action = RuleAction::kTicketOnly;
  ExpectHold(w.Check(*guard), DecisionKind::kTicket, "the rule asks for a ticket only");
}

TEST(GuardsTest, NoPort) {
  auto guard = MakeNoPortGuard();
  EXPECT_STREQ(guard->name(), "no_port");
  World w;
  ExpectPass(w.Check(*guard));
  w.ctx.ports[kSw].system_guid.clear();
  ExpectPass(w.Check(*guard));  // the host end qualifies
  w.ctx.ports.clear();
  ExpectHold(w.Check(*guard), DecisionKind::kTicket,
             "no end of the link is known to UFM with a system GUID: nothing to disable");
  w.policy.require_system_guid = false;
  w.finding.action = RuleAction::kIsolatePort;
  ExpectHold(w.Check(*guard), DecisionKind::kTicket,
             "no end of the link is known to UFM: nothing to isolate");
}

TEST(GuardsTest, Manual) {
  auto guard = MakeManualGuard();
  EXPECT_STREQ(guard->name(), "manual");
  World w;
  w.ctx.owned[kHost2] = "isolated by a person";  // another link of the host: not this one's
  ExpectPass(w.Check(*guard));
  w.ctx.owned[kHost] = "disabled in UFM";
  ExpectHold(w.Check(*guard), DecisionKind::kBlocked,
             kHost + " is in a person's hands (disabled in UFM): not touched");
}

TEST(GuardsTest, HeldPort) {
  auto guard = MakeHeldPortGuard();
  EXPECT_STREQ(guard->name(), "open_ticket");
  World w;
  w.ctx.held_ports = {kHost};  // the other end: not the port to act on
  ExpectPass(w.Check(*guard));
  w.ctx.held_ports = {kSw};
  ExpectHold(w.Check(*guard), DecisionKind::kSuppressed,
             kSw + " is already held out of service for another ticket");
}

TEST(GuardsTest, LastLink) {
  auto guard = MakeLastLinkGuard();
  EXPECT_STREQ(guard->name(), "last_link");
  World w;
  ExpectPass(w.Check(*guard));  // host-a keeps HCA-2, leaf-1 its other links
  w.ctx.ports[kHost2].logical_state = "Inactive";
  w.ctx.ports[kHost2].physical_state = "Link Down";
  ExpectHold(w.Check(*guard), DecisionKind::kBlocked,
             "host-a HCA-1 has 0 other active links (at least 1 must stay up): drain the host "
             "first, then take " +
                 kHost + " out of service by hand or report the repair");
  w.policy.min_active_links_host = 0;  // off
  ExpectPass(w.Check(*guard));

  // A switch: spine-1's other port is down, so the uplink is its last link.
  World s;
  s.finding.ports = {kSwUp, kSpineUp};
  s.finding.link_key = LinkKey(s.finding.ports);
  ExpectPass(s.Check(*guard));
  s.ctx.ports[kSpine].logical_state = "Inactive";
  s.ctx.ports[kSpine].physical_state = "Link Down";
  ExpectHold(s.Check(*guard), DecisionKind::kBlocked,
             "switch spine-1 has 0 other active links (at least 1 must stay up): not cut "
             "automatically");
}

TEST(GuardsTest, LastLinkDrainsAHostWhenASchedulerIsConfigured) {
  auto guard = MakeLastLinkGuard();
  World w;
  w.policy.scheduler = true;
  ExpectPass(w.Check(*guard));
  EXPECT_EQ(w.Check(*guard).drain_host, "");  // host-a keeps HCA-2: no drain
  w.ctx.ports[kHost2].logical_state = "Inactive";
  w.ctx.ports[kHost2].physical_state = "Link Down";
  // Its last link: drained first, and the later guards judge the cut.
  GuardOutcome drain = w.Check(*guard);
  ExpectPass(drain);
  EXPECT_EQ(drain.drain_host, "host-a");
  // Not when the configuration says so: blocked as without a scheduler.
  w.policy.drain_on_last_link = false;
  EXPECT_TRUE(w.Check(*guard).holds);

  // A drain_then_disable rule drains the host whatever its links, with drain_on_last_link off.
  World r;
  r.policy.scheduler = true;
  r.policy.drain_on_last_link = false;
  r.finding.action = RuleAction::kDrainThenDisable;
  GuardOutcome asked = r.Check(*guard);
  ExpectPass(asked);
  EXPECT_EQ(asked.drain_host, "host-a");
  // Without a scheduler, the rule's host link is not cut.
  r.policy.scheduler = false;
  ExpectHold(r.Check(*guard), DecisionKind::kBlocked,
             "the rule drains host-a in the job scheduler before the cut, and no scheduler is "
             "configured (scheduler.backend)");

  // A switch short of links is never drained: blocked.
  World s;
  s.policy.scheduler = true;
  s.finding.ports = {kSwUp, kSpineUp};
  s.finding.link_key = LinkKey(s.finding.ports);
  s.finding.action = RuleAction::kDrainThenDisable;
  ExpectPass(s.Check(*guard));  // no host on the link: a plain cut
  EXPECT_EQ(s.Check(*guard).drain_host, "");
  s.ctx.ports[kSpine].logical_state = "Inactive";
  s.ctx.ports[kSpine].physical_state = "Link Down";
  EXPECT_TRUE(s.Check(*guard).holds);
}

TEST(GuardsTest, LastLinkHoldsADrainItCannotName) {
  auto guard = MakeLastLinkGuard();
  // A host UFM knows no name for cannot be drained: its link is held, never cut without it.
  World n;
  n.policy.scheduler = true;
  n.finding.action = RuleAction::kDrainThenDisable;
  n.ctx.ports[kHost].node_description = "";
  GuardOutcome unnamed = n.Check(*guard);
  ExpectHold(unnamed, DecisionKind::kBlocked,
             "the host of " + kHost +
                 " has no name in UFM's inventory, so it cannot be drained in the job scheduler: "
                 "drain it and take the link out by hand");
  EXPECT_EQ(unnamed.drain_host, "");

  // A link between two hosts would need two drains: a person judges it.
  World h;
  h.policy.scheduler = true;
  h.finding.action = RuleAction::kDrainThenDisable;
  const std::string other = "e41d2d0300b00001_1";
  h.ctx.ports[other] = testing::HostPort(other, "host-b HCA-1");
  h.ctx.ports[other].peer = kHost;
  h.finding.ports = {kHost, other};
  h.finding.link_key = LinkKey(h.finding.ports);
  ExpectHold(h.Check(*guard), DecisionKind::kBlocked,
             "both ends of the link are hosts to drain (host-a, host-b): not cut automatically");
}

TEST(GuardsTest, Cooldown) {
  auto guard = MakeCooldownGuard();
  EXPECT_STREQ(guard->name(), "cooldown");
  World w;
  ExpectPass(w.Check(*guard));
  w.ctx.last_action[kHost] = kT0 - std::chrono::minutes(61);
  ExpectPass(w.Check(*guard));
  w.ctx.last_action[kHost] = kT0 - std::chrono::minutes(20);
  ExpectHold(
      w.Check(*guard), DecisionKind::kBlocked,
      "this service acted on " + kHost + " 20m ago (cooldown 1h): not acted on again so soon");
  w.policy.port_cooldown_s = 0;  // off
  ExpectPass(w.Check(*guard));
}

TEST(GuardsTest, Breaker) {
  auto guard = MakeBreakerGuard();
  EXPECT_STREQ(guard->name(), "breaker");
  World w;
  w.policy.breaker_findings = 2;
  w.policy.breaker_window_s = 120;
  ExpectPass(w.Check(*guard));
  ExpectPass(w.Check(*guard));
  EXPECT_EQ(w.ctx.acting, 2);
  EXPECT_DOUBLE_EQ(w.ctx.breaker_window, 120);
  // The third within the window trips it: the guard says so, the Decider tells the world.
  GuardOutcome trips = w.Check(*guard);
  ExpectHold(trips, DecisionKind::kBlocked,
             "storm: 3 findings that would act within 2m (more than 2); circuit breaker tripped: "
             "no port is cut until a person re-arms it");
  ASSERT_TRUE(trips.trips_breaker.has_value());
  EXPECT_EQ(*trips.trips_breaker, 3);
  EXPECT_TRUE(w.ctx.trips.empty());
  // Tripped: every finding is held, and none is counted.
  w.ctx.tripped = true;
  GuardOutcome tripped = w.Check(*guard);
  ExpectHold(tripped, DecisionKind::kBlocked,
             "circuit breaker tripped by a storm of findings: no port is cut until a person "
             "re-arms it");
  EXPECT_FALSE(tripped.trips_breaker.has_value());
  EXPECT_EQ(w.ctx.acting, 3);
  // No breaker: nothing counted.
  w.ctx.tripped = false;
  w.policy.breaker_findings = 0;
  ExpectPass(w.Check(*guard));
  EXPECT_EQ(w.ctx.acting, 3);
}

TEST(GuardsTest, Cap) {
  auto guard = MakeCapGuard();
  EXPECT_STREQ(guard->name(), "cap");
  World w;
  w.policy.max_disabled_ports = 3;
  w.ctx.held = 2;
  ExpectPass(w.Check(*guard));
  w.ctx.held = 3;
  ExpectHold(w.Check(*guard), DecisionKind::kBlocked,
             "cap reached: this service already holds 3 ports out of service (the cap is 3)");
  // The percent of the fabric: 5% of 80 is 4.
  w.policy.max_disabled_ports = 100;
  w.policy.max_disabled_percent = 5;
  w.ctx.fabric_ports = 80;
  ExpectPass(w.Check(*guard));
  w.ctx.held = 4;
  ExpectHold(w.Check(*guard), DecisionKind::kBlocked,
             "cap reached: this service already holds 4 ports out of service (5% of the "
             "fabric's 80 ports allows 4)");
  w.policy.max_disabled_percent = 0;  // off
  ExpectPass(w.Check(*guard));
}

TEST(GuardsTest, SwitchCap) {
  auto guard = MakeSwitchCapGuard();
  EXPECT_STREQ(guard->name(), "switch_cap");
  World w;
  w.policy.max_disabled_per_switch = 2;
  w.ctx.held_ports = {kSwUp};  // one link of leaf-1
  ExpectPass(w.Check(*guard));
  w.ctx.held_ports = {kSwUp, kHost2};  // and one whose peer is on leaf-1
  ExpectHold(w.Check(*guard), DecisionKind::kBlocked,
             "switch cap reached: this service already holds 2 links of switch leaf-1 out of "
             "service (the cap is 2)");
  w.policy.max_disabled_per_switch = 0;  // off
  ExpectPass(w.Check(*guard));
}

TEST(GuardsTest, RateLimit) {
  auto guard = MakeRateLimitGuard();
  EXPECT_STREQ(guard->name(), "rate_limit");
  World w;
  w.policy.max_actions_per_hour = 4;
  w.ctx.recent_actions = 3;
  ExpectPass(w.Check(*guard));
  ASSERT_TRUE(w.ctx.since_asked.has_value());
  EXPECT_EQ(*w.ctx.since_asked, kT0 - std::chrono::hours(1));
  w.ctx.recent_actions = 4;
  ExpectHold(w.Check(*guard), DecisionKind::kBlocked,
             "rate limit reached: this service took 4 ports out of service in the last hour "
             "(the limit is 4)");
  w.policy.max_actions_per_hour = 0;  // off
  ExpectPass(w.Check(*guard));
}

TEST(GuardsTest, DryRun) {
  auto guard = MakeDryRunGuard();
  EXPECT_STREQ(guard->name(), "dry_run");
  World w;
  ExpectPass(w.Check(*guard));
  w.policy.dry_run = true;
  ExpectHold(w.Check(*guard), DecisionKind::kBlocked, "dry run: would disable " + kSw);
  w.finding.action = RuleAction::kIsolatePort;
  ExpectHold(w.Check(*guard), DecisionKind::kBlocked, "dry run: would isolate " + kSw);
}

// --- the context -----------------------------------------------------------------------------

TEST(GuardsTest, ContextAnswersHeldForManyHeldPortsAsForAFew) {
  World w;
  w.finding.ports = {kHost, kSw};
  w.ctx.held = 40;  // past the few the context scans: it indexes them
  w.ctx.held_ports = {kSwUp};
  GuardContext context(w.finding, w.ctx, w.policy);
  EXPECT_EQ(context.HeldPorts().size(), 41u);
  EXPECT_TRUE(context.Held(kSwUp));
  EXPECT_TRUE(context.Held("ffffffffffff1039_1"));
  EXPECT_FALSE(context.Held(kSw));
  EXPECT_FALSE(context.Held("ffffffffffff1040_1"));
}

TEST(GuardsTest, ContextNamesThePortToActOnAndAsksTheWorldOnce) {
  World w;
  w.finding.ports = {kHost, kSw};
  w.ctx.held_ports = {kSwUp};
  GuardContext context(w.finding, w.ctx, w.policy);
  EXPECT_EQ(context.action_port(), kSw);  // the switch side
  EXPECT_EQ(context.port(), kSw);
  EXPECT_EQ(context.peer(), kHost);
  // Each end is asked for once, for the port to act on and every guard after it.
  EXPECT_EQ(w.ctx.port_calls, 2);
  ASSERT_EQ(context.Ends().size(), 2u);
  EXPECT_EQ(context.Ends()[0].name, kHost);
  ASSERT_NE(context.Ends()[1].info, nullptr);
  EXPECT_EQ(context.Ends()[1].info->system_name, "leaf-1");
  ASSERT_NE(context.End(kSw), nullptr);
  ASSERT_NE(context.End(kSw)->info, nullptr);
  EXPECT_EQ(context.End(kSw)->info->system_name, "leaf-1");
  EXPECT_EQ(context.End("aaaaaaaaaaaaaaaa_1"), nullptr);
  EXPECT_EQ(w.ctx.port_calls, 2);  // however often asked
  EXPECT_TRUE(context.Held(kSwUp));
  EXPECT_FALSE(context.Held(kSw));
  EXPECT_EQ(context.HeldPorts(), std::vector<std::string>{kSwUp});

  // A switch-scoped finding has no port to act on.
  Finding sw;
  sw.scope = RuleScope::kSwitch;
  sw.switch_name = "leaf-1";
  GuardContext none(sw, w.ctx, w.policy);
  EXPECT_EQ(none.action_port(), "");
  EXPECT_EQ(none.port(), "");
  EXPECT_EQ(none.peer(), "");
}

}  // namespace

}  // namespace ufmr
