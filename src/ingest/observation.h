// Observation: one normalized input to the rules engine, either a UFM event or a counter delta
// for one port. Plain data; carries where it came from so evidence can point back at it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/clock.h"

namespace ufmr {

struct Observation {
  enum class Kind { kEvent, kCounter };
  Kind kind = Kind::kEvent;
  TimePoint time;
  std::string source;  // "rest", "telemetry", ...

  // kEvent
  int64_t event_id = 0;
  int event_type = 0;
  std::string name;
  std::string severity;
  std::string object_type;
  std::string object_name;
  std::string category;
  std::string description;
  std::string ufm_timestamp;
  std::string dev_id;        // the object's GUID, when the source gives it (event log)
  std::string cable_serial;  // "cable S/N: ..." in the message, when given

  // Ports implicated: both ends for a link event, one port for a counter.
  std::vector<std::string> ports;
  // Ports the event names only as "<node>:<label>" (event 702's "Peer Port T2-E63-L-U37:1/19/2");
  // the rules engine and the filters resolve them through the inventory
  // (Inventory::WithReferencedPorts), unless `ports` names both ends of the link already.
  std::vector<std::string> port_refs;
  // Read again after a restart (the cursor stays below events that windows still need): it
  // rebuilds the rules' windows, but it is not news (it cannot fail a repaired link's soak).
  bool reread = false;

  // kCounter
  std::string counter;
  double delta = 0;
  double interval_s = 0;
  double value = 0;
};

}  // namespace ufmr
