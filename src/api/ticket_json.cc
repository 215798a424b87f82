#include "api/ticket_json.h"

#include <algorithm>
#include <utility>

namespace ufmr {

namespace {

// A ticket's port, as the inventory knows it now (else as it was when the ticket was filed).
constexpr std::pair<const char*, std::string PortInfo::*> kPortTextFields[] = {
    {"guid", &PortInfo::guid},
    {"system_guid", &PortInfo::system_guid},
    {"system_name", &PortInfo::system_name},
    {"node_description", &PortInfo::node_description},
    {"description", &PortInfo::description},
    {"label", &PortInfo::label},
    {"cable_serial", &PortInfo::cable_serial},
    {"logical_state", &PortInfo::logical_state},
    {"physical_state", &PortInfo::physical_state},
    {"peer", &PortInfo::peer},
};

// `key`: the time as ISO 8601, or null.
void WriteTime(JsonWriter& w, const char* key, const std::optional<double>& v) {
  w.Key(key);
  if (v) {
    char buf[24];
    w.String(FormatIsoTime(FromEpochSeconds(*v), buf));
  } else {
    w.Null();
  }
}

// The string `key` of a filed end; "" when there is none.
std::string FiledText(const nlohmann::json* end, const char* key) {
  if (!end) return "";
  auto it = end->find(key);
  return it != end->end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

// A list leaves the filed ends as text: parsed here only if a port falls back on them.
class TicketJsonWriter::FiledEnds {
 public:
  explicit FiledEnds(const Ticket& t) : ticket_(t) {}

  // The filed end named `name` (the last one, should there be several); nullptr when none.
  const nlohmann::json* Find(const std::string& name) {
    const nlohmann::json* found = nullptr;
    for (const auto& e : All()) {
      if (e.is_object() && e.contains("name") && e["name"] == name) found = &e;
    }
    return found;
  }

 private:
  const nlohmann::json& All() {
    if (ticket_.ends_text.empty()) return ticket_.ends;
    if (!parsed_) {
      parsed_ = nlohmann::json::parse(ticket_.ends_text, nullptr, false);
      if (!parsed_->is_array()) parsed_ = nlohmann::json::array();
    }
    return *parsed_;
  }

  const Ticket& ticket_;
  std::optional<nlohmann::json> parsed_;
};

void TicketJsonWriter::Write(JsonWriter& w, const Ticket& t, bool full) const {
  w.BeginObject();
  WriteFields(w, t, full);
  // Each end as UFM knows it now; what it does not know (or no longer) as it was when the ticket
  // was filed.
  FiledEnds filed(t);
  w.Key("ports").BeginArray();
  for (const std::string* p : {&t.port_a, &t.port_b}) {
    if (!p->empty()) WritePort(w, *p, filed);
  }
  w.EndArray();
  w.EndObject();
}

nlohmann::json TicketJsonWriter::Json(const Ticket& t, bool full) const {
  JsonWriter w;
  Write(w, t, full);
  return nlohmann::json::parse(w.str());
}

void TicketJsonWriter::WriteFields(JsonWriter& w, const Ticket& t, bool full) const {
  const double end = t.closed_at ? *t.closed_at : ToEpochSeconds(clock_.Now());
  w.Key("id").Int(t.id);
  w.Key("fabric").String(t.fabric);
  w.Key("state").String(t.state);
  w.Key("reason").String(t.reason);
  w.Key("rule").String(t.rule);
  w.Key("severity").String(t.severity);
  w.Key("priority").Int(t.priority);
  w.Key("attempts").Int(t.attempts);
  w.Key("action_port").String(t.action_port);
  w.Key("disabled_by_us").Bool(t.disabled_by_us);
  w.Key("acknowledged_by").StringOrNull(t.acknowledged_by);
  w.Key("assigned_to").StringOrNull(t.assigned_to);
  w.Key("resolution").String(t.resolution);
  w.Key("resolution_note").String(t.resolution_note);
  w.Key("link").String(t.link_key);
  WriteTime(w, "created_at", t.created_at);
  WriteTime(w, "updated_at", t.updated_at);
  WriteTime(w, "closed_at", t.closed_at);
  WriteTime(w, "soak_until", t.soak_until);
  w.Key("age_seconds").Number(std::max(0.0, end - t.created_at));
  w.Key("method").String(t.method);
  w.Key("guard").String(t.guard);
  if (full) w.Key("explanation").String(t.explanation);
  w.Key("repair_kind").String(t.repair_kind);
  w.Key("repeat_count").Int(t.repeat_count);
  w.Key("repeat_offender").Bool(t.link_key != "storm" && t.repeat_count >= repeat_threshold_);
  w.Key("storm").Bool(t.link_key == "storm");
  w.Key("location").BeginObject();
  w.Key("rack").String(t.rack).Key("switch").String(t.switch_name).Key("host").String(t.host_name);
  w.EndObject();
}

void TicketJsonWriter::WritePort(JsonWriter& w, const std::string& name, FiledEnds& ends) const {
  // The end as filed, looked up once and only if a field falls back on it.
  std::optional<const nlohmann::json*> filed;
  auto find_filed = [&]() {
    if (!filed) filed = ends.Find(name);
    return *filed;
  };
  auto field = [&](const char* key, const std::string* now) {
    if (now && !now->empty()) {
      w.Key(key).String(*now);
    } else {
      w.Key(key).String(FiledText(find_filed(), key));
    }
  };
  w.BeginObject();
  w.Key("name").String(name);
  // Read in place, under the inventory's lock: a copy of each port was a tenth of a list's CPU.
  const bool known = inventory_.With(name, [&](const PortInfo& info) {
    for (const auto& [key, member] : kPortTextFields) field(key, &(info.*member));
    w.Key("number").Int(info.number);
    w.Key("is_switch").Bool(info.is_switch());
  });
  if (!known) {
    for (const auto& [key, member] : kPortTextFields) field(key, nullptr);
    if (const nlohmann::json* f = find_filed()) {
      auto n = f->find("number");
      auto sw = f->find("is_switch");
      w.Key("number").Int(n != f->end() && n->is_number_integer() ? n->get<int64_t>() : 0);
      w.Key("is_switch").Bool(sw != f->end() && sw->is_boolean() && sw->get<bool>());
    }
  }
  w.Key("known").Bool(known);
  w.EndObject();
}

}  // namespace ufmr
