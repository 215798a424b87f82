// The guards of the decision stage, one file each in this folder, and the list the Decider checks
// them in. The order is the documented one (docs/ARCHITECTURE.md, stage 5): first what the
// finding asks for (inhibited, silenced, open_ticket, shadow, log_only, ticket_only, no_port),
// then whether acting on the fabric is safe (manual, the port already held, last_link, cooldown,
// breaker, cap, switch_cap, rate_limit, dry_run). A new guard is a new file here, a line below
// and a place in DecisionGuards(). Guards are immutable: thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "decide/guards/guard.h"

namespace ufmr {

// A switch or node finding covers this one (Finding::inhibited_by).
std::unique_ptr<Guard> MakeInhibitedGuard();
// A silence in force names a port of the link, its switch or its host.
std::unique_ptr<Guard> MakeSilencedGuard();
// The entity has an open ticket (unless an acting rule upgrades a ticket-only one).
std::unique_ptr<Guard> MakeOpenTicketGuard();
// The rule is in shadow mode: recorded, never acted on.
std::unique_ptr<Guard> MakeShadowGuard();
// The rule's action is log_only.
std::unique_ptr<Guard> MakeLogOnlyGuard();
// The rule's action is ticket_only.
std::unique_ptr<Guard> MakeTicketOnlyGuard();
// No end of the link is known to UFM (with a system GUID when required): nothing to act on.
std::unique_ptr<Guard> MakeNoPortGuard();
// A port of the link is in a person's hands.
std::unique_ptr<Guard> MakeManualGuard();
// The port to act on is already held out of service for another ticket (guard word open_ticket).
std::unique_ptr<Guard> MakeHeldPortGuard();
// A host or switch of the link would be left short of active links.
std::unique_ptr<Guard> MakeLastLinkGuard();
// This service acted on a port of the link within the cooldown.
std::unique_ptr<Guard> MakeCooldownGuard();
// The circuit breaker is tripped, or this finding trips it.
std::unique_ptr<Guard> MakeBreakerGuard();
// The fabric-wide caps on ports held out of service: absolute, then percent of the fabric.
std::unique_ptr<Guard> MakeCapGuard();
// The cap on links held out of service on one switch.
std::unique_ptr<Guard> MakeSwitchCapGuard();
// The hourly rate limit on ports taken out of service.
std::unique_ptr<Guard> MakeRateLimitGuard();
// Dry run: decide and record, never act.
std::unique_ptr<Guard> MakeDryRunGuard();

// Every guard above, in the order they are checked.
std::vector<std::unique_ptr<Guard>> DecisionGuards();

}  // namespace ufmr
