// The silence routes of the HTTP API: GET/POST /api/silences and POST /api/silences/{id}/expire.
// Api::Register mounts them behind the AuthGate (reads need a login, changes an engineer); they
// need only the store and the clock, so tests can mount them alone. The handlers run on the HTTP
// server's threads; the store and the clock are thread-safe.
#pragma once

#include "api/auth_gate.h"
#include "base/clock.h"
#include "http/http_server.h"
#include "store/store.h"

namespace ufmr {

// Adds the silence routes to `router`, behind `gate`. Without a gate (tests only) the routes are
// open and the body's "by" names the person. The store, the clock and the gate must outlive the
// router.
void RegisterSilenceRoutes(HttpRouter& router, Store& store, const Clock& clock,
                           const AuthGate* gate = nullptr);

}  // namespace ufmr
