// InventoryRefresh: keeps the port inventory fresh from UFM (its ports, and the peers its links
// name), every inventory.refresh_interval_s, while the inventory is empty and on taking the lead
// (what a standby read may predate the last leader's last action); reports the input's
// health, and once the inventory is in, records where ticketed links are for tickets filed
// without it (TicketPlacer). Leader and standby alike refresh (a standby's dashboard reads it);
// only the leader writes places. Pipeline thread only; not thread-safe.
#pragma once

#include <optional>

#include "base/clock.h"
#include "base/metrics.h"
#include "config/config.h"
#include "ingest/input_health.h"
#include "loop/interval.h"
#include "store/store.h"
#include "store/ticket_place.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"

namespace ufmr {

class InventoryRefresh {
 public:
  struct Parts {
    const Config& config;
    Store& store;
    UfmClient& ufm;
    Inventory& inventory;
    Metrics& metrics;
    const Clock& clock;
    InputHealth& inputs;
    const TicketPlacer& placer;
  };
  explicit InventoryRefresh(const Parts& parts) : p_(parts) {}

  // When due, while the inventory is empty, and on taking the lead. `standby`: refresh, but write
  // nothing.
  void MaybeRefresh(bool standby);
  // Whether UFM's ports have been read since start: what an event is about comes from them.
  bool loaded() const { return loaded_; }

 private:
  // False when UFM's ports could not be read.
  bool Refresh(bool standby);
  // Records where ticketed links are for tickets filed before the inventory was in.
  void PlaceTickets();

  Parts p_;
  Interval due_;
  bool loaded_ = false;
  bool read_for_lead_ = false;               // read since this instance last took the lead
  std::optional<TimePoint> tried_for_lead_;  // the last try as leader
};

}  // namespace ufmr
