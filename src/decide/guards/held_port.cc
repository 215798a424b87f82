// The port to act on is already held out of service for another ticket (named there through
// another link key, when an end was unknown): one ticket, not a second cut. Recorded with the
// guard word open_ticket.
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

class HeldPortGuard final : public Guard {
 public:
  const char* name() const override { return "open_ticket"; }
  GuardOutcome Check(const Finding&, const GuardContext& ctx) const override {
    if (!ctx.Held(ctx.action_port())) return GuardOutcome::Pass();
    return GuardOutcome::Hold(
        DecisionKind::kSuppressed,
        ctx.action_port() + " is already held out of service for another ticket");
  }
};

}  // namespace

std::unique_ptr<Guard> MakeHeldPortGuard() { return std::make_unique<HeldPortGuard>(); }

}  // namespace ufmr
