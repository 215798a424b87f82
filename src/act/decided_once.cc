#include "act/decided_once.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace ufmr {

namespace {

// What a trigger is made of, from an observation as its struct or as its JSON.
struct StampedEvent {
  int event_type = 0;
  std::string ufm_timestamp;
  std::vector<std::string> ports;
  std::string object;
};

// The event that completed the finding: its last observation that is an event UFM stamped. The
// observations kept as they are (Finding::observed) come after those written as JSON already.
std::optional<StampedEvent> LastStampedEvent(const Finding& f) {
  for (auto it = f.observed.rbegin(); it != f.observed.rend(); ++it) {
    const Observation& o = **it;
    if (o.kind != Observation::Kind::kEvent || o.ufm_timestamp.empty()) continue;
    return StampedEvent{o.event_type, o.ufm_timestamp, o.ports, o.object_name};
  }
  if (!f.evidence.is_object()) return std::nullopt;
  const auto observations = f.evidence.find("observations");
  if (observations == f.evidence.end() || !observations->is_array()) return std::nullopt;
  for (auto it = observations->rbegin(); it != observations->rend(); ++it) {
    if (!it->is_object() || !it->contains("event_type")) continue;
    const auto stamp = it->find("ufm_timestamp");
    if (stamp == it->end() || !stamp->is_string() || stamp->get_ref<const std::string&>().empty()) {
      continue;
    }
    StampedEvent e{
        it->value("event_type", 0), stamp->get<std::string>(), {}, it->value("object", "")};
    if (const auto p = it->find("ports"); p != it->end() && p->is_array()) {
      for (const auto& name : *p) {
        if (name.is_string()) e.ports.push_back(name.get<std::string>());
      }
    }
    return e;
  }
  return std::nullopt;
}

}  // namespace

std::string DecisionTrigger(const Finding& f) {
  std::optional<StampedEvent> e = LastStampedEvent(f);
  if (!e) return "";
  // "2026-11-29 18:46:32.123" (the event log) and "2026-11-29 18:46:32" (REST) are one second.
  std::string key = f.rule + "|" + f.link_key + "|" + std::to_string(e->event_type) + "|" +
                    e->ufm_timestamp.substr(0, 19) + "|";
  std::sort(e->ports.begin(), e->ports.end());
  if (e->ports.empty()) return key + e->object;
  for (const auto& p : e->ports) key += p + ",";
  return key;
}

bool FromEventsReadAgain(const Finding& f) {
  if (std::any_of(f.observed.begin(), f.observed.end(), [](const auto& o) {
        return o->kind == Observation::Kind::kEvent && o->reread;
      })) {
    return true;
  }
  if (!f.evidence.is_object()) return false;
  if (f.evidence.value("reread", false)) return true;
  const auto observations = f.evidence.find("observations");
  if (observations == f.evidence.end() || !observations->is_array()) return false;
  return std::any_of(observations->begin(), observations->end(), [](const nlohmann::json& o) {
    return o.is_object() && o.value("reread", false);
  });
}

}  // namespace ufmr
