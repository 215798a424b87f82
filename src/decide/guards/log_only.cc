// log_only: the rule asks for a record of the finding, nothing more.
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class LogOnlyGuard final : public Guard {
 public:
  const char* name() const override { return "log_only"; }
  GuardOutcome Check(const Finding& f, const GuardContext&) const override {
    if (f.action != RuleAction::kLogOnly) return GuardOutcome::Pass();
    return GuardOutcome::Hold(DecisionKind::kFinding, "the rule asks for a record only");
  }
};

}  // namespace

std::unique_ptr<Guard> MakeLogOnlyGuard() { return std::make_unique<LogOnlyGuard>(); }

}  // namespace ufmr
