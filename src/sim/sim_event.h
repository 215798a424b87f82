// The UFM events the simulator emits: an event in the fields of UFM's REST layout (with what only
// its event.log line shows), the event ids it uses, and the texts UFM writes: the event.log line,
// its time format, the description of a port isolated as unhealthy. Plain values and pure
// functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/clock.h"
#include "sim/topology.h"

namespace ufmr::sim {

// One UFM event, in the fields of the 6.17+ REST layout.
struct Event {
  int64_t id = 0;
  std::string name;        // "Link is Down": UFM's event table names each id
  std::string type;        // object type: "Link", "Port"
  std::string event_type;  // event id as a string: "329"
  std::string severity;    // "Info" | "Warning" | "Minor" | "Critical"
  std::string category;    // "Fabric Topology", ...
  std::string object_name;
  std::string object_path;
  std::string description;
  bool write_to_syslog = true;
  TimePoint time;
  // Only in the event.log line: the object as the log writes it when it differs from
  // object_name ("default / Switch: ib-leaf-01"), its type when it differs from `type` ("IBPort"
  // for a port), and the device GUID ("[dev_id: ...]").
  std::string log_object;
  std::string log_type;
  std::string dev_id;
};

// Names of the UFM event ids the simulator emits.
inline constexpr const char* kEventLinkUp = "328";
inline constexpr const char* kEventLinkDown = "329";
// 336 is "Port Action Succeeded" for any action, the message saying which (337 is "Port Action
// Failed"): a disable and an enable are both 336.
inline constexpr const char* kEventPortActionSucceeded = "336";
inline constexpr const char* kEventNodeDown = "331";
inline constexpr const char* kEventNodeUp = "332";
inline constexpr const char* kEventPortUnhealthy = "702";
inline constexpr const char* kEventSwitchDown = "907";
inline constexpr const char* kEventSwitchUp = "908";

// Sets the event's id, and its name, severity and category as UFM's event table gives them
// (catalog/event_types.h), and its description: the table's message template filled with `args`
// ("Link went down: %s " with the link's ends).
void FromEventTable(const char* event_id, const std::vector<std::string>& args, Event* e);

// "2026-11-29 18:46:32": UTC, no zone, no milliseconds (the UFM 6.17+ event layout).
std::string FormatUfmTime(TimePoint t);
// One event as UFM writes it to event.log:
// "2026-11-29 18:46:32.123 [12] [329] WARNING [Fabric_Topology] Link [Source A  TO Dest: B]: ..."
// "... [907] CRITICAL [Fabric_Topology] Switch [default / Switch: ib-leaf-01] [dev_id: G]: ..."
std::string FormatEventLogLine(const Event& e);
// How event 702 names a port in "Peer Port %s is considered by SM as unhealthy due to %s.":
// "ib-leaf-01:1/1/1" (an HCA: "gpu-node-001 HCA-1:1").
std::string PeerPortRef(const Port& port);
// Names the port, in the event.log line, as the IBPort object UFM writes there (log_type,
// log_object, dev_id), its node described as `node_description`. From 6.17 (`ufm_version` 617) a
// host port is "Computer: <host> / <device>" in REST (type IBPort, object_name the port) and in
// the log line alike.
void SetIbPortObject(const Port& p, const std::string& node_description, int ufm_version, Event* e);

}  // namespace ufmr::sim
