// NotifyOutbox: the notification tables in PostgreSQL (schema/011_notify.sql), as the notifier
// and the API use them. Events are read once to be routed; routing puts each into its receivers'
// groups in one transaction; a due group's flush writes one message (a delivery) and marks its
// events sent, in one transaction; a delivery is then tried until the receiver takes it, refuses
// it or it expires. Times are the database's (now()), so every instance of a fabric agrees.
// Thread-safe (each call is its own transaction).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "notify/message.h"
#include "notify/notice.h"
#include "notify/route.h"

namespace ufmr {

class Store;

class NotifyOutbox {
 public:
  explicit NotifyOutbox(Store& store) : store_(store) {}

  // An event not yet routed, with its ticket and the ticket's first decision.
  struct Event {
    int64_t id = 0;
    int64_t ticket_id = 0;  // 0: an input's
    NoticeSource source;
  };
  // The oldest events not yet routed, at most `limit`.
  Result<std::vector<Event>> Unrouted(int limit);

  // Where one event goes: its notification, and its groups (none: told to nobody).
  struct Routing {
    int64_t event_id = 0;
    Notification notice;
    bool resolves = false;               // NoticeKindResolves
    std::optional<int64_t> silenced_by;  // a silence covered it: no groups
    std::vector<RouteMatch> matches;
  };
  // Records the routings in one transaction: each event routed, and joined to its groups.
  Status Route(const std::vector<Routing>& routings);

  // An input's health: input_stale or input_failing (a new, unresolved event) or input_ok (which
  // resolves the input's open ones).
  Status AddInputEvent(const std::string& kind, const std::string& input,
                       const std::string& message);
  // Inputs with an unresolved stale or failing event, and its kind.
  Result<std::map<std::string, std::string>> OpenInputEvents();

  // Writes a message for every group that is due: its new events after group_wait (the first
  // message) or group_interval (later ones); or, repeat_interval after its last message, a
  // reminder of what is still unresolved. Returns the number of messages written.
  Result<int> FlushDue();

  // A message to send.
  struct Delivery {
    int64_t id = 0;
    std::string receiver;
    Message message;
    int attempts = 0;
    double age_s = 0;  // since it was written
  };
  // Pending deliveries whose time has come, oldest first; a receiver's wait behind its oldest
  // (each receiver gets its messages in the order they were written).
  Result<std::vector<Delivery>> Due(int limit);
  Status Delivered(int64_t id, long status);
  // A failed try, to be tried again after `retry_in_s`.
  Status Failed(int64_t id, long status, const std::string& error, double retry_in_s);
  // A message that will not be sent again: `state` refused or expired, and why.
  Status Ended(int64_t id, const std::string& state, long status, const std::string& error);

  // Forgets what is older than `days`: messages ended (delivered, refused, expired) and the
  // events they carried, unless an event is still unresolved (its reminders go on).
  Result<int64_t> Prune(int days);

  // What the dashboard shows of deliveries that are failing: pending after a failed try, or
  // refused or expired in the last day. Newest first.
  Result<nlohmann::json> Failing(int limit);
  // Deliveries by receiver and state ("pending_failing": pending after a failed try), for the
  // metrics.
  Result<std::map<std::pair<std::string, std::string>, int64_t>> Counts();

 private:
  Store& store_;
};

}  // namespace ufmr
