#include "act/decided_once.h"

#include <algorithm>
#include <vector>

namespace ufmr {

namespace {

// The event that completed the finding: its last observation that is an event UFM stamped.
const nlohmann::json* LastStampedEvent(const nlohmann::json& observations) {
  if (!observations.is_array()) return nullptr;
  for (auto it = observations.rbegin(); it != observations.rend(); ++it) {
    if (!it->is_object() || !it->contains("event_type")) continue;
    const auto stamp = it->find("ufm_timestamp");
    if (stamp != it->end() && stamp->is_string() && !stamp->get_ref<const std::string&>().empty()) {
      return &*it;
    }
  }
  return nullptr;
}

}  // namespace

std::string DecisionTrigger(const Finding& f) {
  if (!f.evidence.is_object()) return "";
  const auto observations = f.evidence.find("observations");
  if (observations == f.evidence.end()) return "";
  const nlohmann::json* e = LastStampedEvent(*observations);
  if (!e) return "";
  // "2026-11-29 18:46:32.123" (the event log) and "2026-11-29 18:46:32" (REST) are one second.
  std::string key = f.rule + "|" + f.link_key + "|" + std::to_string(e->value("event_type", 0)) +
                    "|" + e->value("ufm_timestamp", "").substr(0, 19) + "|";
  std::vector<std::string> ports;
  if (const auto p = e->find("ports"); p != e->end() && p->is_array()) {
    for (const auto& name : *p) {
      if (name.is_string()) ports.push_back(name.get<std::string>());
    }
  }
  std::sort(ports.begin(), ports.end());
  if (ports.empty()) return key + e->value("object", "");
  for (const auto& p : ports) key += p + ",";
  return key;
}

bool FromEventsReadAgain(const Finding& f) {
  if (!f.evidence.is_object()) return false;
  if (f.evidence.value("reread", false)) return true;
  const auto observations = f.evidence.find("observations");
  if (observations == f.evidence.end() || !observations->is_array()) return false;
  return std::any_of(observations->begin(), observations->end(), [](const nlohmann::json& o) {
    return o.is_object() && o.value("reread", false);
  });
}

}  // namespace ufmr
