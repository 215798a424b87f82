#include "act/soak_watch.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "act/drain_intent.h"
#include "act/port_intent.h"
#include "base/duration.h"

namespace ufmr {

std::vector<std::string> SoakWatch::Load() {
  auto tickets = p_.store.ListTickets(ticket_state::kVerifying, 100000);
  if (!tickets.ok()) return {};  // keep the last known set
  tickets_ = std::move(tickets.value());
  std::set<std::string> now;
  for (const auto& t : tickets_) now.insert(t.link_key);
  std::vector<std::string> fresh;
  for (const auto& link : now) {
    if (!links_.count(link)) fresh.push_back(link);
  }
  links_ = std::move(now);
  return fresh;
}

void SoakWatch::JudgeDue(const std::vector<Finding>& unrecorded) {
  // The pass began by loading the tickets under soak; each verdict re-reads its ticket in the
  // transaction, so one that changed since is skipped there.
  std::vector<Ticket> due;
  const double now = ToEpochSeconds(p_.clock.Now());
  for (const auto& t : tickets_) {
    if (!t.soak_until || *t.soak_until > now) continue;
    bool queued = std::any_of(unrecorded.begin(), unrecorded.end(), [&](const Finding& f) {
      return f.link_key == t.link_key && f.evidence.value("during_soak", false);
    });
    if (!queued) due.push_back(t);
  }
  for (const auto& candidate : due) {
    nlohmann::json states = nlohmann::json::object();
    std::string down = ReadEnds(candidate, &states);
    if (down.rfind("cannot read", 0) == 0) {
      spdlog::warn("ticket {}: {}; soak verdict postponed", candidate.id, down);
      continue;
    }
    RecordVerdict(candidate, down, states);
  }
}

std::string SoakWatch::ReadEnds(const Ticket& t, nlohmann::json* states) {
  // The end of the window: the link must be up at both ends.
  std::string down;
  int gone = 0, ends = 0;
  for (const auto& p : {t.port_a, t.port_b}) {
    ends += !p.empty();
    if (p.empty()) continue;
    auto info = p_.ufm.GetPort(p);
    if (!info.ok() && info.status().code() == Status::Code::kNotFound) {
      // Replaced hardware has new port names: the other end judges the link.
      (*states)[p] = {{"gone", true}};
      ++gone;
      continue;
    }
    if (!info.ok()) return "cannot read " + p + " from UFM: " + info.status().message();
    p_.inventory.Upsert(info.value());
    (*states)[p] = {{"logical_state", info->logical_state},
                    {"physical_state", info->physical_state}};
    if (!info->link_up()) down = p + " is " + info->logical_state + "/" + info->physical_state;
  }
  if (down.empty() && gone > 0 && gone == ends)
    down = "no end of the link is known to UFM any more";
  return down;
}

void SoakWatch::RecordVerdict(const Ticket& candidate, const std::string& down,
                              const nlohmann::json& states) {
  auto txr = p_.store.Begin();
  if (!txr.ok()) return;
  auto& tx = *txr.value();
  try {
    auto t = tx.TicketById(candidate.id);
    if (!t || t->state != ticket_state::kVerifying) return;
    if (down.empty()) {
      t->state = ticket_state::kClosed;
      t->resolution = resolution::kRepaired;
      t->closed_at = ToEpochSeconds(p_.clock.Now());
      t->soak_until.reset();
      t->guard.clear();
      tx.AddEvent(t->id, "soak_passed", kServiceActor,
                  "link stayed up and clean for " + FormatDuration(p_.soak_for(*t)) +
                      "; closed as verified",
                  states);
      p_.metrics.Add("ufmr_tickets_closed_total");
      spdlog::info("ticket {} closed: link {} verified clean", t->id, t->link_key);
      tx.UpdateTicket(*t);
      ResumeDrained(tx, *t);
    } else {
      Fail(tx, *t, "link not up at the end of the soak: " + down, states);
    }
    tx.Commit();
  } catch (const std::exception& e) {
    spdlog::error("ticket {}: cannot record the soak verdict: {}", candidate.id, e.what());
  }
}

void SoakWatch::Fail(Store::Tx& tx, Ticket& t, const std::string& why,
                     const nlohmann::json& details) {
  t.attempts += 1;
  t.soak_until.reset();
  const int max = p_.remediation.max_attempts;
  bool escalate = t.attempts >= max;
  tx.AddEvent(t.id, "soak_failed", kServiceActor,
              "verification failed (attempt " + std::to_string(t.attempts) + " of " +
                  std::to_string(max) + "): " + why,
              details);
  p_.metrics.Add("ufmr_soak_failures_total");
  std::optional<Decision> recut = DecideRecut(tx, t, why);
  if (recut && recut->acts()) {
    const std::string cut = t.method == "isolate" ? "isolate" : "disable";
    // A host the cut would leave without links is drained again first. One still drained for
    // the ticket is looked at again by the drain worker (a person may have resumed it since):
    // adopted as this ticket's, the cut follows its jobs, if any.
    if (!recut->drain_host.empty()) {
      HandOverDrained(tx, t.id);
      RecordDrainIntent(
          tx, p_.inventory, p_.node_names,
          {t.id, recut->drain_host, t.action_port, cut, t.rule, "verification failed: " + why});
      t.state = ticket_state::kDraining;
    } else {
      RecordPortIntent(tx, p_.inventory, {t.id, t.action_port, cut, "verification failed: " + why});
      t.state = ticket_state::kOpen;
    }
    t.guard.clear();
    tx.AddEvent(t.id, "reopened", kServiceActor,
                "ticket back in the queue; taking " + t.action_port + " out again (" + cut + ")");
  } else {
    t.state = escalate ? ticket_state::kEscalated : ticket_state::kTicketOnly;
    if (recut) {
      t.guard = recut->guard;
      tx.AddEvent(t.id, "guard", kServiceActor, "not taken out again: " + recut->note,
                  {{"guard", recut->guard}});
    }
    tx.AddEvent(t.id, "reopened", kServiceActor,
                "ticket back in the queue; the link is still not clean");
  }
  if (escalate) Escalate(tx, t);
  tx.UpdateTicket(t);
  links_.erase(t.link_key);
  spdlog::warn("ticket {}: verification failed ({}), attempt {}", t.id, why, t.attempts);
}

std::optional<Decision> SoakWatch::DecideRecut(Store::Tx& tx, const Ticket& t,
                                               const std::string& why) {
  // Take the port out again only if this service itself brought it back for the soak: its last
  // action on the ticket is a confirmed enable (or un-isolation), and no person took the port
  // over since (drift).
  bool was_ours = false;
  for (const auto& a : tx.ActionsOfTicket(t.id)) {
    if (a.state == action_state::kFailed || a.state == action_state::kSkipped) continue;
    was_ours = !a.cuts() && a.state == action_state::kConfirmed;
  }
  if (t.guard == "drift") was_ours = false;
  if (!was_ours || t.action_port.empty()) return std::nullopt;
  // The same guards as any cut (a person's port, a host's last link, the breaker, the caps, the
  // rate limit, dry run).
  Finding f;
  f.rule = t.rule;
  // A ticket whose host was drained before its cut drains it again.
  const bool drained_before = !tx.DrainsOfTicket(t.id).empty();
  f.action = t.method == "isolate" ? RuleAction::kIsolatePort
             : drained_before      ? RuleAction::kDrainThenDisable
                                   : RuleAction::kDisablePort;
  f.mode = RuleMode::kEnforce;
  f.scope = RuleScope::kLink;
  for (const auto& p : {t.port_a, t.port_b}) {
    if (!p.empty()) f.ports.push_back(p);
  }
  f.link_key = t.link_key;
  f.time = p_.clock.Now();
  f.reason = "verification failed: " + why;
  f.rules_hash = p_.rules_hash();
  Decision recut = p_.decider.Recut(tx, f);
  tx.AddDecision(recut.ToJson(), t.id);
  return recut;
}

void SoakWatch::HandOverDrained(Store::Tx& tx, int64_t ticket_id) {
  for (auto& d : tx.DrainsOfTicket(ticket_id)) {
    if (d.state != drain_state::kDrained) continue;
    d.state = drain_state::kHandedOver;
    d.note = "the drain for the cut after the failed soak takes over";
    tx.UpdateDrain(d);
  }
}

void SoakWatch::ResumeDrained(Store::Tx& tx, const Ticket& t) {
  for (auto& d : tx.DrainsOfTicket(t.id)) {
    if (d.state != drain_state::kDrained) continue;
    d.state = drain_state::kResuming;
    d.tries = 0;
    d.next_try_at.reset();
    tx.UpdateDrain(d);
    tx.AddEvent(t.id, "resuming", kServiceActor,
                "the repair held: node " + d.node +
                    " is to be resumed in the job scheduler, if "
                    "its drain is still this ticket's",
                {{"drain_id", d.id}, {"node", d.node}});
  }
}

void SoakWatch::Escalate(Store::Tx& tx, const Ticket& t) {
  // Repeated repairs did not hold: the fault is likely in what was not replaced.
  auto a = p_.inventory.Get(t.port_a), b = p_.inventory.Get(t.port_b);
  bool host_link = (a && !a->is_switch()) || (b && !b->is_switch());
  tx.AddEvent(t.id, "escalated", kServiceActor,
              std::to_string(t.attempts) + " repairs did not hold: replace the switch module" +
                  std::string(host_link ? " or the host's HCA" : " at either end") +
                  ", not the cable again");
  p_.metrics.Add("ufmr_tickets_escalated_total");
}

}  // namespace ufmr
