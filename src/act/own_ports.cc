#include "act/own_ports.h"

#include <spdlog/spdlog.h>

namespace ufmr {

namespace {
constexpr double kSpanMemoryS = 25 * 3600;  // a day's window, and an hour's slack
constexpr double kSpanSlackS = 5;           // UFM's stamp may be a little before the request
// After the enable's confirmation, only UFM's stamps of the enable itself (its link-up comes
// before the confirmation; the clocks may differ a little). A link-down stamped later is a new
// fault: read again after a restart it must be judged, as it was when first read.
constexpr double kSpanAfterS = 2;
}  // namespace

bool OwnPorts::LoadDisables(Store& store) {
  auto txr = store.Begin();
  if (!txr.ok()) return false;
  try {
    std::set<std::string> ports;
    for (const auto& t : txr.value()->HeldTickets()) {
      if (t.method == "disable") ports.insert(t.action_port);
    }
    std::map<std::string, std::vector<std::pair<double, double>>> spans;
    for (const auto& d : txr.value()->HeldSpans(kSpanMemoryS)) {
      spans[d.action + "|" + d.port].emplace_back(d.from, d.to);
    }
    txr.value()->Commit();
    disables_ = std::move(ports);
    spans_ = std::move(spans);
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

bool OwnPorts::HeldAt(const std::string& action, const std::string& port, TimePoint at) const {
  auto it = spans_.find(action + "|" + port);
  if (it == spans_.end()) return false;
  const double t = ToEpochSeconds(at);
  for (const auto& [from, to] : it->second) {
    if (t >= from - kSpanSlackS && (to == 0 || t <= to + kSpanAfterS)) return true;
  }
  return false;
}

void OwnPorts::OnOutcome(const PortAction& a, ActionExecutor::Outcome outcome) {
  using Outcome = ActionExecutor::Outcome;
  const double now = ToEpochSeconds(SystemClock().Now());
  const bool held = outcome == Outcome::kConfirmed || outcome == Outcome::kUncertain;
  if ((a.action == "disable" || a.action == "isolate") && held) {
    spans_[a.action + "|" + a.port].emplace_back(a.created_at > 0 ? a.created_at : now, 0);
  }
  if ((a.action == "enable" || a.action == "unisolate") && outcome != Outcome::kFailed) {
    for (auto& span : spans_[(a.action == "enable" ? "disable|" : "isolate|") + a.port]) {
      if (span.second == 0) span.second = now;
    }
  }
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
