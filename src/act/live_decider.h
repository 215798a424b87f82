// LiveDecider: the decision stage as the live service asks it. The Decider's questions are
// answered from the pass's transaction (open tickets, held ports, past actions, the breaker), the
// inventory, the silences in force (read before each pass's findings are decided), the ports
// people own (their manual marks and their isolations, as reconciliation found them) and the
// breaker's window. A failed soak's re-cut is decided through the same guards, as a verdict on
// its ticket (Recut). Pipeline thread only; not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "act/breaker_window.h"
#include "decide/decision.h"
#include "decide/guards/decider.h"
#include "decide/silence.h"
#include "filter/manual_marks.h"
#include "store/store.h"
#include "ufm/inventory.h"

namespace ufmr {

class LiveDecider {
 public:
  // `persons_isolated` (port -> why) is reconciliation's; `marks` the filter stage's.
  LiveDecider(DecisionPolicy policy, const Inventory& inventory, const ManualMarks& marks,
              const std::map<std::string, std::string>& persons_isolated, BreakerWindow& breaker)
      : decider_(policy),
        inventory_(inventory),
        marks_(marks),
        persons_isolated_(persons_isolated),
        breaker_(breaker) {}

  // Reads the silences in force; deciding without them could act inside a maintenance window.
  Status LoadSilences(Store& store);

  struct Verdict {
    Decision decision;
    std::optional<Ticket> open;        // the open ticket of the finding's entity, if asked
    std::optional<int> tripped_count;  // set when this decision tripped the breaker
  };
  Verdict Decide(Store::Tx& tx, const Finding& f);
  // A failed soak takes the port out again through the same guards, but as a verdict on the
  // ticket, not a new finding: its own open ticket, silences and the cooldown (the service's own
  // enable for the soak) do not apply, and it does not count toward the breaker.
  Decision Recut(Store::Tx& tx, const Finding& f);

 private:
  Decider decider_;
  const Inventory& inventory_;
  const ManualMarks& marks_;
  const std::map<std::string, std::string>& persons_isolated_;
  BreakerWindow& breaker_;
  SilenceSet silences_;  // the silences in force
};

}  // namespace ufmr
