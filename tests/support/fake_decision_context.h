// Test support for the decision stage: a small fabric (leaf-1, spine-1, host-a with two links)
// and FakeDecisionContext, a DecisionContext a test sets up field by field (ports, open tickets,
// silences, a person's ports, ports held out of service, recent actions, the breaker), with a
// link-down finding to decide. Use from one thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "decide/decision.h"
#include "decide/silence.h"
#include "rules/finding.h"
#include "ufm/inventory.h"

namespace ufmr::testing {

inline const TimePoint kT0 =
    TimePoint(std::chrono::seconds(1'767'225'630));  // 2026-01-01T00:00:30Z

inline const std::string kSw = "9c0591030090e000_33";      // leaf-1 1/17/1
inline const std::string kHost = "e41d2d0300a4f482_1";     // host-a HCA-1
inline const std::string kSpine = "fc6a1c0300244e00_8";    // spine-1 1/4/2
inline const std::string kHost2 = "e41d2d0300a4f483_1";    // host-a HCA-2 (the host's other link)
inline const std::string kSw2 = "9c0591030090e000_34";     // leaf-1 1/17/2, facing host-a HCA-2
inline const std::string kSwUp = "9c0591030090e000_40";    // leaf-1 1/20/2, an uplink
inline const std::string kSpineUp = "fc6a1c0300244e00_9";  // spine-1 1/5/1, facing leaf-1's uplink

PortInfo SwitchPort(const std::string& name, const std::string& system, const std::string& label);
// A host port: no system name, its node description names it.
PortInfo HostPort(const std::string& name, const std::string& node_description);

// The world as a test sets it up.
class FakeDecisionContext final : public DecisionContext {
 public:
  const PortInfo* Port(const std::string& name) override {
    ++port_calls;
    auto it = ports.find(name);
    return it == ports.end() ? nullptr : &it->second;
  }
  std::optional<OpenTicketInfo> OpenTicket(const std::string& entity) override {
    auto it = tickets.find(entity);
    if (it == tickets.end()) return std::nullopt;
    return it->second;
  }
  const Silence* Silenced(const SilenceSubject& subject, TimePoint t) override {
    last_subject = subject;
    return silences.Match(subject, t);
  }
  bool AnySilences() override { return silences.size() > 0; }
  std::string OwnedByPerson(const std::string& port) override {
    auto it = owned.find(port);
    return it == owned.end() ? "" : it->second;
  }
  // `held` ports held elsewhere in the fabric (names no node has), then `held_ports`.
  std::vector<std::string> HeldPorts() override {
    std::vector<std::string> out = held_ports;
    for (int i = 0; i < held; ++i) out.push_back("ffffffffffff" + std::to_string(1000 + i) + "_1");
    return out;
  }
  int FabricPorts() override { return fabric_ports; }
  std::vector<NodeLink> NodeLinks(const PortInfo& port) override {
    std::vector<NodeLink> out;
    for (const auto& [name, p] : ports) {
      if (p.system_guid == port.system_guid) out.push_back({p.name, p.peer, p.link_up()});
    }
    return out;
  }
  int ActionsSince(TimePoint since) override {
    since_asked = since;
    return recent_actions;
  }
  std::optional<TimePoint> LastActionOn(const std::string& port) override {
    auto it = last_action.find(port);
    if (it == last_action.end()) return std::nullopt;
    return it->second;
  }
  bool BreakerTripped() override { return tripped; }
  int CountActingFinding(TimePoint, double window_s) override {
    breaker_window = window_s;
    return ++acting;
  }
  void TripBreaker(const Decision& d, int count) override {
    tripped = true;
    trips.push_back({d.rule, count});
  }

  std::map<std::string, PortInfo> ports;
  std::map<std::string, OpenTicketInfo> tickets;
  SilenceSet silences;
  std::map<std::string, std::string> owned;
  int held = 0;
  std::vector<std::string> held_ports;
  int fabric_ports = 10000;
  int recent_actions = 0;
  std::optional<TimePoint> since_asked;
  std::map<std::string, TimePoint> last_action;
  bool tripped = false;
  int acting = 0;
  double breaker_window = 0;
  std::vector<std::pair<std::string, int>> trips;
  SilenceSubject last_subject;
  int port_calls = 0;
};

// leaf-1 1/17/1 <-> host-a HCA-1, leaf-1 1/17/2 <-> host-a HCA-2 (so host-a has a second link),
// and leaf-1 1/20/2 <-> spine-1 1/5/1 (an uplink); spine-1 1/4/2 faces nothing here.
void AddFabric(FakeDecisionContext* ctx);

// A silence of `port`, `sw` and `host` patterns, in force an hour either side of kT0.
Silence MakeSilence(int64_t id, const std::string& port, const std::string& sw,
                    const std::string& host);

// An enforcing rule's link-down finding on leaf-1 1/17/1 <-> host-a HCA-1 at kT0.
Finding LinkFinding(RuleAction action = RuleAction::kDisablePort);

}  // namespace ufmr::testing
