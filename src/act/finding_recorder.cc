#include "act/finding_recorder.h"

#include <spdlog/spdlog.h>

#include "act/decided_once.h"
#include "act/drain_intent.h"
#include "act/port_intent.h"
#include "act/storm_ticket.h"
#include "decide/explain.h"

namespace ufmr {

namespace {

constexpr double kEvidenceThrottleS = 300;

const char* CutOf(const Decision& d) {
  return d.kind == DecisionKind::kIsolate ? "isolate" : "disable";
}

// The state of a ticket whose decision acts: the cut is next, or the host's drain is.
const char* ActingState(const Decision& d) {
  return d.drain_host.empty() ? ticket_state::kOpen : ticket_state::kDraining;
}

}  // namespace

void FindingRecorder::Record(Store::Tx& tx, const Finding& f, RecordedFindings* out) {
  std::string trigger = DecisionTrigger(f);
  // Made again from events read again after a restart or a change of leader: the leader that
  // first read them judged them (what it made of them was committed with its read of them), with
  // what it knew then, and its judgment stands, finding or none. Only a hold that ran out after
  // that leader stopped reading is news; one it fired has its trigger decided already.
  if (f.evidence.value("reread", false) ||
      (!trigger.empty() && FromEventsReadAgain(f) && tx.Decided(trigger))) {
    p_.metrics.Add("ufmr_findings_decided_already_total");
    spdlog::info("rule {} on {}: decided already, before its events were read again", f.rule,
                 f.link_key);
    // Its episode is over: the rule counts the link afresh (LiveRules did so at once for one it
    // marked; a hold fired after the poll, so nothing fresh is lost by doing it now).
    if (!f.evidence.value("reread", false) &&
        (f.scope == RuleScope::kPort || f.scope == RuleScope::kLink)) {
      out->forget_rule.emplace_back(f.rule, f.link_key);
    }
    return;
  }
  p_.metrics.Add(MetricName("ufmr_findings_total", {{"rule", f.rule}}));
  if (f.evidence.value("during_soak", false)) return RecordSoakSign(tx, f);
  LiveDecider::Verdict v = p_.decider.Decide(tx, f);
  const Decision& d = v.decision;
  p_.metrics.Add(MetricName("ufmr_decisions_total", {{"decision", DecisionKindName(d.kind)}}));
  if (d.kind == DecisionKind::kBlocked) {
    p_.metrics.Add(MetricName("ufmr_guard_vetoes_total", {{"guard", d.guard}}));
  }
  Judged j{f, d, Explain(f, d), std::move(trigger)};
  if (d.guard == "breaker") {
    // A storm: one ticket for all of it, not one per link (even for a link with a ticket).
    if (v.tripped_count) {
      OpenStormTicket(tx, p_.remediation, p_.metrics, *v.tripped_count, j.Evidence());
    }
    return RecordHeldBack(tx, f, d, j.trigger);
  }
  if (v.open && !d.acts()) return OnOpenTicket(tx, j, *v.open);
  if (d.acts() && v.open) return Upgrade(tx, j, *v.open, out);
  if (d.kind == DecisionKind::kSuppressed || d.kind == DecisionKind::kFinding) {
    // Inhibited, silenced, shadow or log-only: recorded, no ticket.
    tx.AddDecision(d.ToJson(), std::nullopt, j.trigger);
    spdlog::info("rule {} on {}: {} ({}); rules {}", f.rule, f.link_key, DecisionKindName(d.kind),
                 d.reason, d.rules_hash);
    return;
  }
  OpenTicket(tx, j, out);
}

nlohmann::json FindingRecorder::Judged::Evidence() const {
  nlohmann::json evidence = EvidenceJson(f);
  evidence["decision"] = d.ToJson();
  evidence["explanation"] = explanation;
  return evidence;
}

void FindingRecorder::RecordSoakSign(Store::Tx& tx, const Finding& f) {
  // A repaired link under watch showed a bad sign: that is the verdict, whatever silences or
  // modes say about new findings.
  auto existing = tx.OpenTicketForLink(f.link_key);
  if (existing && existing->state == ticket_state::kVerifying) {
    p_.soaks.Fail(tx, *existing, f.reason, EvidenceJson(f));
  } else if (existing) {
    tx.AddEvent(existing->id, "evidence", kServiceActor, "rule " + f.rule + ": " + f.reason,
                EvidenceJson(f));
  }
  // A single sign is a verdict on a soak, never a finding of its own (no count, no hold).
}

void FindingRecorder::OnOpenTicket(Store::Tx& tx, const Judged& j, Ticket& existing) {
  const Finding& f = j.f;
  const Decision& d = j.d;
  tx.AddDecision(d.ToJson(), existing.id, j.trigger);
  // Only a rule that would take the link out judges a repair (as BreaksSoak does for single
  // signs); a shadow, ticket-only or record-only finding adds evidence.
  bool judges = f.mode == RuleMode::kEnforce && TakesPortOut(f.action);
  if (existing.state == ticket_state::kVerifying && judges && !f.evidence.value("reread", false)) {
    return p_.soaks.Fail(tx, existing, f.reason, EvidenceJson(f));
  }
  if (d.kind == DecisionKind::kBlocked && existing.state == ticket_state::kTicketOnly &&
      existing.guard != d.guard) {
    // A rule that acts would take the link out, and a guard says no: the ticket says so.
    existing.guard = d.guard;
    existing.explanation = j.explanation;
    tx.UpdateTicket(existing);
    tx.AddEvent(existing.id, "guard", kServiceActor, "no port action: " + d.note,
                {{"guard", d.guard}, {"rule", f.rule}});
  }
  TimePoint now = p_.clock.Now();
  auto last = last_evidence_.find(f.link_key);
  if (last == last_evidence_.end() ||
      std::chrono::duration<double>(now - last->second).count() >= kEvidenceThrottleS) {
    tx.AddEvent(existing.id, "evidence", kServiceActor, "rule " + f.rule + ": " + f.reason,
                j.Evidence());
    last_evidence_[f.link_key] = now;
  }
}

void FindingRecorder::Upgrade(Store::Tx& tx, const Judged& j, Ticket& t, RecordedFindings* out) {
  const Finding& f = j.f;
  const Decision& d = j.d;
  tx.AddDecision(d.ToJson(), t.id, j.trigger);
  t.state = ActingState(d);
  t.action_port = d.port;
  t.method = CutOf(d);
  t.guard.clear();
  t.rule = f.rule;  // the rule that acts names the ticket now; the timeline keeps the first
  t.severity = f.severity;
  t.reason = f.reason;
  t.explanation = j.explanation;
  tx.UpdateTicket(t);
  tx.AddEvent(t.id, "upgraded", kServiceActor, "rule " + f.rule + ": " + f.reason + "; " + d.note,
              j.Evidence());
  RecordCut(tx, j, t.id, d.port, out);
  spdlog::info("ticket {} upgraded by rule {}: {}", t.id, f.rule, d.note);
}

void FindingRecorder::OpenTicket(Store::Tx& tx, const Judged& j, RecordedFindings* out) {
  const Finding& f = j.f;
  const Decision& d = j.d;
  Ticket t;
  t.link_key = f.link_key;
  t.port_a = f.ports.empty() ? f.link_key : f.ports[0];
  t.port_b = f.ports.size() > 1 ? f.ports[1] : "";
  t.rule = f.rule;
  t.reason = f.reason;
  t.action_port = d.acts() || d.kind == DecisionKind::kBlocked ? d.port : "";
  t.method = CutOf(d);
  t.guard = d.guard;
  t.explanation = j.explanation;
  t.state = d.acts() ? ActingState(d) : ticket_state::kTicketOnly;
  t.severity = f.severity;
  // The ticket keeps the cable it learned (the events' serial when UFM's links name none): UFM may
  // stop listing a link once it is down, and the work order must still name its cable.
  p_.placer.Place(p_.inventory, &t, f.cable_serial);
  t.id = tx.InsertTicket(t);
  ++out->tickets_opened;
  tx.AddDecision(d.ToJson(), t.id, j.trigger);
  tx.AddEvent(t.id, "opened", kServiceActor, "rule " + f.rule + ": " + f.reason, j.Evidence());
  if (d.acts()) {
    RecordCut(tx, j, t.id, t.action_port, out);
    spdlog::info("ticket {} opened for {} by rule {}; {} {}; rules {}", t.id, f.link_key, f.rule,
                 t.method, t.action_port, d.rules_hash);
  } else {
    tx.AddEvent(t.id, "guard", kServiceActor, "no port action: " + d.note,
                {{"guard", d.guard}, {"decision", DecisionKindName(d.kind)}});
    spdlog::info("ticket {} opened for {} by rule {}; no port action ({}): {}; rules {}", t.id,
                 f.link_key, f.rule, d.guard, d.note, d.rules_hash);
  }
  p_.metrics.Add("ufmr_tickets_opened_total");
}

void FindingRecorder::RecordCut(Store::Tx& tx, const Judged& j, int64_t ticket_id,
                                const std::string& port, RecordedFindings* out) {
  const Finding& f = j.f;
  const std::string why = "rule " + f.rule + ": " + f.reason;
  if (j.d.drain_host.empty()) {
    RecordPortIntent(tx, p_.inventory, {ticket_id, port, CutOf(j.d), why});
  } else {
    RecordDrainIntent(tx, p_.inventory, p_.node_names,
                      {ticket_id, j.d.drain_host, port, CutOf(j.d), f.rule, why});
  }
  if (j.d.kind != DecisionKind::kIsolate) out->disabling.push_back(port);
  // Once the service takes a link out of service, its counting starts afresh: the link-downs our
  // own action causes are not the fault's. Other decisions keep the counts (a ticket-only finding
  // may be followed by one that acts), and a fired rule stays active, so it does not repeat.
  if (f.scope == RuleScope::kPort || f.scope == RuleScope::kLink) out->forget.push_back(f.link_key);
}

}  // namespace ufmr
