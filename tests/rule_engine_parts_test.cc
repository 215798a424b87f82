// Covers the parts of the rules engine alone (the engine as a whole: rule_engine_test.cc):
// SubjectResolver (a link's ends and key, a whole-switch event's object, remembered resolutions
// and not remembering them),
// HeldFindings (holds fall due in order; evidence joins a hold up to the cap; a clear cancels),
// Inhibitors and FindingSink (a live inhibitor marks a covered finding, expiry, a reload keeps
// only rules that still exist), LinkDowns, CounterRules::BreaksClearLevel, MapRules and
// MakeFinding (rule_state.h).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "ingest/event_subjects.h"
#include "rules/counter_rules.h"
#include "rules/held_findings.h"
#include "rules/inhibitors.h"
#include "rules/rule_loader.h"
#include "rules/rule_state.h"
#include "rules/subject_resolver.h"
#include "ufm/inventory.h"

namespace ufmr {
namespace {

const TimePoint kT0 = TimePoint(std::chrono::seconds(1767225600));

TimePoint At(double s) { return TimeAfter(kT0, s); }

std::shared_ptr<RuleSet> Load(const std::string& text) {
  auto r = LoadRulesText(text, "parts.yaml");
  EXPECT_TRUE(r.ok()) << r.Report();
  return r.rules;
}

Observation Event(int type, std::vector<std::string> ports, double at = 0) {
  Observation o;
  o.kind = Observation::Kind::kEvent;
  o.event_type = type;
  o.time = At(at);
  o.ports = std::move(ports);
  return o;
}

// --- SubjectResolver -------------------------------------------------------------------------

TEST(SubjectResolverTest, WithoutInventoryTheEventsPortsAreTheLink) {
  SubjectResolver resolver(nullptr);
  auto s = resolver.Resolve(Event(329, {"b_1", "a_2"}));
  EXPECT_EQ(s.ends, (std::vector<std::string>{"b_1", "a_2"}));
  EXPECT_EQ(s.link_key, "a_2|b_1");
  EXPECT_EQ(s.link_key, LinkKey(s.ends));
  EXPECT_TRUE(s.switches.empty());
  EXPECT_TRUE(s.switch_entities().empty());
  EXPECT_FALSE(resolver.has_inventory());
  Observation refs = Event(702, {});
  refs.port_refs = {"sw-1:1/19/1"};
  EXPECT_TRUE(resolver.PortsOf(refs).empty());  // references need an inventory
}

TEST(SubjectResolverTest, WholeSwitchEventNamesItsObject) {
  SubjectResolver resolver(nullptr);
  Observation o = Event(907, {});
  o.object_type = "Switch";
  o.object_name = "default / Switch: SW-1";
  auto s = resolver.Resolve(o);
  EXPECT_TRUE(s.ends.empty());
  ASSERT_EQ(s.switches.size(), 1u);
  EXPECT_EQ(s.switches.begin()->second, "SW-1");
  ASSERT_EQ(s.switch_entities().size(), 1u);
  EXPECT_EQ(s.switch_entities()[0].key, "switch:" + NodeKey("SW-1"));
  EXPECT_EQ(s.switch_entities()[0].name, "SW-1");
  EXPECT_EQ(s.switch_entities()[0].port, "");  // the whole switch counts as one
  EXPECT_TRUE(s.hosts.empty());
}

TEST(SubjectResolverTest, RemembersEventsPerSetOfPorts) {
  SubjectResolver resolver(nullptr);
  auto first = resolver.ResolveCached(Event(329, {"a_1", "b_1"}));
  auto again = resolver.ResolveCached(Event(328, {"a_1", "b_1"}, 5));
  EXPECT_EQ(first.get(), again.get());
  Observation counter = Event(0, {"a_1", "b_1"});
  counter.kind = Observation::Kind::kCounter;
  EXPECT_NE(resolver.ResolveCached(counter).get(), resolver.ResolveCached(counter).get());
}

TEST(SubjectResolverTest, RemembersNothingWhenToldNotTo) {
  SubjectResolver resolver(nullptr);
  auto remembered = resolver.ResolveCached(Event(329, {"a_1", "b_1"}));
  resolver.SetRemember(false);  // as replay does
  auto first = resolver.ResolveCached(Event(329, {"a_1", "b_1"}));
  auto again = resolver.ResolveCached(Event(328, {"a_1", "b_1"}, 5));
  EXPECT_NE(first.get(), remembered.get());
  EXPECT_NE(first.get(), again.get());
  EXPECT_EQ(first->ends, again->ends);
  EXPECT_EQ(first->link_key, again->link_key);
  resolver.SetRemember(true);
  auto kept = resolver.ResolveCached(Event(329, {"a_1", "b_1"}));
  EXPECT_EQ(resolver.ResolveCached(Event(329, {"a_1", "b_1"})).get(), kept.get());
}

// The inventory learns the link's other end after the event was resolved: the remembered
// resolution is stale and is made again, then remembered again.
TEST(SubjectResolverTest, AResolutionMadeBeforeTheInventoryChangedIsMadeAgain) {
  Inventory inventory;
  SubjectResolver resolver(&inventory);
  auto before = resolver.ResolveCached(Event(329, {"a_1"}));
  EXPECT_EQ(before->ends, std::vector<std::string>{"a_1"});
  EXPECT_EQ(resolver.ResolveCached(Event(329, {"a_1"})).get(), before.get());
  PortInfo a;
  a.name = "a_1";
  a.peer = "b_1";
  inventory.Upsert(a);
  auto after = resolver.ResolveCached(Event(329, {"a_1"}));
  EXPECT_NE(after.get(), before.get());
  EXPECT_EQ(after->ends, (std::vector<std::string>{"a_1", "b_1"}));
  EXPECT_EQ(after->link_key, "a_1|b_1");
  EXPECT_EQ(resolver.ResolveCached(Event(328, {"a_1"}, 5)).get(), after.get());
  // Another set of ports resolved before the change is made again too, not handed out stale.
  auto other = resolver.ResolveCached(Event(329, {"c_1"}));
  PortInfo c;
  c.name = "c_1";
  c.peer = "d_1";
  inventory.Upsert(c);
  EXPECT_EQ(resolver.ResolveCached(Event(329, {"c_1"}))->link_key, "c_1|d_1");
  EXPECT_EQ(other->link_key, "c_1");
}

// --- HeldFindings ----------------------------------------------------------------------------

const char* kTwoHeldRules = R"(rules:
  - name: first
    match: {event_id: 329}
    clear: {event_id: 328}
    for: 1m
    action: log_only
  - name: second
    match: {event_id: 329}
    clear: {event_id: 328}
    for: 1m
    action: log_only
)";

HeldFindings::Held Hold(const Rule& r, const std::string& entity, double fire_at) {
  HeldFindings::Held h;
  h.rule = &r;
  h.subjects = std::make_shared<const ObservationSubjects>();
  h.entity = entity;
  h.name = entity;
  h.reason = "held " + entity;
  h.fire_at = At(fire_at);
  return h;
}

TEST(HeldFindingsTest, DueHoldsComeOutInTheOrderTheyFellDue) {
  auto set = Load(kTwoHeldRules);
  const Rule& first = set->rules[0];
  const Rule& second = set->rules[1];
  HeldFindings held(set->rules.size());
  held.Hold(Hold(second, "x", 60));
  held.Hold(Hold(first, "z", 60));
  held.Hold(Hold(first, "y", 60));
  held.Hold(Hold(second, "w", 30));
  held.Hold(Hold(first, "later", 90));
  EXPECT_EQ(held.size(), 5u);
  EXPECT_TRUE(held.TakeDue(At(29)).empty());
  auto due = held.TakeDue(At(60));
  ASSERT_EQ(due.size(), 4u);
  // By time, then rule, then entity.
  EXPECT_EQ(due[0].entity, "w");
  EXPECT_EQ(due[1].entity, "y");
  EXPECT_EQ(due[2].entity, "z");
  EXPECT_EQ(due[3].entity, "x");
  EXPECT_EQ(due[1].reason, "held y");
  EXPECT_EQ(held.size(), 1u);
  EXPECT_TRUE(held.TakeDue(At(89)).empty());
  EXPECT_EQ(held.TakeDue(At(90)).size(), 1u);
  EXPECT_EQ(held.size(), 0u);
}

TEST(HeldFindingsTest, EvidenceJoinsAHoldAndAClearCancelsIt) {
  auto set = Load(kTwoHeldRules);
  const Rule& first = set->rules[0];
  HeldFindings held(set->rules.size());
  EXPECT_FALSE(held.Join(first, "x", {At(1), 0, nullptr}));  // nothing held
  held.Hold(Hold(first, "x", 60));
  for (int i = 0; i < 60; ++i) {
    auto o = std::make_shared<const Observation>(Event(329, {"x"}, i));
    EXPECT_TRUE(held.Join(first, "x", {At(i), 0, o}));
  }
  int seen = 0;
  held.Visit([&](const SeenObservation&) { ++seen; });
  EXPECT_EQ(seen, static_cast<int>(kMaxFindingEvidence));
  held.Cancel(first, "x");
  EXPECT_EQ(held.size(), 0u);
  EXPECT_TRUE(held.TakeDue(At(3600)).empty());
}

TEST(HeldFindingsTest, AdoptMovesHoldsToTheNewRules) {
  auto old_set = Load(kTwoHeldRules);
  HeldFindings old_held(old_set->rules.size());
  old_held.Hold(Hold(old_set->rules[1], "x", 10));
  auto new_set =
      Load(std::string(kTwoHeldRules).substr(0, 7) +
           std::string(kTwoHeldRules).substr(std::string(kTwoHeldRules).find("  - name: second")));
  ASSERT_EQ(new_set->rules.size(), 1u);
  RulesByName by_name{{"second", &new_set->rules[0]}};
  HeldFindings held(new_set->rules.size());
  held.Adopt(std::move(old_held), MapRules(*old_set, by_name));
  auto due = held.TakeDue(At(10));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].rule, &new_set->rules[0]);
}

// --- Inhibitors and FindingSink --------------------------------------------------------------

const char* kInhibiting = R"(rules:
  - name: reboot
    match: {event_id: 907}
    scope: switch
    inhibits: {rules: [cable], for: 10m}
    action: log_only
  - name: cable
    match: {event_id: 329}
    description: Cable trouble
    action: log_only
)";

RulesByName ByName(const RuleSet& set) {
  RulesByName by_name;
  for (const auto& r : set.rules) by_name[r.name] = &r;
  return by_name;
}

Finding CableFinding(const RuleSet& set, const std::string& switch_key, double at) {
  ObservationSubjects s;
  s.ends = {"a_1"};
  s.link_key = "a_1";
  s.switches[switch_key] = "SW-1";
  Finding f = MakeFinding(set.rules[1], s, At(at), set.hash);
  f.reason = "link down";
  return f;
}

TEST(InhibitorsTest, ALiveInhibitorMarksTheFindingsItCovers) {
  auto set = Load(kInhibiting);
  const RulesByName by_name = ByName(*set);
  SubjectResolver resolver(nullptr);
  Inhibitors inhibitors;
  const std::string key = NodeKey("SW-1");
  inhibitors.Extend(set->rules[0], "switch:" + key, "SW-1", At(0));
  EXPECT_EQ(inhibitors.InhibitedBy("cable", CableFinding(*set, key, 60), At(60), resolver, by_name),
            "reboot on switch SW-1");
  EXPECT_EQ(inhibitors.InhibitedBy("other", CableFinding(*set, key, 60), At(60), resolver, by_name),
            "");
  EXPECT_EQ(
      inhibitors.InhibitedBy("cable", CableFinding(*set, "sw-2", 60), At(60), resolver, by_name),
      "");
  EXPECT_EQ(
      inhibitors.InhibitedBy("cable", CableFinding(*set, key, 601), At(601), resolver, by_name),
      "");  // ended 10m after the last observation
  // The sink marks the finding and puts the rule's description first.
  std::vector<Finding> out;
  FindingSink sink(inhibitors, resolver, by_name, set->hash, &out);
  sink.Emit(set->rules[1], CableFinding(*set, key, 60));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].inhibited_by, "reboot on switch SW-1");
  EXPECT_EQ(out[0].reason, "Cable trouble (link down)");
  // Extending moves the end; expiry drops what ended.
  inhibitors.Extend(set->rules[0], "switch:" + key, "SW-1", At(300));
  EXPECT_EQ(
      inhibitors.InhibitedBy("cable", CableFinding(*set, key, 800), At(800), resolver, by_name),
      "reboot on switch SW-1");
  inhibitors.Expire(At(901));
  EXPECT_EQ(inhibitors.InhibitedBy("cable", CableFinding(*set, key, 0), At(0), resolver, by_name),
            "");
}

// A finding of a rule no inhibitor lists is not looked at; the answer is asked again once an
// inhibitor is added (a stale "no" would miss it; a stale "yes" only looks for nothing).
TEST(InhibitorsTest, AnInhibitorAddedLaterCoversARuleNoneListedBefore) {
  auto set = Load(std::string(kInhibiting) + R"(  - name: maintenance
    match: {event_id: 908}
    scope: switch
    inhibits: {rules: [reboot], for: 10m}
    action: log_only
)");
  const RulesByName by_name = ByName(*set);
  SubjectResolver resolver(nullptr);
  Inhibitors inhibitors;
  const std::string key = NodeKey("SW-1");
  inhibitors.Extend(set->rules[2], "switch:" + key, "SW-1", At(0));
  EXPECT_EQ(inhibitors.InhibitedBy("cable", CableFinding(*set, key, 1), At(1), resolver, by_name),
            "");
  inhibitors.Extend(set->rules[0], "switch:" + key, "SW-1", At(2));
  EXPECT_EQ(inhibitors.InhibitedBy("cable", CableFinding(*set, key, 3), At(3), resolver, by_name),
            "reboot on switch SW-1");
}

TEST(InhibitorsTest, AdoptKeepsOnlyRulesThatStillExist) {
  auto set = Load(kInhibiting);
  const RulesByName by_name = ByName(*set);
  SubjectResolver resolver(nullptr);
  const std::string key = NodeKey("SW-1");
  Inhibitors old_inhibitors;
  old_inhibitors.Extend(set->rules[0], "switch:" + key, "SW-1", At(0));
  Inhibitors kept;
  kept.Adopt(Inhibitors(old_inhibitors), by_name);
  EXPECT_EQ(kept.InhibitedBy("cable", CableFinding(*set, key, 1), At(1), resolver, by_name),
            "reboot on switch SW-1");
  Inhibitors dropped;
  RulesByName without_reboot{{"cable", &set->rules[1]}};
  dropped.Adopt(std::move(old_inhibitors), without_reboot);
  EXPECT_EQ(dropped.InhibitedBy("cable", CableFinding(*set, key, 1), At(1), resolver, by_name), "");
}

// --- LinkDowns and counter rules -------------------------------------------------------------

TEST(LinkDownsTest, RecentlyDownIsPerPortAndStrictlyWithin) {
  LinkDowns downs;
  EXPECT_FALSE(downs.RecentlyDown({"a_1"}, At(0), 60));
  downs.Note("a_1", At(0));
  EXPECT_TRUE(downs.RecentlyDown({"b_1", "a_1"}, At(59), 60));
  EXPECT_FALSE(downs.RecentlyDown({"a_1"}, At(60), 60));
  EXPECT_FALSE(downs.RecentlyDown({"b_1"}, At(1), 60));
}

TEST(CounterRulesTest, OneSampleAgainstTheClearLevel) {
  auto set = Load(R"(rules:
  - name: rate
    counter: SymbolErrorCounterExtended
    rate: {above: 100, per: 1m}
    clear: {below: 10}
    action: log_only
  - name: delta
    counter: SymbolErrorCounterExtended
    delta: {above: 0}
    action: log_only
  - name: ber
    ber: {above: 1e-12}
    clear: {below: 1e-13}
    action: log_only
)");
  Observation o;
  o.kind = Observation::Kind::kCounter;
  o.interval_s = 60;
  o.delta = 9;  // 9 per minute: under the rate's clear level
  EXPECT_FALSE(CounterRules::BreaksClearLevel(set->rules[0], o));
  o.delta = 10;
  EXPECT_TRUE(CounterRules::BreaksClearLevel(set->rules[0], o));
  o.interval_s = 120;  // 5 per minute
  EXPECT_FALSE(CounterRules::BreaksClearLevel(set->rules[0], o));
  o.delta = 0;
  EXPECT_FALSE(CounterRules::BreaksClearLevel(set->rules[1], o));  // clear level 0: any error
  o.delta = 1;
  EXPECT_TRUE(CounterRules::BreaksClearLevel(set->rules[1], o));
  o.value = 1e-14;
  EXPECT_FALSE(CounterRules::BreaksClearLevel(set->rules[2], o));
  o.value = 1e-13;
  EXPECT_TRUE(CounterRules::BreaksClearLevel(set->rules[2], o));
}

// --- rule_state.h ----------------------------------------------------------------------------

TEST(RuleStateTest, MapRulesKeepsSameNameAndCondition) {
  auto old_set = Load(R"(rules:
  - name: same
    match: {event_id: 329}
    action: log_only
  - name: changed
    match: {event_id: 329}
    count: 2
    window: 1m
    action: log_only
  - name: gone
    match: {event_id: 1}
    action: log_only
)");
  auto new_set = Load(R"(rules:
  - name: changed
    match: {event_id: 329}
    count: 3
    window: 1m
    action: log_only
  - name: same
    match: {event_id: 329}
    action: disable_port
)");
  RulesByName by_name;
  for (const auto& r : new_set->rules) by_name[r.name] = &r;
  RuleMapping mapping = MapRules(*old_set, by_name);
  ASSERT_EQ(mapping.size(), 3u);
  EXPECT_EQ(mapping[0], &new_set->rules[1]);  // the action is not part of the condition
  EXPECT_EQ(mapping[1], nullptr);
  EXPECT_EQ(mapping[2], nullptr);
}

TEST(RuleStateTest, MakeFindingCarriesTheRuleAndItsThreshold) {
  auto set = Load(R"(rules:
  - name: c
    counter: SymbolErrorCounterExtended
    rate: {above: 100, per: 1m}
    window: 5m
    min_link_uptime: 10m
    severity: critical
    title: "Errors on {port}"
    action: disable_port
)");
  ObservationSubjects s;
  s.ends = {"a_1", "b_1"};
  s.link_key = "a_1|b_1";
  Finding f = MakeFinding(set->rules[0], s, At(5), set->hash);
  EXPECT_EQ(f.rule, "c");
  EXPECT_EQ(f.action, RuleAction::kDisablePort);
  EXPECT_EQ(f.severity, "critical");
  // The rule's title, parsed once and shared, not copied as text.
  ASSERT_TRUE(f.title_template);
  EXPECT_EQ(f.title_template.get(), set->rules[0].title_template.get());
  EXPECT_EQ(set->rules[0].title, "Errors on {port}");
  EXPECT_TRUE(f.title.empty());
  EXPECT_FALSE(f.hint_template);  // the rule has no hint
  EXPECT_EQ(f.ports, s.ends);
  EXPECT_EQ(f.link_key, "a_1|b_1");
  EXPECT_EQ(f.time, At(5));
  EXPECT_EQ(f.rules_hash, set->hash);
  EXPECT_TRUE(f.evidence["observations"].empty());
  EXPECT_TRUE(f.observed.empty());
  EXPECT_EQ(f.evidence["rule"]["file"], "parts.yaml");
  EXPECT_EQ(f.evidence["rule"]["line"], 2);
  EXPECT_EQ(f.evidence["rules_hash"], set->hash);
  const auto& t = f.evidence["threshold"];
  EXPECT_EQ(t["scope"], "link");
  EXPECT_EQ(t["measure"], "rate");
  EXPECT_EQ(t["above"], 100.0);
  EXPECT_EQ(t["per_s"], 60.0);
  EXPECT_EQ(t["min_link_uptime_s"], 600.0);
  EXPECT_EQ(t["window_s"], 300.0);
  EXPECT_FALSE(t.contains("count"));
}

}  // namespace
}  // namespace ufmr
