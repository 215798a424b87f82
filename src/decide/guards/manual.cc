// manual: a port of the link is in a person's hands (they disabled or isolated it): not touched.
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class ManualGuard final : public Guard {
 public:
  const char* name() const override { return "manual"; }
  GuardOutcome Check(const Finding& f, const GuardContext& ctx) const override {
    for (const auto& p : f.ports) {
      std::string why = ctx.world().OwnedByPerson(p);
      if (!why.empty()) {
        return GuardOutcome::Hold(DecisionKind::kBlocked,
                                  p + " is in a person's hands (" + why + "): not touched");
      }
    }
    return GuardOutcome::Pass();
  }
};

}  // namespace

std::unique_ptr<Guard> MakeManualGuard() { return std::make_unique<ManualGuard>(); }

}  // namespace ufmr
