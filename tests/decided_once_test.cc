// Covers src/act/decided_once.h: a finding's trigger names its rule, its entity and the event that
// completed it by what every source carries (the event log's stamp with milliseconds and REST's
// without are one second; the ports in any order), differs for another event, rule or entity,
// and is empty for a finding of no stamped event; a finding is from events read again when its
// evidence or any of its observations says so.
#include "act/decided_once.h"

#include <gtest/gtest.h>

#include <memory>

#include "rules/rule_state.h"

namespace ufmr {
namespace {

nlohmann::json Event(int type, const std::string& stamp, std::vector<std::string> ports,
                     bool reread = false) {
  nlohmann::json o = {{"event_type", type}, {"ufm_timestamp", stamp}, {"ports", ports}};
  if (reread) o["reread"] = true;
  return o;
}

Finding Made(nlohmann::json observations, const std::string& rule = "link_down",
             const std::string& entity = "a_1|b_1") {
  Finding f;
  f.rule = rule;
  f.link_key = entity;
  f.evidence = {{"observations", std::move(observations)}};
  return f;
}

TEST(DecidedOnceTest, TheTriggerIsTheLastStampedEventAsEverySourceCarriesIt) {
  const std::string rest =
      DecisionTrigger(Made({Event(329, "2026-11-29 10:00:00", {"a_1", "b_1"})}));
  const std::string log =
      DecisionTrigger(Made({Event(329, "2026-11-29 10:00:00.734", {"b_1", "a_1"})}));
  EXPECT_FALSE(rest.empty());
  EXPECT_EQ(rest, log);
  // The last stamped event completed the finding; a counter sample after it is not an event.
  nlohmann::json counter = {{"counter", "SymbolErrorCounter"}, {"ports", {"a_1"}}};
  EXPECT_EQ(DecisionTrigger(Made({Event(329, "2026-11-29 09:59:50", {"a_1"}),
                                  Event(329, "2026-11-29 10:00:00", {"a_1", "b_1"}), counter})),
            rest);
  EXPECT_NE(DecisionTrigger(Made({Event(329, "2026-11-29 10:00:01", {"a_1", "b_1"})})), rest);
  EXPECT_NE(DecisionTrigger(Made({Event(328, "2026-11-29 10:00:00", {"a_1", "b_1"})})), rest);
  EXPECT_NE(DecisionTrigger(Made({Event(329, "2026-11-29 10:00:00", {"a_1", "b_1"})}, "flap")),
            rest);
  EXPECT_NE(
      DecisionTrigger(Made({Event(329, "2026-11-29 10:00:00", {"a_1", "b_1"})}, "link_down", "x")),
      rest);
  // A switch's event names its object, not ports.
  nlohmann::json sw = Event(64, "2026-11-29 10:00:00", {});
  sw["object"] = "leaf-01";
  nlohmann::json other = sw;
  other["object"] = "leaf-02";
  EXPECT_NE(DecisionTrigger(Made({sw})), DecisionTrigger(Made({other})));
}

TEST(DecidedOnceTest, AFindingOfNoStampedEventHasNoTrigger) {
  EXPECT_EQ(DecisionTrigger(Made(nlohmann::json::array())), "");
  EXPECT_EQ(DecisionTrigger(Made({{{"counter", "SymbolErrorCounter"}}})), "");
  EXPECT_EQ(DecisionTrigger(Made({Event(329, "", {"a_1"})})), "");
  Finding none;
  EXPECT_EQ(DecisionTrigger(none), "");
}

TEST(DecidedOnceTest, AFindingIsFromEventsReadAgainWhenItOrAnObservationSaysSo) {
  EXPECT_FALSE(FromEventsReadAgain(Made({Event(329, "2026-11-29 10:00:00", {"a_1"})})));
  EXPECT_TRUE(FromEventsReadAgain(Made({Event(329, "2026-11-29 10:00:00", {"a_1"}, true),
                                        Event(329, "2026-11-29 10:00:05", {"a_1"})})));
  Finding f = Made({Event(329, "2026-11-29 10:00:00", {"a_1"})});
  f.evidence["reread"] = true;
  EXPECT_TRUE(FromEventsReadAgain(f));
}

// A finding of the rules engine keeps its observations as they are (Finding::observed) and makes
// them JSON only when its evidence is written: what they say must be what their JSON says.
std::shared_ptr<Observation> Kept(int type, const std::string& stamp,
                                  std::vector<std::string> ports, bool reread = false) {
  auto o = std::make_shared<Observation>();
  o->event_type = type;
  o->ufm_timestamp = stamp;
  o->ports = std::move(ports);
  o->reread = reread;
  o->time = FromEpochSeconds(1.7e9);
  return o;
}

TEST(DecidedOnceTest, KeptObservationsSayWhatTheirJsonSays) {
  auto counter = std::make_shared<Observation>();
  counter->kind = Observation::Kind::kCounter;
  counter->counter = "SymbolErrorCounter";
  counter->ports = {"a_1"};
  auto sw = Kept(64, "2026-11-29 10:00:00", {});
  sw->object_name = "leaf-01";
  const std::vector<std::vector<std::shared_ptr<const Observation>>> cases = {
      {Kept(329, "2026-11-29 09:59:50", {"a_1"}),
       Kept(329, "2026-11-29 10:00:00.734", {"b_1", "a_1"}), counter},
      {Kept(329, "", {"a_1"})},
      {counter},
      {sw},
      {Kept(329, "2026-11-29 10:00:00", {"a_1"}, true), Kept(329, "2026-11-29 10:00:05", {"a_1"})},
      {},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    Finding kept = Made(nlohmann::json::array());
    kept.observed = cases[i];
    Finding written = kept;
    written.evidence = EvidenceJson(kept);
    written.observed.clear();
    EXPECT_EQ(DecisionTrigger(kept), DecisionTrigger(written));
    EXPECT_EQ(FromEventsReadAgain(kept), FromEventsReadAgain(written));
  }
  // The kept ones are the newer: the trigger is theirs, not the JSON's before them.
  Finding both = Made({Event(329, "2026-11-29 09:00:00", {"a_1"})});
  both.observed = {Kept(329, "2026-11-29 10:00:00", {"a_1", "b_1"})};
  EXPECT_EQ(DecisionTrigger(both),
            DecisionTrigger(Made({Event(329, "2026-11-29 10:00:00", {"a_1", "b_1"})})));
  EXPECT_FALSE(DecisionTrigger(both).empty());
}

}  // namespace
}  // namespace ufmr
