#include "decide/guards/decider.h"

#include <string>
#include <utility>

#include "decide/guards/guard_context.h"
#include "decide/guards/guard_list.h"

namespace ufmr {

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
            const std::string& why, const GuardContext& gctx) {
  d.kind = kind;
  d.guard = std::move(guard);
  d.note = why;
  if (!why.empty()) d.reason.append("; ").append(why);
  // The port and peer as the inventory knows them: the ends were looked up already.
  auto known = [&](const std::string& name) -> const PortInfo* {
    if (name.empty()) return nullptr;
    if (const LinkEnd* end = gctx.End(name)) return end->info;
    return gctx.world().Port(name);
  };
  const PortInfo* port = known(d.port);
  const PortInfo* peer = known(d.peer);
  if (f.title_template) {
    d.title = RenderTemplate(*f.title_template, d, f, port, peer);
  } else if (!f.title.empty()) {
    d.title = RenderTemplate(f.title, d, f, port, peer);
  } else {  // a rule without a title of its own: its name and where it is
    static const MessageTemplate kSwitch = MessageTemplate::Parse("{rule}: switch {switch}");
    static const MessageTemplate kNode = MessageTemplate::Parse("{rule}: node {node}");
    static const MessageTemplate kPort = MessageTemplate::Parse("{rule}: {port_node} {port_label}");
    static const MessageTemplate kLink =
        MessageTemplate::Parse("{rule}: {port_node} {port_label} <-> {peer_node} {peer_label}");
    const MessageTemplate& title = !d.switch_name.empty() ? kSwitch
                                   : !d.node.empty()      ? kNode
                                   : d.peer.empty()       ? kPort
                                                          : kLink;
    d.title = RenderTemplate(title, d, f, port, peer);
  }
  if (f.hint_template) {
    d.repair_hint = RenderTemplate(*f.hint_template, d, f, port, peer);
  } else if (!f.repair_hint.empty()) {
    d.repair_hint = RenderTemplate(f.repair_hint, d, f, port, peer);
  }
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
    if (!o.drain_host.empty()) d.drain_host = o.drain_host;
    if (!o.holds) continue;
    std::string why = std::move(o.why);
    if (!d.drain_host.empty()) why += " (" + d.drain_host + " would be drained first)";
    Finish(d, f, o.kind, guard->name(), why, gctx);
    if (o.trips_breaker) ctx.TripBreaker(d, *o.trips_breaker);
    return d;
  }
  std::string what = std::string(ActionVerb(f)) + " " + gctx.action_port();
  if (!d.drain_host.empty()) what = "drain " + d.drain_host + " in the job scheduler, then " + what;
  Finish(d, f,
         f.action == RuleAction::kIsolatePort ? DecisionKind::kIsolate : DecisionKind::kDisable, "",
         what, gctx);
  return d;
}

}  // namespace ufmr
