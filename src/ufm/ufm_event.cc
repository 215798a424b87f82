#include "ufm/ufm_event.h"

#include <algorithm>
#include <cctype>

#include "ufm/ufm_json.h"

namespace ufmr {

namespace {

bool ParseInt(const std::string& s, int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  *out = std::stoll(s);
  return true;
}

}  // namespace

Result<UfmEvent> ParseUfmEvent(const nlohmann::json& j) {
  if (!j.is_object()) return Status::InvalidArgument("event is not a JSON object");
  UfmEvent e;
  auto id = j.find("id");
  if (id == j.end()) return Status::InvalidArgument("event has no id");
  if (id->is_number_integer()) {
    e.id = id->get<int64_t>();
  } else if (!id->is_string() || !ParseInt(id->get<std::string>(), &e.id)) {
    return Status::InvalidArgument("event id is not an integer: " + id->dump());
  }
  int64_t type_id = 0;
  if (j.contains("event_type")) {
    // 6.17+: event_type is the event id, type is the object type.
    auto et = j["event_type"];
    if (et.is_number_integer()) {
      type_id = et.get<int64_t>();
    } else if (!et.is_string() || !ParseInt(et.get<std::string>(), &type_id)) {
      return Status::InvalidArgument("event " + std::to_string(e.id) +
                                     ": event_type is not an integer: " + et.dump());
    }
    e.object_type = JsonText(j, "type");
  } else {
    // Up to 6.16: type holds the event id as a string.
    std::string t = JsonText(j, "type");
    if (!ParseInt(t, &type_id)) {
      return Status::InvalidArgument("event " + std::to_string(e.id) +
                                     ": no event_type and type is not an event id: '" + t + "'");
    }
  }
  e.event_type = static_cast<int>(type_id);
  e.name = JsonText(j, "name");
  e.severity = JsonText(j, "severity");
  e.timestamp = JsonText(j, "timestamp");
  e.category = JsonText(j, "category");
  e.object_name = JsonText(j, "object_name");
  e.object_path = JsonText(j, "object_path");
  e.description = JsonText(j, "description");
  return e;
}

Result<ParsedEvents> ParseUfmEvents(const std::string& body) {
  auto doc = ParseUfmList(body, "events");
  if (!doc.ok()) return doc.status();
  ParsedEvents out;
  for (const auto& element : doc.value()) {
    auto e = ParseUfmEvent(element);
    if (e.ok()) {
      out.events.push_back(std::move(e.value()));
    } else {
      out.errors.push_back(e.status().message());
    }
  }
  auto by_id = [](const UfmEvent& a, const UfmEvent& b) { return a.id < b.id; };
  // UFM answers in id order (either way round): moving a thousand events to sort them again was
  // a twentieth of the intake.
  if (!std::is_sorted(out.events.begin(), out.events.end(), by_id)) {
    std::stable_sort(out.events.begin(), out.events.end(), by_id);
  }
  return out;
}

}  // namespace ufmr
