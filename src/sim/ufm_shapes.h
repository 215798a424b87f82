// UfmShapes: how ufm-sim writes UFM's objects (events, ports, links, jobs, unhealthy ports) in
// the shapes NVIDIA's UFM Enterprise REST API guide prints them, for the UFM version and the
// disabled-port reading the simulator was started with. docs/UFM.md names each shape's source.
// Pure functions of their arguments; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "sim/sim_state.h"
#include "sim/topology.h"

namespace ufmr::sim {

// "6.22", "6.19.3" -> 622, 619; nullopt for anything else.
std::optional<int> ParseUfmVersion(const std::string& text);

class UfmShapes {
 public:
  using Json = nlohmann::ordered_json;

  // `ufm_version`: major * 100 + minor. `disabled_state`: "physical", "logical" or "ambiguous"
  // (see SimServerOptions).
  UfmShapes(int ufm_version, std::string disabled_state)
      : version_(ufm_version), disabled_state_(std::move(disabled_state)) {}

  // Before 6.17 "type" holds the event id and the timestamp has milliseconds.
  Json Event(const sim::Event& e) const;
  // A port object: no "label" (dname is the label), no cable serial (links carry it).
  Json Port(const Topology& topology, const PortStatus& s, const PortStatus& peer) const;
  // {logical_state, physical_state} of a port.
  std::pair<std::string, std::string> PortStates(const PortStatus& s) const;
  // A link as the version prints it: from 6.20 with *_port_name and *_port_node_description;
  // before, a host end by its system's GUID. With `cable_info` the cable as a nested object.
  Json Link(const Topology& topology, int link, const std::vector<PortStatus>& ports,
            bool cable_info) const;
  Json Job(const Topology& topology, const sim::Job& job) const;
  // An entry of GET /app/unhealthy_ports (6.11 to 6.22).
  Json UnhealthyEntry(const Topology& topology, const Isolation& i) const;
  // GET /app/unhealthy_ports/<port> (6.19+): one port, Condition a list.
  Json UnhealthyPort(const Topology& topology, const Isolation& i, const PortStatus& s) const;
  bool serves_single_unhealthy_port() const { return version_ >= 619; }

 private:
  int version_;
  std::string disabled_state_;
};

}  // namespace ufmr::sim
