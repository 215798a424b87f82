#include "api/ticket_desk.h"

#include <pqxx/except>

namespace ufmr {

namespace {

constexpr size_t kMaxText = 4000;

// Runs `fn` on the ticket row, locked, in one transaction; commits when fn returns ok.
template <typename Fn>
Result<Ticket> WithTicket(Store& store, int64_t id, Fn&& fn) {
  auto txr = store.Begin();
  if (!txr.ok()) return txr.status();
  auto& tx = *txr.value();
  try {
    auto t = tx.TicketById(id);
    if (!t) return store.MissingTicket(id);
    Status s = fn(tx, *t);
    if (!s.ok()) return s;
    tx.UpdateTicket(*t);
    tx.Commit();
    return *t;
  } catch (const pqxx::unique_violation&) {
    return Status::Conflict("another ticket is open on this link: work that one");
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("database: ") + e.what());
  }
}

Status NeedText(const std::string& what, const std::string& text) {
  if (text.empty()) return Status::InvalidArgument(what + " is required");
  if (text.size() > kMaxText) {
    return Status::InvalidArgument(what + " is longer than " + std::to_string(kMaxText) +
                                   " characters");
  }
  return Status::Ok();
}

}  // namespace

bool TicketDesk::IsValidName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-' || c == '@';
    if (!ok) return false;
  }
  return true;
}

Result<Ticket> TicketDesk::Assign(int64_t id, const std::string& by, const std::string& to) {
  if (!to.empty() && !IsValidName(to)) {
    return Status::InvalidArgument("\"to\" must be a user name (letters, digits, . _ - @)");
  }
  return WithTicket(store_, id, [&](Store::Tx& tx, Ticket& t) {
    if (t.state == ticket_state::kClosed) {
      return Status::Conflict("ticket " + std::to_string(id) + " is closed: reopen it first");
    }
    if (t.assigned_to == to) return Status::Ok();
    std::string was = t.assigned_to;
    t.assigned_to = to;
    tx.AddEvent(t.id, "assigned", by,
                to.empty() ? "unassigned (was " + was + ")" : "assigned to " + to,
                {{"to", to}, {"was", was}});
    return Status::Ok();
  });
}

Result<Ticket> TicketDesk::Comment(int64_t id, const std::string& by, const std::string& text) {
  Status s = NeedText("\"text\"", text);
  if (!s.ok()) return s;
  return WithTicket(store_, id, [&](Store::Tx& tx, Ticket& t) {
    tx.AddEvent(t.id, "comment", by, text);
    return Status::Ok();
  });
}

Result<Ticket> TicketDesk::Reopen(int64_t id, const std::string& by, const std::string& reason) {
  Status s = NeedText("\"reason\"", reason);
  if (!s.ok()) return s;
  return WithTicket(store_, id, [&](Store::Tx& tx, Ticket& t) {
    if (t.link_key == "storm") {
      return Status::Conflict("a storm ticket is not reopened: the breaker trips again by itself");
    }
    if (t.state == ticket_state::kClosed) {
      std::string was = t.resolution;
      t.state = ticket_state::kTicketOnly;
      t.closed_at.reset();
      t.soak_until.reset();
      t.resolution.clear();
      t.resolution_note.clear();
      t.disabled_by_us = false;
      tx.AddEvent(t.id, "reopened", by, "reopened by " + by + ": " + reason,
                  {{"reason", reason}, {"was", was}});
      return Status::Ok();
    }
    if (t.state == ticket_state::kEscalated) {
      t.state = t.disabled_by_us ? ticket_state::kPortDisabled : ticket_state::kTicketOnly;
      int attempts = t.attempts;
      t.attempts = 0;
      tx.AddEvent(
          t.id, "reopened", by,
          "reopened by " + by + " after " + std::to_string(attempts) + " failed repairs: " + reason,
          {{"reason", reason}, {"attempts", attempts}});
      return Status::Ok();
    }
    return Status::Conflict("ticket " + std::to_string(id) + " is " + t.state +
                            "; only closed or escalated tickets are reopened");
  });
}

Result<Ticket> TicketDesk::WontFix(int64_t id, const std::string& by, const std::string& reason) {
  Status s = NeedText("\"reason\"", reason);
  if (!s.ok()) return s;
  return WithTicket(store_, id, [&](Store::Tx& tx, Ticket& t) {
    if (t.state == ticket_state::kClosed) {
      return Status::Conflict("ticket " + std::to_string(id) + " is already closed");
    }
    if (t.link_key == "storm") {
      return Status::Conflict("a storm ticket closes when the breaker is re-armed");
    }
    if (t.state == ticket_state::kRepairReported || t.state == ticket_state::kVerifying) {
      return Status::Conflict("ticket " + std::to_string(id) + " is " + t.state +
                              ": the port is being brought back and watched; wait for the result");
    }
    bool pending = false;
    for (const auto& a : tx.ActionsOfTicket(t.id)) {
      pending = pending || a.state == action_state::kPending || a.state == action_state::kSubmitted;
    }
    if (t.disabled_by_us || pending) {
      return Status::Conflict("the service holds port " + t.action_port +
                              " out of service for ticket " + std::to_string(id) +
                              ": report a repair (which brings it back) instead of closing it");
    }
    t.state = ticket_state::kClosed;
    t.resolution = resolution::kWontFix;
    t.resolution_note = reason;
    t.closed_at = ToEpochSeconds(clock_.Now());
    t.soak_until.reset();
    tx.AddEvent(t.id, "wont_fix", by, "closed as won't fix by " + by + ": " + reason,
                {{"reason", reason}});
    return Status::Ok();
  });
}

}  // namespace ufmr
