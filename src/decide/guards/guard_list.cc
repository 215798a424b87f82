#include "decide/guards/guard_list.h"

namespace ufmr {

std::vector<std::unique_ptr<Guard>> DecisionGuards() {
  std::vector<std::unique_ptr<Guard>> guards;
  // What the finding asks for.
  guards.push_back(MakeInhibitedGuard());
  guards.push_back(MakeSilencedGuard());
  guards.push_back(MakeOpenTicketGuard());
  guards.push_back(MakeShadowGuard());
  guards.push_back(MakeLogOnlyGuard());
  guards.push_back(MakeTicketOnlyGuard());
  guards.push_back(MakeNoPortGuard());
  // Whether acting on the fabric is safe.
  guards.push_back(MakeManualGuard());
  guards.push_back(MakeHeldPortGuard());
  guards.push_back(MakeLastLinkGuard());
  guards.push_back(MakeCooldownGuard());
  guards.push_back(MakeBreakerGuard());
  guards.push_back(MakeCapGuard());
  guards.push_back(MakeSwitchCapGuard());
  guards.push_back(MakeRateLimitGuard());
  guards.push_back(MakeDryRunGuard());
  return guards;
}

}  // namespace ufmr
