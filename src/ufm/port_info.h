// PortInfo: one port as UFM lists it (GET /resources/ports): names, node, label, states, peer,
// speed and cable, with what the guards ask of it (switch or host, up, administratively out of
// service), and what every reading of a port from UFM's JSON ends with. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ufmr {

// Whether a port is administratively out of service, as far as UFM's answer tells. In InfiniBand,
// "disabled" is a physical state: UFM may report a disabled port with physical_state "Disabled"
// and logical_state "Down", or with logical_state "Disabled"; a port that is up or training is
// plainly enabled; a port that is just "Down" / "Link Down" may be either (a disabled port on some
// versions, or an enabled port whose cable is broken), and is kUnknown.
enum class AdminState { kDisabled, kEnabled, kUnknown };

struct PortInfo {
  std::string name;  // <guid>_<n>
  std::string guid;
  std::string system_guid;  // systemID, needed for actions
  std::string system_name;
  std::string node_description;
  std::string description;  // "Switch IB Port", "Computer IB Port"
  // The port's label as UFM displays it: its "dname" ("1/3/1" on switches that have labels, else
  // the number as text), else what follows the colon in a switch port's node_description. UFM's
  // port objects have no "label" field, and external_number is not a label.
  std::string label;
  int number = 0;
  std::string logical_state;
  std::string physical_state;
  std::string peer;
  std::string active_speed{};  // "NDR", "HDR", ...: with the width, the link's rate (BER)
  std::string active_width{};  // "4x"
  std::string cable_serial{};  // the link's cable, when UFM names it (ports or links)
  // The machine a host port sits on ("r-ufm77" for "r-ufm77 mlx5_0"): the inventory sets it by
  // its HostNamer (ufm/host_names.h); "" for a switch port.
  std::string host{};

  bool is_switch() const;
  // A disabled port is never up, whatever physical state it last reported.
  bool link_up() const;
  AdminState admin_state() const;
  bool disabled() const { return admin_state() == AdminState::kDisabled; }
  nlohmann::json ToJson() const;
};

// PortInfo's questions on the fields alone (for a port kept as a row of pooled strings).
bool IsSwitchPort(std::string_view description, std::string_view node_description);
AdminState AdminStateOf(std::string_view logical_state, std::string_view physical_state);
bool LinkUpOf(std::string_view logical_state, std::string_view physical_state);

// UFM's key of each text field of a port (a port of UFM's has some 30 fields).
struct UfmPortKey {
  std::string_view key;
  std::string PortInfo::*field;
};
extern const UfmPortKey kUfmPortKeys[12];

// What every reading of a port ends with: its name and peer in lower case, the label a switch
// port's node description gives when UFM has none, no "N/A" peer. InvalidArgument without a name.
Status FinishPort(PortInfo* p);
// Reads one element of /resources/ports; tolerates missing fields but needs a name.
Result<PortInfo> ParsePortInfo(const nlohmann::json& j);
// The whole response: a list (or {"data": [...]}); bad elements are skipped and counted. For a
// short answer (a port, a test's list); the inventory reads the whole answer as a PortTable
// (ParsePortTable, ports_answer.h).
Result<std::vector<PortInfo>> ParsePorts(const std::string& body, int* skipped);

}  // namespace ufmr
