#include "act/reconciler.h"

#include <spdlog/spdlog.h>

namespace ufmr {

bool Reconciler::Run(std::optional<std::set<std::string>>* isolated_out) {
  auto list = ufm_.GetUnhealthyPorts();
  std::set<std::string> isolated;
  std::map<std::string, UnhealthyPort> entries;  // by port
  if (list.ok()) {
    for (const auto& u : list.value()) {
      isolated.insert(u.port);
      entries.emplace(u.port, u);
    }
  } else if (list.status().code() != Status::Code::kNotFound) {
    spdlog::warn("reconciliation: cannot read UFM's unhealthy ports: {}", list.status().ToString());
    metrics_.Add("ufmr_ufm_errors_total{call=\"unhealthy_ports\"}");
    return false;
  }
  auto txr = store_.Begin();
  if (!txr.ok()) return false;
  auto& tx = *txr.value();
  try {
    int drift = 0;
    std::set<std::string> ours = CheckHeld(tx, list.ok(), isolated, &drift);
    metrics_.Set("ufmr_breaker_tripped", tx.Breaker().tripped ? 1 : 0);
    tx.Commit();
    Adopt(entries, ours, isolated);
    if (list.ok()) *isolated_out = std::move(isolated);
    if (drift > 0) spdlog::info("reconciliation: {} tickets drifted", drift);
    return true;
  } catch (const std::exception& e) {
    spdlog::error("reconciliation failed: {}", e.what());
    return false;
  }
}

std::set<std::string> Reconciler::CheckHeld(Store::Tx& tx, bool list_ok,
                                            const std::set<std::string>& isolated, int* drift) {
  std::set<std::string> ours;  // ports we hold isolated, or are about to
  for (auto t : tx.HeldTickets()) {
    if (t.method == "isolate") ours.insert(t.action_port);
    if (!t.disabled_by_us) continue;  // an action is on its way
    bool in_flight = false;
    for (const auto& a : tx.ActionsOfTicket(t.id)) {
      in_flight =
          in_flight || a.state == action_state::kPending || a.state == action_state::kSubmitted;
    }
    if (in_flight) continue;
    std::string now_is = BroughtBack(tx, t, list_ok, isolated);
    if (!now_is.empty() && RecordDrift(tx, t, now_is)) ++*drift;
  }
  return ours;
}

void Reconciler::Adopt(const std::map<std::string, UnhealthyPort>& entries,
                       const std::set<std::string>& ours, const std::set<std::string>& isolated) {
  // Isolations that are not ours are a person's: never touched.
  std::map<std::string, std::string> persons;
  for (const auto& [p, u] : entries) {
    if (ours.count(p)) continue;
    persons[p] = u.manual() ? "isolated in UFM by a person (Condition " + u.condition + ")"
                            : "isolated in UFM (Condition " +
                                  (u.condition.empty() ? std::string("?") : u.condition) +
                                  "), not by this service";
  }
  persons_isolated_ = std::move(persons);
  std::set<std::string> held;
  for (const auto& p : ours) {
    if (isolated.count(p)) held.insert(p);
  }
  own_.SetIsolations(std::move(held));
  metrics_.Set("ufmr_ports_isolated_by_people", static_cast<double>(persons_isolated_.size()));
  metrics_.Set("ufmr_reconcile_last_success_timestamp_seconds", ToEpochSeconds(clock_.Now()));
}

std::string Reconciler::BroughtBack(Store::Tx& tx, const Ticket& t, bool list_ok,
                                    const std::set<std::string>& isolated) {
  if (t.method == "isolate") {
    return !list_ok || isolated.count(t.action_port) ? "" : "is no longer isolated in UFM";
  }
  auto port = ufm_.GetPort(t.action_port);
  if (!port.ok()) return "";
  inventory_.Upsert(port.value());
  const AdminState state = port->admin_state();
  if (state == AdminState::kDisabled && t.guard == "uncertain") SettleUncertain(tx, t);
  // Only a port UFM plainly shows enabled was brought back: "Down" may be our disable.
  if (state != AdminState::kEnabled) return "";
  return "is " + port->logical_state + " (" + port->physical_state + ") in UFM again";
}

bool Reconciler::RecordDrift(Store::Tx& tx, const Ticket& t, const std::string& now_is) {
  // Someone brought back a port this service holds out: theirs now, never undone.
  auto locked = tx.TicketById(t.id);
  if (!locked || !locked->disabled_by_us) return false;
  locked->disabled_by_us = false;
  locked->guard = "drift";
  if (locked->state == ticket_state::kPortDisabled) locked->state = ticket_state::kTicketOnly;
  tx.AddEvent(locked->id, "drift", kServiceActor,
              t.action_port + " " + now_is +
                  ", not by this service: someone brought it back by hand. The service will "
                  "not take it out again; report the repair when the link is fixed.",
              {{"port", t.action_port}, {"method", t.method}});
  tx.UpdateTicket(*locked);
  own_.DropIsolation(t.action_port);
  metrics_.Add("ufmr_drift_total");
  spdlog::warn("ticket {}: {} {} (drift; left as it is)", t.id, t.action_port, now_is);
  return true;
}

void Reconciler::SettleUncertain(Store::Tx& tx, const Ticket& t) {
  auto locked = tx.TicketById(t.id);
  if (!locked || locked->guard != "uncertain") return;
  locked->guard.clear();
  tx.AddEvent(locked->id, "action", kServiceActor,
              t.action_port + " reads disabled in UFM now: the uncertain cut is confirmed",
              {{"port", t.action_port}, {"result", "confirmed"}});
  tx.UpdateTicket(*locked);
  spdlog::info("ticket {}: {} reads disabled now; uncertain cut confirmed", t.id, t.action_port);
}

}  // namespace ufmr
