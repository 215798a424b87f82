#include "ufm/port_info.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "base/text.h"
#include "ufm/ports_answer.h"
#include "ufm/ufm_json.h"

namespace ufmr {

bool IsSwitchPort(std::string_view description, std::string_view node_description) {
  return description.find("Switch") != std::string_view::npos ||
         (description.find("Computer") == std::string_view::npos &&
          node_description.find(':') != std::string_view::npos);
}

bool PortInfo::is_switch() const { return IsSwitchPort(description, node_description); }

namespace {

// Whether `state` is one of `names` (lower case), in any case; no copy (asked for every port of
// a node on every decision that could cut one).
bool IsOneOf(std::string_view state, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (n.size() == state.size() &&
        std::equal(n.begin(), n.end(), state.begin(), [](char a, char b) {
          return a == (b >= 'A' && b <= 'Z' ? b - 'A' + 'a' : b);
        })) {
      return true;
    }
  }
  return false;
}

}  // namespace

AdminState AdminStateOf(std::string_view logical_state, std::string_view physical_state) {
  if (IsOneOf(logical_state, {"disabled"}) || IsOneOf(physical_state, {"disabled"})) {
    return AdminState::kDisabled;
  }
  // A logical state past Down needs a trained link; a physical state that is up or training
  // (IBA's Polling, Sleep, configuration training, error recovery) needs an enabled port.
  if (IsOneOf(logical_state, {"active", "armed", "init", "initialize"}) ||
      IsOneOf(physical_state, {"link up", "linkup", "polling", "sleep", "portconfigurationtraining",
                               "port configuration training", "linkerrorrecovery",
                               "link error recovery", "phytest"})) {
    return AdminState::kEnabled;
  }
  return AdminState::kUnknown;
}

bool LinkUpOf(std::string_view logical_state, std::string_view physical_state) {
  return AdminStateOf(logical_state, physical_state) != AdminState::kDisabled &&
         (IsOneOf(physical_state, {"link up", "linkup"}) || IsOneOf(logical_state, {"active"}));
}

AdminState PortInfo::admin_state() const { return AdminStateOf(logical_state, physical_state); }
bool PortInfo::link_up() const { return LinkUpOf(logical_state, physical_state); }

nlohmann::json PortInfo::ToJson() const {
  return {{"name", name},
          {"guid", guid},
          {"system_guid", system_guid},
          {"system_name", system_name},
          {"node_description", node_description},
          {"description", description},
          {"label", label},
          {"number", number},
          {"logical_state", logical_state},
          {"physical_state", physical_state},
          {"peer", peer},
          {"cable_serial", cable_serial},
          {"host", host}};
}

const UfmPortKey kUfmPortKeys[12] = {
    {"name", &PortInfo::name},
    {"guid", &PortInfo::guid},
    {"systemID", &PortInfo::system_guid},
    {"system_name", &PortInfo::system_name},
    {"node_description", &PortInfo::node_description},
    {"description", &PortInfo::description},
    {"dname", &PortInfo::label},
    {"logical_state", &PortInfo::logical_state},
    {"physical_state", &PortInfo::physical_state},
    {"peer", &PortInfo::peer},
    {"active_speed", &PortInfo::active_speed},
    {"active_width", &PortInfo::active_width},
};

Status FinishPort(PortInfo* p) {
  AsciiLowerInPlace(&p->name);
  if (p->name.empty()) return Status::InvalidArgument("port has no name");
  if (p->label.empty() || p->label == "N/A") {
    size_t colon = p->node_description.rfind(':');
    if (colon == std::string::npos || !p->is_switch()) {
      p->label.clear();
    } else {
      p->label.assign(p->node_description, colon + 1);
    }
  }
  AsciiLowerInPlace(&p->peer);
  if (p->peer == "n/a") p->peer.clear();
  return Status::Ok();
}

Result<PortInfo> ParsePortInfo(const nlohmann::json& j) {
  if (!j.is_object()) return Status::InvalidArgument("port is not a JSON object");
  PortInfo p;
  for (const auto& k : kUfmPortKeys) p.*k.field = JsonText(j, std::string(k.key).c_str());
  auto num = j.find("number");
  if (num != j.end() && num->is_number_integer()) p.number = num->get<int>();
  Status finished = FinishPort(&p);
  if (!finished.ok()) return finished;
  return p;
}

Result<std::vector<PortInfo>> ParsePorts(const std::string& body, int* skipped) {
  auto table = ParsePortTable(body, skipped);
  if (!table.ok()) return table.status();
  return table->ToVector();
}

}  // namespace ufmr
