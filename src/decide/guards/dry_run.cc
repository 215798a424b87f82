// dry_run: remediation.dry_run: decide, record and open tickets, never touch a port. Checked
// last, so a dry run shows which guard would have stopped an action.
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class DryRunGuard final : public Guard {
 public:
  const char* name() const override { return "dry_run"; }
  GuardOutcome Check(const Finding& f, const GuardContext& ctx) const override {
    if (!ctx.policy().dry_run) return GuardOutcome::Pass();
    return GuardOutcome::Hold(DecisionKind::kBlocked, std::string("dry run: would ") +
                                                          ActionVerb(f) + " " + ctx.action_port());
  }
};

}  // namespace

std::unique_ptr<Guard> MakeDryRunGuard() { return std::make_unique<DryRunGuard>(); }

}  // namespace ufmr
