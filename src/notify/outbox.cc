#include "notify/outbox.h"

#include <pqxx/pqxx>
#include <unordered_map>

#include "store/store.h"

namespace ufmr {

namespace {

std::string JsonText(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json ParseJson(const pqxx::field& f) {
  if (f.is_null()) return nullptr;
  return nlohmann::json::parse(f.c_str(), nullptr, false);
}

// One statement in a transaction of its own.
template <typename... Args>
Status Exec(Store& store, const char* op, const std::string& sql, const Args&... args) {
  return store.Run(
      [&](pqxx::work& w) {
        w.exec_params(sql, args...);
        return Status::Ok();
      },
      op);
}

// The rows of one query in a transaction of its own (a pqxx::result outlives its transaction).
template <typename... Args>
Result<pqxx::result> Query(Store& store, const char* op, const std::string& sql,
                           const Args&... args) {
  pqxx::result rows;
  Status s = store.Run(
      [&](pqxx::work& w) {
        rows = w.exec_params(sql, args...);
        return Status::Ok();
      },
      op);
  if (!s.ok()) return s;
  return rows;
}

// The ticket's first decision (what was decided when it opened), or null.
nlohmann::json FirstDecision(pqxx::work& w, int64_t ticket_id) {
  auto r = w.exec_params("SELECT details FROM decisions WHERE ticket_id = $1 ORDER BY id LIMIT 1",
                         ticket_id);
  return r.empty() ? nlohmann::json() : ParseJson(r[0][0]);
}

// The group's row for this route match (made on first use); its timings follow the route.
int64_t GroupFor(pqxx::work& w, const std::string& fabric, const RouteMatch& m) {
  nlohmann::json labels(m.group_labels);
  auto r = w.exec_params(
      "INSERT INTO notify_groups (fabric, receiver, group_key, labels, group_wait_s, "
      "group_interval_s, repeat_interval_s, pending_since) "
      "VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, now()) "
      "ON CONFLICT (fabric, receiver, group_key) DO UPDATE SET group_wait_s = $5, "
      "group_interval_s = $6, repeat_interval_s = $7, "
      "pending_since = COALESCE(notify_groups.pending_since, now()) RETURNING id",
      fabric, m.receiver, m.group_key, JsonText(labels), m.group_wait_s, m.group_interval_s,
      m.repeat_interval_s);
  return r[0][0].as<int64_t>();
}

// Writes one message of `notices` for the group, and marks `events` as sent in it.
bool WriteDelivery(pqxx::work& w, const std::string& fabric, int64_t group,
                   const std::string& receiver, const nlohmann::json& notices, bool repeat,
                   const std::vector<int64_t>& events) {
  auto d = w.exec_params(
      "INSERT INTO notify_deliveries (fabric, receiver, group_id, idempotency_key, repeat, "
      "notifications) VALUES ($1, $2, $3, gen_random_uuid()::text, $4, $5::jsonb) RETURNING id",
      fabric, receiver, group, repeat, JsonText(notices));
  const int64_t delivery = d[0][0].as<int64_t>();
  for (int64_t e : events) {
    w.exec_params(
        "UPDATE notify_group_events SET delivery_id = $3 WHERE group_id = $1 AND event_id = $2",
        group, e, delivery);
  }
  w.exec_params("UPDATE notify_groups SET pending_since = NULL, flushed_at = now() WHERE id = $1",
                group);
  return true;
}

// A group's first message after group_wait, later ones after group_interval.
bool FlushNew(pqxx::work& w, const std::string& fabric, int64_t group,
              const std::string& receiver) {
  auto r = w.exec_params(
      "SELECT e.id, e.notice FROM notify_group_events ge JOIN notify_events e ON e.id = "
      "ge.event_id WHERE ge.group_id = $1 AND ge.delivery_id IS NULL ORDER BY e.id",
      group);
  nlohmann::json notices = nlohmann::json::array();
  std::vector<int64_t> events;
  for (const auto& row : r) {
    events.push_back(row[0].as<int64_t>());
    notices.push_back(ParseJson(row[1]));
  }
  if (events.empty()) {  // nothing new (e.g. events routed elsewhere after a config change)
    w.exec_params("UPDATE notify_groups SET pending_since = NULL WHERE id = $1", group);
    return false;
  }
  return WriteDelivery(w, fabric, group, receiver, notices, false, events);
}

// A reminder of the group's events that are still unresolved (the newest per ticket or input).
bool FlushRepeat(pqxx::work& w, const std::string& fabric, int64_t group,
                 const std::string& receiver) {
  auto r = w.exec_params(
      "SELECT DISTINCT ON (COALESCE(e.ticket_id::text, 'input:' || e.subject)) e.notice "
      "FROM notify_group_events ge JOIN notify_events e ON e.id = ge.event_id "
      "LEFT JOIN tickets t ON t.id = e.ticket_id "
      "WHERE ge.group_id = $1 AND ge.delivery_id IS NOT NULL AND e.resolves AND "
      "e.resolved_at IS NULL AND (t.id IS NULL OR t.state <> 'closed') "
      "ORDER BY COALESCE(e.ticket_id::text, 'input:' || e.subject), e.id DESC",
      group);
  nlohmann::json notices = nlohmann::json::array();
  for (const auto& row : r) {
    nlohmann::json n = ParseJson(row[0]);
    if (!n.is_object()) continue;
    n["title"] = "Still unresolved: " + n.value("title", "");
    notices.push_back(std::move(n));
  }
  if (notices.empty()) {  // all resolved: no reminder until the group has news
    w.exec_params("UPDATE notify_groups SET flushed_at = NULL WHERE id = $1", group);
    return false;
  }
  return WriteDelivery(w, fabric, group, receiver, notices, true, {});
}

}  // namespace

Result<std::vector<NotifyOutbox::Event>> NotifyOutbox::Unrouted(int limit) {
  std::vector<Event> out;
  Status s = store_.Run(
      [&](pqxx::work& w) {
        auto r = w.exec_params(
            "SELECT id, kind, ticket_id, subject, message, extract(epoch FROM at) "
            "FROM notify_events WHERE fabric = $1 AND routed_at IS NULL ORDER BY id LIMIT $2",
            store_.fabric(), limit);
        for (const auto& row : r) {
          Event e;
          e.id = row[0].as<int64_t>();
          e.source.kind = row[1].as<std::string>();
          e.source.input = row[3].as<std::string>();
          e.source.message = row[4].as<std::string>();
          e.source.at = FromEpochSeconds(row[5].as<double>());
          e.source.fabric = store_.fabric();
          if (!row[2].is_null()) {
            e.ticket_id = row[2].as<int64_t>();
            e.source.decision = FirstDecision(w, e.ticket_id);
          }
          out.push_back(std::move(e));
        }
        return Status::Ok();
      },
      "notify_unrouted");
  if (!s.ok()) return s;
  // The events' tickets in one read: a storm's events are hundreds of tickets.
  std::vector<int64_t> ids;
  for (const Event& e : out) {
    if (e.ticket_id != 0) ids.push_back(e.ticket_id);
  }
  auto tickets = store_.GetTickets(ids);
  if (!tickets.ok()) return tickets.status();
  std::unordered_map<int64_t, const Ticket*> by_id;
  for (const Ticket& t : tickets.value()) by_id.emplace(t.id, &t);
  for (Event& e : out) {
    if (e.ticket_id == 0) continue;
    if (auto it = by_id.find(e.ticket_id); it != by_id.end()) {
      e.source.ticket = *it->second;
    } else {
      Ticket gone;  // cannot be (tickets are never deleted): told by its number alone
      gone.id = e.ticket_id;
      e.source.ticket = gone;
    }
  }
  return out;
}

Status NotifyOutbox::Route(const std::vector<Routing>& routings) {
  return store_.Run(
      [&](pqxx::work& w) {
        for (const Routing& rt : routings) {
          w.exec_params(
              "UPDATE notify_events SET routed_at = now(), notice = $2::jsonb, resolves = $3, "
              "silenced_by = $4 WHERE id = $1",
              rt.event_id, JsonText(NotificationJson(rt.notice)), rt.resolves, rt.silenced_by);
          if (rt.silenced_by) continue;
          for (const RouteMatch& m : rt.matches) {
            const int64_t group = GroupFor(w, store_.fabric(), m);
            w.exec_params(
                "INSERT INTO notify_group_events (group_id, event_id) VALUES ($1, $2) "
                "ON CONFLICT DO NOTHING",
                group, rt.event_id);
          }
        }
        return Status::Ok();
      },
      "notify_route");
}

Status NotifyOutbox::AddInputEvent(const std::string& kind, const std::string& input,
                                   const std::string& message) {
  return store_.Run(
      [&](pqxx::work& w) {
        w.exec_params(
            "UPDATE notify_events SET resolved_at = now() WHERE fabric = $1 AND subject = $2 "
            "AND ticket_id IS NULL AND resolved_at IS NULL",
            store_.fabric(), input);
        w.exec_params(
            "INSERT INTO notify_events (fabric, kind, subject, message, resolved_at) VALUES "
            "($1, $2, $3, $4, CASE WHEN $2 = 'input_ok' THEN now() END)",
            store_.fabric(), kind, input, message);
        return Status::Ok();
      },
      "notify_input");
}

Result<std::map<std::string, std::string>> NotifyOutbox::OpenInputEvents() {
  auto rows = Query(store_, "notify_inputs_open",
                    "SELECT DISTINCT ON (subject) subject, kind FROM notify_events WHERE fabric = "
                    "$1 AND ticket_id IS NULL AND resolved_at IS NULL ORDER BY subject, id DESC",
                    store_.fabric());
  if (!rows.ok()) return rows.status();
  std::map<std::string, std::string> out;
  for (const auto& row : rows.value()) out[row[0].as<std::string>()] = row[1].as<std::string>();
  return out;
}

Result<int> NotifyOutbox::FlushDue() {
  int written = 0;
  const std::string& fabric = store_.fabric();
  Status s = store_.Run(
      [&](pqxx::work& w) {
        auto due = w.exec_params(
            "SELECT id, receiver, pending_since IS NOT NULL FROM notify_groups WHERE fabric = $1 "
            "AND ((pending_since IS NOT NULL AND ((flushed_at IS NULL AND pending_since <= "
            "now() - make_interval(secs => group_wait_s)) OR (flushed_at IS NOT NULL AND "
            "flushed_at <= now() - make_interval(secs => group_interval_s)))) OR "
            "(pending_since IS NULL AND flushed_at <= now() - make_interval(secs => "
            "repeat_interval_s) AND NOT EXISTS (SELECT 1 FROM notify_deliveries d WHERE "
            "d.group_id = notify_groups.id AND d.state = 'pending'))) ORDER BY id FOR UPDATE "
            "SKIP LOCKED",
            fabric);
        for (const auto& row : due) {
          const int64_t group = row[0].as<int64_t>();
          const std::string receiver = row[1].as<std::string>();
          const bool wrote = row[2].as<bool>() ? FlushNew(w, fabric, group, receiver)
                                               : FlushRepeat(w, fabric, group, receiver);
          written += wrote ? 1 : 0;
        }
        return Status::Ok();
      },
      "notify_flush");
  if (!s.ok()) return s;
  return written;
}

Result<std::vector<NotifyOutbox::Delivery>> NotifyOutbox::Due(int limit) {
  auto rows =
      Query(store_, "notify_due",
            "SELECT id, receiver, idempotency_key, notifications, attempts, "
            "extract(epoch FROM now() - created_at) FROM notify_deliveries d WHERE fabric = $1 "
            "AND state = 'pending' AND next_try_at <= now() AND NOT EXISTS (SELECT 1 FROM "
            "notify_deliveries o WHERE o.fabric = d.fabric AND o.receiver = d.receiver AND "
            "o.state = 'pending' AND o.id < d.id AND o.next_try_at > now()) ORDER BY id LIMIT $2",
            store_.fabric(), limit);
  if (!rows.ok()) return rows.status();
  std::vector<Delivery> out;
  for (const auto& row : rows.value()) {
    Delivery d;
    d.id = row[0].as<int64_t>();
    d.receiver = row[1].as<std::string>();
    d.message.idempotency_key = row[2].as<std::string>();
    d.message.fabric = store_.fabric();
    d.message.receiver = d.receiver;
    const nlohmann::json items = ParseJson(row[3]);
    if (items.is_array()) {
      for (const auto& j : items) d.message.notifications.push_back(NotificationFromJson(j));
    }
    d.attempts = row[4].as<int>();
    d.age_s = row[5].as<double>();
    out.push_back(std::move(d));
  }
  return out;
}

Status NotifyOutbox::Delivered(int64_t id, long status) {
  return Exec(store_, "notify_delivered",
              "UPDATE notify_deliveries SET state = 'delivered', attempts = attempts + 1, "
              "last_status = $2, last_error = '', delivered_at = now() WHERE id = $1",
              id, static_cast<int>(status));
}

Status NotifyOutbox::Failed(int64_t id, long status, const std::string& error, double retry_in_s) {
  return Exec(store_, "notify_failed",
              "UPDATE notify_deliveries SET attempts = attempts + 1, last_status = NULLIF($2, 0), "
              "last_error = $3, next_try_at = now() + make_interval(secs => $4) WHERE id = $1",
              id, static_cast<int>(status), error, retry_in_s);
}

Status NotifyOutbox::Ended(int64_t id, const std::string& state, long status,
                           const std::string& error) {
  return Exec(store_, "notify_ended",
              "UPDATE notify_deliveries SET state = $2, attempts = attempts + 1, "
              "last_status = NULLIF($3, 0), last_error = $4 WHERE id = $1",
              id, state, static_cast<int>(status), error);
}

Result<int64_t> NotifyOutbox::Prune(int days) {
  int64_t removed = 0;
  Status s = store_.Run(
      [&](pqxx::work& w) {
        // Events old enough, routed, and resolved (or never to be), with their group rows; a
        // group row whose message is still pending keeps its event.
        const std::string old_events =
            "SELECT e.id FROM notify_events e LEFT JOIN tickets t ON t.id = e.ticket_id "
            "WHERE e.fabric = $1 AND e.routed_at IS NOT NULL AND e.at < now() - make_interval("
            "days => $2) AND NOT (e.resolves AND e.resolved_at IS NULL AND (t.id IS NULL OR "
            "t.state <> 'closed')) AND NOT EXISTS (SELECT 1 FROM notify_group_events ge JOIN "
            "notify_deliveries d ON d.id = ge.delivery_id WHERE ge.event_id = e.id AND d.state "
            "= 'pending') AND NOT EXISTS (SELECT 1 FROM notify_group_events ge WHERE "
            "ge.event_id = e.id AND ge.delivery_id IS NULL)";
        // One statement: the group rows go with their events (the keys are checked at its end).
        removed += w.exec_params("WITH old AS (" + old_events +
                                     "), rows AS (DELETE FROM notify_group_events WHERE event_id "
                                     "IN (SELECT id FROM old)) DELETE FROM notify_events WHERE id "
                                     "IN (SELECT id FROM old)",
                                 store_.fabric(), days)
                       .affected_rows();
        removed += w.exec_params(
                        "DELETE FROM notify_deliveries d WHERE fabric = $1 AND state <> 'pending' "
                        "AND created_at < now() - make_interval(days => $2) AND NOT EXISTS "
                        "(SELECT 1 FROM notify_group_events ge WHERE ge.delivery_id = d.id)",
                        store_.fabric(), days)
                       .affected_rows();
        return Status::Ok();
      },
      "notify_prune");
  if (!s.ok()) return s;
  return removed;
}

Result<nlohmann::json> NotifyOutbox::Failing(int limit) {
  auto rows =
      Query(store_, "notify_failing",
            "SELECT id, receiver, state, attempts, last_error, last_status, "
            "extract(epoch FROM created_at), extract(epoch FROM next_try_at), "
            "notifications->0->>'title', jsonb_array_length(notifications) "
            "FROM notify_deliveries WHERE fabric = $1 AND ((state = 'pending' AND attempts > 0) "
            "OR (state IN ('refused', 'expired') AND created_at > now() - interval '1 day')) "
            "ORDER BY id DESC LIMIT $2",
            store_.fabric(), limit);
  if (!rows.ok()) return rows.status();
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : rows.value()) {
    out.push_back(
        {{"id", row[0].as<int64_t>()},
         {"receiver", row[1].as<std::string>()},
         {"state", row[2].as<std::string>()},
         {"attempts", row[3].as<int>()},
         {"last_error", row[4].as<std::string>()},
         {"last_status", row[5].is_null() ? nlohmann::json() : nlohmann::json(row[5].as<int>())},
         {"created_at", FormatIsoTime(FromEpochSeconds(row[6].as<double>()))},
         {"next_try_at", row[2].as<std::string>() == "pending"
                             ? nlohmann::json(FormatIsoTime(FromEpochSeconds(row[7].as<double>())))
                             : nlohmann::json()},
         {"title", row[8].is_null() ? std::string() : row[8].as<std::string>()},
         {"notifications", row[9].as<int>()}});
  }
  return out;
}

Result<std::map<std::pair<std::string, std::string>, int64_t>> NotifyOutbox::Counts() {
  auto rows = Query(store_, "notify_counts",
                    "SELECT receiver, CASE WHEN state = 'pending' AND attempts > 0 THEN "
                    "'pending_failing' ELSE state END, count(*) FROM notify_deliveries WHERE "
                    "fabric = $1 GROUP BY 1, 2",
                    store_.fabric());
  if (!rows.ok()) return rows.status();
  std::map<std::pair<std::string, std::string>, int64_t> out;
  for (const auto& row : rows.value()) {
    out[{row[0].as<std::string>(), row[1].as<std::string>()}] = row[2].as<int64_t>();
  }
  return out;
}

}  // namespace ufmr
