// The storm ticket: when the circuit breaker trips (too many findings would act within its
// window), one ticket stands for the whole storm instead of one per link, and every finding the
// breaker holds back is listed on it (held_back). Both run in the caller's transaction.
// Stateless; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/metrics.h"
#include "config/config.h"
#include "decide/decision.h"
#include "store/store.h"

namespace ufmr {

// The breaker trips: the storm ticket (`count` findings in the window; an open one left from an
// earlier trip is reused) and the breaker's row.
void OpenStormTicket(Store::Tx& tx, const Config::Remediation& remediation, Metrics& metrics,
                     int count, const nlohmann::json& evidence);
// A finding the breaker held back: its decision (with its trigger, act/decided_once.h), and
// evidence on the storm ticket.
void RecordHeldBack(Store::Tx& tx, const Finding& f, const Decision& d, const std::string& trigger);

}  // namespace ufmr
