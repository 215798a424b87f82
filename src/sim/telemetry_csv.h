// The simulated UFM Telemetry's answer to /csv/metrics and /labels/csv/metrics: one CSV row per
// port with its cumulative counters, named as UFM Telemetry names them (the labelled form adds
// the node description and the port label). Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/clock.h"
#include "sim/sim_state.h"
#include "sim/topology.h"

namespace ufmr::sim {

// The CSV for `ports` (a SimState::Ports() snapshot) at `now`, with `source` as each row's
// source_id.
std::string TelemetryCsv(const Topology& topology, const std::vector<PortStatus>& ports,
                         TimePoint now, const std::string& source, bool with_labels);

}  // namespace ufmr::sim
