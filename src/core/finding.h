// Finding: a rule fired for a link, with the evidence that made it fire. Plain data handed from
// the rules engine to the remediator, which turns it into a ticket and maybe a PortAction.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/rules.h"

namespace ufmr {

// A link is an unordered pair of ports; its key is the two names sorted and joined by '|'
// ("a|b"), or the single name when the peer is unknown.
std::string LinkKey(const std::vector<std::string>& ports);

struct Finding {
  std::string rule;
  RuleAction action = RuleAction::kDisable;
  std::string link_key;
  std::vector<std::string> ports;  // the link's ends, as far as known
  std::string reason;              // one line for a person
  nlohmann::json evidence;         // observations, thresholds, rules hash
  TimePoint time;
};

}  // namespace ufmr
