#include "sim/telemetry_csv.h"

#include <chrono>
#include <cstdint>

namespace ufmr::sim {

namespace {

std::string Hex0x(const std::string& guid) { return "0x" + guid; }

// A CSV field, quoted (RFC 4180) when it holds a comma, a quote or a line break.
std::string CsvField(const std::string& v) {
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// The port number a telemetry row carries. A switch port: UFM's number. A host (HCA) port: the
// HCA's place on its host (HCA-k: k), while UFM numbers every HCA port 1. NVIDIA's own plugins
// warn that a host's port_num in the telemetry is not UFM's and match host rows by port_guid
// alone; the simulator makes the two differ (from HCA-2 on) so that only port_guid names a host
// row right. Node_GUID is the host's system GUID, not the port GUID, so it cannot stand in either.
int TelemetryPortNumber(const Topology& topology, const Port& p) {
  if (p.is_switch || p.node < 0) return p.number;
  const std::vector<int>& hcas = topology.nodes()[static_cast<size_t>(p.node)].ports;
  for (size_t k = 0; k < hcas.size(); ++k) {
    if (&topology.ports()[static_cast<size_t>(hcas[k])] == &p) return static_cast<int>(k) + 1;
  }
  return p.number;
}

}  // namespace

std::string TelemetryCsv(const Topology& topology, const std::vector<PortStatus>& ports,
                         TimePoint now, const std::string& source, bool with_labels) {
  const long long micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  std::string csv = "timestamp,source_id,tag,Node_GUID,port_guid,Port_Number,";
  if (with_labels) csv += "node_description,port_label,";
  csv +=
      "PortXmitDataExtended,PortRcvDataExtended,PortXmitPktsExtended,PortRcvPktsExtended,"
      "SymbolErrorCounterExtended,LinkErrorRecoveryCounterExtended,LinkDownedCounterExtended,"
      "PortRcvErrorsExtended,PortRcvRemotePhysicalErrorsExtended,"
      "PortRcvSwitchRelayErrorsExtended\n";
  csv.reserve(csv.size() + ports.size() * 200);
  for (const PortStatus& s : ports) {
    const Port& p = topology.ports()[s.port];
    const PortCounters& c = s.counters;
    csv += std::to_string(micros) + "," + source + ",," + Hex0x(p.system_guid) + "," +
           Hex0x(p.guid) + "," + std::to_string(TelemetryPortNumber(topology, p)) + ",";
    if (with_labels) csv += CsvField(s.node_description) + "," + p.label + ",";
    for (uint64_t v : {c.port_xmit_data, c.port_rcv_data, c.port_xmit_pkts, c.port_rcv_pkts,
                       c.symbol_errors, c.link_error_recovery, c.link_downed, c.port_rcv_errors,
                       c.port_rcv_remote_physical_errors}) {
      csv += std::to_string(v) + ",";
    }
    csv += std::to_string(c.port_rcv_switch_relay_errors) + "\n";
  }
  return csv;
}

}  // namespace ufmr::sim
