// The bodies the simulator is sent, read and checked before they touch its state: a fault (POST
// /sim/faults), a port action (POST /ufmRest/actions), a change of ports' health (PUT
// /app/unhealthy_ports), a person's action in UFM's GUI (POST /sim/operator) and an external event
// (POST /app/events/external_event). Each answers InvalidArgument for a bad body and NotFound for
// an unknown port, switch or node, with the message the simulator's API sends back. Pure
// functions over an immutable Topology; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "sim/sim_event.h"
#include "sim/sim_state.h"
#include "sim/topology.h"

namespace ufmr::sim {

// The fault asked for: its kind and parameters, and the link it is on (link faults) or the switch
// or host that reboots (reboots). Its id, times and bookkeeping are the state's to set.
Result<Fault> ReadFault(const nlohmann::json& body, const Topology& topology);

// A port action: "disable" or "enable" on a port (index into topology.ports()), named with its
// system's GUID.
struct ActionRequest {
  std::string action;
  std::string description;
  int port = -1;
};
Result<ActionRequest> ReadAction(const nlohmann::json& body, const Topology& topology);

// Ports to isolate ("UNHEALTHY") or make healthy ("HEALTHY"), each once, in the order given.
struct HealthRequest {
  std::string policy;
  std::vector<int> ports;
};
Result<HealthRequest> ReadPortsHealth(const nlohmann::json& body, const Topology& topology);

// "disable", "enable", "isolate" or "healthy" on a port.
struct OperatorRequest {
  std::string action;
  int port = -1;
};
Result<OperatorRequest> ReadOperatorAction(const nlohmann::json& body, const Topology& topology);

// The UFM event (551..554) an external event becomes; its id and time are the state's to set.
Result<Event> ReadExternalEvent(const nlohmann::json& body);

}  // namespace ufmr::sim
