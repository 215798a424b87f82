#include "sim/ufm_shapes.h"

#include <ctime>

namespace ufmr::sim {

namespace {

// "Wed Apr 29 00:05:32 2020": how the unhealthy ports list stamps an entry (UTC here).
std::string CtimeUtc(TimePoint t) {
  std::time_t secs =
      std::chrono::system_clock::to_time_t(std::chrono::time_point_cast<std::chrono::seconds>(t));
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
  return buf;
}

// "gpu-node-001/1", "leaf-01/1/17/1": the display path the unhealthy ports list names a port by.
std::string DisplayPath(const sim::Port& p) { return p.system_name + "/" + p.label; }

}  // namespace

std::optional<int> ParseUfmVersion(const std::string& text) {
  size_t dot = text.find('.');
  if (dot == std::string::npos || dot == 0) return std::nullopt;
  size_t end = text.find('.', dot + 1);
  const std::string major = text.substr(0, dot);
  const std::string minor = text.substr(dot + 1, end == std::string::npos ? end : end - dot - 1);
  for (const std::string* part : {&major, &minor}) {
    if (part->empty() || part->size() > 2 ||
        part->find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
  }
  return std::stoi(major) * 100 + std::stoi(minor);
}

UfmShapes::Json UfmShapes::Event(const sim::Event& e) const {
  Json j;
  j["id"] = e.id;
  j["name"] = e.name;
  if (version_ >= 617) {
    j["type"] = e.type;
    j["event_type"] = e.event_type;
    j["timestamp"] = FormatUfmTime(e.time);
  } else {
    j["type"] = e.event_type;
    j["timestamp"] = FormatUfmTime(e.time) + ".000";
  }
  j["severity"] = e.severity;
  j["counter"] = "N/A";
  j["category"] = e.category;
  j["object_name"] = e.object_name;
  j["object_path"] = e.object_path;
  j["write_to_syslog"] = e.write_to_syslog;
  j["description"] = e.description;
  return j;
}

// The fields real port objects carry (the REST API guide; Mellanox/ufm_sdk_3.0's port scripts).
UfmShapes::Json UfmShapes::Port(const Topology& topology, const PortStatus& s,
                                const PortStatus& peer_status) const {
  const sim::Port& p = topology.ports()[s.port];
  const sim::Port& peer = topology.ports()[p.peer];
  Json j;
  j["name"] = p.name;
  j["guid"] = p.guid;
  j["systemID"] = p.system_guid;
  j["system_name"] = p.system_name;
  j["node_description"] = s.node_description;
  j["description"] = p.is_switch ? "Switch IB Port" : "Computer IB Port";
  j["number"] = p.number;
  j["external_number"] = p.number;
  j["dname"] = p.label;
  j["active_speed"] = "NDR";
  j["active_width"] = "4x";
  auto [logical, physical] = PortStates(s);
  j["logical_state"] = logical;
  j["physical_state"] = physical;
  j["mtu"] = 4096;
  j["peer"] = peer.name;
  j["peer_guid"] = peer.guid;
  j["peer_node_name"] = peer.system_name;
  j["peer_port_dname"] = peer.label;
  j["peer_node_description"] = peer_status.node_description;
  j["severity"] = "Info";
  j["tier"] = p.tier;
  return j;
}

std::pair<std::string, std::string> UfmShapes::PortStates(const PortStatus& s) const {
  if (s.disabled) {
    if (disabled_state_ == "logical") return {"Disabled", "Link Down"};
    if (disabled_state_ == "ambiguous") return {"Down", "Link Down"};
    return {"Down", "Disabled"};  // in InfiniBand, disabled is a physical state
  }
  // An enabled port without a link partner keeps polling for one.
  if (s.link_up) return {"Active", "Link Up"};
  return {"Down", "Polling"};
}

UfmShapes::Json UfmShapes::Link(const Topology& topology, int link,
                                const std::vector<PortStatus>& ports, bool cable_info) const {
  const sim::Link& l = topology.links()[link];
  const sim::Port& a = topology.ports()[l.a];
  const sim::Port& b = topology.ports()[l.b];
  // Before 6.20 (REST guide 6.11 to 6.19, Links REST API) a host end is given by the host
  // system's GUID, the same for each of its adapters; only "name" names the real ports.
  auto guid = [&](const sim::Port& p) {
    return version_ < 620 && !p.is_switch ? p.system_guid : p.guid;
  };
  Json j;
  j["source_guid"] = guid(a);
  j["source_port"] = std::to_string(a.number);
  j["destination_guid"] = guid(b);
  j["destination_port"] = std::to_string(b.number);
  j["source_port_dname"] = a.label;
  j["destination_port_dname"] = b.label;
  if (version_ >= 620) {
    j["source_port_name"] = a.name;
    j["destination_port_name"] = b.name;
  }
  j["width"] = "4x";
  j["severity"] = "Info";
  if (version_ >= 620) {
    j["source_port_node_description"] = ports[l.a].node_description;
    j["destination_port_node_description"] = ports[l.b].node_description;
  }
  j["name"] = a.name + ":" + b.name;
  j["capabilities"] = Json::array();
  if (cable_info) {
    // Nested, as IBM CAST's UFM inventory client reads ?cable_info=true; {} when UFM knows
    // nothing of the cable, a serial of "NA" when the module reports none.
    Json info = Json::object();
    if (!l.cable_serial.empty()) {
      info["part_number"] = "MCP4Y10-N001";
      info["length"] = "1 m";
      info["serial_number"] = l.cable_serial;
      info["identifier"] = "OSFP";
      info["technology"] = "Copper cable- unequalized";
      info["revision"] = "A3";
    }
    j["cable_info"] = std::move(info);
  }
  return j;
}

UfmShapes::Json UfmShapes::Job(const Topology& topology, const sim::Job& job) const {
  Json j;
  j["ID"] = std::to_string(job.id);
  j["Status"] = job.status;
  j["Operation"] = job.operation;
  j["Progress"] = job.progress;
  j["Description"] = job.description;
  j["Summary"] = job.summary;
  j["RelatedObjects"] = Json::array({topology.ports()[job.port].name});
  // Both spellings of the creation time, so clients written against either find it.
  j["CreationTime"] = FormatUfmTime(job.created);
  j["CreatedTime"] = FormatUfmTime(job.created);
  j["LastUpdated"] = FormatUfmTime(job.last_updated);
  return j;
}

UfmShapes::Json UfmShapes::UnhealthyEntry(const Topology& topology, const Isolation& i) const {
  const sim::Port& p = topology.ports()[i.port];
  const sim::Port& peer = topology.ports()[p.peer];
  Json j;
  j["PeerLID"] = std::to_string(peer.number);
  j["PeerPortNumber"] = peer.number;
  j["UnhealthyPortNumber"] = p.number;
  j["PeerGUID"] = peer.guid;
  j["PeerPort"] = DisplayPath(peer);
  j["UnhealthyNode"] = p.system_name;
  j["UnhealthyPort"] = DisplayPath(p);
  j["State"] = "Info";
  j["PeerPortDname"] = peer.label;
  j["Condition"] = i.condition;
  j["PeerNode"] = peer.system_name;
  j["StatusTime"] = CtimeUtc(i.time);
  j["UnhealthyPortDname"] = p.label;
  j["UnhealthyGUID"] = p.guid;
  return j;
}

UfmShapes::Json UfmShapes::UnhealthyPort(const Topology& topology, const Isolation& i,
                                         const PortStatus& s) const {
  const sim::Port& p = topology.ports()[i.port];
  const sim::Port& peer = topology.ports()[p.peer];
  Json j;
  j["PeerPort"] = peer.system_name + " / " + peer.label;
  j["PeerGUID"] = peer.guid;
  j["StatusTime"] = CtimeUtc(i.time);
  j["UnhealthyGUID"] = p.guid;
  j["UnhealthyPort"] = std::to_string(p.number);
  j["PeerNode"] = peer.system_name;
  j["PeerNodeType"] = peer.is_switch ? "switch" : "host";
  j["UnhealthyNodeType"] = p.is_switch ? "switch" : "host";
  j["UnhealthyNode"] = s.node_description;
  j["UnhealthyPortNumber"] = p.number;
  j["UnhealthyPortDname"] = p.label;
  j["Condition"] = Json::array({i.condition});
  j["State"] = "Warning";
  return j;
}

}  // namespace ufmr::sim
