// SimState: the live state of a simulated UFM fabric over a fixed Topology: port enable/disable
// state, link up/down, ports isolated as unhealthy, injected faults (link_down, flap,
// symbol_errors, switch and node reboots), cumulative port counters, the UFM event log (with
// external events posted to it), port-action jobs, the log of actions received through the REST
// API and the log of what a simulated person did in UFM's own GUI.
// Time only moves through the TimePoints passed in (Advance, AddFault, ...), so tests drive it
// explicitly; a time earlier than the last one seen counts as "now". Every public method takes an
// internal mutex and is safe to call from several threads; snapshots are returned by value.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "sim/sim_event.h"
#include "sim/topology.h"

namespace ufmr::sim {

// Cumulative per-port counters, named as in UFM Telemetry.
struct PortCounters {
  uint64_t port_xmit_data = 0;  // 4-byte words, like the IB counters
  uint64_t port_rcv_data = 0;
  uint64_t port_xmit_pkts = 0;
  uint64_t port_rcv_pkts = 0;
  uint64_t symbol_errors = 0;
  uint64_t link_error_recovery = 0;
  uint64_t link_downed = 0;
  uint64_t port_rcv_errors = 0;
  uint64_t port_rcv_remote_physical_errors = 0;
  uint64_t port_rcv_switch_relay_errors = 0;
};

struct PortStatus {
  int port = -1;  // index into topology().ports()
  bool disabled = false;
  bool link_up = false;
  std::string logical_state;     // "Active" | "Inactive" | "Disabled"
  std::string physical_state;    // "Link Up" | "Link Down"
  std::string node_description;  // the topology's, or the one set by SetNodeDescription
  PortCounters counters;
};

enum class FaultKind { kLinkDown, kFlap, kSymbolErrors, kSwitchReboot, kNodeReboot };
const char* FaultKindName(FaultKind kind);
inline bool IsReboot(FaultKind kind) {
  return kind == FaultKind::kSwitchReboot || kind == FaultKind::kNodeReboot;
}

struct Fault {
  int64_t id = 0;
  FaultKind kind = FaultKind::kLinkDown;
  int link = -1;               // index into topology().links(); -1 for a reboot
  double interval_s = 0;       // flap: length of each down and each up half
  double rate = 0;             // symbol_errors: symbol errors per second per end
  double rcv_errors_rate = 0;  // symbol_errors: PortRcvErrors per second per end
  TimePoint created;
  // flap bookkeeping
  bool flap_down = false;
  TimePoint next_toggle;
  // reboots: the switch or host (index into topology().nodes()), every link of it in port
  // order, and when it comes back up (the fault then removes itself)
  int node = -1;
  std::vector<int> links;
  double down_s = 0;
  TimePoint ends;
};

// A port isolated as unhealthy (UFM's PUT /app/unhealthy_ports): the SM routes around it, its
// link stays up.
struct Isolation {
  int port = -1;          // index into topology().ports()
  std::string condition;  // "MANUAL"
  TimePoint time;
};

// What PUT /app/unhealthy_ports did: the ports named (as port names) and those that changed.
struct HealthChange {
  std::string policy;  // "UNHEALTHY" | "HEALTHY"
  std::vector<std::string> ports;
  std::vector<std::string> changed;
};

// A change a person made in UFM's GUI (POST /sim/operator), not through the REST API.
struct OperatorRecord {
  TimePoint time;
  std::string action;  // "disable" | "enable" | "isolate" | "healthy"
  std::string port;    // port name
  bool changed = false;
};

// A body POSTed to /app/events/external_event, with the UFM event it became.
struct ExternalEventRecord {
  TimePoint time;
  nlohmann::json body;
  int64_t event_id = 0;  // the id of the event in UFM's list
};

struct Job {
  int64_t id = 0;
  std::string action;     // "disable" | "enable"
  std::string operation;  // "Disable Port" | "Enable Port"
  int port = -1;
  std::string status;  // "Running" | "Completed" | "Completed With Warnings" | ...
  int progress = 0;    // 0..100
  std::string summary;
  std::string description;  // as given in the request
  TimePoint created;
  TimePoint last_updated;
  TimePoint due;
};

// A port action as the simulator received it through the REST API, with its job's current
// status. Isolations (PUT /app/unhealthy_ports) have no job: job_id 0, status "Completed".
struct ActionRecord {
  TimePoint time;
  std::string action;  // "disable" | "enable" | "isolate" | "healthy"
  std::string port;    // port name
  int64_t job_id = 0;
  std::string status;
};

struct SimOptions {
  std::chrono::milliseconds job_delay{500};
  // Called (under the state's lock) with each event as a line of UFM's event.log, for the
  // simulated event log file and syslog forwarding. Must not call back into the SimState.
  std::function<void(const std::string& line)> on_event_line;
  size_t max_events = 10000;
  uint64_t seed = 1;  // traffic rates per link direction
  // The UFM version the events' objects follow (major * 100 + minor): from 6.17 an event on a
  // host port names it "Computer: <host> / <device>" (REST guide, Alarms REST API).
  int ufm_version = 622;
};

class SimState {
 public:
  SimState(Topology topology, SimOptions options, TimePoint start);
  SimState(const SimState&) = delete;
  SimState& operator=(const SimState&) = delete;

  // Immutable after construction; safe to read without the lock.
  const Topology& topology() const { return topology_; }

  // Moves time to `now`: flap transitions and due jobs take effect at their own instants, and
  // counters grow for the time each link was up.
  void Advance(TimePoint now);

  // The body of POST /sim/faults. InvalidArgument for a bad body, NotFound for an unknown port,
  // switch or node, Conflict for a reboot of a switch or node that is already rebooting.
  Result<Fault> AddFault(const nlohmann::json& body, TimePoint now);
  // Clears every fault of the port's link (a reboot of either end ends at once, as if it had
  // completed); the link comes up unless an end is disabled.
  // Returns the link index; NotFound for an unknown port.
  Result<int> Repair(const std::string& port_name, TimePoint now);
  // The body of POST /ufmRest/actions. InvalidArgument for a bad body, NotFound for an unknown
  // port. The effect applies job_delay later (at once when the delay is 0).
  Result<Job> SubmitAction(const nlohmann::json& body, TimePoint now);
  // The body of PUT /app/unhealthy_ports: isolates ports (702 for each newly isolated one) or
  // makes them healthy, all at once or none (InvalidArgument, NotFound). Logged in Actions().
  Result<HealthChange> SetPortsHealth(const nlohmann::json& body, TimePoint now);
  // The body of POST /sim/operator: a person disables, enables, isolates or heals a port in
  // UFM's GUI, at once. Logged in OperatorActions(), not in Actions().
  Result<OperatorRecord> OperatorAction(const nlohmann::json& body, TimePoint now);
  // The body of POST /app/events/external_event: adds an event (551..554) to UFM's list.
  Result<Event> AddExternalEvent(const nlohmann::json& body, TimePoint now);

  // POST /sim/node_description: the node description UFM reports for the port's node (an HCA's
  // node has this one port; on a switch, the port's entry) from now on, in ports, links, events
  // and labelled telemetry; "" restores the generated one. Returns the port index; NotFound for
  // an unknown port.
  Result<int> SetNodeDescription(const std::string& port_name, const std::string& description);

  // Snapshots, as of the last time seen.
  TimePoint now() const;
  std::vector<PortStatus> Ports() const;
  std::optional<PortStatus> PortState(int port) const;
  bool LinkUp(int link) const;
  std::vector<Event> Events() const;
  // As after a UFM reinstall: the retained events are gone and ids start again at 1.
  void ResetEventIds();
  // As when UFM's retention drops events: the next `count` ids are used up without an event.
  void SkipEventIds(int64_t count);
  std::optional<Job> FindJob(int64_t id) const;
  std::vector<Job> Jobs() const;  // ascending id
  std::vector<ActionRecord> Actions() const;
  std::vector<Fault> Faults() const;
  std::vector<Isolation> UnhealthyPorts() const;  // in port order
  std::vector<OperatorRecord> OperatorActions() const;
  std::vector<ExternalEventRecord> ExternalEvents() const;

 private:
  // Counters kept as doubles so fractional rates add up exactly over many small steps.
  struct Accumulators {
    double xmit_data = 0, rcv_data = 0, xmit_pkts = 0, rcv_pkts = 0;
    double symbol_errors = 0, rcv_errors = 0;
    uint64_t link_downed = 0;
  };
  struct Direction {
    double words_per_s = 0;
    double pkts_per_s = 0;
  };
  struct LinkRuntime {
    bool up = true;
    TimePoint settled;  // counters are accounted up to here
    Direction a_to_b;
    Direction b_to_a;
  };

  void AdvanceLocked(TimePoint now);
  TimePoint Clamp(TimePoint t) const { return t < now_ ? now_ : t; }
  void SettleLink(int link, TimePoint t);
  bool ComputeLinkUp(int link) const;
  // Recomputes a link's state after a change at time t, counting and logging a transition.
  void UpdateLink(int link, TimePoint t);
  void CompleteJob(Job& job, TimePoint t);
  // Disables or enables a port at t, with its 336/337 event; false when it already was.
  bool SetDisabledLocked(int port, bool disable, TimePoint t);
  // Isolates a port (with its 702 event) or makes it healthy; false when it already was.
  bool IsolateLocked(int port, const std::string& condition, TimePoint t);
  bool HealLocked(int port);
  Result<Fault> AddRebootLocked(Fault f, TimePoint now);
  // Ends a reboot at t: the node's up event, then its links come up where nothing else holds
  // them down.
  void EndRebootLocked(int64_t fault_id, TimePoint t);
  Job WithProgress(Job job) const;
  void Emit(Event event);
  void EmitLinkEvent(int link, bool up, TimePoint t);
  void EmitPortActionEvent(int port, bool disabled, TimePoint t);
  void EmitUnhealthyEvent(int port, const std::string& condition, TimePoint t);
  void EmitRebootEvent(const Fault& f, bool up, TimePoint t);
  PortStatus StatusLocked(int port) const;
  std::string DescribePort(int port) const;
  const std::string& NodeDescriptionLocked(int port) const;

  const Topology topology_;
  const SimOptions options_;

  mutable std::mutex mu_;
  TimePoint now_;
  std::vector<bool> disabled_;
  std::vector<Accumulators> counters_;
  std::vector<LinkRuntime> links_;
  std::map<int64_t, Fault> faults_;
  int64_t next_fault_id_ = 1;
  std::deque<Event> events_;
  int64_t next_event_id_ = 1;
  std::map<int64_t, Job> jobs_;
  int64_t next_job_id_ = 1;
  std::vector<ActionRecord> actions_;
  std::map<int, Isolation> isolated_;
  std::vector<OperatorRecord> operator_actions_;
  std::vector<ExternalEventRecord> external_events_;
  std::map<int, std::string> node_descriptions_;  // set by SetNodeDescription, by port index
};

}  // namespace ufmr::sim
