#include "ufm/host_names.h"

#include <re2/re2.h>

#include "ufm/inventory.h"

namespace ufmr {

namespace {

std::shared_ptr<const re2::RE2> Compile(const std::string& pattern) {
  return std::make_shared<const re2::RE2>(pattern, re2::RE2::Quiet);
}

}  // namespace

Result<HostNamer> HostNamer::Make(const std::string& pattern) {
  if (pattern.empty()) return HostNamer();
  HostNamer n;
  n.pattern_ = pattern;
  n.re_ = Compile(pattern);
  if (!n.re_->ok()) {
    return Status::InvalidArgument("host_pattern is not an RE2 pattern: " + n.re_->error());
  }
  if (n.re_->NumberOfCapturingGroups() < 1) {
    return Status::InvalidArgument("host_pattern needs a capture group: the machine's name");
  }
  return n;
}

HostNamer::HostNamer() : pattern_(kDefaultPattern) {
  static const std::shared_ptr<const re2::RE2> kDefault = Compile(kDefaultPattern);
  re_ = kDefault;
}

HostNamer::~HostNamer() = default;
HostNamer::HostNamer(HostNamer&&) noexcept = default;
HostNamer& HostNamer::operator=(HostNamer&&) noexcept = default;
HostNamer::HostNamer(const HostNamer& other) = default;
HostNamer& HostNamer::operator=(const HostNamer& other) = default;

std::string HostNamer::MachineOf(const PortInfo& port) const {
  if (port.is_switch()) return "";
  const std::string& name = port.system_name.empty() ? port.node_description : port.system_name;
  if (name.empty()) return "";
  std::string machine;
  if (re2::RE2::PartialMatch(name, *re_, &machine) && !machine.empty()) return machine;
  return name;
}

}  // namespace ufmr
