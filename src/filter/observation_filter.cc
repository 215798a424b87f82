#include "filter/observation_filter.h"

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
  if (!ports_)
    ports_ = inventory_ ? inventory_->WithReferencedPorts(o_.ports, o_.port_refs) : o_.ports;
  return *ports_;
}

}  // namespace ufmr
