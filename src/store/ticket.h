// Ticket, TicketEvent and PortAction: the rows datacenter staff and the service share, and the
// ticket state machine (which transitions are allowed, and which states accept a repair report).
// Plain data and pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ufmr {

namespace ticket_state {
inline constexpr const char* kOpen = "open";                       // filed; action not yet done
inline constexpr const char* kPortDisabled = "port_disabled";      // we hold the port disabled
inline constexpr const char* kTicketOnly = "ticket_only";          // no action by us (guard/rule)
inline constexpr const char* kAcknowledged = "acknowledged";       // staff took it
inline constexpr const char* kRepairReported = "repair_reported";  // staff say it is fixed
inline constexpr const char* kVerifying = "verifying";             // re-enabled; soaking
inline constexpr const char* kClosed = "closed";
inline constexpr const char* kEscalated = "escalated";  // failed verification too often
inline constexpr const char* kDraining = "draining";    // its host is draining; the cut waits
inline constexpr const char* kDrained = "drained";      // its host is drained; the cut is under way
}  // namespace ticket_state

bool IsKnownTicketState(const std::string& s);
// States in which staff may report the repair.
bool AcceptsRepairReport(const std::string& state);
bool AcceptsAcknowledge(const std::string& state);
struct Ticket;
// Whether a rule that acts may upgrade this open ticket (file its cut): only one that never asked
// for a port action. Not one reopened after a repair (a history a person must judge), one a
// person took over (drift: a port re-enabled, a node resumed), nor one whose action UFM refused
// or whose host the job scheduler would not drain.
bool RuleMayUpgrade(const Ticket& t);

struct Ticket {
  int64_t id = 0;
  std::string fabric;
  std::string link_key;
  std::string port_a;
  std::string port_b;
  std::string state;
  std::string rule;
  std::string reason;
  std::string action_port;
  bool disabled_by_us = false;
  int attempts = 0;
  std::string acknowledged_by;
  std::optional<double> soak_until;  // epoch seconds
  double created_at = 0;
  double updated_at = 0;
  std::optional<double> closed_at;
  std::string method = "disable";  // how the service takes the port out: disable | isolate
  std::string guard;               // the guard that kept the service's hands off, if one did
  std::string explanation;         // the evidence in plain words
  std::string repair_kind;         // what staff last reported doing (repair_kind::)
  int repeat_count = 0;            // read only: earlier tickets on the same link (repeat offenders)
  std::string severity = "major";  // the rule's: critical, major, minor, warning, info
  int priority = 2;                // read only: 1 (most urgent) .. 4, from state and severity
  std::string assigned_to;         // who works it ("" nobody)
  std::string resolution;          // how it ended (resolution::), "" while not closed
  std::string resolution_note;     // e.g. why it will not be fixed
  // Where the link is, as UFM's inventory said when the ticket was filed (TicketPlace).
  std::string switch_name;
  std::string rack;
  std::string host_name;
  nlohmann::json ends = nlohmann::json::array();  // both ends: names, labels, GUIDs, cable serial
  // The ends as stored (JSON text), instead of `ends`, when the ticket was read for a list that
  // asked not to parse them (TicketQuery::unparsed_ends).
  std::string ends_text;
  std::string search_text;  // what a search matches, lower-case
  // The jobs on the ticket's host when it opened, from the job scheduler ([{id, user, name,
  // nodes, state}]); null when not looked up.
  nlohmann::json host_jobs;
};

// How a ticket ended.
namespace resolution {
inline constexpr const char* kRepaired = "repaired";  // the repair held through the soak
inline constexpr const char* kWontFix = "wont_fix";   // closed by a person, with a reason
inline constexpr const char* kRearmed = "rearmed";    // a storm ticket, closed by the re-arm
}  // namespace resolution

// What staff report they did to repair a link.
namespace repair_kind {
inline constexpr const char* kReseat = "reseat";
inline constexpr const char* kCableReplaced = "cable_replaced";
inline constexpr const char* kTransceiverReplaced = "transceiver_replaced";
inline constexpr const char* kSwitchPortReplaced = "switch_port_replaced";
inline constexpr const char* kHcaReplaced = "hca_replaced";
inline constexpr const char* kOther = "other";  // needs a note
}  // namespace repair_kind
bool IsKnownRepairKind(const std::string& kind);
// "cable replaced", ...: for people.
std::string RepairKindWords(const std::string& kind);

// Whether people are told of a timeline event of this kind (notify/): a ticket opened (a storm
// ticket's is the breaker tripping), a failed soak, an escalation, drift, the soak passed (closed
// as repaired), the breaker re-armed. Store::Tx::AddEvent records these for the notifier too.
bool IsNotifiedEventKind(const std::string& kind);

struct TicketEvent {
  int64_t id = 0;
  int64_t ticket_id = 0;
  double at = 0;
  std::string kind;
  std::string actor;
  std::string message;
  nlohmann::json details;
};

namespace action_state {
inline constexpr const char* kPending = "pending";
inline constexpr const char* kSubmitted = "submitted";
inline constexpr const char* kConfirmed = "confirmed";
inline constexpr const char* kFailed = "failed";
inline constexpr const char* kSkipped = "skipped";
inline constexpr const char* kWaiting = "waiting";  // a cut waiting for its host's drain
}  // namespace action_state

struct PortAction {
  int64_t id = 0;
  std::string fabric;
  int64_t ticket_id = 0;
  std::string port;
  std::string system_guid;
  std::string action;  // "disable" | "enable" | "isolate" | "unisolate"
  std::string state;
  std::string reason;
  std::string job_id;
  std::string error;
  double created_at = 0;
  double updated_at = 0;
  int tries = 0;                       // transient failures so far
  std::optional<double> next_try_at;   // epoch seconds; not retried before
  bool announced = false;              // UFM external event posted
  std::optional<double> confirmed_at;  // epoch seconds
  // Takes a port out of service (disable, isolate), or brings it back (enable, unisolate).
  bool cuts() const { return action == "disable" || action == "isolate"; }
};

// An alert about the intake (lost or replayed events, ...): a banner until a person dismisses it.
struct Alert {
  int64_t id = 0;
  std::string kind;
  std::string message;
  nlohmann::json details;
  double created_at = 0;
};

}  // namespace ufmr
