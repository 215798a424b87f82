#include "decide/decision.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "base/duration.h"
#include "ingest/event_subjects.h"

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

std::string NodeName(const std::optional<PortInfo>& info) {
  if (!info) return "";
  if (!info->system_name.empty()) return info->system_name;
  return info->node_description.substr(0, info->node_description.find(':'));
}

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

Decision Decider::Decide(const Finding& f, DecisionContext& ctx) const {
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

  std::string action_port;
  bool acts = f.action == RuleAction::kDisablePort || f.action == RuleAction::kIsolatePort;
  if (f.scope == RuleScope::kPort || f.scope == RuleScope::kLink) {
    action_port = ActionPort(f.ports, ctx, policy_.require_system_guid);
    d.port = !action_port.empty() ? action_port : (f.ports.empty() ? "" : f.ports.front());
    for (const auto& p : f.ports) {
      if (p != d.port) d.peer = p;
    }
  }
  auto finish = [&](DecisionKind kind, std::string guard, const std::string& why) {
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
    return d;
  };

  if (!f.inhibited_by.empty()) {
    return finish(DecisionKind::kSuppressed, "inhibited", "covered by " + f.inhibited_by);
  }
  SilenceSubject subject;
  subject.ports = f.ports;
  for (const auto& p : f.ports) {
    auto info = ctx.Port(p);
    std::string name = NodeName(info);
    if (!info || name.empty()) continue;
    (info->is_switch() ? subject.switches : subject.hosts).push_back(name);
  }
  if (!f.switch_name.empty()) subject.switches.push_back(f.switch_name);
  if (!f.node_name.empty()) subject.hosts.push_back(f.node_name);
  // Names the events carried, for ends the inventory does not know.
  for (const auto& [key, name] : f.switches) subject.switches.push_back(name);
  for (const auto& [key, name] : f.hosts) subject.hosts.push_back(name);
  if (const Silence* s = ctx.Silenced(subject, f.time)) {
    d.silence_id = s->id;
    return finish(DecisionKind::kSuppressed, "silenced",
                  "silenced until " + FormatIsoTime(s->expires_at) + ": " + s->reason);
  }
  const char* verb = f.action == RuleAction::kIsolatePort ? "isolate" : "disable";
  if (auto open = ctx.OpenTicket(f.link_key)) {
    d.ticket_id = open->id;
    // A ticket-only ticket does not stop a rule that acts: the link is worse than first judged.
    bool upgrade = !open->acted && acts && f.mode == RuleMode::kEnforce;
    if (!upgrade) {
      return finish(DecisionKind::kSuppressed, "open_ticket",
                    "ticket " + std::to_string(open->id) + " is already open for it");
    }
  }
  if (f.mode == RuleMode::kShadow) {
    return finish(DecisionKind::kFinding, "shadow",
                  acts ? std::string("shadow mode: would ") + verb + " " + d.port
                       : "shadow mode: recorded only");
  }
  if (f.action == RuleAction::kLogOnly) {
    return finish(DecisionKind::kFinding, "log_only", "the rule asks for a record only");
  }
  if (f.action == RuleAction::kTicketOnly) {
    return finish(DecisionKind::kTicket, "ticket_only", "the rule asks for a ticket only");
  }
  if (action_port.empty()) {
    return finish(DecisionKind::kTicket, "no_port",
                  std::string("no end of the link is known to UFM") +
                      (policy_.require_system_guid ? " with a system GUID" : "") + ": nothing to " +
                      verb);
  }
  for (const auto& p : f.ports) {
    std::string why = ctx.OwnedByPerson(p);
    if (!why.empty()) {
      return finish(DecisionKind::kBlocked, "manual",
                    p + " is in a person's hands (" + why + "): not touched");
    }
  }
  const std::vector<std::string> held = ctx.HeldPorts();
  const std::set<std::string> held_set(held.begin(), held.end());
  if (held_set.count(action_port)) {
    // The same port, named through another link key (an end that was unknown then): one ticket.
    return finish(DecisionKind::kSuppressed, "open_ticket",
                  action_port + " is already held out of service for another ticket");
  }
  // Never leave a host or a switch short of active links (topology-aware): count the node's
  // other ports that are up and not held out of service by this service.
  std::vector<std::pair<std::string, std::optional<PortInfo>>> ends;
  for (const auto& p : f.ports) ends.emplace_back(p, ctx.Port(p));
  for (const auto& [name, info] : ends) {
    if (!info) continue;
    bool host = !info->is_switch();
    int minimum = host ? policy_.min_active_links_host : policy_.min_active_links_switch;
    if (minimum <= 0) continue;
    auto node_ports = ctx.NodePorts(*info);
    if (node_ports.empty()) continue;  // the node's links are not known: not judged
    int active = 0;
    for (const auto& p : node_ports) {
      if (p.name == info->name || !p.link_up() || held_set.count(p.name)) continue;
      if (!p.peer.empty() && held_set.count(p.peer)) continue;
      // A port a person isolated is up but carries no traffic: not a link to count on.
      if (!ctx.OwnedByPerson(p.name).empty()) continue;
      ++active;
    }
    if (active < minimum) {
      std::string node = NodeName(info);
      std::string left = std::to_string(active) + " other active link" + (active == 1 ? "" : "s") +
                         " (at least " + std::to_string(minimum) + " must stay up)";
      std::string why = host ? node + " has " + left + ": drain the host first, then take " + name +
                                   " out of service by hand or report the repair"
                             : "switch " + node + " has " + left + ": not cut automatically";
      return finish(DecisionKind::kBlocked, "last_link", why);
    }
  }
  if (policy_.port_cooldown_s > 0) {
    for (const auto& p : f.ports) {
      auto last = ctx.LastActionOn(p);
      if (!last) continue;
      double ago = std::chrono::duration<double>(f.time - *last).count();
      if (ago < policy_.port_cooldown_s) {
        return finish(DecisionKind::kBlocked, "cooldown",
                      "this service acted on " + p + " " + FormatDuration(std::max(0.0, ago)) +
                          " ago (cooldown " + FormatDuration(policy_.port_cooldown_s) +
                          "): not acted on again so soon");
      }
    }
  }
  if (ctx.BreakerTripped()) {
    return finish(DecisionKind::kBlocked, "breaker",
                  "circuit breaker tripped by a storm of findings: no port is cut until a person "
                  "re-arms it");
  }
  if (policy_.breaker_findings > 0) {
    int n = ctx.CountActingFinding(f.time, policy_.breaker_window_s);
    if (n > policy_.breaker_findings) {
      finish(DecisionKind::kBlocked, "breaker",
             "storm: " + std::to_string(n) + " findings that would act within " +
                 FormatDuration(policy_.breaker_window_s) + " (more than " +
                 std::to_string(policy_.breaker_findings) +
                 "); circuit breaker tripped: no port is cut until a person re-arms it");
      ctx.TripBreaker(d, n);
      return d;
    }
  }
  const int total = static_cast<int>(held.size());
  if (total >= policy_.max_disabled_ports) {
    return finish(DecisionKind::kBlocked, "cap",
                  "cap reached: this service already holds " + std::to_string(total) +
                      " ports out of service (the cap is " +
                      std::to_string(policy_.max_disabled_ports) + ")");
  }
  if (policy_.max_disabled_percent > 0) {
    int fabric = ctx.FabricPorts();
    int allowed = std::max(
        1, static_cast<int>(std::floor(fabric * policy_.max_disabled_percent / 100.0 + 1e-9)));
    if (total >= allowed) {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%g", policy_.max_disabled_percent);
      return finish(DecisionKind::kBlocked, "cap",
                    "cap reached: this service already holds " + std::to_string(total) +
                        " ports out of service (" + pct + "% of the fabric's " +
                        std::to_string(fabric) + " ports allows " + std::to_string(allowed) + ")");
    }
  }
  if (policy_.max_disabled_per_switch > 0) {
    for (const auto& [name, info] : ends) {
      if (!info || !info->is_switch()) continue;
      std::string sw = NodeName(info);
      int on_switch = 0;
      for (const auto& h : held) {
        auto hp = ctx.Port(h);
        if (!hp) continue;
        auto peer = hp->peer.empty() ? std::nullopt : ctx.Port(hp->peer);
        bool touches = (hp->is_switch() && NodeName(hp) == sw) ||
                       (peer && peer->is_switch() && NodeName(peer) == sw);
        on_switch += touches;
      }
      if (on_switch >= policy_.max_disabled_per_switch) {
        return finish(DecisionKind::kBlocked, "switch_cap",
                      "switch cap reached: this service already holds " +
                          std::to_string(on_switch) + " links of switch " + sw +
                          " out of service (the cap is " +
                          std::to_string(policy_.max_disabled_per_switch) + ")");
      }
    }
  }
  if (policy_.max_actions_per_hour > 0) {
    int recent = ctx.ActionsSince(f.time - std::chrono::hours(1));
    if (recent >= policy_.max_actions_per_hour) {
      return finish(DecisionKind::kBlocked, "rate_limit",
                    "rate limit reached: this service took " + std::to_string(recent) +
                        " ports out of service in the last hour (the limit is " +
                        std::to_string(policy_.max_actions_per_hour) + ")");
    }
  }
  if (policy_.dry_run) {
    return finish(DecisionKind::kBlocked, "dry_run",
                  std::string("dry run: would ") + verb + " " + action_port);
  }
  return finish(
      f.action == RuleAction::kIsolatePort ? DecisionKind::kIsolate : DecisionKind::kDisable, "",
      std::string(verb) + " " + action_port);
}

}  // namespace ufmr
