// Finding: a rule fired for a port, link, switch or node, with the evidence that made it fire.
// Plain data handed from the rules engine to the decision stage (decision.h), which turns it into
// a Decision: act, ticket, record, suppress or block. A Finding copies what it needs from its
// rule, or shares it (the parsed templates), so it stays valid after the rules are reloaded.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/clock.h"
#include "ingest/observation.h"
#include "rules/rules.h"

namespace ufmr {

// A link is an unordered pair of ports; its key is the two names sorted and joined by '|'
// ("a|b"), or the single name when the peer is unknown.
std::string LinkKey(const std::vector<std::string>& ports);

struct Finding;
// The finding's evidence whole, as it is written: `evidence`, with each of `observed` made JSON
// after the observations it holds already.
nlohmann::json EvidenceJson(const Finding& f);

struct Finding {
  std::string rule;
  RuleAction action = RuleAction::kDisablePort;
  RuleMode mode = RuleMode::kEnforce;
  RuleScope scope = RuleScope::kLink;
  std::string severity;
  // The rule's templates, rendered by the decision stage: parsed once and shared with the rule
  // (an engine's findings), or as text (a finding made elsewhere, or from a rule built in code:
  // then title and repair_hint). A finding with neither gets a title made of its rule's name and
  // where it is.
  std::shared_ptr<const MessageTemplate> title_template, hint_template;
  std::string title;
  std::string repair_hint;
  // The entity: a link key (port and link scopes: one ticket per link), or "switch:<name>" /
  // "node:<name>" (see NodeKey) for switch and node scopes.
  std::string link_key;
  std::vector<std::string> ports;  // the link's ends, as far as known (port and link scopes)
  std::string switch_name;         // switch scope: the switch, as named
  std::string node_name;           // node scope: the host, as named
  std::string cable_serial;        // from the events, when they carry it
  // The switches and hosts the link's ends sit on (NodeKey -> name as written), from the
  // inventory or the events' own text: for inhibition and silences.
  std::map<std::string, std::string> switches;
  std::map<std::string, std::string> hosts;
  std::string reason;  // one line for a person
  // Thresholds, rule, rules hash, and what else the rule measured; its "observations" are
  // `observed` (below) until EvidenceJson makes the whole of it.
  nlohmann::json evidence;
  // The observations that made it fire (at most kMaxFindingEvidence, and a flapping finding's
  // counter sample after them), shared with the windows that kept them or copied (a counter
  // sample, an event read in place): made JSON only where the evidence is written (a ticket
  // opened or upgraded, a soak failed, evidence added to an open ticket at most every five
  // minutes), so most findings an open ticket already covers never make it.
  std::vector<std::shared_ptr<const Observation>> observed;
  // The rule's threshold (RuleThreshold), shared by the rule's findings: what titles and hints
  // read. Null for findings made outside the engine (a soak failure).
  std::shared_ptr<const nlohmann::json> threshold;
  std::string rules_hash;
  TimePoint time;
  // Non-empty when a switch- or node-level finding covers this one ("switch_reboot on switch
  // sw-1"): the decision stage records it as suppressed.
  std::string inhibited_by;
};

}  // namespace ufmr
