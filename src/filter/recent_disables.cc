#include "filter/recent_disables.h"

#include <algorithm>

#include "base/text.h"
#include "catalog/event_types.h"
#include "ufm/inventory.h"
#include "ufm/ufm_json.h"

namespace ufmr {

namespace {

constexpr int kPortActionSucceeded = 336;
constexpr int kPortActionFailed = 337;
// A note older than this, by intake time, is forgotten whatever its stamps say.
constexpr double kForgetS = 600;

// UFM's stamp of an observation; only differences are taken, so the zone does not matter.
std::optional<TimePoint> Stamp(const Observation& o) {
  TimePoint t;
  if (!ParseUfmTimestamp(o.ufm_timestamp, 0, &t)) return std::nullopt;
  return t;
}

}  // namespace

bool RecentDisables::Reads(int event_type) { return event_type == kPortActionSucceeded; }

std::string RecentDisables::ActionOf(const Observation& o) {
  // UFM's template for 336 and 337: "Port %s action %s succeeded" ("... failed"); the second slot
  // is the action.
  if (const UfmEventType* t = FindUfmEventType(o.event_type)) {
    std::vector<std::string_view> slots;
    if (ReadTemplateSlots(t->message_template, o.description, &slots) && slots.size() == 2) {
      const std::string action = AsciiLower(slots[1]);
      return action == "disable" || action == "enable" ? action : "";
    }
  }
  // A message in another wording: the first of the two words, in the name or the message
  // ("Port Action Enable Succeeded: ... was disabled"); "disable" does not contain "enable", so
  // the two are told apart by position.
  for (const std::string* text : {&o.name, &o.description}) {
    const std::string lower = AsciiLower(*text);
    const size_t disable = lower.find("disable"), enable = lower.find("enable");
    if (disable == std::string::npos && enable == std::string::npos) continue;
    return disable < enable ? "disable" : "enable";
  }
  return "";
}

std::vector<std::string> RecentDisables::Note(const Observation& o,
                                              const std::vector<std::string>& ports,
                                              const std::function<bool(const std::string&)>& ours) {
  std::vector<std::string> noted;
  if (o.event_type != kPortActionSucceeded) return noted;
  const std::string action = ActionOf(o);
  if (action.empty()) return noted;
  for (const auto& port : ports) {
    if (action == "enable") {
      ports_.erase(port);
    } else if (!ours(port)) {
      // Two sources may both bring the 336: the port is said noted once.
      if (ports_.insert_or_assign(port, Noted{o.time, Stamp(o)}).second) noted.push_back(port);
    }
  }
  return noted;
}

bool RecentDisables::Within(const Noted& n, const Observation& o) const {
  double after = 0;
  std::optional<TimePoint> stamped = Stamp(o);
  if (n.stamped && stamped) {
    after = Seconds(*stamped - *n.stamped).count();
  } else {
    after = Seconds(o.time - n.seen).count();
  }
  return after >= -kSlackS && after <= kWindowS;
}

bool RecentDisables::Covers(const Observation& o, const std::vector<std::string>& ports,
                            const Inventory& inventory) {
  if (ports_.empty() || ports.empty() || o.event_type == kPortActionSucceeded ||
      o.event_type == kPortActionFailed) {
    return false;
  }
  for (auto it = ports_.begin(); it != ports_.end();) {
    if (Seconds(o.time - it->second.seen).count() > kForgetS) {
      it = ports_.erase(it);
    } else {
      ++it;
    }
  }
  auto noted = [&](const std::string& p) {
    auto it = ports_.find(p);
    return it != ports_.end() && Within(it->second, o);
  };
  if (std::any_of(ports.begin(), ports.end(), noted)) return true;
  if (ports_.empty() || ports.size() > 1) return false;  // a link event names both ends
  std::vector<std::string> ends = inventory.LinkEnds(ports);
  return std::any_of(ends.begin(), ends.end(), noted);
}

}  // namespace ufmr
