// inhibited: a switch or node finding covers this one (a reboot covers its ports' link-downs).
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class InhibitedGuard final : public Guard {
 public:
  const char* name() const override { return "inhibited"; }
  GuardOutcome Check(const Finding& f, const GuardContext&) const override {
    if (f.inhibited_by.empty()) return GuardOutcome::Pass();
    return GuardOutcome::Hold(DecisionKind::kSuppressed, "covered by " + f.inhibited_by);
  }
};

}  // namespace

std::unique_ptr<Guard> MakeInhibitedGuard() { return std::make_unique<InhibitedGuard>(); }

}  // namespace ufmr
