#include "act/drain_intent.h"

#include "act/port_intent.h"

namespace ufmr {

int64_t RecordDrainIntent(Store::Tx& tx, const Inventory& inventory, const NodeNames& names,
                          const DrainIntent& intent) {
  NodeDrain drain;
  drain.ticket_id = intent.ticket_id;
  drain.host = intent.host;
  drain.node = names.Of(intent.host).value_or("");
  drain.reason = DrainReason(intent.ticket_id, intent.rule, intent.port);
  drain.cut_action = RecordPortIntent(
      tx, inventory,
      {intent.ticket_id, intent.port, intent.action, intent.reason, action_state::kWaiting});
  drain.id = tx.InsertDrain(drain);
  tx.AddEvent(intent.ticket_id, "draining", kServiceActor,
              drain.node.empty()
                  ? "host " + drain.host + " is to be drained before " + intent.port +
                        " is cut, but the job scheduler has no node for it "
                        "(scheduler.node_pattern)"
                  : "host " + drain.host + " (node " + drain.node +
                        ") is to be drained in the job scheduler; " + intent.port +
                        " is cut once its jobs have ended",
              {{"drain_id", drain.id}, {"host", drain.host}, {"node", drain.node}});
  return drain.id;
}

}  // namespace ufmr
