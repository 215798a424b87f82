#include "act/port_intent.h"

namespace ufmr {

int64_t RecordPortIntent(Store::Tx& tx, const Inventory& inventory, const PortIntent& intent) {
  PortAction a;
  a.ticket_id = intent.ticket_id;
  a.port = intent.port;
  auto info = inventory.Get(intent.port);
  a.system_guid = info ? info->system_guid : "";
  a.action = intent.action;
  a.state = intent.state;
  a.reason = intent.reason;
  return tx.InsertAction(a);
}

}  // namespace ufmr
