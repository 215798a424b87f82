// HostNamer: the machine a host (HCA) port sits on. UFM names a host system by the machine
// ("luna-0218") or by its adapter ("r-ufm77 mlx5_0", "c931f03p08 HCA-1"), and a host port's node
// description is "<machine> <device>" ("luna-0218 mlx5_4", "mtlx-cai-ubuntu mlx5_0:1"). The
// ports of one machine (under one host system GUID: Inventory::NodeKeyOf) are one host: for the
// last-link guard, the scheduler's node name, tickets and the dashboard. By default the machine is
// the system name (else the node description) without a trailing adapter (" mlx5_<n>", " HCA-<n>")
// and port (":<n>"); a site whose names differ sets `inventory.host_pattern` (RE2, searched: the
// machine is its first group). Immutable once made; thread-safe.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"

namespace re2 {
class RE2;
}

namespace ufmr {

struct PortInfo;

class HostNamer {
 public:
  static constexpr const char* kDefaultPattern =
      R"(^\s*(.+?)(?:\s+(?:mlx\d+_\d+|HCA-\d+))?(?::\d+)?\s*$)";
  // InvalidArgument when the pattern does not compile or has no capture group; "" is the default.
  static Result<HostNamer> Make(const std::string& pattern);
  HostNamer();  // the default pattern
  ~HostNamer();
  HostNamer(HostNamer&&) noexcept;
  HostNamer& operator=(HostNamer&&) noexcept;
  HostNamer(const HostNamer& other);
  HostNamer& operator=(const HostNamer& other);

  // The machine of a host port; "" for a switch port or a port UFM names neither way. A name the
  // pattern does not match is the machine's whole name.
  std::string MachineOf(const PortInfo& port) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::shared_ptr<const re2::RE2> re_;
};

}  // namespace ufmr
