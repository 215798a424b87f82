// Covers src/rules/rule_engine.h: event rules counting within a window; `for` holds fired by Tick
// and cancelled by a clear event; active until clear (one finding per episode); switch and node
// scopes counting distinct ports; inhibition by switch/node findings (and its expiry); flapping
// from events and from LinkDownedCounterExtended (max of the two, not the sum); counter rules
// (delta, rate over the window, weighted BER, value) with clear_below hysteresis, Tick's patience
// with a late sample and min_link_uptime; BreaksSoak; Forget; OldestEventInUse; AdoptState;
// PortsOf and Resolve. Real RuleSets (LoadRulesText) and a real Inventory; time comes only from
// fixed TimePoints.
#include "rules/rule_engine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "rules/rule_loader.h"
#include "ufm/inventory.h"

namespace ufmr {
namespace {

const TimePoint kT0 = TimePoint(std::chrono::seconds(1'767'225'600));  // 2026-01-01T00:00:00Z

TimePoint At(double s) {
  return kT0 + std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(s));
}
double SecondsOf(TimePoint t) { return std::chrono::duration<double>(t - kT0).count(); }

// The fabric: leaf-1 with three host links and an uplink to spine-1; spine-1 with one host link.
const std::string kL1 = "9c0591030090e000_1";    // leaf-1 1/1/1  <-> host-a HCA-1
const std::string kL2 = "9c0591030090e000_2";    // leaf-1 1/1/2  <-> host-a HCA-2
const std::string kL3 = "9c0591030090e000_3";    // leaf-1 1/2/1  <-> host-b HCA-1
const std::string kL33 = "9c0591030090e000_33";  // leaf-1 1/17/1 <-> spine-1 1/4/2
const std::string kH1 = "e41d2d0300a4f482_1";
const std::string kH2 = "e41d2d0300a4f483_1";
const std::string kH3 = "e41d2d0300b00001_1";
const std::string kS8 = "fc6a1c0300244e00_8";
const std::string kS9 = "fc6a1c0300244e00_9";  // spine-1 1/4/3 <-> host-c HCA-1
const std::string kH4 = "e41d2d0300c00001_1";

PortInfo SwitchPort(const std::string& name, const std::string& system, const std::string& label,
                    const std::string& peer) {
  PortInfo p;
  p.name = name;
  p.guid = name.substr(0, 16);
  p.system_guid = name.substr(0, 16);
  p.system_name = system;
  p.node_description = system + ":" + label;
  p.description = "Switch IB Port";
  p.label = label;
  p.peer = peer;
  p.logical_state = "Active";
  p.physical_state = "Link Up";
  return p;
}

PortInfo HostPort(const std::string& name, const std::string& host, const std::string& hca,
                  const std::string& peer) {
  PortInfo p;
  p.name = name;
  p.guid = name.substr(0, 16);
  p.system_guid = name.substr(0, 15) + "0";
  p.system_name = host;
  p.node_description = host + " " + hca;
  p.description = "Computer IB Port";
  p.label = "1";
  p.peer = peer;
  p.logical_state = "Active";
  p.physical_state = "Link Up";
  return p;
}

void Fill(Inventory* inv) {
  inv->Replace({
      SwitchPort(kL1, "leaf-1", "1/1/1", kH1),
      SwitchPort(kL2, "leaf-1", "1/1/2", kH2),
      SwitchPort(kL3, "leaf-1", "1/2/1", kH3),
      SwitchPort(kL33, "leaf-1", "1/17/1", kS8),
      SwitchPort(kS8, "spine-1", "1/4/2", kL33),
      SwitchPort(kS9, "spine-1", "1/4/3", kH4),
      HostPort(kH1, "host-a", "HCA-1", kL1),
      HostPort(kH2, "host-a", "HCA-2", kL2),
      HostPort(kH3, "host-b", "HCA-1", kL3),
      HostPort(kH4, "host-c", "HCA-1", kS9),
  });
}

std::shared_ptr<const RuleSet> Rules(const std::string& yaml) {
  auto r = LoadRulesText(yaml, "engine_test.yaml");
  EXPECT_TRUE(r.ok()) << r.Report();
  EXPECT_FALSE(HasErrors(r.diagnostics)) << r.Report();
  return r.rules;
}

// A UFM event at `at` seconds, about `ports` (one link: both ends).
Observation Event(int type, double at, std::vector<std::string> ports, int64_t id = 0,
                  const std::string& source = "rest") {
  Observation o;
  o.kind = Observation::Kind::kEvent;
  o.time = At(at);
  o.source = source;
  o.event_id = id;
  o.event_type = type;
  o.name = type == 329   ? "Link went down"
           : type == 328 ? "Link is Up"
                         : "event " + std::to_string(type);
  o.severity = type == 328 ? "Info" : "Warning";
  o.category = "Fabric Topology";
  o.object_type = "Link";
  o.ports = std::move(ports);
  return o;
}

// A whole-switch or whole-host event (907 switch down, 331 node down): no ports, the object names
// it.
Observation NodeEvent(int type, double at, const std::string& object_type,
                      const std::string& object) {
  Observation o = Event(type, at, {});
  o.object_type = object_type;
  o.object_name = object;
  o.severity = "Critical";
  return o;
}

Observation Counter(const std::string& counter, const std::string& port, double at, double delta,
                    double interval = 60, double value = 0) {
  Observation o;
  o.kind = Observation::Kind::kCounter;
  o.time = At(at);
  o.source = "telemetry";
  o.counter = counter;
  o.ports = {port};
  o.delta = delta;
  o.interval_s = interval;
  o.value = value;
  return o;
}

// The engine, its inventory and every finding it made, with their times in seconds.
struct Harness {
  explicit Harness(const std::string& yaml, bool with_inventory = true)
      : rules(Rules(yaml)),
        inventory(with_inventory ? std::make_unique<Inventory>() : nullptr),
        engine(rules ? rules : std::make_shared<RuleSet>(), inventory.get()) {
    if (inventory) Fill(inventory.get());
  }
  std::vector<Finding> Observe(const Observation& o) {
    std::vector<Finding> out;
    engine.Observe(o, &out);
    all.insert(all.end(), out.begin(), out.end());
    return out;
  }
  std::vector<Finding> Tick(double at) {
    std::vector<Finding> out;
    engine.Tick(At(at), &out);
    all.insert(all.end(), out.begin(), out.end());
    return out;
  }
  std::vector<double> Times(const std::string& rule = "") const {
    std::vector<double> t;
    for (const auto& f : all) {
      if (rule.empty() || f.rule == rule) t.push_back(SecondsOf(f.time));
    }
    return t;
  }

  std::shared_ptr<const RuleSet> rules;
  std::unique_ptr<Inventory> inventory;
  RuleEngine engine;
  std::vector<Finding> all;
};

const std::string kUplink = LinkKey({kL33, kS8});

// --- counting within a window ----------------------------------------------------------------

TEST(RuleEngineTest, CountWithinWindow) {
  const std::string yaml = R"(rules:
  - name: r
    match: {event_id: 329}
    count: 3
    window: 60s
    action: log_only
)";
  struct Case {
    std::vector<double> events;
    std::vector<double> fires;
  };
  const std::vector<Case> cases = {
      {{0, 30, 50}, {50}},
      {{0, 30, 70}, {}},                    // the first fell out of the window
      {{0, 60, 60}, {60}},                  // exactly the window's length still counts
      {{0, 61, 62, 121}, {121}},            // 0 dropped at 61; 61..121 is 60s
      {{0, 10, 20, 30, 40, 50}, {20, 50}},  // a rule without clear counts afresh after firing
      {{0, 10}, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.events));
    Harness h(yaml);
    for (double t : c.events) h.Observe(Event(329, t, {kL33, kS8}));
    EXPECT_EQ(h.Times(), c.fires);
  }
}

// What Observe skips at once (replay skips the ports of such events too): only events of a type
// no rule looks at, other than a link-down.
TEST(RuleEngineTest, ConsidersEventsRulesLookAtLinkDownsAndCounters) {
  RuleEngine only_110(Rules("rules:\n  - name: r\n    match: {event_id: 110}\n"
                            "    action: log_only\n"),
                      nullptr);
  EXPECT_TRUE(only_110.Considers(Event(110, 0, {kL33, kS8})));
  EXPECT_TRUE(only_110.Considers(Event(329, 0, {kL33, kS8})));  // uptime starts again
  EXPECT_FALSE(only_110.Considers(Event(64, 0, {kL33})));
  EXPECT_FALSE(only_110.Considers(Event(328, 0, {kL33, kS8})));
  EXPECT_TRUE(only_110.Considers(Counter("SymbolErrorCounterExtended", kL33, 0, 1)));
  RuleEngine any_event(Rules("rules:\n  - name: r\n    match: {severity: Critical}\n"
                             "    action: log_only\n"),
                       nullptr);
  EXPECT_TRUE(any_event.Considers(Event(64, 0, {kL33})));
}

TEST(RuleEngineTest, CountsPerLinkAndBothOrdersAreOneLink) {
  Harness h(R"(rules:
  - name: r
    match: {event_id: 329}
    count: 2
    window: 60s
    action: log_only
)");
  h.Observe(Event(329, 0, {kL33, kS8}));
  h.Observe(Event(329, 1, {kL1, kH1}));  // another link: its own count
  EXPECT_TRUE(h.all.empty());
  auto f = h.Observe(Event(329, 2, {kS8, kL33}));  // the same link, named from the other end
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].link_key, kUplink);
  EXPECT_EQ(f[0].ports, (std::vector<std::string>{kL33, kS8}));
  EXPECT_EQ(f[0].reason, "2 matching events within 1m");
  EXPECT_EQ(EvidenceJson(f[0])["observations"].size(), 2u);
}

TEST(RuleEngineTest, PortScopeCountsTheFirstNamedPort) {
  Harness h(R"(rules:
  - name: r
    match: {event_id: 113}
    scope: port
    count: 2
    window: 60s
    action: ticket_only
)");
  h.Observe(Event(113, 0, {kH1}));
  h.Observe(Event(113, 1, {kL1}));  // the peer is another port
  EXPECT_TRUE(h.all.empty());
  auto f = h.Observe(Event(113, 2, {kH1}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].scope, RuleScope::kPort);
  // A port finding still names the link, so it shares the link's ticket.
  EXPECT_EQ(f[0].link_key, LinkKey({kL1, kH1}));
}

// --- for / clear -----------------------------------------------------------------------------

const char* kLinkDown = R"(rules:
  - name: link_down
    description: Link went down and stayed down
    match: {event_id: 329}
    for: 30s
    clear: {event_id: 328}
    action: disable_port
)";

TEST(RuleEngineTest, ForHoldsUntilTickFiresIt) {
  Harness h(kLinkDown);
  EXPECT_TRUE(h.Observe(Event(329, 0, {kL33, kS8}, 7)).empty());
  EXPECT_EQ(h.engine.pending(), 1u);
  EXPECT_TRUE(h.Tick(29.999).empty());
  EXPECT_EQ(h.engine.pending(), 1u);
  auto f = h.Tick(45);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(h.engine.pending(), 0u);
  // Stamped when the hold ended, not when Tick ran.
  EXPECT_EQ(f[0].time, At(30));
  EXPECT_EQ(f[0].rule, "link_down");
  EXPECT_EQ(f[0].link_key, kUplink);
  EXPECT_EQ(f[0].reason, "Link went down and stayed down (Link went down, not cleared within 30s)");
  ASSERT_EQ(EvidenceJson(f[0])["observations"].size(), 1u);
  EXPECT_EQ(EvidenceJson(f[0])["observations"][0]["event_id"], 7);
  EXPECT_TRUE(f[0].inhibited_by.empty());
}

// A rule whose match is a finding at once reads the event in place; the finding it makes keeps
// its own copy as evidence, made JSON only when written: the caller's event may be gone or
// reused by then (the event-log reader parses its next entry into the same one).
TEST(RuleEngineTest, AFindingsEvidenceOutlivesTheEventItWasMadeOf) {
  Harness h(R"(rules:
  - name: link_down_now
    match: {event_id: 329}
    action: disable_port
)");
  std::vector<Finding> f;
  {
    Observation o = Event(329, 0, {kL33, kS8}, 7);
    h.engine.Observe(o, &f);
    ASSERT_EQ(f.size(), 1u);
    o = Event(328, 5, {kL1, kH1}, 8);  // reused for the next entry
    o.description = "another event's text";
  }
  const nlohmann::json evidence = EvidenceJson(f[0]);
  ASSERT_EQ(evidence["observations"].size(), 1u);
  EXPECT_EQ(evidence["observations"][0]["event_id"], 7);
  EXPECT_EQ(evidence["observations"][0]["event_type"], 329);
  EXPECT_EQ(evidence["observations"][0]["name"], "Link went down");
  EXPECT_EQ(evidence["observations"][0]["ports"], nlohmann::json({kL33, kS8}));
  EXPECT_EQ(evidence["observations"][0]["description"], "");
  // Made again, the same: the finding's own copy, not the JSON of the moment.
  EXPECT_EQ(EvidenceJson(f[0]), evidence);
}

TEST(RuleEngineTest, WithoutEvidenceObservationsAFindingKeepsItsThresholdOnly) {
  Harness h(kLinkDown);
  h.engine.SetEvidenceObservations(false);
  h.Observe(Event(329, 0, {kL33, kS8}, 7));
  h.Observe(Event(329, 1, {kL1, kH1}, 8));
  auto f = h.Tick(45);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].reason, "Link went down and stayed down (Link went down, not cleared within 30s)");
  // Nothing but what titles and hints read: replay's decisions carry no evidence. The threshold
  // is made once for the rule, and its findings share it.
  EXPECT_TRUE(f[0].evidence.is_object());
  EXPECT_TRUE(f[0].evidence.empty());
  EXPECT_TRUE(f[0].observed.empty());
  EXPECT_TRUE(f[1].observed.empty());
  ASSERT_NE(f[0].threshold, nullptr);
  EXPECT_EQ((*f[0].threshold)["for_s"], 30);
  EXPECT_EQ(f[1].threshold, f[0].threshold);
}

// Without observations as evidence, a rule whose match is a finding at once reads the event in
// place and keeps nothing of it: its finding holds no observation (a pointer to the caller's
// event would outlive it).
TEST(RuleEngineTest, WithoutEvidenceObservationsAFindingAtOnceKeepsNoObservation) {
  Harness h(R"(rules:
  - name: link_down_now
    match: {event_id: 329}
    action: disable_port
)");
  h.engine.SetEvidenceObservations(false);
  auto f = h.Observe(Event(329, 0, {kL33, kS8}, 7));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].observed.empty());
  EXPECT_TRUE(f[0].evidence.empty());
  EXPECT_EQ(EvidenceJson(f[0]), nlohmann::json::object());
}

// With observations as evidence, the threshold is in the evidence too (stored with the ticket),
// equal to the shared one.
TEST(RuleEngineTest, WithEvidenceObservationsTheThresholdIsInTheEvidenceToo) {
  Harness h(kLinkDown);
  h.Observe(Event(329, 0, {kL33, kS8}, 7));
  auto f = h.Tick(45);
  ASSERT_EQ(f.size(), 1u);
  ASSERT_NE(f[0].threshold, nullptr);
  EXPECT_EQ(f[0].evidence["threshold"], *f[0].threshold);
  EXPECT_EQ(f[0].evidence["threshold"]["for_s"], 30);
  EXPECT_EQ(EvidenceJson(f[0])["observations"].size(), 1u);
}

// Tick skips its scan of held findings until the earliest is due; a cleared hold leaves that
// mark early, and the holds after it still fire on time, in the order they fell due.
TEST(RuleEngineTest, HoldsFireInOrderAfterAnEarlierHoldWasCleared) {
  Harness h(kLinkDown);
  h.Observe(Event(329, 0, {kL33, kS8}, 1));   // due at 30, cleared below
  h.Observe(Event(329, 5, {kL33, kS8}, 2));   // joins that hold as evidence
  h.Observe(Event(328, 6, {kS8, kL33}, 3));   // clears it
  h.Observe(Event(329, 10, {kL1, kH1}, 4));   // due at 40
  h.Observe(Event(329, 20, {kL33, kS8}, 5));  // a new hold, due at 50
  EXPECT_EQ(h.engine.pending(), 2u);
  EXPECT_TRUE(h.Tick(31).empty());
  EXPECT_TRUE(h.Tick(39.9).empty());
  auto first = h.Tick(40);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].link_key, LinkKey({kL1, kH1}));
  EXPECT_EQ(first[0].time, At(40));
  h.Observe(Event(329, 45, {kL2, kH2}, 6));  // due at 75
  EXPECT_TRUE(h.Tick(49).empty());
  // Both due by one late tick: in the order they fell due.
  auto later = h.Tick(80);
  ASSERT_EQ(later.size(), 2u);
  EXPECT_EQ(later[0].link_key, kUplink);
  EXPECT_EQ(later[0].time, At(50));
  ASSERT_EQ(EvidenceJson(later[0])["observations"].size(), 1u);
  EXPECT_EQ(EvidenceJson(later[0])["observations"][0]["event_id"], 5);
  EXPECT_EQ(later[1].link_key, LinkKey({kL2, kH2}));
  EXPECT_EQ(later[1].time, At(75));
  EXPECT_EQ(h.engine.pending(), 0u);
}

TEST(RuleEngineTest, ClearCancelsAHeldFinding) {
  struct Case {
    std::string what;
    Observation clear;
    bool cancelled;
  };
  const std::vector<Case> cases = {
      {"link up", Event(328, 10, {kL33, kS8}), true},
      {"link up named from the other end", Event(328, 10, {kS8, kL33}), true},
      {"link up of another link", Event(328, 10, {kL1, kH1}), false},
      {"another event on the link", Event(110, 10, {kL33, kS8}), false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Harness h(kLinkDown);
    h.Observe(Event(329, 0, {kL33, kS8}));
    h.Observe(c.clear);
    EXPECT_EQ(h.engine.pending(), c.cancelled ? 0u : 1u);
    h.Tick(100);
    EXPECT_EQ(h.all.size(), c.cancelled ? 0u : 1u);
  }
}

TEST(RuleEngineTest, HeldFindingCollectsLaterEventsAsEvidence) {
  Harness h(kLinkDown);
  h.Observe(Event(329, 0, {kL33, kS8}, 1));
  h.Observe(Event(329, 5, {kL33, kS8}, 2));
  EXPECT_EQ(h.engine.pending(), 1u);  // one hold per link
  auto f = h.Tick(30);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].time, At(30));  // the hold runs from the first event
  EXPECT_EQ(EvidenceJson(f[0])["observations"].size(), 2u);
}

// Observe(Observation&&) keeps the observation itself in its windows, instead of a copy: the
// findings, their evidence and the windows' events are those of Observe(const Observation&).
// Events no rule looks at, and events naming ports only by reference, take the usual path.
TEST(RuleEngineTest, AnObservationHandedOverCountsAsACopiedOne) {
  const std::string yaml = std::string(kLinkDown) + R"(
  - name: three_downs
    match: {event_id: 329}
    count: 3
    window: 1m
    action: log_only
)";
  Harness copied(yaml);
  Harness moved(yaml);
  std::vector<Observation> events = {Event(329, 0, {kL33, kS8}, 1), Event(64, 1, {kL1}, 2),
                                     Event(329, 2, {kL33, kS8}, 3), Event(329, 3, {kL1, kH1}, 4),
                                     Event(329, 4, {kL33, kS8}, 5)};
  Observation by_reference = Event(329, 5, {}, 6);
  by_reference.port_refs = {"leaf-1:1/1/1"};
  events.push_back(by_reference);
  for (const auto& e : events) {
    copied.Observe(e);
    std::vector<Finding> out;
    moved.engine.Observe(Observation(e), &out);
    moved.all.insert(moved.all.end(), out.begin(), out.end());
  }
  EXPECT_EQ(moved.engine.OldestEventInUse(), copied.engine.OldestEventInUse());
  ASSERT_EQ(moved.engine.OldestEventInUse(), 1);
  copied.Tick(40);
  std::vector<Finding> out;
  moved.engine.Tick(At(40), &out);
  moved.all.insert(moved.all.end(), out.begin(), out.end());
  ASSERT_EQ(copied.all.size(), 3u);  // three_downs on the uplink; a hold on each link
  ASSERT_EQ(moved.all.size(), copied.all.size());
  for (size_t i = 0; i < copied.all.size(); ++i) {
    EXPECT_EQ(moved.all[i].rule, copied.all[i].rule);
    EXPECT_EQ(moved.all[i].link_key, copied.all[i].link_key);
    EXPECT_EQ(moved.all[i].reason, copied.all[i].reason);
    EXPECT_EQ(moved.all[i].evidence.dump(), copied.all[i].evidence.dump());
  }
}

TEST(RuleEngineTest, OneFindingPerEpisodeUntilClear) {
  Harness h(kLinkDown);
  h.Observe(Event(329, 0, {kL33, kS8}));
  h.Tick(30);
  ASSERT_EQ(h.Times(), std::vector<double>{30});
  // Still down, more downs: the same episode.
  h.Observe(Event(329, 40, {kL33, kS8}));
  EXPECT_EQ(h.engine.pending(), 0u);
  h.Tick(100);
  EXPECT_EQ(h.Times(), std::vector<double>{30});
  // It came back, then went down again: a new episode.
  h.Observe(Event(328, 110, {kL33, kS8}));
  h.Observe(Event(329, 120, {kL33, kS8}));
  h.Tick(149);
  h.Tick(150);
  EXPECT_EQ(h.Times(), (std::vector<double>{30, 150}));
}

TEST(RuleEngineTest, ActiveUntilClearWithoutHold) {
  struct Case {
    std::string what;
    std::string yaml;
    std::vector<double> fires;
  };
  // Downs at 0 and 5, up at 10, down at 20.
  const std::vector<Case> cases = {
      {"with a clear event: one finding per episode",
       R"(rules:
  - name: r
    match: {event_id: 329}
    clear: {event_id: 328}
    action: ticket_only
)",
       {0, 20}},
      {"without a clear event: every match fires",
       R"(rules:
  - name: r
    match: {event_id: 329}
    action: ticket_only
)",
       {0, 5, 20}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Harness h(c.yaml);
    h.Observe(Event(329, 0, {kL33, kS8}));
    h.Observe(Event(329, 5, {kL33, kS8}));
    h.Observe(Event(328, 10, {kL33, kS8}));
    h.Observe(Event(329, 20, {kL33, kS8}));
    EXPECT_EQ(h.Times(), c.fires);
  }
}

TEST(RuleEngineTest, FindingCarriesTheRule) {
  Harness h(R"(rules:
  - name: r
    description: Described
    match: {event_id: 329}
    count: 2
    window: 1m
    scope: port
    action: isolate_port
    mode: shadow
    severity: critical
    title: "T {port}"
    repair_hint: "H {cable_serial}"
)");
  Observation o = Event(329, 0, {kL33, kS8});
  o.cable_serial = "MT2330FT09118";
  h.Observe(o);
  o.time = At(1);
  auto f = h.Observe(o);
  ASSERT_EQ(f.size(), 2u);  // a port-scoped rule counts each port the event names
  EXPECT_EQ(f[0].rule, "r");
  EXPECT_EQ(f[0].action, RuleAction::kIsolatePort);
  EXPECT_EQ(f[0].mode, RuleMode::kShadow);
  EXPECT_EQ(f[0].scope, RuleScope::kPort);
  EXPECT_EQ(f[0].severity, "critical");
  // The rule's templates, parsed once and rendered by the decision stage.
  ASSERT_TRUE(f[0].title_template);
  ASSERT_TRUE(f[0].hint_template);
  ASSERT_EQ(f[0].title_template->parts.size(), 2u);
  EXPECT_EQ(f[0].title_template->parts[0].text, "T ");
  EXPECT_EQ(f[0].title_template->parts[1].field, MessageTemplate::Field::kPort);
  ASSERT_EQ(f[0].hint_template->parts.size(), 2u);
  EXPECT_EQ(f[0].hint_template->parts[1].field, MessageTemplate::Field::kCableSerial);
  EXPECT_EQ(f[1].title_template.get(), f[0].title_template.get());  // shared by the findings
  EXPECT_EQ(f[0].cable_serial, "MT2330FT09118");
  EXPECT_EQ(f[0].switches,
            (std::map<std::string, std::string>{{"leaf-1", "leaf-1"}, {"spine-1", "spine-1"}}));
  EXPECT_TRUE(f[0].hosts.empty());
  EXPECT_EQ(f[0].reason, "Described (2 matching events within 1m)");
  EXPECT_EQ(f[0].rules_hash, h.rules->hash);
  EXPECT_EQ(f[0].evidence["rules_hash"], h.rules->hash);
  EXPECT_EQ(f[0].evidence["rule"]["name"], "r");
  EXPECT_EQ(f[0].evidence["rule"]["file"], "engine_test.yaml");
  EXPECT_EQ(f[0].evidence["rule"]["line"], 2);
  EXPECT_EQ(f[0].evidence["threshold"]["count"], 2);
  EXPECT_EQ(f[0].evidence["threshold"]["window_s"], 60.0);
  EXPECT_EQ(f[0].evidence["threshold"]["for_s"], 0.0);
  EXPECT_EQ(f[0].evidence["threshold"]["scope"], "port");
  const nlohmann::json evidence = EvidenceJson(f[0]);
  const auto& ev = evidence["observations"][1];
  EXPECT_EQ(ev["time"], "2026-01-01T00:00:01.000Z");
  EXPECT_EQ(ev["event_id"], 0);
  EXPECT_EQ(ev["event_type"], 329);
  EXPECT_EQ(ev["source"], "rest");
}

TEST(RuleEngineTest, EventMatchFields) {
  struct Case {
    std::string what;
    std::string match;
    Observation o;
    bool fires;
  };
  Observation down = Event(329, 0, {kL33, kS8});
  down.description = "Link went down: cable S/N: X";
  down.object_name = "Source 9c0591030090e000_33 TO Dest: fc6a1c0300244e00_8";
  Observation host_down = Event(329, 0, {kL1, kH1});
  Observation spine_host = Event(329, 0, {kS9, kH4});
  const std::vector<Case> cases = {
      {"event id", "{event_id: [329, 330]}", down, true},
      {"other event id", "{event_id: 330}", down, false},
      {"name without case, _ as space", "{name: LINK_WENT_DOWN}", down, true},
      {"severity", "{severity: [critical, WARNING]}", down, true},
      {"severity not listed", "{severity: critical}", down, false},
      {"category", "{category: fabric_topology}", down, true},
      {"object type", "{object_type: link}", down, true},
      {"description searched", "{description: \"went d.wn\"}", down, true},
      {"description no hit", "{description: \"^went\"}", down, false},
      {"object", "{object: \"Source 9c05\"}", down, true},
      {"every field must hold", "{event_id: 329, severity: info}", down, false},
      {"switch pattern on either end", "{switch: \"^spine-\"}", down, true},
      {"switch pattern no end", "{switch: \"^leaf-2\"}", down, false},
      {"host pattern", "{host: \"^host-a$\"}", host_down, true},
      {"host pattern on a switch-only link", "{host: \"host\"}", down, false},
      {"switch pattern on a spine-host link", "{switch: \"leaf\"}", spine_host, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Harness h("rules:\n  - name: r\n    match: " + c.match + "\n    action: log_only\n");
    h.Observe(c.o);
    EXPECT_EQ(h.all.size(), c.fires ? 1u : 0u);
  }
}

// --- switch and node scopes ------------------------------------------------------------------

TEST(RuleEngineTest, SwitchScopeCountsDistinctPorts) {
  Harness h(R"(rules:
  - name: switch_many
    match: {event_id: 329}
    scope: switch
    count: 3
    window: 20s
    action: ticket_only
)");
  h.Observe(Event(329, 0, {kL1, kH1}));
  h.Observe(Event(329, 1, {kL1, kH1}));  // the same port again
  h.Observe(Event(329, 2, {kL2, kH2}));
  EXPECT_TRUE(h.all.empty());
  auto f = h.Observe(Event(329, 3, {kL3, kH3}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].scope, RuleScope::kSwitch);
  EXPECT_EQ(f[0].switch_name, "leaf-1");
  EXPECT_EQ(f[0].link_key, "switch:leaf-1");
  EXPECT_TRUE(f[0].ports.empty());
  EXPECT_EQ(f[0].reason, "3 ports with matching events within 20s");
  EXPECT_EQ(EvidenceJson(f[0])["observations"].size(), 4u);
  // Active: more downs on the switch are the same episode.
  h.Observe(Event(329, 4, {kL33, kS8}));
  h.Observe(Event(329, 5, {kL1, kH1}));
  h.Observe(Event(329, 6, {kL2, kH2}));
  EXPECT_EQ(h.all.size(), 1u);
  // Quiet for max(window, inhibit_for, 60s) after its last event: the episode ends.
  h.Tick(66);
  h.Observe(Event(329, 66.5, {kL1, kH1}));
  h.Observe(Event(329, 66.6, {kL2, kH2}));
  h.Observe(Event(329, 66.7, {kL3, kH3}));
  EXPECT_EQ(h.all.size(), 1u);
  h.Tick(127);
  h.Observe(Event(329, 130, {kL1, kH1}));
  h.Observe(Event(329, 131, {kL2, kH2}));
  h.Observe(Event(329, 132, {kL3, kH3}));
  EXPECT_EQ(h.Times(), (std::vector<double>{3, 132}));
}

TEST(RuleEngineTest, NodeScopeCountsDistinctPortsOfOneHost) {
  Harness h(R"(rules:
  - name: node_many
    match: {event_id: 329}
    scope: node
    count: 2
    window: 20s
    action: log_only
)");
  h.Observe(Event(329, 0, {kL1, kH1}));
  h.Observe(Event(329, 1, {kL3, kH3}));  // another host
  EXPECT_TRUE(h.all.empty());
  auto f = h.Observe(Event(329, 2, {kL2, kH2}));  // host-a's second HCA
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].node_name, "host-a");
  EXPECT_EQ(f[0].link_key, "node:host-a");
  EXPECT_TRUE(f[0].switch_name.empty());
  EXPECT_EQ(f[0].scope, RuleScope::kNode);
}

TEST(RuleEngineTest, WholeSwitchEventIsOnePortOfItsCount) {
  Harness h(R"(rules:
  - name: sw
    match: {event_id: [907, 329]}
    scope: switch
    count: 2
    window: 20s
    action: ticket_only
)");
  EXPECT_TRUE(h.Observe(NodeEvent(907, 0, "Switch", "default / Switch: leaf-1")).empty());
  auto f = h.Observe(Event(329, 1, {kL1, kH1}));  // the switch itself, then one of its ports
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].switch_name, "leaf-1");
  EXPECT_EQ(f[0].reason, "2 ports with matching events within 20s");
}

// --- inhibition ------------------------------------------------------------------------------

const char* kReboots = R"(rules:
  - name: switch_reboot
    match: {event_id: 907}
    clear: {event_id: 908}
    scope: switch
    inhibits: {rules: [link_down], for: 15m}
    action: ticket_only
  - name: node_reboot
    match: {event_id: 331}
    clear: {event_id: 332}
    scope: node
    inhibits: {rules: [link_down], for: 10m}
    action: log_only
  - name: link_down
    match: {event_id: 329}
    action: disable_port
  - name: link_log
    match: {event_id: 329}
    action: log_only
)";

const Finding* Of(const std::vector<Finding>& fs, const std::string& rule) {
  for (const auto& f : fs) {
    if (f.rule == rule) return &f;
  }
  return nullptr;
}

TEST(RuleEngineTest, SwitchFindingInhibitsListedRulesOnItsPorts) {
  Harness h(kReboots);
  auto sw = h.Observe(NodeEvent(907, 0, "Switch", "default / Switch: leaf-1"));
  ASSERT_EQ(sw.size(), 1u);
  EXPECT_EQ(sw[0].rule, "switch_reboot");
  EXPECT_EQ(sw[0].switch_name, "leaf-1");
  EXPECT_EQ(sw[0].link_key, "switch:leaf-1");
  EXPECT_TRUE(sw[0].inhibited_by.empty());

  auto on_leaf = h.Observe(Event(329, 10, {kL33, kS8}));
  ASSERT_NE(Of(on_leaf, "link_down"), nullptr);
  EXPECT_EQ(Of(on_leaf, "link_down")->inhibited_by, "switch_reboot on switch leaf-1");
  ASSERT_NE(Of(on_leaf, "link_log"), nullptr);
  EXPECT_EQ(Of(on_leaf, "link_log")->inhibited_by, "") << "link_log is not in inhibits.rules";

  auto elsewhere = h.Observe(Event(329, 11, {kS9, kH4}));  // spine-1 to host-c
  ASSERT_NE(Of(elsewhere, "link_down"), nullptr);
  EXPECT_EQ(Of(elsewhere, "link_down")->inhibited_by, "");
}

TEST(RuleEngineTest, InhibitionExpires) {
  struct Case {
    std::string what;
    std::vector<Observation> before;
    double probe;
    bool inhibited;
  };
  Observation down = NodeEvent(907, 0, "Switch", "default / Switch: leaf-1");
  Observation up = NodeEvent(908, 60, "Switch", "default / Switch: leaf-1");
  Observation again = NodeEvent(907, 100, "Switch", "default / Switch: leaf-1");
  const std::vector<Case> cases = {
      {"15m after the switch went down", {down}, 900, true},
      {"just past 15m", {down}, 900.5, false},
      {"a clear extends it from the clear", {down, up}, 960, true},
      {"past 15m after the clear", {down, up}, 961, false},
      {"another down while active extends it", {down, again}, 1000, true},
      {"past 15m after the last down", {down, again}, 1001, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Harness h(kReboots);
    for (const auto& o : c.before) h.Observe(o);
    h.Tick(c.probe);
    auto f = h.Observe(Event(329, c.probe, {kL1, kH1}));
    ASSERT_NE(Of(f, "link_down"), nullptr);
    EXPECT_EQ(!Of(f, "link_down")->inhibited_by.empty(), c.inhibited)
        << Of(f, "link_down")->inhibited_by;
  }
}

TEST(RuleEngineTest, NodeFindingInhibitsItsHostsPorts) {
  Harness h(kReboots);
  auto node = h.Observe(NodeEvent(331, 0, "Computer", "Computer: host-a"));
  ASSERT_EQ(node.size(), 1u);
  EXPECT_EQ(node[0].node_name, "host-a");
  EXPECT_EQ(node[0].link_key, "node:host-a");
  auto f = h.Observe(Event(329, 2, {kL2, kH2}));
  ASSERT_NE(Of(f, "link_down"), nullptr);
  EXPECT_EQ(Of(f, "link_down")->inhibited_by, "node_reboot on node host-a");
  f = h.Observe(Event(329, 3, {kL3, kH3}));  // host-b
  EXPECT_EQ(Of(f, "link_down")->inhibited_by, "");
}

// A switch reboot inhibits link_down, a held rule, for 15 minutes.
const char* kRebootInhibitsHeldLinkDown = R"(rules:
  - name: switch_reboot
    match: {event_id: 907}
    scope: switch
    inhibits: {rules: [link_down], for: 15m}
    action: ticket_only
  - name: link_down
    match: {event_id: 329}
    for: 30s
    clear: {event_id: 328}
    action: disable_port
)";

TEST(RuleEngineTest, HeldFindingIsJudgedAgainstInhibitorsOfItsOwnTime) {
  Harness h(R"(rules:
  - name: switch_reboot
    match: {event_id: 907}
    scope: switch
    inhibits: {rules: [link_down], for: 20s}
    action: ticket_only
  - name: link_down
    match: {event_id: 329}
    for: 30s
    clear: {event_id: 328}
    action: disable_port
  - name: other_down
    match: {event_id: 329}
    for: 10s
    clear: {event_id: 328}
    action: disable_port
)");
  h.Observe(NodeEvent(907, 0, "Switch", "default / Switch: leaf-1"));
  h.Observe(Event(329, 1, {kL1, kH1}));
  auto early = h.Tick(11);  // other_down fires at 11 (not listed: not inhibited)
  ASSERT_EQ(early.size(), 1u);
  EXPECT_EQ(early[0].rule, "other_down");
  EXPECT_TRUE(early[0].inhibited_by.empty());
  auto late = h.Tick(31);  // link_down fires at 31; the inhibitor ran out at 20
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].rule, "link_down");
  EXPECT_TRUE(late[0].inhibited_by.empty()) << late[0].inhibited_by;

  Harness h2(kRebootInhibitsHeldLinkDown);
  h2.Observe(NodeEvent(907, 0, "Switch", "default / Switch: leaf-1"));
  h2.Observe(Event(329, 1, {kL1, kH1}));
  auto held = h2.Tick(31);
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].inhibited_by, "switch_reboot on switch leaf-1");
}

// A finding emitted at once was placed from the inventory as it is: inhibition does not look the
// ports up again. A held one may have been placed before the inventory changed: it is looked up
// again when it fires, and an inhibitor on where the inventory places the port now covers it.
TEST(RuleEngineTest, AHeldFindingIsPlacedAgainWhenTheInventoryChangedSinceItsHold) {
  Harness h(kRebootInhibitsHeldLinkDown);
  // A port the inventory does not know yet, on a link the event's text does not place.
  const std::string kNew = "9c0591030090e000_40";
  h.Observe(Event(329, 0, {kNew}));
  EXPECT_EQ(h.engine.pending(), 1u);
  // The inventory learns it: on leaf-1, which then reboots.
  h.inventory->Upsert(SwitchPort(kNew, "leaf-1", "1/20/1", ""));
  h.Observe(NodeEvent(907, 1, "Switch", "default / Switch: leaf-1"));
  auto held = h.Tick(31);
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].rule, "link_down");
  EXPECT_EQ(held[0].inhibited_by, "switch_reboot on switch leaf-1");
  // The same port's next down is placed on leaf-1 straight away, and inhibited at once too.
  h.Observe(Event(328, 32, {kNew}));
  h.Observe(Event(329, 33, {kNew}));
  auto again = h.Tick(64);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].inhibited_by, "switch_reboot on switch leaf-1");
}

TEST(RuleEngineTest, InhibitionWithoutInventoryUsesTheEventsText) {
  // The header: with no inventory, "ports, switches and hosts then come from the events' text".
  Harness h(kReboots, /*with_inventory=*/false);
  auto sw = h.Observe(NodeEvent(907, 0, "Switch", "default / Switch: T3-E21-N-U47"));
  ASSERT_EQ(sw.size(), 1u);
  EXPECT_EQ(sw[0].switch_name, "T3-E21-N-U47");
  Observation o = Event(329, 1, {"9c0591030090e000_33", "fc6a1c0300244e00_8"});
  o.description =
      "Link went down: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - "
      "(Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8, cable S/N: MT2330FT09118";
  auto f = h.Observe(o);
  ASSERT_NE(Of(f, "link_down"), nullptr);
  EXPECT_EQ(Of(f, "link_down")->inhibited_by, "switch_reboot on switch T3-E21-N-U47")
      << "a link finding on a rebooting switch that only the event's text names (no inventory, "
         "or ports the inventory lacks) must be inhibited too";
}

// --- flapping --------------------------------------------------------------------------------

const char* kFlap = R"(rules:
  - name: flap
    flapping: {downs: 3, within: 10m}
    action: disable_port
)";

TEST(RuleEngineTest, FlappingFromEvents) {
  Harness h(kFlap);
  h.Observe(Event(329, 0, {kL33, kS8}));
  h.Observe(Event(328, 5, {kL33, kS8}));
  h.Observe(Event(329, 60, {kL33, kS8}));
  EXPECT_TRUE(h.all.empty());
  auto f = h.Observe(Event(329, 120, {kL33, kS8}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].reason, "3 link-down transitions within 10m");
  EXPECT_EQ(f[0].link_key, kUplink);
  EXPECT_EQ(EvidenceJson(f[0])["observations"].size(), 3u);
  EXPECT_FALSE(f[0].evidence.contains("counter_downs"));
  // Active until the link is quiet for a whole window.
  h.Observe(Event(329, 180, {kL33, kS8}));
  h.Tick(780);  // exactly 10m after the last down: not yet quiet
  h.Observe(Event(329, 781, {kL33, kS8}));
  EXPECT_EQ(h.all.size(), 1u);
  h.Tick(1382);  // 781 + 601
  h.Observe(Event(329, 1400, {kL33, kS8}));
  h.Observe(Event(329, 1401, {kL33, kS8}));
  h.Observe(Event(329, 1402, {kL33, kS8}));
  EXPECT_EQ(h.Times(), (std::vector<double>{120, 1402}));
}

TEST(RuleEngineTest, FlappingDownsOutsideTheWindowDoNotCount) {
  Harness h(kFlap);
  h.Observe(Event(329, 0, {kL33, kS8}));
  h.Observe(Event(329, 300, {kL33, kS8}));
  h.Observe(Event(329, 601, {kL33, kS8}));  // the first is now 601s old
  EXPECT_TRUE(h.all.empty());
  h.Observe(Event(329, 700, {kL33, kS8}));
  EXPECT_EQ(h.Times(), std::vector<double>{700});
}

TEST(RuleEngineTest, FlappingFromLinkDownedCounter) {
  struct Case {
    std::string what;
    std::vector<Observation> inputs;
    std::vector<double> fires;
  };
  const std::string kLd = "LinkDownedCounterExtended";
  const std::vector<Case> cases = {
      {"one end's counter",
       {Counter(kLd, kL33, 0, 1), Counter(kLd, kL33, 60, 1), Counter(kLd, kL33, 120, 1)},
       {120}},
      {"the counter from the other end",
       {Counter(kLd, kS8, 0, 1), Counter(kLd, kS8, 60, 1), Counter(kLd, kS8, 120, 1)},
       {120}},
      {"three downs in one sample", {Counter(kLd, kL33, 60, 3)}, {60}},
      {"both ends count the same downs: the max, not the sum",
       {Counter(kLd, kL33, 0, 1), Counter(kLd, kS8, 0, 1), Counter(kLd, kL33, 60, 1),
        Counter(kLd, kS8, 60, 1), Counter(kLd, kL33, 120, 1)},
       {120}},
      {"events and counters see the same downs: the max, not the sum",
       {Event(329, 0, {kL33, kS8}), Counter(kLd, kL33, 1, 1), Event(329, 60, {kL33, kS8}),
        Counter(kLd, kL33, 61, 1)},
       {}},
      {"then a third event",
       {Event(329, 0, {kL33, kS8}), Counter(kLd, kL33, 1, 1), Event(329, 60, {kL33, kS8}),
        Counter(kLd, kL33, 61, 1), Event(329, 120, {kL33, kS8})},
       {120}},
      {"a quiet sample is no down",
       {Counter(kLd, kL33, 0, 1), Counter(kLd, kL33, 60, 0), Counter(kLd, kL33, 120, 1)},
       {}},
      {"downs outside the window", {Counter(kLd, kL33, 0, 2), Counter(kLd, kL33, 601, 1)}, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Harness h(kFlap);
    for (const auto& o : c.inputs) h.Observe(o);
    EXPECT_EQ(h.Times(), c.fires);
    if (!h.all.empty() && c.inputs.back().kind == Observation::Kind::kCounter) {
      EXPECT_EQ(h.all[0].link_key, kUplink);
      EXPECT_TRUE(h.all[0].evidence.contains("counter_downs"));
    }
  }
}

// --- counter rules ---------------------------------------------------------------------------

const std::string kSym = "SymbolErrorCounterExtended";

std::string CounterRule(const std::string& body) {
  return "rules:\n  - name: c\n    action: disable_port\n" + body;
}

TEST(RuleEngineTest, CounterMeasures) {
  struct Case {
    std::string what;
    std::string rule;
    std::vector<Observation> samples;
    std::vector<double> fires;
    double measured;  // of the first finding
  };
  const std::vector<Case> cases = {
      {"delta: the sum over the window",
       "    counter: " + kSym + "\n    delta: {above: 100}\n    window: 5m\n",
       {Counter(kSym, kL33, 0, 30), Counter(kSym, kL33, 60, 30), Counter(kSym, kL33, 120, 30),
        Counter(kSym, kL33, 180, 30)},
       {180},
       120},
      {"rate: the window's sum divided by the window",
       "    counter: " + kSym + "\n    rate: {above: 100, per: 1m}\n    window: 5m\n",
       {Counter(kSym, kL33, 0, 200), Counter(kSym, kL33, 60, 200), Counter(kSym, kL33, 120, 200)},
       {120},
       120},
      {"rate: quiet samples are missing, not a shorter window",
       "    counter: " + kSym + "\n    rate: {above: 100, per: 1m}\n    window: 5m\n",
       {Counter(kSym, kL33, 0, 200), Counter(kSym, kL33, 120, 200)},
       {},
       0},
      {"rate without a window: over the sample's interval",
       "    counter: " + kSym + "\n    rate: {above: 100, per: 1m}\n",
       {Counter(kSym, kL33, 0, 90), Counter(kSym, kL33, 60, 150)},
       {60},
       150},
      {"rate per second",
       "    counter: " + kSym + "\n    rate: {above: 2, per: 1s}\n",
       {Counter(kSym, kL33, 0, 100), Counter(kSym, kL33, 60, 150)},
       {60},
       2.5},
      {"ber: weighted by interval over the window",
       "    ber: {above: 1e-12}\n    window: 10m\n",
       {Counter("SymbolBER", kL33, 0, 0, 60, 3e-12), Counter("SymbolBER", kL33, 60, 0, 60, 3e-12),
        Counter("SymbolBER", kL33, 120, 0, 60, 3e-12),
        Counter("SymbolBER", kL33, 180, 0, 60, 3e-12)},
       {180},
       1.2e-12},
      {"ber: a long interval weighs more",
       "    ber: {above: 1e-12}\n    window: 10m\n",
       {Counter("SymbolBER", kL33, 0, 0, 300, 1e-11)},
       {0},
       5e-12},
      {"ber: a short interval weighs less",
       "    ber: {above: 1e-12}\n    window: 10m\n",
       {Counter("SymbolBER", kL33, 0, 0, 30, 1e-11)},
       {},
       0},
      {"value: the last sample",
       "    counter: Module_Temperature\n    value: {above: 70}\n",
       {Counter("Module_Temperature", kL33, 0, 0, 60, 60),
        Counter("Module_Temperature", kL33, 60, 0, 60, 75)},
       {60},
       75},
      {"at the threshold is not above it",
       "    counter: " + kSym + "\n    delta: {above: 100}\n",
       {Counter(kSym, kL33, 0, 100)},
       {},
       0},
      {"a sample without interval is ignored",
       "    counter: " + kSym + "\n    delta: {above: 100}\n",
       {Counter(kSym, kL33, 0, 1000, 0)},
       {},
       0},
      {"another counter is ignored",
       "    counter: " + kSym + "\n    delta: {above: 100}\n",
       {Counter("PortRcvErrorsExtended", kL33, 0, 1000)},
       {},
       0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Harness h(CounterRule(c.rule));
    for (const auto& o : c.samples) h.Observe(o);
    EXPECT_EQ(h.Times(), c.fires);
    if (!h.all.empty()) {
      double m = h.all[0].evidence["measured"].get<double>();
      EXPECT_NEAR(m, c.measured, std::abs(c.measured) * 1e-9);
      EXPECT_EQ(h.all[0].link_key, kUplink);
      EXPECT_EQ(h.all[0].ports, (std::vector<std::string>{kL33, kS8}));
      EXPECT_NE(h.all[0].reason.find("on " + kL33), std::string::npos) << h.all[0].reason;
    }
  }
}

TEST(RuleEngineTest, CounterReasonsAndThresholdEvidence) {
  Harness h(CounterRule("    counter: " + kSym +
                        "\n    rate: {above: 100, per: 1m}\n    clear: {below: 10}\n"
                        "    window: 2m\n    for: 1m\n    min_link_uptime: 1m\n"));
  h.Observe(Counter(kSym, kL33, 0, 1000));
  EXPECT_TRUE(h.all.empty());  // above, but not yet for 1m
  auto f = h.Observe(Counter(kSym, kL33, 60, 1000));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].reason, kSym + " at 1e+03 per 1m, threshold 100 over 2m for 1m on " + kL33);
  const auto& t = f[0].evidence["threshold"];
  EXPECT_EQ(t["counter"], kSym);
  EXPECT_EQ(t["measure"], "rate");
  EXPECT_EQ(t["above"], 100.0);
  EXPECT_EQ(t["clear_below"], 10.0);
  EXPECT_EQ(t["per_s"], 60.0);
  EXPECT_EQ(t["min_link_uptime_s"], 60.0);
  EXPECT_EQ(t["window_s"], 120.0);
  EXPECT_EQ(t["for_s"], 60.0);
  EXPECT_EQ(EvidenceJson(f[0])["observations"].size(), 2u);
  EXPECT_EQ(EvidenceJson(f[0])["observations"][0]["counter"], kSym);
  EXPECT_EQ(EvidenceJson(f[0])["observations"][0]["delta"], 1000.0);
}

TEST(RuleEngineTest, CounterForNeedsTheConditionToHoldThroughout) {
  Harness h(CounterRule("    counter: " + kSym + "\n    delta: {above: 100}\n    for: 2m\n"));
  h.Observe(Counter(kSym, kL33, 0, 500));
  h.Observe(Counter(kSym, kL33, 60, 500));
  h.Observe(Counter(kSym, kL33, 120, 50));  // dipped: starts over
  h.Observe(Counter(kSym, kL33, 180, 500));
  h.Observe(Counter(kSym, kL33, 240, 500));
  EXPECT_TRUE(h.all.empty());
  h.Observe(Counter(kSym, kL33, 300, 500));
  EXPECT_EQ(h.Times(), std::vector<double>{300});
}

TEST(RuleEngineTest, CounterEvidenceHoldsOnlyTheWindowsSamples) {
  // A port that has reported small counts for an hour, then spikes: the evidence is the window
  // that fired, not the hour before it (and the engine does not keep an hour of samples).
  Harness h(
      CounterRule("    counter: " + kSym + "\n    rate: {above: 100, per: 1m}\n    window: 5m\n"));
  for (int i = 0; i < 60; ++i) {
    h.Observe(Counter(kSym, kL33, i * 60.0, 10));
    h.Tick(i * 60.0 + 30);  // the service ticks between samples
  }
  auto f = h.Observe(Counter(kSym, kL33, 3600, 1000));
  ASSERT_EQ(f.size(), 1u);
  const nlohmann::json evidence = EvidenceJson(f[0]);
  const auto& obs = evidence["observations"];
  ASSERT_FALSE(obs.empty());
  EXPECT_EQ(obs.back()["time"], "2026-01-01T01:00:00.000Z");
  EXPECT_EQ(obs.size(), 5u) << "the 5m window holds the samples at 56m..60m; the evidence starts "
                               "at "
                            << obs.front()["time"];
  EXPECT_EQ(obs.front()["time"], "2026-01-01T00:56:00.000Z");
}

TEST(RuleEngineTest, ClearBelowHysteresis) {
  struct Case {
    std::string what;
    std::string clear;
    std::vector<double> deltas;  // one a minute
    std::vector<double> fires;
  };
  const std::vector<Case> cases = {
      {"between clear and threshold: no refire; under clear: clears",
       "    clear: {below: 10}\n",
       {150, 50, 150, 5, 150},
       {0, 240}},
      {"exactly at the clear level does not clear",
       "    clear: {below: 10}\n",
       {150, 10, 150},
       {0}},
      {"without clear, the threshold is the clear level", "", {150, 50, 150}, {0, 120}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Harness h(
        CounterRule("    counter: " + kSym + "\n    rate: {above: 100, per: 1m}\n" + c.clear));
    for (size_t i = 0; i < c.deltas.size(); ++i) {
      h.Observe(Counter(kSym, kL33, i * 60.0, c.deltas[i]));
    }
    EXPECT_EQ(h.Times(), c.fires);
  }
}

TEST(RuleEngineTest, TickClearsACounterRuleOnlyOnceItsNextSampleIsLate) {
  const std::string yaml = CounterRule(
      "    counter: " + kSym + "\n    rate: {above: 100, per: 1m}\n    clear: {below: 10}\n");
  struct Case {
    double tick;
    bool cleared;
  };
  // One sample at 0 with a 60s interval: the next is due at 60, late from 90.
  for (const Case& c :
       std::vector<Case>{{30, false}, {60, false}, {89, false}, {90, true}, {300, true}}) {
    SCOPED_TRACE(c.tick);
    Harness h(yaml);
    h.Observe(Counter(kSym, kL33, 0, 150));
    ASSERT_EQ(h.all.size(), 1u);
    h.Tick(c.tick);
    h.Observe(Counter(kSym, kL33, c.tick + 1, 150));
    EXPECT_EQ(h.all.size(), c.cleared ? 2u : 1u);
  }
}

TEST(RuleEngineTest, MinLinkUptimeIgnoresSamplesAfterALinkDown) {
  struct Case {
    std::string what;
    std::vector<Observation> downs;
    std::vector<double> fires;
  };
  const std::vector<Case> cases = {
      {"no down: the first sample fires", {}, {60}},
      {"a link-down event on the link", {Event(329, 0, {kL33, kS8})}, {600}},
      {"a link-down counter on this port",
       {Counter("LinkDownedCounterExtended", kL33, 0, 1)},
       {600}},
      {"a link-down counter on the peer", {Counter("LinkDownedCounterExtended", kS8, 0, 1)}, {600}},
      {"a link-down of another link", {Event(329, 0, {kL1, kH1})}, {60}},
      {"a quiet link-down counter is no down",
       {Counter("LinkDownedCounterExtended", kL33, 0, 0)},
       {60}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Harness h(CounterRule("    counter: " + kSym +
                          "\n    rate: {above: 100, per: 1m}\n    min_link_uptime: 10m\n"));
    for (const auto& o : c.downs) h.Observe(o);
    for (int t = 60; t <= 660; t += 60) h.Observe(Counter(kSym, kL33, t, 1000));
    EXPECT_EQ(h.Times(), c.fires);
  }
}

// A link-down kept from the rules (it followed someone's disable: RecentDisables) still starts
// the link's uptime again, as one judged would; one that is not a link-down does not.
TEST(RuleEngineTest, ANotedLinkDownStartsTheUptimeAgain) {
  for (int type : {329, 328}) {
    SCOPED_TRACE(type);
    Harness h(CounterRule("    counter: " + kSym +
                          "\n    rate: {above: 100, per: 1m}\n    min_link_uptime: 10m\n"));
    h.engine.NoteLinkDown(Event(type, 0, {kL33, kS8}), {kL33, kS8});
    EXPECT_TRUE(h.all.empty()) << "a noted link-down is judged by no rule";
    for (int t = 60; t <= 660; t += 60) h.Observe(Counter(kSym, kL33, t, 1000));
    EXPECT_EQ(h.Times(), type == 329 ? std::vector<double>{600} : std::vector<double>{60});
  }
}

TEST(RuleEngineTest, MinLinkUptimeStartsTheWindowAfresh) {
  // Samples before the down are forgotten: the window after it holds only post-uptime samples.
  Harness h(CounterRule("    counter: " + kSym +
                        "\n    delta: {above: 100}\n    window: 1h\n    min_link_uptime: 5m\n"));
  h.Observe(Counter(kSym, kL33, 0, 90));
  h.Observe(Event(329, 30, {kL33, kS8}));
  h.Observe(Counter(kSym, kL33, 60, 90));   // ignored, and the window starts over
  h.Observe(Counter(kSym, kL33, 360, 90));  // 330s after the down
  EXPECT_TRUE(h.all.empty());
  h.Observe(Counter(kSym, kL33, 420, 20));
  EXPECT_EQ(h.Times(), std::vector<double>{420});
  EXPECT_EQ(h.all[0].evidence["measured"], 110.0);
}

// --- BreaksSoak ------------------------------------------------------------------------------

TEST(RuleEngineTest, BreaksSoak) {
  auto rules = Rules(R"(rules:
  - name: link_down
    match: {event_id: 329}
    for: 30s
    clear: {event_id: 328}
    action: disable_port
  - name: by_text
    match: {description: "unhealthy due to FLAPPING"}
    action: isolate_port
  - name: flap
    flapping: {downs: 3, within: 10m}
    action: disable_port
  - name: symbol_errors
    counter: SymbolErrorCounterExtended
    rate: {above: 100, per: 1m}
    clear: {below: 10}
    action: disable_port
  - name: any_rcv
    counter: PortRcvErrorsExtended
    delta: {above: 0}
    scope: port
    action: disable_port
  - name: temp
    counter: Module_Temperature
    value: {above: 80}
    clear: {below: 70}
    action: disable_port
  - name: ber
    ber: {above: 1e-12}
    min_link_uptime: 10m
    action: disable_port
  - name: width_ticket
    match: {event_id: 130}
    action: ticket_only
  - name: width_log
    match: {event_id: 131}
    action: log_only
  - name: width_shadow
    match: {event_id: 132}
    mode: shadow
    action: disable_port
  - name: switch_down
    match: {event_id: 907}
    scope: switch
    action: ticket_only
  - name: xmit_ticket
    counter: PortXmitDiscardsExtended
    delta: {above: 0}
    action: ticket_only
)");
  RuleEngine engine(rules, nullptr);
  // The engine saw kS8 go down at 0: its BER says nothing for 10 minutes.
  std::vector<Finding> ignored;
  engine.Observe(Counter("LinkDownedCounterExtended", kS8, 0, 1), &ignored);
  Observation sm = Event(702, 0, {kL33});
  sm.description = "Peer Port x:1/1/1 is considered by SM as unhealthy due to FLAPPING.";
  Observation sw = NodeEvent(907, 0, "Switch", "default / Switch: leaf-1");
  struct Case {
    std::string what;
    Observation o;
    std::string want;  // "" for none
  };
  const std::vector<Case> cases = {
      {"a matching event, no count, no hold", Event(329, 0, {kL33, kS8}), "link_down"},
      {"a clear event only", Event(328, 0, {kL33, kS8}), ""},
      {"an event no rule matches", Event(110, 0, {kL33, kS8}), ""},
      {"a rule without event ids", sm, "by_text"},
      {"a counter under the clear level", Counter(kSym, kL33, 0, 9), ""},
      {"a counter at the clear level", Counter(kSym, kL33, 0, 10), "symbol_errors"},
      {"a rate over a short interval", Counter(kSym, kL33, 0, 5, 20), "symbol_errors"},
      {"clear level 0: any count", Counter("PortRcvErrorsExtended", kL33, 0, 1), "any_rcv"},
      {"clear level 0: no count", Counter("PortRcvErrorsExtended", kL33, 0, 0), ""},
      {"value under clear", Counter("Module_Temperature", kL33, 0, 0, 60, 69), ""},
      {"value over clear, under threshold", Counter("Module_Temperature", kL33, 0, 0, 60, 75),
       "temp"},
      {"BER on a link that is up", Counter("SymbolBER", kL33, 60, 0, 60, 1e-11), "ber"},
      {"BER on a link that just came up", Counter("SymbolBER", kS8, 60, 0, 60, 1e-11), ""},
      {"BER once the link has been up long enough", Counter("SymbolBER", kS8, 600, 0, 60, 1e-11),
       "ber"},
      {"the link went down", Counter("LinkDownedCounterExtended", kL33, 0, 1), "flap"},
      {"no link down", Counter("LinkDownedCounterExtended", kL33, 0, 0), ""},
      {"no interval", Counter(kSym, kL33, 0, 1000, 0), ""},
      {"a counter no rule names", Counter("PortXmitDataExtended", kL33, 0, 1e9), ""},
      // Only rules that would take the link out judge a repair.
      {"a ticket-only event rule", Event(130, 0, {kL33, kS8}), ""},
      {"a log-only event rule", Event(131, 0, {kL33, kS8}), ""},
      {"a shadow rule", Event(132, 0, {kL33, kS8}), ""},
      {"a switch-scoped rule", sw, ""},
      {"a ticket-only counter rule", Counter("PortXmitDiscardsExtended", kL33, 0, 5), ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const Rule* r = engine.BreaksSoak(c.o);
    EXPECT_EQ(r ? r->name : "", c.want);
  }
}

// --- Forget ----------------------------------------------------------------------------------

TEST(RuleEngineTest, ForgetDropsCountingHoldingAndFlappingState) {
  const std::string yaml = R"(rules:
  - name: count2
    match: {event_id: 329}
    count: 2
    window: 1m
    action: log_only
  - name: port2
    match: {event_id: 329}
    scope: port
    count: 2
    window: 1m
    action: log_only
  - name: held
    match: {event_id: 329}
    for: 30s
    clear: {event_id: 328}
    action: disable_port
  - name: flap
    flapping: {downs: 2, within: 10m}
    action: disable_port
)";
  struct Case {
    std::string what;
    std::string forget;  // "" for no Forget
    std::vector<std::string> want;
    double held_at;
  };
  const std::vector<Case> cases = {
      // port2 counts each end of the link: two findings.
      {"without Forget", "", {"count2", "port2", "port2", "flap", "held"}, 30},
      // Only the event after Forget counts (no count reaches 2); the hold restarts at 10s.
      {"Forget the link", kUplink, {"held"}, 40},
      {"Forget another link",
       LinkKey({kL1, kH1}),
       {"count2", "port2", "port2", "flap", "held"},
       30},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Harness h(yaml);
    h.Observe(Event(329, 0, {kL33, kS8}));
    if (!c.forget.empty()) h.engine.Forget(c.forget);
    EXPECT_EQ(h.engine.pending(), c.forget == kUplink ? 0u : 1u);
    h.Observe(Event(329, 10, {kL33, kS8}));
    h.Tick(40);
    std::vector<std::string> got;
    for (const auto& f : h.all) got.push_back(f.rule);
    EXPECT_EQ(got, c.want);
    EXPECT_EQ(h.Times("held"), std::vector<double>{c.held_at});
  }
}

TEST(RuleEngineTest, ForgetKeepsCounterState) {
  // A counter rule that fired stays active until its measure falls under the clear level, even
  // once the link has a ticket: a link that stays bad is one finding.
  Harness h(CounterRule("    counter: " + kSym + "\n    delta: {above: 100}\n"));
  h.Observe(Counter(kSym, kL33, 0, 500));
  h.engine.Forget(kUplink);
  h.Observe(Counter(kSym, kL33, 60, 500));
  EXPECT_EQ(h.all.size(), 1u);
}

// --- OldestEventInUse ------------------------------------------------------------------------

TEST(RuleEngineTest, OldestEventInUsePerSource) {
  Harness h(R"(rules:
  - name: count3
    match: {event_id: 329}
    count: 3
    window: 1m
    action: log_only
  - name: held
    match: {event_id: 330}
    for: 30s
    clear: {event_id: 328}
    action: disable_port
  - name: flap
    flapping: {downs: 5, within: 10m}
    match: {event_id: 331}
    action: disable_port
)");
  EXPECT_EQ(h.engine.OldestEventInUse(), std::nullopt);
  h.Observe(Event(329, 0, {kL33, kS8}, 100, "rest"));
  h.Observe(Event(329, 1, {kL33, kS8}, 50, "event_log"));
  EXPECT_EQ(h.engine.OldestEventInUse("rest"), 100);
  EXPECT_EQ(h.engine.OldestEventInUse(), 100);  // "rest" by default
  EXPECT_EQ(h.engine.OldestEventInUse("event_log"), 50);
  EXPECT_EQ(h.engine.OldestEventInUse("syslog"), std::nullopt);
  // A held finding's events and a flapping window's events count too.
  h.Observe(Event(330, 2, {kL1, kH1}, 90, "rest"));
  h.Observe(Event(331, 3, {kL2, kH2}, 80, "rest"));
  EXPECT_EQ(h.engine.OldestEventInUse("rest"), 80);
  // Firing releases a window.
  h.Observe(Event(329, 4, {kL33, kS8}, 101, "rest"));
  ASSERT_EQ(h.Times("count3"), std::vector<double>{4});
  EXPECT_EQ(h.engine.OldestEventInUse("event_log"), std::nullopt);
  // So does a hold that fires, and a window that ages out.
  h.Tick(32);
  ASSERT_EQ(h.Times("held"), std::vector<double>{32});
  EXPECT_EQ(h.engine.OldestEventInUse("rest"), 80);
  h.Tick(700);
  EXPECT_EQ(h.engine.OldestEventInUse("rest"), std::nullopt);
}

// A day-long window would hold the cursor a day back: windows over an hour do not hold it (they
// start empty after a restart), but they still count every down, keeping only recent evidence.
TEST(RuleEngineTest, LongWindowsDoNotHoldTheCursorAndKeepBoundedEvidence) {
  Harness h(R"(rules:
  - name: day
    flapping: {downs: 200, within: 24h}
    match: {event_id: 329}
    action: ticket_only
)");
  for (int i = 0; i < 199; ++i) h.Observe(Event(329, i, {kL33, kS8}, 1000 + i, "rest"));
  EXPECT_EQ(h.engine.OldestEventInUse("rest"), std::nullopt);
  EXPECT_TRUE(h.all.empty());
  h.Observe(Event(329, 199, {kL33, kS8}, 1199, "rest"));
  ASSERT_EQ(h.all.size(), 1u);  // the 200th down: all were counted
  EXPECT_EQ(EvidenceJson(h.all[0])["observations"].size(), 50u);  // the newest 50 as evidence
  EXPECT_EQ(EvidenceJson(h.all[0])["observations"].back()["event_id"], 1199);
}

TEST(RuleEngineTest, OldestEventInUseIgnoresEventsWithoutId) {
  Harness h(R"(rules:
  - name: count3
    match: {event_id: 329}
    count: 3
    window: 1m
    action: log_only
)");
  h.Observe(Event(329, 0, {kL33, kS8}, 0, "rest"));
  EXPECT_EQ(h.engine.OldestEventInUse("rest"), std::nullopt);
}

// --- AdoptState ------------------------------------------------------------------------------

TEST(RuleEngineTest, AdoptStateKeepsRulesWithTheSameNameAndKind) {
  const std::string before = R"(rules:
  - name: count2
    match: {event_id: 329}
    count: 2
    window: 1m
    action: log_only
  - name: held
    match: {event_id: 330}
    for: 30s
    clear: {event_id: 328}
    action: disable_port
)";
  struct Case {
    std::string what;
    std::string after;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"same conditions, edited actions",
       R"(rules:
  - name: count2
    match: {event_id: 329}
    count: 2
    window: 1m
    action: ticket_only
  - name: held
    match: {event_id: 330}
    for: 30s
    clear: {event_id: 328}
    action: ticket_only
)",
       {"count2", "held"}},
      // State counted under another condition would be judged by the new one: it starts afresh.
      {"edited window",
       R"(rules:
  - name: count2
    match: {event_id: 329}
    count: 2
    window: 5m
    action: log_only
  - name: held
    match: {event_id: 330}
    for: 30s
    clear: {event_id: 328}
    action: disable_port
)",
       {"held"}},
      {"renamed",
       R"(rules:
  - name: count2b
    match: {event_id: 329}
    count: 2
    window: 1m
    action: log_only
  - name: heldb
    match: {event_id: 330}
    for: 30s
    clear: {event_id: 328}
    action: disable_port
)",
       {}},
      {"another kind or scope",
       R"(rules:
  - name: count2
    flapping: {downs: 2, within: 1m}
    action: log_only
  - name: held
    match: {event_id: 330}
    scope: port
    for: 30s
    clear: {event_id: 328}
    action: disable_port
)",
       {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Harness old_engine(before);
    old_engine.Observe(Event(329, 0, {kL33, kS8}, 1));
    old_engine.Observe(Event(330, 1, {kL1, kH1}, 2));
    ASSERT_EQ(old_engine.engine.pending(), 1u);
    Harness h(c.after);
    h.engine.AdoptState(std::move(old_engine.engine));
    h.Observe(Event(329, 10, {kL33, kS8}, 3));  // a second event for count2
    h.Tick(31);                                 // the hold from 1s ends at 31s
    std::vector<std::string> got;
    for (const auto& f : h.all) got.push_back(f.rule);
    EXPECT_EQ(got, c.want);
  }
}

TEST(RuleEngineTest, AdoptStateKeepsInhibitorsAndLinkDowns) {
  Harness old_engine(kReboots);
  old_engine.Observe(NodeEvent(907, 0, "Switch", "default / Switch: leaf-1"));
  Harness h(kReboots);
  h.engine.AdoptState(std::move(old_engine.engine));
  auto f = h.Observe(Event(329, 10, {kL1, kH1}));
  ASSERT_NE(Of(f, "link_down"), nullptr);
  EXPECT_EQ(Of(f, "link_down")->inhibited_by, "switch_reboot on switch leaf-1");
  // Still active after the reload: another 907 is the same episode.
  EXPECT_TRUE(h.Observe(NodeEvent(907, 20, "Switch", "default / Switch: leaf-1")).empty());

  Harness uptime_old(CounterRule("    counter: " + kSym +
                                 "\n    rate: {above: 100, per: 1m}\n    min_link_uptime: 10m\n"));
  uptime_old.Observe(Event(329, 0, {kL33, kS8}));
  Harness uptime_new(CounterRule("    counter: " + kSym +
                                 "\n    rate: {above: 100, per: 1m}\n    min_link_uptime: 10m\n"));
  uptime_new.engine.AdoptState(std::move(uptime_old.engine));
  uptime_new.Observe(Counter(kSym, kL33, 60, 1000));
  EXPECT_TRUE(uptime_new.all.empty()) << "the link-down before the reload still counts";
}

// --- PortsOf and Resolve ---------------------------------------------------------------------

TEST(RuleEngineTest, PortsOfResolvesNodeLabelReferences) {
  Harness h("rules: []\n");
  struct Case {
    std::vector<std::string> ports;
    std::vector<std::string> refs;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {{}, {"spine-1:1/4/2"}, {kS8}},
      {{}, {"SPINE-1:4/2"}, {kS8}},  // without case, without the ASIC prefix
      {{}, {"leaf-1:1/17/1", "spine-1:1/4/2"}, {kL33, kS8}},
      {{kS8}, {"spine-1:1/4/2"}, {kS8}},        // already named
      {{kS8}, {"leaf-1:1/17/1"}, {kS8, kL33}},  // the peer, named by its description
      // Both ends named: references are not looked up (they name one of the two, or a port the
      // inventory misplaces).
      {{kL33, kS8}, {"leaf-1:1/1/1"}, {kL33, kS8}},
      {{}, {"nosuch:1/1/1"}, {}},
      {{}, {"no label"}, {}},
      {{kL1}, {}, {kL1}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.refs));
    Observation o = Event(702, 0, c.ports);
    o.port_refs = c.refs;
    EXPECT_EQ(h.engine.PortsOf(o), c.want);
  }
  Harness none("rules: []\n", /*with_inventory=*/false);
  Observation o = Event(702, 0, {kL1});
  o.port_refs = {"spine-1:1/4/2"};
  EXPECT_EQ(none.engine.PortsOf(o), std::vector<std::string>{kL1});
}

TEST(RuleEngineTest, EventNamingPortsOnlyByReferenceStillMatches) {
  Harness h(R"(rules:
  - name: sm_unhealthy
    match: {event_id: 702, description: "unhealthy due to FLAPPING"}
    action: ticket_only
)");
  Observation o = Event(702, 0, {});
  o.description = "Peer Port spine-1:1/4/2 is considered by SM as unhealthy due to FLAPPING.";
  o.port_refs = {"spine-1:1/4/2"};
  auto f = h.Observe(o);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].ports, (std::vector<std::string>{kL33, kS8}));
  EXPECT_EQ(f[0].link_key, kUplink);
}

TEST(RuleEngineTest, ResolveFromTheInventory) {
  Harness h("rules: []\n");
  Observation o = Event(329, 0, {kH1, kL1});
  o.cable_serial = "MT1";
  // The text names other nodes: the inventory wins for ports it knows.
  o.description = "Link went down: 9c0591030090e000 (Switch: old-name) : 1";
  auto s = h.engine.Resolve(o);
  EXPECT_EQ(s.ends, (std::vector<std::string>{kL1, kH1}));
  EXPECT_EQ(s.link_key, kL1 + "|" + kH1);
  EXPECT_EQ(s.switches, (std::map<std::string, std::string>{{"leaf-1", "leaf-1"}}));
  EXPECT_EQ(s.hosts, (std::map<std::string, std::string>{{"host-a", "host-a"}}));
  using Placed = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(s.port_switch, (Placed{{kL1, "leaf-1"}}));
  EXPECT_EQ(s.port_host, (Placed{{kH1, "host-a"}}));
  // The scope entities switch and node rules count on.
  ASSERT_EQ(s.switch_entities().size(), 1u);
  EXPECT_EQ(s.switch_entities()[0].key, "switch:leaf-1");
  EXPECT_EQ(s.switch_entities()[0].port, kL1);
  ASSERT_EQ(s.host_entities().size(), 1u);
  EXPECT_EQ(s.host_entities()[0].key, "node:host-a");

  // One port (a counter): its peer from the inventory.
  auto c = h.engine.Resolve(Counter(kSym, kH3, 0, 1));
  EXPECT_EQ(c.ends, (std::vector<std::string>{kL3, kH3}));
  EXPECT_EQ(c.hosts, (std::map<std::string, std::string>{{"host-b", "host-b"}}));
}

// A finding's inhibition check places its ports from the inventory alone (the event's text is not
// at hand); an event's resolution still places, from its text, the ports the inventory lacks.
TEST(RuleEngineTest, InventoryNodesDoNotReadAnEventsText) {
  Harness h("rules: []\n");
  // Two ports the inventory does not know, named by the event's text.
  Observation event = Event(329, 0, {"aaaaaaaaaaaaaaaa_1", "bbbbbbbbbbbbbbbb_2"});
  event.description =
      "Link went down: (Switch:T9-X:1/1/1)aaaaaaaaaaaaaaaa:1 - "
      "(Switch:T4-E45-L-U51:1/4/2)bbbbbbbbbbbbbbbb:2";
  SubjectResolver resolver(h.inventory.get());
  SubjectResolver::Nodes nodes = resolver.InventoryNodes(event.ports);
  EXPECT_TRUE(nodes.switches.empty());  // not in the inventory
  EXPECT_TRUE(nodes.hosts.empty());
  EXPECT_EQ(h.engine.ResolveCached(event)->switches.count("t4-e45-l-u51"), 1u);

  // Ports it knows: the link's other end is added from the inventory, keyed as Resolve keys them.
  nodes = resolver.InventoryNodes({kH3});
  EXPECT_EQ(nodes.hosts, std::vector<std::string>{"host-b"});
  EXPECT_EQ(nodes.switches, std::vector<std::string>{"leaf-1"});  // kL3, the peer added
  EXPECT_TRUE(resolver.InventoryNodes({}).switches.empty());
}

TEST(RuleEngineTest, ResolveFromTheEventsText) {
  struct Case {
    std::string what;
    Observation o;
    std::map<std::string, std::string> switches, hosts;
    std::vector<std::string> ends;
  };
  Observation older = Event(329, 0, {"f4521403008817f0_12", "e41d2d0300a4f482_1"});
  older.description =
      "Link went down: f4521403008817f0 (Switch: mellanox-SX6036) : 12 - e41d2d0300a4f482 "
      "(Computer: fsgb001 HCA-1) : 1";
  Observation newer = Event(329, 0, {"9c0591030090e000_33", "fc6a1c0300244e00_8"});
  newer.description =
      "Link went down: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - "
      "(Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8, cable S/N: MT2330FT09118";
  const std::vector<Case> cases = {
      {"older shape",
       older,
       {{"mellanox-sx6036", "mellanox-SX6036"}},
       {{"fsgb001", "fsgb001 HCA-1"}},
       {"e41d2d0300a4f482_1", "f4521403008817f0_12"}},
      {"newer shape",
       newer,
       {{"t3-e21-n-u47", "T3-E21-N-U47"}, {"t4-e45-l-u51", "T4-E45-L-U51"}},
       {},
       {"9c0591030090e000_33", "fc6a1c0300244e00_8"}},
      {"a switch down (907)",
       NodeEvent(907, 0, "Switch", "default / Switch: T3-E21-N-U47"),
       {{"t3-e21-n-u47", "T3-E21-N-U47"}},
       {},
       {}},
      {"a bare switch name", NodeEvent(907, 0, "switch", "leaf-9"), {{"leaf-9", "leaf-9"}}, {}, {}},
      {"a node down (331)",
       NodeEvent(331, 0, "Computer", "Computer: fsgb001"),
       {},
       {{"fsgb001", "fsgb001"}},
       {}},
      {"a host object",
       NodeEvent(331, 0, "Host", "fsgb002 HCA-1"),
       {},
       {{"fsgb002", "fsgb002 HCA-1"}},
       {}},
      {"another object type", NodeEvent(67, 0, "Site", "default"), {}, {}, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Harness h("rules: []\n", /*with_inventory=*/false);
    auto s = h.engine.Resolve(c.o);
    EXPECT_EQ(s.switches, c.switches);
    EXPECT_EQ(s.hosts, c.hosts);
    // Without an inventory, the ends are the event's own ports (sorted for the link key).
    EXPECT_EQ(LinkKey(s.ends), LinkKey(c.ends));
    EXPECT_EQ(s.link_key, LinkKey(c.ends));
  }
}

TEST(RuleEngineTest, ResolveFallsBackToTextForPortsTheInventoryDoesNotName) {
  Harness h("rules: []\n");
  PortInfo bare;
  bare.name = "f4521403008817f0_12";
  h.inventory->Upsert(bare);  // known, but with no names
  Observation o = Event(329, 0, {"f4521403008817f0_12", "e41d2d0300a4f482_1"});
  o.description =
      "Link went down: f4521403008817f0 (Switch: mellanox-SX6036) : 12 - e41d2d0300a4f482 "
      "(Computer: fsgb001 HCA-1) : 1";
  auto s = h.engine.Resolve(o);
  EXPECT_EQ(s.switches,
            (std::map<std::string, std::string>{{"mellanox-sx6036", "mellanox-SX6036"}}));
  // e41d2d0300a4f482_1 is host-a in the inventory.
  EXPECT_EQ(s.hosts, (std::map<std::string, std::string>{{"host-a", "host-a"}}));
}

TEST(RuleEngineTest, LinkKeySortsAndDeduplicates) {
  EXPECT_EQ(LinkKey({"b", "a"}), "a|b");
  EXPECT_EQ(LinkKey({"a", "a"}), "a");
  EXPECT_EQ(LinkKey({"a"}), "a");
  EXPECT_EQ(LinkKey({}), "");
  // Two ends are joined without sorting a copy: the same keys as for any other count.
  EXPECT_EQ(LinkKey({"a", "b"}), "a|b");
  EXPECT_EQ(LinkKey({"", "b"}), "b");
  EXPECT_EQ(LinkKey({"b", ""}), "b");
  EXPECT_EQ(LinkKey({"", ""}), "");
  EXPECT_EQ(LinkKey({"c", "a", "b", "a"}), "a|b|c");
  EXPECT_EQ(LinkKey({"b", "", "a"}), "a|b");
}

// --- found in review -------------------------------------------------------------------------

// The event that completes a node's count is also the one that makes a link flap: the node-level
// rule sees it first, so the link finding is inhibited, whatever the rules' order in the file.
TEST(RuleEngineTest, AnEventCompletingARebootInhibitsTheLinkFindingItMakes) {
  Harness h(R"(rules:
  - name: flap
    flapping: {downs: 3, within: 10m}
    action: disable_port
  - name: node_down
    match: {event_id: 329}
    scope: node
    count: 2
    window: 20s
    inhibits: {rules: [flap], for: 15m}
    action: log_only
)");
  h.Observe(Event(329, 0, {kL1, kH1}));
  h.Observe(Event(329, 60, {kL1, kH1}));
  h.Observe(Event(329, 120, {kL2, kH2}));
  auto f = h.Observe(Event(329, 121, {kL1, kH1}));  // third down of kL1; second port of host-a
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].rule, "node_down");
  EXPECT_EQ(f[1].rule, "flap");
  EXPECT_EQ(f[1].inhibited_by, "node_down on node host-a");
}

// A counter rule whose clear level is 0 ends its episode once the counter stops.
TEST(RuleEngineTest, ClearLevelZeroClearsWhenTheCounterStops) {
  Harness h(R"(rules:
  - name: relay
    counter: PortRcvSwitchRelayErrorsExtended
    delta: {above: 0}
    action: ticket_only
)");
  EXPECT_EQ(h.Observe(Counter("PortRcvSwitchRelayErrorsExtended", kL1, 60, 5, 60)).size(), 1u);
  h.Tick(300);  // no sample for 4 intervals: the counter stopped
  EXPECT_EQ(h.Observe(Counter("PortRcvSwitchRelayErrorsExtended", kL1, 360, 5, 60)).size(), 1u);
}

// A port-scoped rule counts every port an event names, not only the first.
TEST(RuleEngineTest, PortScopeCountsEveryPortOfTheEvent) {
  Harness h(R"(rules:
  - name: per_port
    match: {event_id: 329}
    scope: port
    count: 2
    window: 1m
    action: log_only
)");
  h.Observe(Event(329, 0, {kL33, kS8}));
  auto f = h.Observe(Event(329, 10, {kL33, kS8}));
  EXPECT_EQ(f.size(), 2u);  // both ends reached two
}

}  // namespace
}  // namespace ufmr
