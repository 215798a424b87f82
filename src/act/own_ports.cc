#include "act/own_ports.h"

#include <spdlog/spdlog.h>

namespace ufmr {

bool OwnPorts::LoadDisables(Store& store) {
  auto txr = store.Begin();
  if (!txr.ok()) return false;
  try {
    std::set<std::string> ports;
    for (const auto& t : txr.value()->HeldTickets()) {
      if (t.method == "disable") ports.insert(t.action_port);
    }
    disables_ = std::move(ports);
    disables_loaded_ = true;
    return true;
  } catch (const std::exception& e) {
    spdlog::warn("cannot read the ports this service holds disabled: {}", e.what());
    return false;
  }
}

void OwnPorts::AddDisabling(const std::vector<std::string>& ports) {
  disables_.insert(ports.begin(), ports.end());
}

void OwnPorts::OnOutcome(const PortAction& a, ActionExecutor::Outcome outcome) {
  using Outcome = ActionExecutor::Outcome;
  // Failed, or done by a person first: not this service's cut. Back up (by us or by a person):
  // what the link says is judged again. An uncertain cut is held as ours: what its link reports
  // is not a new fault.
  if (a.action == "disable" && outcome != Outcome::kConfirmed && outcome != Outcome::kUncertain) {
    disables_.erase(a.port);
  }
  if (a.action == "enable" && outcome != Outcome::kFailed) disables_.erase(a.port);
  if (outcome != Outcome::kConfirmed) return;
  if (a.action == "isolate") isolations_.insert(a.port);
  if (a.action == "unisolate") isolations_.erase(a.port);
}

}  // namespace ufmr
