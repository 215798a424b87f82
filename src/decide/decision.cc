#include "decide/decision.h"

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
  bool first = true;
  auto key = [&](const char* k) {
    out->append(first ? "{\"" : ",\"").append(k).append("\":");
    first = false;
  };
  auto text = [&](const char* k, const std::string& v) {
    key(k);
    JsonWriter::AppendQuoted(v, out);
  };
  auto optional_text = [&](const char* k, const std::string& v) {
    if (!v.empty()) text(k, v);
  };
  auto number = [&](const char* k, const std::optional<int64_t>& v) {
    if (!v) return;
    key(k);
    out->append(std::to_string(*v));
  };
  text("decision", DecisionKindName(kind));
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
  text("time", FormatIsoTime(time));
  optional_text("title", title);
  out->push_back('}');
}

std::string ActionPort(const std::vector<std::pair<std::string, const PortInfo*>>& ends,
                       bool require_system_guid) {
  std::string fallback;
  for (const auto& [p, info] : ends) {
    if (!info || (require_system_guid && info->system_guid.empty())) continue;
    if (info->is_switch()) return p;
    if (fallback.empty()) fallback = p;
  }
  return fallback;
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
std::string Tidy(const std::string& text) {
  std::string tidy;
  tidy.reserve(text.size());
  for (char c : text) {
    if (c == ' ' && (tidy.empty() || tidy.back() == ' ')) continue;
    if ((c == '.' || c == ',' || c == ';' || c == ')') && !tidy.empty() && tidy.back() == ' ') {
      tidy.pop_back();
    }
    tidy += c;
  }
  while (!tidy.empty() && tidy.back() == ' ') tidy.pop_back();
  return tidy;
}

}  // namespace

std::string RenderTemplate(const std::string& tmpl, const Decision& d, const Finding& f,
                           const PortInfo* port, const PortInfo* peer) {
  // Appends the named value to `out` (every title and hint of every decision comes through
  // here: no copies of the values on the way).
  auto append = [&](std::string_view name, std::string* out) {
    auto node_of = [&](bool is_switch, const std::string& given) -> std::string_view {
      if (!given.empty()) return given;
      if (port && port->is_switch() == is_switch) return NodeName(port);
      if (peer && peer->is_switch() == is_switch) return NodeName(peer);
      return {};
    };
    if (name == "rule") return out->append(d.rule);
    if (name == "reason") return out->append(f.reason);
    if (name == "port") return out->append(d.port);
    if (name == "peer") return out->append(d.peer);
    if (name == "port_label") return AppendLabel(port, out);
    if (name == "peer_label") return AppendLabel(peer, out);
    if (name == "port_node") return out->append(NodeName(port));
    if (name == "peer_node") return out->append(NodeName(peer));
    if (name == "switch") return out->append(node_of(true, d.switch_name));
    if (name == "node") return out->append(node_of(false, d.node));
    if (name == "cable_serial") {
      return out->append(f.cable_serial.empty() ? "(unknown)" : f.cable_serial);
    }
    if (name == "severity") return out->append(d.severity);
    const auto& t = f.evidence.contains("threshold") ? f.evidence["threshold"] : nlohmann::json{};
    if (name == "count") return out->append(t.contains("count") ? t["count"].dump() : "");
    // A finding made outside the engine (a soak failure) may carry no threshold.
    if (name == "window") {
      return out->append(t.is_object() ? FormatDuration(t.value("window_s", 0.0)) : "");
    }
    if (name == "threshold") return out->append(t.contains("above") ? t["above"].dump() : "");
    if (name == "value") {
      return out->append(f.evidence.contains("measured") ? f.evidence["measured"].dump() : "");
    }
    return out->append("{").append(name).append("}");
  };
  std::string out;
  out.reserve(tmpl.size() + 64);
  const std::string_view t(tmpl);
  for (size_t i = 0; i < t.size();) {
    const size_t open = t.find('{', i);
    const size_t close = open == std::string_view::npos ? open : t.find('}', open);
    if (close == std::string_view::npos) {
      out.append(t.substr(i));
      break;
    }
    out.append(t.substr(i, open - i));
    append(t.substr(open + 1, close - open - 1), &out);  // an empty value is left out
    i = close + 1;
  }
  return Tidy(out);
}

}  // namespace ufmr
