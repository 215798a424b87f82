#include "act/staff_actions.h"

#include <spdlog/spdlog.h>

#include "act/action_executor.h"
#include "act/port_intent.h"
#include "base/crash_point.h"

namespace ufmr {

Result<Ticket> StaffActions::ReportRepair(int64_t id, const std::string& by,
                                          const std::string& kind, const std::string& note) {
  if (!IsKnownRepairKind(kind)) {
    return Status::InvalidArgument(
        "kind must say what was done: reseat, cable_replaced, transceiver_replaced, "
        "switch_port_replaced, hca_replaced or other");
  }
  if (kind == repair_kind::kOther && note.empty()) {
    return Status::InvalidArgument("a repair of kind 'other' needs a note saying what was done");
  }
  auto txr = store_.Begin();
  if (!txr.ok()) return txr.status();
  auto& tx = *txr.value();
  try {
    auto t = tx.TicketById(id);
    if (!t) return store_.MissingTicket(id);
    if (t->link_key == "storm") {
      return Status::Conflict("ticket " + std::to_string(id) +
                              " is a storm ticket: re-arm the breaker instead");
    }
    if (!AcceptsRepairReport(t->state)) {
      return Status::Conflict("ticket " + std::to_string(id) + " is " + t->state +
                              "; a repair can be reported when it is port_disabled, "
                              "ticket_only, acknowledged or escalated");
    }
    RecordRepair(tx, *t, by, kind, note);
    tx.Commit();
    CrashPoint("decided", t->method == "isolate" ? "unisolate" : "enable");
    metrics_.Add(MetricName("ufmr_repairs_reported_total", {{"kind", kind}}));
    spdlog::info("ticket {}: repair reported by {} ({})", id, by, RepairKindWords(kind));
    return *t;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

void StaffActions::RecordRepair(Store::Tx& tx, Ticket& t, const std::string& by,
                                const std::string& kind, const std::string& note) {
  t.repair_kind = kind;
  std::string words = RepairKindWords(kind);
  tx.AddEvent(t.id, "repair_reported", by,
              "repair reported: " + words + (note.empty() ? "" : ": " + note),
              {{"kind", kind}, {"note", note}});
  if (t.disabled_by_us && !t.action_port.empty()) {
    RecordPortIntent(tx, inventory_,
                     {t.id, t.action_port, t.method == "isolate" ? "unisolate" : "enable",
                      "repair reported by " + by + " (" + words + ")"});
    t.state = ticket_state::kRepairReported;
  } else {
    // We hold nothing out of service: watch the link as it is.
    ActionExecutor::StartSoak(tx, t, clock_.Now(), soak_for_(t));
  }
  tx.UpdateTicket(t);
}

Status StaffActions::RearmBreaker(const std::string& by, const std::string& note) {
  auto txr = store_.Begin();
  if (!txr.ok()) return txr.status();
  auto& tx = *txr.value();
  try {
    auto b = tx.Breaker();
    if (!b.tripped || !tx.RearmBreaker(by)) {
      return Status::Conflict("the circuit breaker is not tripped");
    }
    if (b.ticket_id > 0) {
      if (auto t = tx.TicketById(b.ticket_id); t && t->state != ticket_state::kClosed) {
        tx.AddEvent(t->id, "rearmed", by,
                    "circuit breaker re-armed by " + by + (note.empty() ? "" : ": " + note));
        t->state = ticket_state::kClosed;
        t->resolution = resolution::kRearmed;
        t->closed_at = ToEpochSeconds(clock_.Now());
        tx.UpdateTicket(*t);
      }
    }
    tx.Commit();
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
  breaker_.Rearm();  // the pipeline thread forgets the storm's count
  metrics_.Set("ufmr_breaker_tripped", 0);
  spdlog::warn("circuit breaker re-armed by {}{}", by, note.empty() ? "" : ": " + note);
  return Status::Ok();
}

bool StaffActions::DrainUnderWay(Store::Tx& tx, const Ticket& t) {
  if (t.state == ticket_state::kDraining || t.state == ticket_state::kDrained) return true;
  if (t.state != ticket_state::kEscalated) return false;
  for (const auto& d : tx.DrainsOfTicket(t.id)) {
    if (d.state == drain_state::kPending || d.state == drain_state::kDraining) return true;
  }
  return false;
}

Result<Ticket> StaffActions::Acknowledge(int64_t id, const std::string& by,
                                         const std::string& note) {
  auto txr = store_.Begin();
  if (!txr.ok()) return txr.status();
  auto& tx = *txr.value();
  try {
    auto t = tx.TicketById(id);
    if (!t) return store_.MissingTicket(id);
    if (!AcceptsAcknowledge(t->state)) {
      return Status::Conflict("ticket " + std::to_string(id) + " is " + t->state +
                              " and cannot be acknowledged");
    }
    t->acknowledged_by = by;
    if (t->assigned_to.empty()) t->assigned_to = by;  // who takes it, works it
    // A ticket whose host drains keeps its state: the drain worker releases the cut from it,
    // and the cap counts it as holding the node (acknowledging is taking it, not stopping it).
    if (t->state != ticket_state::kOpen && !DrainUnderWay(tx, *t)) {
      t->state = ticket_state::kAcknowledged;
    }
    tx.AddEvent(t->id, "acknowledged", by,
                "acknowledged by " + by + (note.empty() ? "" : ": " + note), {{"note", note}});
    tx.UpdateTicket(*t);
    tx.Commit();
    return *t;
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

}  // namespace ufmr
