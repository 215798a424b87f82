// Decision: what the service does about one Finding, and why, and the world the decision stage
// asks (DecisionContext) under a policy (DecisionPolicy). The decision stage is the one path both
// the live service and `replay` take. The Decider (decide/guards/decider.h) checks the finding
// against its guards, in order (decide/guards/guard_list.h, one file per guard): inhibition (a
// switch or node reboot covers its ports), silences, an already open ticket, the rule's mode
// (shadow records, never acts) and action, a port UFM does not know; then whether acting is safe: a
// port a person disabled or isolated is theirs; never leave a host or switch short of active links;
// a per-port cooldown; the circuit breaker; caps (fabric-wide absolute and percent, per switch); a
// rate limit; dry run. It asks the world through DecisionContext: the service answers from
// PostgreSQL and UFM, replay from memory.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "decide/silence.h"
#include "rules/finding.h"
#include "ufm/inventory.h"

namespace ufmr {

enum class DecisionKind { kFinding, kDisable, kIsolate, kTicket, kSuppressed, kBlocked };
const char* DecisionKindName(DecisionKind k);

struct Decision {
  TimePoint time;
  std::string rule;
  DecisionKind kind = DecisionKind::kFinding;
  std::string port;         // the port to act on, or the link's first end (port and link scopes)
  std::string peer;         // the other end, when known
  std::string switch_name;  // switch scope
  std::string node;         // node scope
  std::string entity;       // the finding's link key, or "switch:<key>" / "node:<key>"
  std::string reason;       // the finding's reason, then what the decision stage made of it
  std::string note;         // what the decision stage made of it, alone
  // Why not acted on, as a stable word: inhibited, silenced, open_ticket, shadow, log_only,
  // ticket_only, no_port, manual, last_link, cooldown, breaker, cap, switch_cap, rate_limit,
  // dry_run. Empty for disable and isolate.
  std::string guard;
  // open_ticket: the ticket that already covers the entity. With disable/isolate: the open
  // ticket-only ticket this decision upgrades (a stronger rule fired on the same link).
  std::optional<int64_t> ticket_id;
  std::optional<int64_t> silence_id;  // silenced
  std::string rules_hash;
  std::string mode;
  std::string severity;
  std::string title;        // rendered
  std::string repair_hint;  // rendered
  // With disable: the host (as UFM names it) to drain in the job scheduler before the cut.
  std::string drain_host;

  bool acts() const { return kind == DecisionKind::kDisable || kind == DecisionKind::kIsolate; }
  // The replay line: time (ISO 8601), rule, decision, port, peer, switch, node, reason, ...
  nlohmann::json ToJson() const;
  // The same object as ToJson().dump(), written straight into *out (replay writes one per
  // finding: building the JSON tree first cost more than deciding); invalid UTF-8 becomes U+FFFD.
  void AppendJson(std::string* out) const;
};

// The world as the decision stage needs it.
class DecisionContext {
 public:
  virtual ~DecisionContext() = default;
  // What the inventory knows of the port, or null when it does not know it. The context keeps
  // what it answers until it is destroyed or its world changes (not within one decision), so the
  // guards read the port without copying it.
  virtual const PortInfo* Port(const std::string& name) = 0;
  struct OpenTicketInfo {
    int64_t id = 0;
    bool acted = false;  // a port action was (or is being) taken for it
  };
  // The open ticket covering this entity (a link key, "switch:<key>" or "node:<key>"), if any.
  virtual std::optional<OpenTicketInfo> OpenTicket(const std::string& entity) = 0;
  virtual const Silence* Silenced(const SilenceSubject& subject, TimePoint t) = 0;
  // Whether any silence is known at all (none: the silenced guard has nothing to match against,
  // and builds no subject).
  virtual bool AnySilences() = 0;
  // Why a person owns this port (disabled or isolated it by hand), or "" when they do not.
  virtual std::string OwnedByPerson(const std::string& port) = 0;
  // Ports this service holds out of service right now: disabled or isolated by it, or with an
  // intent to be (pending actions count: they are about to be).
  virtual std::vector<std::string> HeldPorts() = 0;
  // How many ports UFM reports in the fabric (the percent cap's base).
  virtual int FabricPorts() = 0;
  // Every port of the node (switch or host) the given port sits on, itself included; empty when
  // the node's links are not known (the last-link guard then does not judge it).
  virtual std::vector<NodeLink> NodeLinks(const PortInfo& port) = 0;
  // Ports this service took out of service (disable or isolate intents) at or after `since`.
  virtual int ActionsSince(TimePoint since) = 0;
  // When this service last acted on the port (any action it recorded), if ever.
  virtual std::optional<TimePoint> LastActionOn(const std::string& port) = 0;
  // The circuit breaker: tripped (no port is cut until a person re-arms it)?
  virtual bool BreakerTripped() = 0;
  // Counts a finding that reached the breaker and answers how many did within `window_s` up to
  // `t`, this one included.
  virtual int CountActingFinding(TimePoint t, double window_s) = 0;
  // The finding `d` is the one that trips the breaker (`count` within the window).
  virtual void TripBreaker(const Decision& d, int count) = 0;
};

struct DecisionPolicy {
  bool dry_run = false;
  int max_disabled_ports = 20;
  double max_disabled_percent = 10;  // of FabricPorts(); 0: none
  int max_disabled_per_switch = 3;   // 0: none
  int max_actions_per_hour = 10;     // 0: none
  double port_cooldown_s = 3600;     // 0: none
  int min_active_links_host = 1;
  int min_active_links_switch = 1;
  int breaker_findings = 20;  // 0: no breaker
  double breaker_window_s = 300;
  // The live service needs a port's system GUID to act on it; replay does not.
  bool require_system_guid = true;
  // A job scheduler is configured (scheduler.backend): a host may be drained before its link is
  // cut, when the cut is held back only by last_link on the host (drain_on_last_link) or the rule
  // asks for it (drain_then_disable).
  bool scheduler = false;
  bool drain_on_last_link = true;
};

// The port to act on: the switch side (UFM can always reach it, and disabling it takes the link
// out whatever state the host is in); else any end UFM knows. "" when none.
// Each end with what the inventory knows of it (null: unknown).
std::string ActionPort(const std::vector<std::pair<std::string_view, const PortInfo*>>& ends,
                       bool require_system_guid);

// The node a port sits on, for a person: its system name, else its node description up to ':'.
std::string_view NodeName(const PortInfo* info);
// The host a port sits on, as the job scheduler would name it: its machine (PortInfo::host:
// "r-ufm77" of "r-ufm77 mlx5_0"), else its system name, else its node description's first word
// ("gpu-node-0001" of "gpu-node-0001 HCA-1").
std::string_view HostNameOf(const PortInfo* info);

// Fills {placeholders} (see TemplatePlaceholders) from the decision, the finding and the ports.
std::string RenderTemplate(const std::string& tmpl, const Decision& d, const Finding& f,
                           DecisionContext& ctx);
// The same, with what the inventory knows of the decision's port and peer already looked up.
std::string RenderTemplate(const std::string& tmpl, const Decision& d, const Finding& f,
                           const PortInfo* port, const PortInfo* peer);
// The same, for a template parsed once (a rule's: Finding::title_template).
std::string RenderTemplate(const MessageTemplate& tmpl, const Decision& d, const Finding& f,
                           const PortInfo* port, const PortInfo* peer);

}  // namespace ufmr
