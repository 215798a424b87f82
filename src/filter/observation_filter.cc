#include "filter/observation_filter.h"

#include <algorithm>

#include "ufm/inventory.h"

namespace ufmr {

const char* FilterVerdictName(FilterVerdict v) {
  switch (v) {
    case FilterVerdict::kPass:
      return "pass";
    case FilterVerdict::kDrop:
      return "drop";
    case FilterVerdict::kNoteLinkDown:
      return "note_link_down";
  }
  return "?";
}

const std::vector<std::string>& Sifting::ports() {
  if (ports_) return *ports_;
  std::vector<std::string> ports = o_.ports;
  if (inventory_) {
    for (const auto& ref : o_.port_refs) {
      auto name = inventory_->FindByDescription(ref);
      if (name && std::find(ports.begin(), ports.end(), *name) == ports.end()) {
        ports.push_back(*name);
      }
    }
  }
  ports_ = std::move(ports);
  return *ports_;
}

}  // namespace ufmr
