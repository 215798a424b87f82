// Message: what one receiver is sent at once: one or more notifications (a ticket opened, a
// failed soak, the breaker tripped, ... or a test), each in plain words with where it happened,
// what was done, what to do and a link to the ticket page; and the key that makes a delivery
// idempotent (the same message sent twice carries the same key). Rendered per receiver type:
// a generic webhook's JSON (schema/notification.schema.json), a Slack-compatible incoming
// webhook's {"text": ...}. Plain data and pure functions.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/clock.h"

namespace ufmr {

struct Notification {
  std::string kind;      // test | ticket_opened | soak_failed | escalated | breaker_tripped | ...
  std::string severity;  // info | warning | critical, or the rule's severity
  std::string title;     // one line
  std::string text;      // what happened, what was done, what to do, in plain words
  TimePoint at;
  std::string url;  // the ticket page, or ""
  // Where and what: fabric, rule, switch, port (label), host, rack, ticket; only those known.
  std::map<std::string, std::string> labels;
};

struct Message {
  std::string idempotency_key;  // unique per message; the same on every retry of it
  std::string fabric;
  std::string receiver;  // the receiver's name
  std::vector<Notification> notifications;
};

// The generic webhook's body (version 1): see schema/notification.schema.json.
nlohmann::json WebhookBody(const Message& m);
// A Slack-compatible incoming webhook's body: {"text": ...} in Slack's markup (mrkdwn), one
// paragraph per notification, links as <url|Ticket #N>; past about 30,000 characters (Slack cuts
// a message at 40,000) the rest is counted, not shown.
nlohmann::json SlackBody(const Message& m);

// A test message for `notify test`: says where it comes from and links to the dashboard.
Message TestMessage(const std::string& fabric, const std::string& receiver,
                    const std::string& dashboard_url, TimePoint now);

}  // namespace ufmr
