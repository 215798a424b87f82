// Covers src/decide/decision.h: every decision kind and the order of the guards (inhibited,
// silenced, open_ticket, an acting rule upgrading a ticket-only ticket, shadow, log_only,
// ticket_only, no_port, manual, last_link, cooldown, breaker, cap (absolute and percent),
// switch_cap, rate_limit, dry_run, then disable or isolate); ActionPort's preference
// for the switch side and require_system_guid; RenderTemplate's placeholders and default titles;
// Decision::ToJson, and AppendJson writing the same text. The world comes from a small fake
// DecisionContext backed by a real SilenceSet (support/fake_decision_context.h). Each guard alone:
// guards_test.cc.
#include "decide/decision.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "decide/guards/decider.h"
#include "rules/rule_engine.h"
#include "support/fake_decision_context.h"

namespace ufmr {

namespace {

using testing::AddFabric;
using testing::HostPort;
using testing::kHost;
using testing::kHost2;
using testing::kSpine;
using testing::kSpineUp;
using testing::kSw;
using testing::kSw2;
using testing::kSwUp;
using testing::kT0;
using testing::LinkFinding;
using testing::MakeSilence;
using testing::SwitchPort;
using FakeContext = testing::FakeDecisionContext;

DecisionPolicy Policy(bool dry_run, int cap) {
  DecisionPolicy p;
  p.dry_run = dry_run;
  p.max_disabled_ports = cap;
  return p;
}

// --- the guards, in order --------------------------------------------------------------------

// Every guard's condition holds at first; each step takes the guard that decided away, so the
// next one in the order decides.
TEST(DecisionTest, GuardsDecideInOrder) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding f = LinkFinding(RuleAction::kLogOnly);
  f.mode = RuleMode::kShadow;
  f.inhibited_by = "switch_reboot on switch leaf-1";
  ctx.silences = SilenceSet({MakeSilence(7, "", "leaf-.*", "")});
  ctx.tickets[f.link_key] = {41, true};
  ctx.owned[kHost] = "isolated by a person";
  ctx.ports[kHost2].logical_state = "Inactive";  // host-a's other link is down
  ctx.ports[kHost2].physical_state = "Link Down";
  ctx.last_action[kSw] = kT0 - std::chrono::minutes(5);
  ctx.tripped = true;
  ctx.held = 20;
  ctx.held_ports = {kSwUp};  // one of leaf-1's links
  ctx.recent_actions = 10;
  const std::vector<std::string> no_ports = {"ffffffffffffff01_1", "ffffffffffffff02_1"};
  DecisionPolicy dry_policy = Policy(true, 21);
  dry_policy.max_disabled_per_switch = 1;
  Decider dry(dry_policy);
  DecisionPolicy live_policy = dry_policy;
  live_policy.dry_run = false;
  Decider live(live_policy);

  struct Step {
    std::string guard;
    DecisionKind kind;
    std::function<void()> lift;  // takes this guard's condition away
  };
  const std::vector<Step> steps = {
      {"inhibited", DecisionKind::kSuppressed, [&] { f.inhibited_by.clear(); }},
      {"silenced", DecisionKind::kSuppressed, [&] { ctx.silences = SilenceSet(); }},
      {"open_ticket", DecisionKind::kSuppressed, [&] { ctx.tickets.clear(); }},
      {"shadow", DecisionKind::kFinding, [&] { f.mode = RuleMode::kEnforce; }},
      {"log_only", DecisionKind::kFinding, [&] { f.action = RuleAction::kTicketOnly; }},
      {"ticket_only", DecisionKind::kTicket,
       [&] {
         f.action = RuleAction::kDisablePort;
         f.ports = no_ports;  // neither end known to UFM
       }},
      {"no_port", DecisionKind::kTicket,
       [&] {
         f.ports = {kSw, kHost};
       }},
      {"manual", DecisionKind::kBlocked, [&] { ctx.owned.clear(); }},
      {"last_link", DecisionKind::kBlocked,
       [&] {
         ctx.ports[kHost2].logical_state = "Active";
         ctx.ports[kHost2].physical_state = "Link Up";
       }},
      {"cooldown", DecisionKind::kBlocked, [&] { ctx.last_action.clear(); }},
      {"breaker", DecisionKind::kBlocked, [&] { ctx.tripped = false; }},
      {"cap", DecisionKind::kBlocked, [&] { ctx.held = 0; }},
      {"switch_cap", DecisionKind::kBlocked, [&] { ctx.held_ports.clear(); }},
      {"rate_limit", DecisionKind::kBlocked, [&] { ctx.recent_actions = 9; }},
      {"dry_run", DecisionKind::kBlocked, [] {}},
  };
  for (const auto& step : steps) {
    SCOPED_TRACE(step.guard);
    Decision d = dry.Decide(f, ctx);
    EXPECT_EQ(d.guard, step.guard) << d.reason;
    EXPECT_EQ(d.kind, step.kind);
    EXPECT_FALSE(d.acts());
    step.lift();
  }
  // dry_run lifted: the live decider.
  Decision act = live.Decide(f, ctx);
  EXPECT_EQ(act.guard, "");
  EXPECT_EQ(act.kind, DecisionKind::kDisable);
  EXPECT_TRUE(act.acts());
  f.action = RuleAction::kIsolatePort;
  Decision isolate = live.Decide(f, ctx);
  EXPECT_EQ(isolate.kind, DecisionKind::kIsolate);
  EXPECT_TRUE(isolate.acts());
  EXPECT_EQ(isolate.note, "isolate " + kSw);
  EXPECT_TRUE(ctx.trips.empty());
}

// --- the topology, cooldown, breaker, cap and rate guards, one at a time ----------------------

TEST(DecisionTest, AHostsLastLinkIsNeverCut) {
  FakeContext ctx;
  AddFabric(&ctx);
  ctx.ports.erase(kHost2);  // host-a has one link only
  Decision d = Decider(DecisionPolicy{}).Decide(LinkFinding(), ctx);
  EXPECT_EQ(d.kind, DecisionKind::kBlocked);
  EXPECT_EQ(d.guard, "last_link");
  EXPECT_EQ(d.note,
            "host-a HCA-1 has 0 other active links (at least 1 must stay up): drain the host "
            "first, "
            "then take " +
                kHost + " out of service by hand or report the repair");
  // The same with the guard off.
  DecisionPolicy off;
  off.min_active_links_host = 0;
  EXPECT_EQ(Decider(off).Decide(LinkFinding(), ctx).kind, DecisionKind::kDisable);
}

TEST(DecisionTest, WithASchedulerAHostsLastLinkIsCutAfterADrain) {
  FakeContext ctx;
  AddFabric(&ctx);
  ctx.ports.erase(kHost2);  // host-a has one link only
  DecisionPolicy p;
  p.scheduler = true;
  Decision d = Decider(p).Decide(LinkFinding(), ctx);
  EXPECT_EQ(d.kind, DecisionKind::kDisable);
  EXPECT_EQ(d.drain_host, "host-a");
  EXPECT_EQ(d.note, "drain host-a in the job scheduler, then disable " + kSw);
  EXPECT_EQ(d.ToJson().value("drain_host", ""), "host-a");
  std::string line;
  d.AppendJson(&line);
  EXPECT_EQ(line, d.ToJson().dump());
  // The guards after last_link still judge the cut; the note says the drain would come first.
  p.dry_run = true;
  Decision dry = Decider(p).Decide(LinkFinding(), ctx);
  EXPECT_EQ(dry.kind, DecisionKind::kBlocked);
  EXPECT_EQ(dry.guard, "dry_run");
  EXPECT_NE(dry.note.find("(host-a would be drained first)"), std::string::npos) << dry.note;
  // A plain cut names no host.
  ctx.ports[kHost2] = HostPort(kHost2, "host-a HCA-2");
  p.dry_run = false;
  Decision plain = Decider(p).Decide(LinkFinding(), ctx);
  EXPECT_EQ(plain.kind, DecisionKind::kDisable);
  EXPECT_EQ(plain.drain_host, "");
  EXPECT_FALSE(plain.ToJson().contains("drain_host"));
}

TEST(DecisionTest, AHostsOtherLinkCountsOnlyWhenUpAndNotHeld) {
  FakeContext ctx;
  AddFabric(&ctx);
  Decider decider{DecisionPolicy{}};
  EXPECT_EQ(decider.Decide(LinkFinding(), ctx).kind, DecisionKind::kDisable);
  ctx.held_ports = {kSw2};  // the other link is held out of service by this service
  EXPECT_EQ(decider.Decide(LinkFinding(), ctx).guard, "last_link");
  ctx.held_ports.clear();
  ctx.owned[kHost2] = "isolated by a person";  // up, but the SM routes around it
  EXPECT_EQ(decider.Decide(LinkFinding(), ctx).guard, "last_link");
  ctx.owned.clear();
  ctx.ports[kHost2].logical_state = "Disabled";
  EXPECT_EQ(decider.Decide(LinkFinding(), ctx).guard, "last_link");
  ctx.ports[kHost2].logical_state = "Active";
  // Two links must stay: one is not enough.
  DecisionPolicy two;
  two.min_active_links_host = 2;
  Decision d = Decider(two).Decide(LinkFinding(), ctx);
  EXPECT_EQ(d.guard, "last_link");
  EXPECT_NE(d.note.find("host-a HCA-1 has 1 other active link (at least 2 must stay up)"),
            std::string::npos)
      << d.note;
}

TEST(DecisionTest, ASwitchKeepsALink) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding f = LinkFinding();
  f.ports = {kSwUp, kSpineUp};
  f.link_key = LinkKey(f.ports);
  Decider decider{DecisionPolicy{}};
  // leaf-1 keeps its two host links; spine-1's other port faces nothing known, so it is its
  // last link that is up.
  ctx.ports[kSpine].logical_state = "Inactive";
  ctx.ports[kSpine].physical_state = "Link Down";
  Decision d = decider.Decide(f, ctx);
  EXPECT_EQ(d.guard, "last_link");
  EXPECT_EQ(d.note,
            "switch spine-1 has 0 other active links (at least 1 must stay up): not cut "
            "automatically");
  ctx.ports[kSpine].logical_state = "Active";
  ctx.ports[kSpine].physical_state = "Link Up";
  EXPECT_EQ(decider.Decide(f, ctx).kind, DecisionKind::kDisable);
  // Two must stay on each switch: leaf-1 has them (its host links), spine-1 has one.
  DecisionPolicy two;
  two.min_active_links_switch = 2;
  EXPECT_EQ(Decider(two).Decide(f, ctx).guard, "last_link");
  // The port itself already held for another ticket (named there through another link key):
  // suppressed, not a second intent.
  ctx.held_ports = {kSwUp};
  d = decider.Decide(f, ctx);
  EXPECT_EQ(d.kind, DecisionKind::kSuppressed);
  EXPECT_EQ(d.guard, "open_ticket");
  EXPECT_EQ(d.note, kSwUp + " is already held out of service for another ticket");
}

TEST(DecisionTest, CooldownAfterTheServiceActedOnAPort) {
  FakeContext ctx;
  AddFabric(&ctx);
  DecisionPolicy p;
  p.port_cooldown_s = 3600;
  ctx.last_action[kSw] = kT0 - std::chrono::minutes(20);
  Decision d = Decider(p).Decide(LinkFinding(), ctx);
  EXPECT_EQ(d.guard, "cooldown");
  EXPECT_EQ(d.note, "this service acted on " + kSw +
                        " 20m ago (cooldown 1h): not acted on again "
                        "so soon");
  ctx.last_action[kSw] = kT0 - std::chrono::minutes(61);
  EXPECT_EQ(Decider(p).Decide(LinkFinding(), ctx).kind, DecisionKind::kDisable);
  p.port_cooldown_s = 0;  // off
  ctx.last_action[kSw] = kT0;
  EXPECT_EQ(Decider(p).Decide(LinkFinding(), ctx).kind, DecisionKind::kDisable);
}

TEST(DecisionTest, BreakerTripsOnAStormAndStaysTripped) {
  FakeContext ctx;
  AddFabric(&ctx);
  DecisionPolicy p;
  p.breaker_findings = 3;
  p.breaker_window_s = 120;
  Decider decider(p);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(decider.Decide(LinkFinding(), ctx).kind, DecisionKind::kDisable) << i;
  }
  Decision fourth = decider.Decide(LinkFinding(), ctx);
  EXPECT_EQ(fourth.guard, "breaker");
  EXPECT_EQ(fourth.note,
            "storm: 4 findings that would act within 2m (more than 3); circuit breaker tripped: no "
            "port is cut until a person re-arms it");
  ASSERT_EQ(ctx.trips.size(), 1u);
  EXPECT_EQ(ctx.trips[0], std::make_pair(std::string("link_down"), 4));
  EXPECT_DOUBLE_EQ(ctx.breaker_window, 120);
  Decision fifth = decider.Decide(LinkFinding(), ctx);
  EXPECT_EQ(fifth.guard, "breaker");
  EXPECT_EQ(ctx.trips.size(), 1u);  // tripped once
  ctx.tripped = false;              // a person re-armed it
  ctx.acting = 0;
  EXPECT_EQ(decider.Decide(LinkFinding(), ctx).kind, DecisionKind::kDisable);
  // Findings that never reach the breaker (a ticket-only rule) do not count.
  Decision t = decider.Decide(LinkFinding(RuleAction::kTicketOnly), ctx);
  EXPECT_EQ(t.guard, "ticket_only");
  EXPECT_EQ(ctx.acting, 1);
}

TEST(DecisionTest, PercentCapOfTheFabric) {
  FakeContext ctx;
  AddFabric(&ctx);
  DecisionPolicy p;
  p.max_disabled_ports = 100;
  p.max_disabled_percent = 5;
  ctx.fabric_ports = 80;  // 5% of 80 is 4
  ctx.held = 4;
  Decision d = Decider(p).Decide(LinkFinding(), ctx);
  EXPECT_EQ(d.guard, "cap");
  EXPECT_EQ(d.note,
            "cap reached: this service already holds 4 ports out of service (5% of the fabric's "
            "80 ports allows 4)");
  ctx.held = 3;
  EXPECT_EQ(Decider(p).Decide(LinkFinding(), ctx).kind, DecisionKind::kDisable);
  // A tiny fabric still allows one.
  ctx.fabric_ports = 6;
  ctx.held = 0;
  EXPECT_EQ(Decider(p).Decide(LinkFinding(), ctx).kind, DecisionKind::kDisable);
  ctx.held = 1;
  EXPECT_EQ(Decider(p).Decide(LinkFinding(), ctx).guard, "cap");
  p.max_disabled_percent = 0;  // off
  EXPECT_EQ(Decider(p).Decide(LinkFinding(), ctx).kind, DecisionKind::kDisable);
}

TEST(DecisionTest, PerSwitchCapCountsLinksTouchingTheSwitch) {
  FakeContext ctx;
  AddFabric(&ctx);
  // Two more leaf-1 ports, each facing a host of its own.
  for (int n : {50, 51}) {
    std::string sw = "9c0591030090e000_" + std::to_string(n);
    std::string host = "e41d2d03000000" + std::to_string(n) + "_1";
    ctx.ports[sw] = SwitchPort(sw, "leaf-1", "1/25/" + std::to_string(n - 49));
    ctx.ports[sw].peer = host;
    ctx.ports[host] = HostPort(host, "host-" + std::to_string(n) + " HCA-1");
    ctx.ports[host].system_guid = "e41d2d03000000" + std::to_string(n);
    ctx.ports[host].peer = sw;
  }
  DecisionPolicy p;
  p.max_disabled_per_switch = 2;
  ctx.held_ports = {"9c0591030090e000_50", kSpineUp};  // the spine end of leaf-1's uplink
  Decision d = Decider(p).Decide(LinkFinding(), ctx);
  EXPECT_EQ(d.guard, "switch_cap");
  EXPECT_EQ(d.note,
            "switch cap reached: this service already holds 2 links of switch leaf-1 out of "
            "service (the cap is 2)");
  ctx.held_ports = {"9c0591030090e000_50"};
  EXPECT_EQ(Decider(p).Decide(LinkFinding(), ctx).kind, DecisionKind::kDisable);
}

TEST(DecisionTest, RateLimitPerHour) {
  FakeContext ctx;
  AddFabric(&ctx);
  DecisionPolicy p;
  p.max_actions_per_hour = 4;
  ctx.recent_actions = 4;
  Decision d = Decider(p).Decide(LinkFinding(), ctx);
  EXPECT_EQ(d.guard, "rate_limit");
  EXPECT_EQ(d.note,
            "rate limit reached: this service took 4 ports out of service in the last hour (the "
            "limit is 4)");
  ASSERT_TRUE(ctx.since_asked.has_value());
  EXPECT_EQ(*ctx.since_asked, kT0 - std::chrono::hours(1));
  ctx.recent_actions = 3;
  EXPECT_EQ(Decider(p).Decide(LinkFinding(), ctx).kind, DecisionKind::kDisable);
}

TEST(DecisionTest, EachDecisionSaysWhy) {
  struct Case {
    std::string what;
    std::function<void(Finding*, FakeContext*, DecisionPolicy*)> setup;
    DecisionKind kind;
    std::string guard;
    std::string note;
  };
  const std::vector<Case> cases = {
      {"inhibited",
       [](Finding* f, FakeContext*, DecisionPolicy*) {
         f->inhibited_by = "switch_reboot on switch leaf-1";
       },
       DecisionKind::kSuppressed, "inhibited", "covered by switch_reboot on switch leaf-1"},
      {"silenced",
       [](Finding*, FakeContext* c, DecisionPolicy*) {
         c->silences = SilenceSet({MakeSilence(7, kSw, "", "")});
       },
       DecisionKind::kSuppressed, "silenced",
       "silenced until 2026-01-01T01:00:30.000Z: cable work in row 3"},
      {"open ticket",
       [](Finding* f, FakeContext* c, DecisionPolicy*) {
         c->tickets[f->link_key] = {41, true};
       },
       DecisionKind::kSuppressed, "open_ticket", "ticket 41 is already open for it"},
      {"shadow, acting rule",
       [](Finding* f, FakeContext*, DecisionPolicy*) { f->mode = RuleMode::kShadow; },
       DecisionKind::kFinding, "shadow", "shadow mode: would disable " + kSw},
      {"shadow, isolating rule",
       [](Finding* f, FakeContext*, DecisionPolicy*) {
         f->mode = RuleMode::kShadow;
         f->action = RuleAction::kIsolatePort;
       },
       DecisionKind::kFinding, "shadow", "shadow mode: would isolate " + kSw},
      {"shadow, recording rule",
       [](Finding* f, FakeContext*, DecisionPolicy*) {
         f->mode = RuleMode::kShadow;
         f->action = RuleAction::kTicketOnly;
       },
       DecisionKind::kFinding, "shadow", "shadow mode: recorded only"},
      {"log only",
       [](Finding* f, FakeContext*, DecisionPolicy*) { f->action = RuleAction::kLogOnly; },
       DecisionKind::kFinding, "log_only", "the rule asks for a record only"},
      {"ticket only",
       [](Finding* f, FakeContext*, DecisionPolicy*) { f->action = RuleAction::kTicketOnly; },
       DecisionKind::kTicket, "ticket_only", "the rule asks for a ticket only"},
      {"no port", [](Finding*, FakeContext* c, DecisionPolicy*) { c->ports.clear(); },
       DecisionKind::kTicket, "no_port",
       "no end of the link is known to UFM with a system GUID: nothing to disable"},
      {"no port, without the GUID requirement",
       [](Finding*, FakeContext* c, DecisionPolicy* p) {
         c->ports.clear();
         p->require_system_guid = false;
       },
       DecisionKind::kTicket, "no_port", "no end of the link is known to UFM: nothing to disable"},
      {"manual",
       [](Finding*, FakeContext* c, DecisionPolicy*) { c->owned[kHost] = "disabled in UFM"; },
       DecisionKind::kBlocked, "manual",
       kHost + " is in a person's hands (disabled in UFM): not touched"},
      {"dry run", [](Finding*, FakeContext*, DecisionPolicy* p) { p->dry_run = true; },
       DecisionKind::kBlocked, "dry_run", "dry run: would disable " + kSw},
      {"cap",
       [](Finding*, FakeContext* c, DecisionPolicy* p) {
         p->max_disabled_ports = 3;
         c->held = 3;
       },
       DecisionKind::kBlocked, "cap",
       "cap reached: this service already holds 3 ports out of service (the cap is 3)"},
      {"over the cap (lowered since)",
       [](Finding*, FakeContext* c, DecisionPolicy* p) {
         p->max_disabled_ports = 2;
         c->held = 5;
       },
       DecisionKind::kBlocked, "cap",
       "cap reached: this service already holds 5 ports out of service (the cap is 2)"},
      {"under the cap",
       [](Finding*, FakeContext* c, DecisionPolicy* p) {
         p->max_disabled_ports = 3;
         c->held = 2;
       },
       DecisionKind::kDisable, "", "disable " + kSw},
      {"a cap of 0 blocks everything",
       [](Finding*, FakeContext*, DecisionPolicy* p) { p->max_disabled_ports = 0; },
       DecisionKind::kBlocked, "cap",
       "cap reached: this service already holds 0 ports out of service (the cap is 0)"},
      {"disable", [](Finding*, FakeContext*, DecisionPolicy*) {}, DecisionKind::kDisable, "",
       "disable " + kSw},
      {"isolate",
       [](Finding* f, FakeContext*, DecisionPolicy*) { f->action = RuleAction::kIsolatePort; },
       DecisionKind::kIsolate, "", "isolate " + kSw},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    FakeContext ctx;
    AddFabric(&ctx);
    Finding f = LinkFinding();
    DecisionPolicy policy;
    c.setup(&f, &ctx, &policy);
    Decision d = Decider(policy).Decide(f, ctx);
    EXPECT_EQ(d.kind, c.kind);
    EXPECT_EQ(d.guard, c.guard);
    EXPECT_EQ(d.note, c.note);
    EXPECT_EQ(d.reason, "Link went down; " + c.note);
    EXPECT_EQ(d.silence_id.has_value(), c.guard == "silenced");
    if (c.guard == "silenced") {
      EXPECT_EQ(*d.silence_id, 7);
    }
    EXPECT_EQ(d.ticket_id.has_value(), c.guard == "open_ticket");
    if (c.guard == "open_ticket") {
      EXPECT_EQ(*d.ticket_id, 41);
    }
  }
}

TEST(DecisionTest, ActingRuleUpgradesATicketOnlyTicket) {
  struct Case {
    std::string what;
    bool acted;
    RuleAction action;
    RuleMode mode;
    DecisionKind kind;
    std::string guard;
  };
  const std::vector<Case> cases = {
      {"ticket-only ticket, disabling rule", false, RuleAction::kDisablePort, RuleMode::kEnforce,
       DecisionKind::kDisable, ""},
      {"ticket-only ticket, isolating rule", false, RuleAction::kIsolatePort, RuleMode::kEnforce,
       DecisionKind::kIsolate, ""},
      {"ticket-only ticket, shadow rule", false, RuleAction::kDisablePort, RuleMode::kShadow,
       DecisionKind::kSuppressed, "open_ticket"},
      {"ticket-only ticket, ticket-only rule", false, RuleAction::kTicketOnly, RuleMode::kEnforce,
       DecisionKind::kSuppressed, "open_ticket"},
      {"ticket-only ticket, log-only rule", false, RuleAction::kLogOnly, RuleMode::kEnforce,
       DecisionKind::kSuppressed, "open_ticket"},
      {"acted ticket, disabling rule", true, RuleAction::kDisablePort, RuleMode::kEnforce,
       DecisionKind::kSuppressed, "open_ticket"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    FakeContext ctx;
    AddFabric(&ctx);
    Finding f = LinkFinding(c.action);
    f.mode = c.mode;
    ctx.tickets[f.link_key] = {12, c.acted};
    Decision d = Decider(DecisionPolicy{}).Decide(f, ctx);
    EXPECT_EQ(d.kind, c.kind);
    EXPECT_EQ(d.guard, c.guard);
    // Either way the decision names the ticket: the one it upgrades, or the one that covers it.
    ASSERT_TRUE(d.ticket_id.has_value());
    EXPECT_EQ(*d.ticket_id, 12);
  }
}

TEST(DecisionTest, UpgradeStillPassesTheLaterGuards) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding f = LinkFinding();
  ctx.tickets[f.link_key] = {12, false};
  Decision d = Decider(Policy(true, 20)).Decide(f, ctx);
  EXPECT_EQ(d.guard, "dry_run");
  ctx.owned[kSw] = "x";
  d = Decider(DecisionPolicy{}).Decide(f, ctx);
  EXPECT_EQ(d.guard, "manual");
}

TEST(DecisionTest, SilenceSubjectNamesPortsSwitchesAndHosts) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding f = LinkFinding();
  Decider(DecisionPolicy{}).Decide(f, ctx);
  // No silence at all: the guard has nothing to match and asks nothing.
  EXPECT_TRUE(ctx.last_subject.ports.empty());
  ctx.silences = SilenceSet({MakeSilence(9, "", "no-such-switch", "")});
  Decider(DecisionPolicy{}).Decide(f, ctx);
  EXPECT_EQ(ctx.last_subject.ports, (std::vector<std::string>{kSw, kHost}));
  EXPECT_EQ(ctx.last_subject.switches, std::vector<std::string>{"leaf-1"});
  // The host has no system name: its node description, without an HCA suffix cut.
  EXPECT_EQ(ctx.last_subject.hosts, std::vector<std::string>{"host-a HCA-1"});

  struct Case {
    std::string what;
    Silence s;
    bool silenced;
  };
  const std::vector<Case> cases = {
      {"the switch port", MakeSilence(1, kSw, "", ""), true},
      {"the host port", MakeSilence(2, kHost, "", ""), true},
      {"the switch", MakeSilence(3, "", "leaf-1", ""), true},
      {"the host", MakeSilence(4, "", "", "host-a.*"), true},
      {"another switch", MakeSilence(5, "", "spine-1", ""), false},
      {"every pattern must hold", MakeSilence(6, kSw, "spine-1", ""), false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    ctx.silences = SilenceSet({c.s});
    Decision d = Decider(DecisionPolicy{}).Decide(f, ctx);
    EXPECT_EQ(d.guard == "silenced", c.silenced) << d.reason;
  }

  // Ends the inventory does not know: the names the finding's events carried.
  FakeContext blind;
  Finding named = LinkFinding();
  named.switches = {{"leaf-7", "leaf-7"}};
  named.hosts = {{"host-z", "host-z HCA-1"}};
  blind.silences = SilenceSet({MakeSilence(8, "", "leaf-7", "")});
  EXPECT_EQ(Decider(DecisionPolicy{}).Decide(named, blind).guard, "silenced");
  EXPECT_EQ(blind.last_subject.switches, std::vector<std::string>{"leaf-7"});
  EXPECT_EQ(blind.last_subject.hosts, std::vector<std::string>{"host-z HCA-1"});

  // A switch-scoped finding is silenced by its switch's name.
  Finding sw;
  sw.rule = "switch_reboot";
  sw.scope = RuleScope::kSwitch;
  sw.action = RuleAction::kTicketOnly;
  sw.switch_name = "leaf-9";
  sw.link_key = "switch:leaf-9";
  sw.time = kT0;
  ctx.silences = SilenceSet({MakeSilence(9, "", "leaf-9", "")});
  Decision d = Decider(DecisionPolicy{}).Decide(sw, ctx);
  EXPECT_EQ(d.guard, "silenced");
  EXPECT_EQ(ctx.last_subject.switches, std::vector<std::string>{"leaf-9"});
}

TEST(DecisionTest, ExpiredSilenceDoesNotApply) {
  FakeContext ctx;
  AddFabric(&ctx);
  Silence s = MakeSilence(1, kSw, "", "");
  s.expires_at = kT0;  // in force while created_at <= t < expires_at
  ctx.silences = SilenceSet({s});
  Decision d = Decider(DecisionPolicy{}).Decide(LinkFinding(), ctx);
  EXPECT_EQ(d.kind, DecisionKind::kDisable);
}

TEST(DecisionTest, SwitchAndNodeFindings) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding sw;
  sw.rule = "switch_reboot";
  sw.scope = RuleScope::kSwitch;
  sw.action = RuleAction::kTicketOnly;
  sw.severity = "critical";
  sw.switch_name = "leaf-1";
  sw.link_key = "switch:leaf-1";
  sw.reason = "Switch went down";
  sw.time = kT0;
  Decision d = Decider(DecisionPolicy{}).Decide(sw, ctx);
  EXPECT_EQ(d.kind, DecisionKind::kTicket);
  EXPECT_EQ(d.guard, "ticket_only");
  EXPECT_EQ(d.switch_name, "leaf-1");
  EXPECT_EQ(d.node, "");
  EXPECT_EQ(d.port, "");
  EXPECT_EQ(d.peer, "");
  EXPECT_EQ(d.entity, "switch:leaf-1");
  EXPECT_EQ(d.title, "switch_reboot: switch leaf-1");

  Finding node = sw;
  node.rule = "node_reboot";
  node.scope = RuleScope::kNode;
  node.action = RuleAction::kLogOnly;
  node.switch_name.clear();
  node.node_name = "host-a";
  node.link_key = "node:host-a";
  d = Decider(DecisionPolicy{}).Decide(node, ctx);
  EXPECT_EQ(d.kind, DecisionKind::kFinding);
  EXPECT_EQ(d.guard, "log_only");
  EXPECT_EQ(d.node, "host-a");
  EXPECT_EQ(d.switch_name, "");
  EXPECT_EQ(d.title, "node_reboot: node host-a");
}

TEST(DecisionTest, DecisionCopiesTheFinding) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding f = LinkFinding();
  f.mode = RuleMode::kShadow;
  f.severity = "critical";
  Decision d = Decider(DecisionPolicy{}).Decide(f, ctx);
  EXPECT_EQ(d.time, kT0);
  EXPECT_EQ(d.rule, "link_down");
  EXPECT_EQ(d.entity, f.link_key);
  EXPECT_EQ(d.rules_hash, "0123456789abcdef");
  EXPECT_EQ(d.mode, "shadow");
  EXPECT_EQ(d.severity, "critical");
  EXPECT_EQ(d.port, kSw);
  EXPECT_EQ(d.peer, kHost);
}

// --- ActionPort ------------------------------------------------------------------------------

TEST(DecisionTest, ActionPortPrefersTheSwitchSide) {
  PortInfo no_guid_switch = SwitchPort(kSw, "leaf-1", "1/17/1");
  no_guid_switch.system_guid.clear();
  PortInfo no_guid_host = HostPort(kHost, "host-a HCA-1");
  no_guid_host.system_guid.clear();
  struct Case {
    std::string what;
    std::vector<PortInfo> known;
    std::vector<std::string> ends;
    bool require_guid;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"switch first in the list",
       {SwitchPort(kSw, "leaf-1", "1/17/1"), HostPort(kHost, "host-a HCA-1")},
       {kSw, kHost},
       true,
       kSw},
      {"switch second in the list",
       {SwitchPort(kSw, "leaf-1", "1/17/1"), HostPort(kHost, "host-a HCA-1")},
       {kHost, kSw},
       true,
       kSw},
      {"only the host is known", {HostPort(kHost, "host-a HCA-1")}, {kSw, kHost}, true, kHost},
      {"switch without a system GUID, required",
       {no_guid_switch, HostPort(kHost, "host-a HCA-1")},
       {kSw, kHost},
       true,
       kHost},
      {"switch without a system GUID, not required",
       {no_guid_switch, HostPort(kHost, "host-a HCA-1")},
       {kHost, kSw},
       false,
       kSw},
      {"nothing with a GUID, required", {no_guid_switch, no_guid_host}, {kSw, kHost}, true, ""},
      {"nothing with a GUID, not required: the switch",
       {no_guid_switch, no_guid_host},
       {kHost, kSw},
       false,
       kSw},
      {"two switches: the first",
       {SwitchPort(kSw, "leaf-1", "1/17/1"), SwitchPort(kSpine, "spine-1", "1/4/2")},
       {kSpine, kSw},
       true,
       kSpine},
      {"nothing known", {}, {kSw, kHost}, true, ""},
      {"no ends", {SwitchPort(kSw, "leaf-1", "1/17/1")}, {}, true, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    FakeContext ctx;
    for (const auto& p : c.known) ctx.ports[p.name] = p;
    std::vector<std::pair<std::string_view, const PortInfo*>> ends;
    for (const auto& e : c.ends) {
      auto it = ctx.ports.find(e);
      ends.emplace_back(e, it == ctx.ports.end() ? nullptr : &it->second);
    }
    EXPECT_EQ(ActionPort(ends, c.require_guid), c.want);
  }
}

TEST(DecisionTest, PortAndPeerOfTheDecision) {
  struct Case {
    std::string what;
    std::vector<std::string> ports;
    bool known;
    std::string port, peer;
  };
  const std::vector<Case> cases = {
      {"acts on the switch side, host is the peer", {kHost, kSw}, true, kSw, kHost},
      {"no end known: the first end", {kHost, kSw}, false, kHost, kSw},
      {"one end only", {kSw}, true, kSw, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    FakeContext ctx;
    if (c.known) AddFabric(&ctx);
    Finding f = LinkFinding();
    f.ports = c.ports;
    f.link_key = LinkKey(c.ports);
    Decision d = Decider(DecisionPolicy{}).Decide(f, ctx);
    EXPECT_EQ(d.port, c.port);
    EXPECT_EQ(d.peer, c.peer);
  }
}

// --- templates -------------------------------------------------------------------------------

TEST(DecisionTest, RenderTemplatePlaceholders) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding f = LinkFinding();
  f.evidence = {{"threshold", {{"above", 100.0}, {"window_s", 300.0}, {"count", 3}}},
                {"measured", 250.5}};
  Decision d;
  d.rule = "symbol_errors";
  d.port = kSw;
  d.peer = kHost;
  d.severity = "major";
  struct Case {
    std::string tmpl, want;
  };
  const std::vector<Case> cases = {
      {"{rule}", "symbol_errors"},
      {"{reason}", "Link went down"},
      {"{port}", kSw},
      {"{peer}", kHost},
      {"{port_label}", "1/17/1"},
      {"{peer_label}", "1"},
      {"{port_node}", "leaf-1"},
      {"{peer_node}", "host-a HCA-1"},  // no system name: node description up to ':'
      {"{switch}", "leaf-1"},
      {"{node}", "host-a HCA-1"},
      {"{cable_serial}", "MT2330FT09118"},
      {"{count}", "3"},
      {"{window}", "5m"},
      {"{value}", "250.5"},
      {"{threshold}", "100.0"},
      {"{severity}", "major"},
      {"{port_node} {port_label} <-> {peer_node} {peer_label}", "leaf-1 1/17/1 <-> host-a HCA-1 1"},
      {"no placeholders", "no placeholders"},
      {"{unknown}", "{unknown}"},
      {"open { brace", "open { brace"},
      {"{}", "{}"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.tmpl);
    EXPECT_EQ(RenderTemplate(c.tmpl, d, f, ctx), c.want);
  }
}

// The engine's findings share their rule's threshold (Finding::threshold); replay's carry no
// evidence at all. Their templates read the shared threshold first.
TEST(DecisionTest, RenderTemplateReadsTheSharedThreshold) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding f = LinkFinding();
  f.evidence = {{"threshold", {{"above", 1.0}, {"window_s", 60.0}, {"count", 9}}}};
  f.threshold = std::make_shared<const nlohmann::json>(
      nlohmann::json{{"above", 100.0}, {"window_s", 300.0}, {"count", 3}});
  Decision d;
  EXPECT_EQ(RenderTemplate("{count} in {window} over {threshold}", d, f, ctx),
            "3 in 5m over 100.0");
  f.evidence = nlohmann::json::object();
  EXPECT_EQ(RenderTemplate("{count} in {window} over {threshold}", d, f, ctx),
            "3 in 5m over 100.0");
}

// The events seldom name the cable; UFM's inventory often does (ports or links). A hint says
// "cable MT..." rather than "cable (unknown)" when either end's cable is known.
TEST(DecisionTest, RenderTemplateTakesTheCableSerialFromTheInventory) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding f = LinkFinding();
  f.cable_serial.clear();
  Decision d;
  d.port = kSw;
  d.peer = kHost;
  EXPECT_EQ(RenderTemplate("cable {cable_serial}", d, f, ctx), "cable (unknown)");
  ctx.ports[kHost].cable_serial = "MT2330FT00042";  // known on the peer's end only
  EXPECT_EQ(RenderTemplate("cable {cable_serial}", d, f, ctx), "cable MT2330FT00042");
  ctx.ports[kSw].cable_serial = "MT2330FT00041";
  EXPECT_EQ(RenderTemplate("cable {cable_serial}", d, f, ctx), "cable MT2330FT00041");
  f.cable_serial = "MT2330FT09118";  // the event's own word wins
  EXPECT_EQ(RenderTemplate("cable {cable_serial}", d, f, ctx), "cable MT2330FT09118");
}

TEST(DecisionTest, RenderTemplateLeavesUnknownValuesOut) {
  FakeContext ctx;  // knows no port
  Finding f = LinkFinding();
  f.cable_serial.clear();
  f.evidence = nlohmann::json::object();
  Decision d;
  d.port = kSw;
  struct Case {
    std::string tmpl, want;
  };
  const std::vector<Case> cases = {
      {"{cable_serial}", "(unknown)"},
      // Unknown values are left out, and the spaces they leave are tidied away.
      {"{port_label}", ""},
      {"{port_node}", ""},
      {"{peer}", ""},
      {"{switch}", ""},
      {"{node}", ""},
      {"{count}", ""},
      {"{threshold}", ""},
      {"{value}", ""},
      {"{window}", ""},
      {"{port} on {switch}", kSw + " on"},
      {"at {port_node} {port_label}, then", "at, then"},
      // Each thing tidying removes, alone (the rest of the text needs nothing).
      {" lead", "lead"},
      {"trail ", "trail"},
      {"two  spaces", "two spaces"},
      {"a {node}. b", "a. b"},
      {"a {node}, b", "a, b"},
      {"a {node}; b", "a; b"},
      {"(a {node})", "(a)"},
      {"   ", ""},
      {"tidy already: a, b; (c). d", "tidy already: a, b; (c). d"},
      {"x", "x"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.tmpl);
    EXPECT_EQ(RenderTemplate(c.tmpl, d, f, ctx), c.want);
  }
}

TEST(DecisionTest, SwitchAndNodePlaceholdersFollowTheDecisionFirst) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding f = LinkFinding();
  Decision d;
  d.port = kHost;  // a host end acted on
  d.peer = kSw;
  EXPECT_EQ(RenderTemplate("{switch}/{node}", d, f, ctx), "leaf-1/host-a HCA-1");
  d.switch_name = "named-switch";
  d.node = "named-node";
  EXPECT_EQ(RenderTemplate("{switch}/{node}", d, f, ctx), "named-switch/named-node");
}

TEST(DecisionTest, TitlesAndRepairHints) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding f = LinkFinding();
  Decision d = Decider(DecisionPolicy{}).Decide(f, ctx);
  EXPECT_EQ(d.title, "link_down: leaf-1 1/17/1 <-> host-a HCA-1 1");
  EXPECT_EQ(d.repair_hint, "");

  f.ports = {kSw};
  f.link_key = kSw;
  d = Decider(DecisionPolicy{}).Decide(f, ctx);
  EXPECT_EQ(d.title, "link_down: leaf-1 1/17/1");

  f = LinkFinding();
  f.title = "Link down: {port_node} {port_label} ({severity})";
  f.repair_hint = "Replace cable {cable_serial} at {port_node} {port_label}";
  d = Decider(DecisionPolicy{}).Decide(f, ctx);
  EXPECT_EQ(d.title, "Link down: leaf-1 1/17/1 (major)");
  EXPECT_EQ(d.repair_hint, "Replace cable MT2330FT09118 at leaf-1 1/17/1");

  // Rendered for suppressed decisions too: the record reads the same.
  f.inhibited_by = "x";
  d = Decider(DecisionPolicy{}).Decide(f, ctx);
  EXPECT_EQ(d.guard, "inhibited");
  EXPECT_EQ(d.title, "Link down: leaf-1 1/17/1 (major)");
}

// An engine's finding carries its rule's templates parsed once, not as text: they render as the
// same text does, and a parsed template wins over text the finding also carries.
TEST(DecisionTest, ParsedTemplatesRenderAsTheirText) {
  FakeContext ctx;
  AddFabric(&ctx);
  const std::string title = "Link down: {port_node} {port_label} ({severity}) {nope} {";
  const std::string hint = "Replace cable {cable_serial} at {peer_node} {peer_label}.";
  Finding as_text = LinkFinding();
  as_text.title = title;
  as_text.repair_hint = hint;
  Finding parsed = LinkFinding();
  parsed.title_template = std::make_shared<const MessageTemplate>(MessageTemplate::Parse(title));
  parsed.hint_template = std::make_shared<const MessageTemplate>(MessageTemplate::Parse(hint));
  parsed.title = "ignored: the parsed template is the rule's";
  Decision a = Decider(DecisionPolicy{}).Decide(as_text, ctx);
  Decision b = Decider(DecisionPolicy{}).Decide(parsed, ctx);
  EXPECT_EQ(a.title, "Link down: leaf-1 1/17/1 (major) {nope} {");
  // A '{' inside a name belongs to the name, written back whole.
  EXPECT_EQ(
      RenderTemplate(MessageTemplate::Parse("x {a{b} {port_node}"), a, as_text, nullptr, nullptr),
      "x {a{b}");
  EXPECT_EQ(b.title, a.title);
  EXPECT_EQ(a.repair_hint, "Replace cable MT2330FT09118 at host-a HCA-1 1.");
  EXPECT_EQ(b.repair_hint, a.repair_hint);
}

// --- JSON ------------------------------------------------------------------------------------

TEST(DecisionTest, ToJson) {
  FakeContext ctx;
  AddFabric(&ctx);
  Finding f = LinkFinding();
  f.repair_hint = "Reseat {cable_serial}";
  Decision d = Decider(DecisionPolicy{}).Decide(f, ctx);
  nlohmann::json j = d.ToJson();
  EXPECT_EQ(j["time"], "2026-01-01T00:00:30.000Z");
  EXPECT_EQ(j["rule"], "link_down");
  EXPECT_EQ(j["decision"], "disable");
  EXPECT_EQ(j["port"], kSw);
  EXPECT_EQ(j["peer"], kHost);
  EXPECT_EQ(j["reason"], "Link went down; disable " + kSw);
  EXPECT_EQ(j["severity"], "major");
  EXPECT_EQ(j["mode"], "enforce");
  EXPECT_EQ(j["title"], "link_down: leaf-1 1/17/1 <-> host-a HCA-1 1");
  EXPECT_EQ(j["repair_hint"], "Reseat MT2330FT09118");
  EXPECT_EQ(j["rules_hash"], "0123456789abcdef");
  // Empty fields are left out.
  for (const char* k : {"switch", "node", "guard", "ticket_id", "silence_id"}) {
    EXPECT_FALSE(j.contains(k)) << k;
  }

  Decision s;
  s.time = kT0 + std::chrono::milliseconds(1234);
  s.rule = "switch_reboot";
  s.kind = DecisionKind::kSuppressed;
  s.switch_name = "leaf-1";
  s.node = "host-a";
  s.guard = "silenced";
  s.silence_id = 7;
  s.ticket_id = 41;
  s.reason = "r";
  j = s.ToJson();
  // AppendJson writes the same text as ToJson's dump, for both shapes (and escapes alike).
  for (Decision* one : {&d, &s}) {
    std::string line = "x";
    one->AppendJson(&line);
    EXPECT_EQ(line, "x" + one->ToJson().dump());
  }
  s.reason = "quote \" backslash \\ tab \t line\nend \x01 caf\xc3\xa9";
  std::string escaped;
  s.AppendJson(&escaped);
  EXPECT_EQ(escaped, s.ToJson().dump());
  s.reason = "r";
  EXPECT_EQ(j["time"], "2026-01-01T00:00:31.234Z");
  EXPECT_EQ(j["decision"], "suppressed");
  EXPECT_EQ(j["switch"], "leaf-1");
  EXPECT_EQ(j["node"], "host-a");
  EXPECT_EQ(j["guard"], "silenced");
  EXPECT_EQ(j["silence_id"], 7);
  EXPECT_EQ(j["ticket_id"], 41);
  EXPECT_FALSE(j.contains("port"));
  EXPECT_FALSE(j.contains("peer"));
  EXPECT_FALSE(j.contains("title"));
}

TEST(DecisionTest, KindNames) {
  struct Case {
    DecisionKind kind;
    const char* name;
    bool acts;
  };
  for (const auto& c : std::vector<Case>{{DecisionKind::kFinding, "finding", false},
                                         {DecisionKind::kDisable, "disable", true},
                                         {DecisionKind::kIsolate, "isolate", true},
                                         {DecisionKind::kTicket, "ticket", false},
                                         {DecisionKind::kSuppressed, "suppressed", false},
                                         {DecisionKind::kBlocked, "blocked", false}}) {
    EXPECT_STREQ(DecisionKindName(c.kind), c.name);
    Decision d;
    d.kind = c.kind;
    EXPECT_EQ(d.acts(), c.acts) << c.name;
    EXPECT_EQ(d.ToJson()["decision"], c.name);
  }
}

}  // namespace
}  // namespace ufmr
