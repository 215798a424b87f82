#include "sim/sim_requests.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "base/text.h"

namespace ufmr::sim {

namespace {

using Json = nlohmann::json;

constexpr double kMinFlapIntervalS = 0.1;
constexpr double kMaxFlapIntervalS = 86400;
constexpr double kMaxRate = 1e9;
constexpr double kMinDownS = 0.1;
constexpr double kMaxDownS = 86400;
constexpr double kDefaultDownS = 20;

Status CheckKeys(const Json& body, const std::set<std::string>& allowed, const std::string& what) {
  for (const auto& [key, value] : body.items()) {
    if (!allowed.count(key)) {
      return Status::InvalidArgument("unknown field '" + key + "' in " + what);
    }
  }
  return Status::Ok();
}

Status ReadString(const Json& body, const std::string& key, bool required, std::string* out) {
  auto it = body.find(key);
  if (it == body.end()) {
    return required ? Status::InvalidArgument("missing field '" + key + "'") : Status::Ok();
  }
  if (!it->is_string()) return Status::InvalidArgument("field '" + key + "' must be a string");
  *out = it->get<std::string>();
  if (required && out->empty()) return Status::InvalidArgument("field '" + key + "' is empty");
  return Status::Ok();
}

Status ReadNumber(const Json& body, const std::string& key, double min, double max, double* out) {
  auto it = body.find(key);
  if (it == body.end()) return Status::Ok();  // keep the default
  if (!it->is_number()) return Status::InvalidArgument("field '" + key + "' must be a number");
  double v = it->get<double>();
  if (!std::isfinite(v) || v < min || v > max) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "field '%s' must be between %g and %g", key.c_str(), min, max);
    return Status::InvalidArgument(buf);
  }
  *out = v;
  return Status::Ok();
}

// A switch_reboot or node_reboot: the switch by system_name or system GUID (any case, "0x" or
// not), a host by name.
Result<Fault> ReadReboot(const Json& body, const std::string& kind_name, const Topology& topology) {
  Fault f;
  const bool is_switch = kind_name == "switch_reboot";
  const std::string key = is_switch ? "switch" : "node";
  f.kind = is_switch ? FaultKind::kSwitchReboot : FaultKind::kNodeReboot;
  f.down_s = kDefaultDownS;
  if (Status s = ReadNumber(body, "down_s", kMinDownS, kMaxDownS, &f.down_s); !s.ok()) return s;
  std::string name;
  if (Status s = ReadString(body, key, true, &name); !s.ok()) return s;
  if (Status s = CheckKeys(body, {"kind", key, "down_s"}, kind_name + " fault"); !s.ok()) {
    return s;
  }
  std::string want = AsciiLower(name);
  if (is_switch && want.rfind("0x", 0) == 0) want = want.substr(2);
  const std::vector<Node>& nodes = topology.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const bool node_is_switch = nodes[i].kind != NodeKind::kHost;
    if (node_is_switch != is_switch) continue;
    if (AsciiLower(nodes[i].name) == want || (is_switch && nodes[i].system_guid == want)) {
      f.node = static_cast<int>(i);
      break;
    }
  }
  if (f.node < 0) return Status::NotFound("unknown " + key + " '" + name + "'");
  return f;
}

// A link fault's kind and parameters; `allowed` gains the keys its kind takes.
Result<Fault> ReadLinkFaultKind(const Json& body, const std::string& kind_name,
                                std::set<std::string>* allowed) {
  Fault f;
  if (kind_name == "link_down") {
    f.kind = FaultKind::kLinkDown;
  } else if (kind_name == "flap") {
    f.kind = FaultKind::kFlap;
    f.interval_s = 2;
    allowed->insert("interval_s");
    if (Status s =
            ReadNumber(body, "interval_s", kMinFlapIntervalS, kMaxFlapIntervalS, &f.interval_s);
        !s.ok()) {
      return s;
    }
  } else if (kind_name == "symbol_errors") {
    f.kind = FaultKind::kSymbolErrors;
    f.rate = 50;
    allowed->insert({"rate", "rcv_errors_rate"});
    if (Status s = ReadNumber(body, "rate", 0, kMaxRate, &f.rate); !s.ok()) return s;
    if (Status s = ReadNumber(body, "rcv_errors_rate", 0, kMaxRate, &f.rcv_errors_rate); !s.ok()) {
      return s;
    }
  } else {
    return Status::InvalidArgument(
        "unknown fault kind '" + kind_name +
        "' (expected link_down, flap, symbol_errors, switch_reboot or node_reboot)");
  }
  return f;
}

}  // namespace

Result<Fault> ReadFault(const Json& body, const Topology& topology) {
  if (!body.is_object()) return Status::InvalidArgument("fault body must be a JSON object");
  std::string kind_name;
  if (Status s = ReadString(body, "kind", true, &kind_name); !s.ok()) return s;
  if (kind_name == "switch_reboot" || kind_name == "node_reboot") {
    return ReadReboot(body, kind_name, topology);
  }
  std::set<std::string> allowed = {"kind", "port"};
  Result<Fault> f = ReadLinkFaultKind(body, kind_name, &allowed);
  if (!f.ok()) return f;
  std::string port_name;
  if (Status s = ReadString(body, "port", true, &port_name); !s.ok()) return s;
  if (Status s = CheckKeys(body, allowed, kind_name + " fault"); !s.ok()) return s;
  std::optional<int> port = topology.FindPort(port_name);
  if (!port) return Status::NotFound("unknown port '" + port_name + "'");
  f->link = topology.ports()[*port].link;
  return f;
}

Result<ActionRequest> ReadAction(const Json& body, const Topology& topology) {
  if (!body.is_object()) return Status::InvalidArgument("action body must be a JSON object");
  if (Status s = CheckKeys(
          body, {"action", "object_type", "object_ids", "params", "description", "identifier"},
          "action body");
      !s.ok()) {
    return s;
  }
  ActionRequest request;
  std::string object_type;
  std::string identifier;
  if (Status s = ReadString(body, "action", true, &request.action); !s.ok()) return s;
  if (request.action != "disable" && request.action != "enable") {
    return Status::InvalidArgument("unknown action '" + request.action +
                                   "' (expected disable or enable)");
  }
  if (Status s = ReadString(body, "object_type", true, &object_type); !s.ok()) return s;
  if (object_type != "System") {
    return Status::InvalidArgument("object_type must be \"System\", got \"" + object_type + "\"");
  }
  if (Status s = ReadString(body, "description", false, &request.description); !s.ok()) return s;
  if (Status s = ReadString(body, "identifier", false, &identifier); !s.ok()) return s;
  auto ids = body.find("object_ids");
  if (ids == body.end()) return Status::InvalidArgument("missing field 'object_ids'");
  if (!ids->is_array() || ids->size() != 1 || !(*ids)[0].is_string()) {
    return Status::InvalidArgument("object_ids must be a list of exactly one system GUID");
  }
  const std::string system_id = (*ids)[0].get<std::string>();
  auto params = body.find("params");
  if (params == body.end()) return Status::InvalidArgument("missing field 'params'");
  if (!params->is_object()) return Status::InvalidArgument("params must be an object");
  if (Status s = CheckKeys(*params, {"port_id"}, "params"); !s.ok()) return s;
  std::string port_name;
  if (Status s = ReadString(*params, "port_id", true, &port_name); !s.ok()) {
    return Status::InvalidArgument("params: " + s.message());
  }
  std::optional<int> port = topology.FindPort(port_name);
  if (!port) return Status::NotFound("unknown port '" + port_name + "'");
  const Port& p = topology.ports()[*port];
  if (AsciiLower(system_id) != p.system_guid) {
    return Status::InvalidArgument("object_ids[0] '" + system_id + "' is not the system of port " +
                                   p.name + " (systemID " + p.system_guid + ")");
  }
  request.port = *port;
  return request;
}

Result<HealthRequest> ReadPortsHealth(const Json& body, const Topology& topology) {
  if (!body.is_object()) return Status::InvalidArgument("body must be a JSON object");
  if (Status s = CheckKeys(body, {"ports", "ports_policy", "action"}, "unhealthy_ports body");
      !s.ok()) {
    return s;
  }
  HealthRequest request;
  std::string policy;
  if (Status s = ReadString(body, "ports_policy", true, &policy); !s.ok()) return s;
  request.policy = AsciiUpper(policy);
  if (request.policy != "UNHEALTHY" && request.policy != "HEALTHY") {
    return Status::InvalidArgument("unknown ports_policy '" + policy +
                                   "' (expected UNHEALTHY or HEALTHY)");
  }
  std::string action;
  if (Status s = ReadString(body, "action", false, &action); !s.ok()) return s;
  if (body.contains("action") && action != "isolate") {
    return Status::InvalidArgument("unknown action '" + action + "' (expected isolate)");
  }
  auto list = body.find("ports");
  if (list == body.end()) return Status::InvalidArgument("missing field 'ports'");
  if (!list->is_array() || list->empty()) {
    return Status::InvalidArgument("ports must be a non-empty list of port names");
  }
  for (const Json& item : *list) {
    if (!item.is_string()) return Status::InvalidArgument("ports must be a list of port names");
    const std::string name = item.get<std::string>();
    std::optional<int> port = topology.FindPort(name);
    if (!port) return Status::NotFound("unknown port '" + name + "'");
    std::vector<int>& ports = request.ports;
    if (std::find(ports.begin(), ports.end(), *port) == ports.end()) ports.push_back(*port);
  }
  return request;
}

Result<OperatorRequest> ReadOperatorAction(const Json& body, const Topology& topology) {
  if (!body.is_object()) return Status::InvalidArgument("body must be a JSON object");
  if (Status s = CheckKeys(body, {"port", "action"}, "operator body"); !s.ok()) return s;
  OperatorRequest request;
  std::string port_name;
  if (Status s = ReadString(body, "action", true, &request.action); !s.ok()) return s;
  const std::string& action = request.action;
  if (action != "disable" && action != "enable" && action != "isolate" && action != "healthy") {
    return Status::InvalidArgument("unknown action '" + action +
                                   "' (expected disable, enable, isolate or healthy)");
  }
  if (Status s = ReadString(body, "port", true, &port_name); !s.ok()) return s;
  std::optional<int> port = topology.FindPort(port_name);
  if (!port) return Status::NotFound("unknown port '" + port_name + "'");
  request.port = *port;
  return request;
}

Result<Event> ReadExternalEvent(const Json& body) {
  if (!body.is_object()) return Status::InvalidArgument("body must be a JSON object");
  if (Status s = CheckKeys(body,
                           {"event_id", "description", "external_event_name", "external_event_type",
                            "external_event_source"},
                           "external event");
      !s.ok()) {
    return s;
  }
  auto id = body.find("event_id");
  if (id == body.end()) return Status::InvalidArgument("missing field 'event_id'");
  if (!id->is_number_integer()) {
    return Status::InvalidArgument("event_id must be an integer from 551 to 554");
  }
  const int64_t event_id = id->get<int64_t>();
  static const char* const kSeverities[] = {"Info", "Warning", "Minor", "Critical"};
  if (event_id < 551 || event_id > 554) {
    return Status::InvalidArgument(
        "event_id must be 551 (Info), 552 (Warning), 553 (Minor) or "
        "554 (Critical), got " +
        std::to_string(event_id));
  }
  Event e;
  std::string name, type, source;
  if (Status s = ReadString(body, "description", true, &e.description); !s.ok()) return s;
  if (Status s = ReadString(body, "external_event_name", false, &name); !s.ok()) return s;
  if (Status s = ReadString(body, "external_event_type", false, &type); !s.ok()) return s;
  if (Status s = ReadString(body, "external_event_source", false, &source); !s.ok()) return s;
  e.name = name.empty() ? "External Event" : name;
  e.type = type.empty() ? "External" : type;
  e.event_type = std::to_string(event_id);
  e.severity = kSeverities[event_id - 551];
  e.category = "External";
  e.object_name = source;
  e.object_path = source;
  e.write_to_syslog = true;
  return e;
}

}  // namespace ufmr::sim
