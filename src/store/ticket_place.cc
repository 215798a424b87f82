#include "store/ticket_place.h"

#include <re2/re2.h>
#include <spdlog/spdlog.h>

#include "ufm/ufm_json.h"

namespace ufmr {

TicketPlacer::TicketPlacer(const std::string& rack_pattern) {
  if (rack_pattern.empty()) return;
  auto re = std::make_unique<re2::RE2>(rack_pattern, re2::RE2::Quiet);
  if (!re->ok() || re->NumberOfCapturingGroups() < 1) {
    spdlog::error("dashboard.rack_pattern '{}' is not an RE2 pattern with a capture group{}{}",
                  rack_pattern, re->ok() ? "" : ": ", re->ok() ? "" : re->error());
    return;
  }
  rack_ = std::move(re);
}

TicketPlacer::~TicketPlacer() = default;

std::string TicketPlacer::RackOf(const std::string& switch_name) const {
  std::string rack;
  if (rack_ && !switch_name.empty() && re2::RE2::PartialMatch(switch_name, *rack_, &rack)) {
    return rack;
  }
  return "";
}

void TicketPlacer::Place(const Inventory& inventory, Ticket* t,
                         const std::string& cable_serial) const {
  t->ends = nlohmann::json::array();
  t->switch_name.clear();
  t->host_name.clear();
  std::string search = t->link_key;
  for (const std::string& name : {t->port_a, t->port_b}) {
    if (name.empty()) continue;
    auto info = inventory.Get(name);
    if (!info) {
      t->ends.push_back({{"name", name}});
      if (!cable_serial.empty()) t->ends.back()["cable_serial"] = cable_serial;
      continue;
    }
    if (info->cable_serial.empty()) info->cable_serial = cable_serial;
    bool sw = info->is_switch();
    t->ends.push_back({{"name", info->name},
                       {"guid", info->guid},
                       {"system_guid", info->system_guid},
                       {"system_name", info->system_name},
                       {"node_description", info->node_description},
                       {"label", info->label},
                       {"number", info->number},
                       {"cable_serial", info->cable_serial},
                       {"is_switch", sw}});
    std::string& where = sw ? t->switch_name : t->host_name;
    // A host is its machine (PortInfo::host: "r-ufm77", not the adapter "r-ufm77 mlx5_0").
    if (where.empty()) {
      where = !sw && !info->host.empty()  ? info->host
              : info->system_name.empty() ? info->system_guid
                                          : info->system_name;
    }
    for (const std::string* s : {&info->guid, &info->system_guid, &info->system_name,
                                 &info->node_description, &info->label, &info->cable_serial}) {
      if (!s->empty()) search += " " + *s;
    }
  }
  t->rack = RackOf(t->switch_name);
  if (!t->rack.empty()) search += " " + t->rack;
  t->search_text = AsciiLower(search);
}

}  // namespace ufmr
