#include "decide/decision.h"

#include <charconv>
#include <string_view>
#include <utility>

#include "base/duration.h"
#include "base/json_writer.h"

namespace ufmr {

const char* DecisionKindName(DecisionKind k) {
  switch (k) {
    case DecisionKind::kFinding:
      return "finding";
    case DecisionKind::kDisable:
      return "disable";
    case DecisionKind::kIsolate:
      return "isolate";
    case DecisionKind::kTicket:
      return "ticket";
    case DecisionKind::kSuppressed:
      return "suppressed";
    case DecisionKind::kBlocked:
      return "blocked";
  }
  return "?";
}

nlohmann::json Decision::ToJson() const {
  nlohmann::json j{
      {"time", FormatIsoTime(time)}, {"rule", rule}, {"decision", DecisionKindName(kind)}};
  if (!port.empty()) j["port"] = port;
  if (!peer.empty()) j["peer"] = peer;
  if (!switch_name.empty()) j["switch"] = switch_name;
  if (!node.empty()) j["node"] = node;
  if (!drain_host.empty()) j["drain_host"] = drain_host;
  j["entity"] = entity;
  j["reason"] = reason;
  if (!guard.empty()) j["guard"] = guard;
  if (ticket_id) j["ticket_id"] = *ticket_id;
  if (silence_id) j["silence_id"] = *silence_id;
  j["severity"] = severity;
  j["mode"] = mode;
  if (!title.empty()) j["title"] = title;
  if (!repair_hint.empty()) j["repair_hint"] = repair_hint;
  j["rules_hash"] = rules_hash;
  return j;
}

void Decision::AppendJson(std::string* out) const {
  // The keys in ToJson's order (nlohmann::json sorts them), each written when ToJson writes it.
  // Keys are views of literals: their lengths are known when compiled (a line is written for
  // every decision of a replay).
  bool first = true;
  auto key = [&](std::string_view k) {
    out->append(first ? "{\"" : ",\"", 2).append(k).append("\":", 2);
    first = false;
  };
  auto text = [&](std::string_view k, std::string_view v) {
    key(k);
    JsonWriter::AppendQuoted(v, out);
  };
  auto optional_text = [&](std::string_view k, const std::string& v) {
    if (!v.empty()) text(k, v);
  };
  auto number = [&](std::string_view k, const std::optional<int64_t>& v) {
    if (!v) return;
    key(k);
    char digits[24];
    auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), *v);
    out->append(digits, end);
  };
  text("decision", DecisionKindName(kind));
  optional_text("drain_host", drain_host);
  text("entity", entity);
  optional_text("guard", guard);
  text("mode", mode);
  optional_text("node", node);
  optional_text("peer", peer);
  optional_text("port", port);
  text("reason", reason);
  optional_text("repair_hint", repair_hint);
  text("rule", rule);
  text("rules_hash", rules_hash);
  text("severity", severity);
  number("silence_id", silence_id);
  optional_text("switch", switch_name);
  number("ticket_id", ticket_id);
  char when[24];
  text("time", FormatIsoTime(time, when));
  optional_text("title", title);
  out->push_back('}');
}

std::string ActionPort(const std::vector<std::pair<std::string_view, const PortInfo*>>& ends,
                       bool require_system_guid) {
  std::string_view fallback;
  for (const auto& [p, info] : ends) {
    if (!info || (require_system_guid && info->system_guid.empty())) continue;
    if (info->is_switch()) return std::string(p);
    if (fallback.empty()) fallback = p;
  }
  return std::string(fallback);
}

std::string_view HostNameOf(const PortInfo* info) {
  if (!info) return "";
  if (!info->host.empty()) return info->host;  // the machine, not its adapter
  if (!info->system_name.empty()) return info->system_name;
  const std::string_view description(info->node_description);
  return description.substr(0, description.find_first_of(" :"));
}

std::string_view NodeName(const PortInfo* info) {
  if (!info) return "";
  if (!info->system_name.empty()) return info->system_name;
  const std::string_view description(info->node_description);
  return description.substr(0, description.find(':'));
}

namespace {

// Where on its node a port is, for a person: the switch label ("1/17/1"), or for a host the HCA
// and port number ("HCA-1 port 1"), appended to *out.
std::string& AppendLabel(const PortInfo* info, std::string* out) {
  if (!info) return *out;
  if (!info->label.empty()) return out->append(info->label);
  std::string_view hca(info->node_description);
  if (!info->system_name.empty() && hca.substr(0, info->system_name.size()) == info->system_name) {
    hca.remove_prefix(info->system_name.size());
  }
  size_t b = hca.find_first_not_of(' ');
  hca = b == std::string_view::npos ? std::string_view() : hca.substr(b);
  out->append(hca);
  if (info->number <= 0) return *out;
  if (!hca.empty()) out->push_back(' ');
  return out->append("port ").append(std::to_string(info->number));
}

}  // namespace

std::string RenderTemplate(const std::string& tmpl, const Decision& d, const Finding& f,
                           DecisionContext& ctx) {
  return RenderTemplate(tmpl, d, f, d.port.empty() ? nullptr : ctx.Port(d.port),
                        d.peer.empty() ? nullptr : ctx.Port(d.peer));
}

namespace {

// Drops what missing values leave behind: doubled spaces, a space before punctuation, blank ends.
// In place: what is kept moves toward the front.
void Tidy(std::string* text) {
  std::string& s = *text;
  if (s.empty()) return;
  // Most texts need nothing: a look at each space, found a word at a time, tells.
  bool untidy = s.front() == ' ' || s.back() == ' ';
  for (size_t i = s.find(' '); !untidy && i != std::string::npos; i = s.find(' ', i + 1)) {
    const char next = s[i + 1];  // not past the end: the last character is no space
    untidy = next == ' ' || next == '.' || next == ',' || next == ';' || next == ')';
  }
  if (!untidy) return;
  size_t kept = 0;
  for (const char c : s) {
    if (c == ' ' && (kept == 0 || s[kept - 1] == ' ')) continue;
    if ((c == '.' || c == ',' || c == ';' || c == ')') && kept > 0 && s[kept - 1] == ' ') --kept;
    s[kept++] = c;
  }
  while (kept > 0 && s[kept - 1] == ' ') --kept;
  s.resize(kept);
}

}  // namespace

namespace {

using Field = MessageTemplate::Field;

// {count}, {window}, {threshold}, {value}: the rule's threshold and what was measured. A
// finding made outside the engine (a soak failure) may carry no threshold.
void AppendMeasure(Field field, const Finding& f, std::string* out) {
  static const nlohmann::json kNone;
  const nlohmann::json& t = f.threshold                        ? *f.threshold
                            : f.evidence.contains("threshold") ? f.evidence["threshold"]
                                                               : kNone;
  if (field == Field::kCount && t.contains("count")) out->append(t["count"].dump());
  if (field == Field::kWindow && t.is_object()) {
    out->append(FormatDuration(t.value("window_s", 0.0)));
  }
  if (field == Field::kThreshold && t.contains("above")) out->append(t["above"].dump());
  if (field == Field::kValue && f.evidence.contains("measured")) {
    out->append(f.evidence["measured"].dump());
  }
}

// {cable_serial}: the events' word first, else what the inventory knows.
void AppendCableSerial(const Finding& f, const PortInfo* port, const PortInfo* peer,
                       std::string* out) {
  if (!f.cable_serial.empty()) {
    out->append(f.cable_serial);
    return;
  }
  for (const PortInfo* end : {port, peer}) {
    if (end && !end->cable_serial.empty()) {
      out->append(end->cable_serial);
      return;
    }
  }
  out->append("(unknown)");
}

// Appends a part's text or its placeholder's value to `out` (every title and hint of every
// decision comes through here: no copies of the values on the way). An empty value is left out.
void AppendPart(const MessageTemplate::Part& part, const Decision& d, const Finding& f,
                const PortInfo* port, const PortInfo* peer, std::string* out) {
  auto node_of = [&](bool is_switch, const std::string& given) -> std::string_view {
    if (!given.empty()) return given;
    if (port && port->is_switch() == is_switch) return NodeName(port);
    if (peer && peer->is_switch() == is_switch) return NodeName(peer);
    return {};
  };
  switch (part.field) {
    case Field::kText:
      out->append(part.text);
      break;
    case Field::kRule:
      out->append(d.rule);
      break;
    case Field::kReason:
      out->append(f.reason);
      break;
    case Field::kPort:
      out->append(d.port);
      break;
    case Field::kPeer:
      out->append(d.peer);
      break;
    case Field::kPortLabel:
      AppendLabel(port, out);
      break;
    case Field::kPeerLabel:
      AppendLabel(peer, out);
      break;
    case Field::kPortNode:
      out->append(NodeName(port));
      break;
    case Field::kPeerNode:
      out->append(NodeName(peer));
      break;
    case Field::kSwitch:
      out->append(node_of(true, d.switch_name));
      break;
    case Field::kNode:
      out->append(node_of(false, d.node));
      break;
    case Field::kCableSerial:
      AppendCableSerial(f, port, peer, out);
      break;
    case Field::kSeverity:
      out->append(d.severity);
      break;
    case Field::kCount:
    case Field::kWindow:
    case Field::kThreshold:
    case Field::kValue:
      AppendMeasure(part.field, f, out);
      break;
    case Field::kUnknown:
      out->append("{").append(part.text).append("}");
      break;
  }
}

}  // namespace

std::string RenderTemplate(const MessageTemplate& tmpl, const Decision& d, const Finding& f,
                           const PortInfo* port, const PortInfo* peer) {
  std::string out;
  out.reserve(tmpl.literal_bytes + 64);
  for (const auto& part : tmpl.parts) AppendPart(part, d, f, port, peer, &out);
  Tidy(&out);
  return out;
}

std::string RenderTemplate(const std::string& tmpl, const Decision& d, const Finding& f,
                           const PortInfo* port, const PortInfo* peer) {
  return RenderTemplate(MessageTemplate::Parse(tmpl), d, f, port, peer);
}

}  // namespace ufmr
