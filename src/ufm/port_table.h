// PortTable: a list of ports as UFM answered them, each a row of ids into one StringPool rather
// than a record of strings: 100,000 ports cost some 60 bytes a row and each distinct string once
// (tens of MB), where as PortInfos they cost ten times that. It is what reading the ports answer
// gives (ParsePortTable, port_info.h), what the links fill in (peers, cables) and what the
// inventory takes in. A PortInfo is made of a row only where one is asked for. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ufm/port_info.h"
#include "ufm/string_pool.h"

namespace ufmr {

struct LinkInfo;

// One port: each text field a StringPool id (0 is ""), as PortInfo's fields of the same names.
struct PortRow {
  uint32_t name = 0, guid = 0, system_guid = 0, system_name = 0, node_description = 0,
           description = 0, label = 0, logical_state = 0, physical_state = 0, peer = 0,
           active_speed = 0, active_width = 0, cable_serial = 0, host = 0;
  int32_t number = 0;
};

// The text fields of a port, side by side: PortInfo's and PortRow's.
struct PortField {
  std::string PortInfo::*info;
  uint32_t PortRow::*row;
};
extern const PortField kPortFields[14];

class PortTable {
 public:
  PortTable() = default;
  PortTable(PortTable&&) noexcept = default;
  PortTable& operator=(PortTable&&) noexcept = default;
  // The ports of a list (a fake UFM's, a test's).
  static PortTable From(const std::vector<PortInfo>& ports);

  void Add(const PortInfo& p);
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  const PortRow& row(size_t i) const { return rows_[i]; }
  std::string_view Text(uint32_t id) const { return pool_.View(id); }
  std::string_view Name(size_t i) const { return pool_.View(rows_[i].name); }
  // Whether a port of this name is listed.
  bool Has(std::string_view name) const;
  // The port as a PortInfo (a copy of its strings).
  PortInfo Get(size_t i) const;
  std::vector<PortInfo> ToVector() const;
  const StringPool& pool() const { return pool_; }
  // Bytes held: rows and pool.
  size_t bytes() const { return rows_.capacity() * sizeof(PortRow) + pool_.bytes(); }

  // Gives each port without a peer the other end of its link, when the links name one, and each
  // port without a cable serial the link's; unresolved links are left out. Returns how many
  // peers were filled in (as FillPeersFromLinks does for a list).
  int FillPeersFromLinks(const std::vector<LinkInfo>& links);

 private:
  StringPool pool_;
  std::vector<PortRow> rows_;
  std::vector<uint32_t> listed_;  // by the pool id of a name: 1 when a row has that name
};

}  // namespace ufmr
