// Event subjects: which switches and hosts a UFM event's text names, and which port sits on which.
// Link events say it in two shapes: "f452...f0 (Switch: sw-1) : 12" (older UFMs) and
// "(Switch:T3-E21-N-U47:1/17/1)9c05...00:33" (newer, with the port's label). The rules engine
// uses this for switch/host patterns and scopes when the inventory does not know a port, and
// replay uses it to learn a fabric from its log. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ufmr {

struct PortSubject {
  std::string port;  // "<guid>_<n>", lower case
  bool is_switch = false;
  std::string node;   // the switch or host name as written ("fsgb001 HCA-1")
  std::string label;  // "1/17/1" when the text carries it
};

// Ports named with their node in `text`, in order of appearance, de-duplicated by port. A host in
// the older shape may be named by its node GUID ("e41d2d0300ff4938 (Computer: c931f02p18 HCA-1) :
// 2" for port e41d2d0300ff4939_2): such a subject's `port` is no port's name, so match subjects
// against ports known otherwise (the event's object, the inventory); never learn one from it.
std::vector<PortSubject> ExtractPortSubjects(std::string_view text);

// How switch and host names compare: lower case, without a ":<label>" suffix (a switch port's
// node description) or an " HCA-<n>" / " mlx5_<n>" suffix (a host's HCA), trimmed.
std::string NodeKey(std::string_view name);

// True for UFM object types that name a switch ("Switch") or a host ("Computer", "Host", "Node").
bool IsSwitchObjectType(std::string_view type);
bool IsHostObjectType(std::string_view type);

}  // namespace ufmr
