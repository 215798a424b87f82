// RecordPortIntent: records a port action intent (a port_actions row) in the caller's transaction,
// with the port's system GUID as the inventory knows it; the ActionExecutor carries it out. Every
// cut, enable and un-isolation this service makes starts here: nothing is done to the fabric that
// is not first recorded. Thread-safe (the inventory has its own lock; the transaction is the
// caller's).
#pragma once

#include <cstdint>
#include <string>

#include "store/store.h"
#include "ufm/inventory.h"

namespace ufmr {

struct PortIntent {
  int64_t ticket_id = 0;
  std::string port;
  std::string action;  // "disable" | "enable" | "isolate" | "unisolate"
  std::string reason;
  // pending: for the executor now; waiting: once its host's drain is done (NodeDrain).
  std::string state = action_state::kPending;
};

// Records the intent as pending; returns its id.
int64_t RecordPortIntent(Store::Tx& tx, const Inventory& inventory, const PortIntent& intent);

}  // namespace ufmr
