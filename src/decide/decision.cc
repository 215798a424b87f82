#include "decide/decision.h"

#include <utility>

#include "base/duration.h"
#include "decide/guards/guard_context.h"
#include "decide/guards/guard_list.h"

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

std::string Decider::ActionPort(const std::vector<std::string>& ends, DecisionContext& ctx,
                                bool require_system_guid) {
  std::string fallback;
  for (const auto& p : ends) {
    auto info = ctx.Port(p);
    if (!info || (require_system_guid && info->system_guid.empty())) continue;
    if (info->is_switch()) return p;
    if (fallback.empty()) fallback = p;
  }
  return fallback;
}

namespace {

// Where on its node a port is, for a person: the switch label ("1/17/1"), or for a host the HCA
// and port number ("HCA-1 port 1").
std::string Label(const std::optional<PortInfo>& info) {
  if (!info) return "";
  if (!info->label.empty()) return info->label;
  std::string hca = info->node_description;
  if (!info->system_name.empty() && hca.rfind(info->system_name, 0) == 0) {
    hca = hca.substr(info->system_name.size());
  }
  size_t b = hca.find_first_not_of(' ');
  hca = b == std::string::npos ? "" : hca.substr(b);
  std::string number = info->number > 0 ? "port " + std::to_string(info->number) : "";
  return hca.empty() ? number : number.empty() ? hca : hca + " " + number;
}

}  // namespace

std::string RenderTemplate(const std::string& tmpl, const Decision& d, const Finding& f,
                           DecisionContext& ctx) {
  std::optional<PortInfo> port = d.port.empty() ? std::nullopt : ctx.Port(d.port);
  std::optional<PortInfo> peer = d.peer.empty() ? std::nullopt : ctx.Port(d.peer);
  auto value = [&](const std::string& name) -> std::string {
    if (name == "rule") return d.rule;
    if (name == "reason") return f.reason;
    if (name == "port") return d.port;
    if (name == "peer") return d.peer;
    if (name == "port_label") return Label(port);
    if (name == "peer_label") return Label(peer);
    if (name == "port_node") return NodeName(port);
    if (name == "peer_node") return NodeName(peer);
    if (name == "switch") {
      if (!d.switch_name.empty()) return d.switch_name;
      if (port && port->is_switch()) return NodeName(port);
      if (peer && peer->is_switch()) return NodeName(peer);
      return "";
    }
    if (name == "node") {
      if (!d.node.empty()) return d.node;
      if (port && !port->is_switch()) return NodeName(port);
      if (peer && !peer->is_switch()) return NodeName(peer);
      return "";
    }
    if (name == "cable_serial") return f.cable_serial.empty() ? "(unknown)" : f.cable_serial;
    if (name == "severity") return d.severity;
    const auto& t = f.evidence.contains("threshold") ? f.evidence["threshold"] : nlohmann::json{};
    if (name == "count") return t.contains("count") ? t["count"].dump() : "";
    // A finding made outside the engine (a soak failure) may carry no threshold.
    if (name == "window") return t.is_object() ? FormatDuration(t.value("window_s", 0.0)) : "";
    if (name == "threshold") return t.contains("above") ? t["above"].dump() : "";
    if (name == "value")
      return f.evidence.contains("measured") ? f.evidence["measured"].dump() : "";
    return "{" + name + "}";
  };
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    size_t end = tmpl[i] == '{' ? tmpl.find('}', i) : std::string::npos;
    if (end == std::string::npos) {
      out += tmpl[i];
      continue;
    }
    std::string v = value(tmpl.substr(i + 1, end - i - 1));
    out += v;  // an unknown value is left out, not shown as a placeholder
    i = end;
  }
  // Tidy what missing values leave behind: doubled spaces, a space before punctuation, ends.
  std::string tidy;
  for (char c : out) {
    if (c == ' ' && (tidy.empty() || tidy.back() == ' ')) continue;
    if ((c == '.' || c == ',' || c == ';' || c == ')') && !tidy.empty() && tidy.back() == ' ') {
      tidy.pop_back();
    }
    tidy += c;
  }
  while (!tidy.empty() && tidy.back() == ' ') tidy.pop_back();
  return tidy;
}

namespace {

// The decision as far as the finding says: the rule, the entity and where it is.
Decision Start(const Finding& f, const GuardContext& gctx) {
  Decision d;
  d.time = f.time;
  d.rule = f.rule;
  d.entity = f.link_key;
  d.reason = f.reason;
  d.rules_hash = f.rules_hash;
  d.mode = RuleModeName(f.mode);
  d.severity = f.severity;
  if (f.scope == RuleScope::kSwitch) d.switch_name = f.switch_name;
  if (f.scope == RuleScope::kNode) d.node = f.node_name;
  d.port = gctx.port();
  d.peer = gctx.peer();
  return d;
}

// Completes the decision: its kind, guard word and note, and the rendered title and repair hint.
void Finish(Decision& d, const Finding& f, DecisionKind kind, std::string guard,
            const std::string& why, DecisionContext& ctx) {
  d.kind = kind;
  d.guard = std::move(guard);
  d.note = why;
  if (!why.empty()) d.reason += "; " + why;
  std::string title = f.title;
  if (title.empty()) {
    title = f.rule + ": " +
            (!d.switch_name.empty() ? "switch {switch}"
             : !d.node.empty()      ? "node {node}"
             : d.peer.empty()       ? "{port_node} {port_label}"
                                    : "{port_node} {port_label} <-> {peer_node} {peer_label}");
  }
  d.title = RenderTemplate(title, d, f, ctx);
  if (!f.repair_hint.empty()) d.repair_hint = RenderTemplate(f.repair_hint, d, f, ctx);
}

}  // namespace

Decider::Decider(DecisionPolicy policy) : policy_(policy), guards_(DecisionGuards()) {}
Decider::~Decider() = default;
Decider::Decider(Decider&&) noexcept = default;
Decider& Decider::operator=(Decider&&) noexcept = default;

Decision Decider::Decide(const Finding& f, DecisionContext& ctx) const {
  GuardContext gctx(f, ctx, policy_);
  Decision d = Start(f, gctx);
  // The first guard that holds the finding decides.
  for (const auto& guard : guards_) {
    GuardOutcome o = guard->Check(f, gctx);
    if (o.ticket_id) d.ticket_id = o.ticket_id;
    if (o.silence_id) d.silence_id = o.silence_id;
    if (!o.holds) continue;
    Finish(d, f, o.kind, guard->name(), o.why, ctx);
    if (o.trips_breaker) ctx.TripBreaker(d, *o.trips_breaker);
    return d;
  }
  Finish(d, f,
         f.action == RuleAction::kIsolatePort ? DecisionKind::kIsolate : DecisionKind::kDisable, "",
         std::string(ActionVerb(f)) + " " + gctx.action_port(), ctx);
  return d;
}

}  // namespace ufmr
