// NoticeOf: one thing that happened (a ticket's timeline event, or an input's health changing),
// put in words for people: a Notification whose title says what and where in one line, whose
// text says what happened, what the service did and what to do, with the labels routes match on
// and a link to the ticket page. Plain data and pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/clock.h"
#include "notify/message.h"
#include "store/ticket.h"

namespace ufmr {

// What a notify_events row says, with what its ticket and decision add.
struct NoticeSource {
  // The timeline event's kind (opened, soak_failed, escalated, drift, soak_passed, rearmed), or
  // input_stale, input_failing, input_ok.
  std::string kind;
  std::string message;  // the timeline event's, or the input's last error
  TimePoint at;
  std::string fabric;
  std::optional<Ticket> ticket;
  nlohmann::json decision;  // the ticket's first decision (Decision::ToJson), or null
  std::string input;        // an input's name (input events)
};

// The notification kinds: ticket_opened, breaker_tripped, soak_failed, escalated, drift,
// repaired, breaker_rearmed, input_stale, input_failing, input_ok.
std::string NoticeKind(const NoticeSource& s);
// Whether a notification of this kind stays unresolved until its ticket closes (or its input is
// healthy again): those are repeated while so.
bool NoticeKindResolves(const std::string& kind);

// `dashboard_url` "" gives no link.
Notification NoticeOf(const NoticeSource& s, const std::string& dashboard_url);

// A notification as stored (notify_events.notice) and back.
nlohmann::json NotificationJson(const Notification& n);
Notification NotificationFromJson(const nlohmann::json& j);

}  // namespace ufmr
