// RecordDrainIntent: a cut that waits for its host's drain in the job scheduler, recorded in the
// caller's transaction: the cut as a port action `waiting`, the drain as a node_drains row
// `pending` (the DrainWorker asks the scheduler, and releases the cut once the host's jobs have
// ended), and a timeline entry. A host the scheduler has no node for (scheduler.node_pattern) is
// recorded all the same, with no node: the worker fails it, and the cut never happens.
// Thread-safe (the transaction is the caller's).
#pragma once

#include <cstdint>
#include <string>

#include "scheduler/node_names.h"
#include "store/store.h"
#include "ufm/inventory.h"

namespace ufmr {

struct DrainIntent {
  int64_t ticket_id = 0;
  std::string host;    // as UFM names it (Decision::drain_host)
  std::string port;    // the port to cut once the host is drained
  std::string action;  // the cut: "disable" | "isolate"
  std::string rule;
  std::string reason;  // the cut's (the port action's reason)
};

// Returns the drain's id.
int64_t RecordDrainIntent(Store::Tx& tx, const Inventory& inventory, const NodeNames& names,
                          const DrainIntent& intent);

}  // namespace ufmr
