// NodeDrain: one drain of a host's node in the job scheduler for one ticket (a node_drains row),
// and its states: the outbox the DrainWorker (act/drain_worker.h) carries out. Plain data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ufmr {

namespace drain_state {
inline constexpr const char* kPending = "pending";    // recorded; not yet asked of the scheduler
inline constexpr const char* kDraining = "draining";  // asked for; the node's jobs are ending
inline constexpr const char* kDrained = "drained";    // no jobs left; the ticket's cut released
inline constexpr const char* kResuming = "resuming";  // the repair held: resume, if still ours
inline constexpr const char* kResumed = "resumed";    // given back to the scheduler
inline constexpr const char* kReleased = "released";  // left as it is, and why (note)
// Left drained for another of the service's tickets on the node, under this drain's reason (so
// that ticket may still resume it).
inline constexpr const char* kHandedOver = "handed_over";
inline constexpr const char* kFailed = "failed";  // the scheduler refused the drain
}  // namespace drain_state

struct NodeDrain {
  int64_t id = 0;
  int64_t ticket_id = 0;
  std::string host;        // as UFM names it
  std::string node;        // as the scheduler names it
  std::string reason;      // what the scheduler shows: "ufm-remediator #42: <rule> on <port>"
  int64_t cut_action = 0;  // the port action waiting for the drain (0: none)
  std::string state = drain_state::kPending;
  std::string note;
  int tries = 0;                      // scheduler failures in a row
  std::optional<double> next_try_at;  // epoch seconds; not asked again before
  std::optional<double> sent_at;      // epoch seconds the scheduler took it (or it was found)
  bool escalated = false;             // the drain outlasted scheduler.drain_deadline_s
  // A person had drained the node already: waited for, never the service's (never counted
  // under its cap, never resumed by it).
  bool by_person = false;
  double created_at = 0;
  double updated_at = 0;
};

// The reason a drain for `ticket_id` gives the scheduler; a node whose reason starts with
// DrainReasonPrefix(ticket_id) is drained for that ticket.
std::string DrainReason(int64_t ticket_id, const std::string& rule, const std::string& port);
std::string DrainReasonPrefix(int64_t ticket_id);

}  // namespace ufmr
