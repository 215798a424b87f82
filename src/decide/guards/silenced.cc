// silenced: a silence in force names a port of the link, the switch or the host it sits on.
#include "base/clock.h"
#include "decide/guards/guard_list.h"

namespace ufmr {
namespace {

// The ports, switches and hosts a silence may name: from the inventory, the finding's own switch
// or node, and the names the events carried for ends the inventory does not know.
SilenceSubject SubjectOf(const Finding& f, const GuardContext& ctx) {
  SilenceSubject subject;
  subject.ports = f.ports;
  for (const auto& end : ctx.Ends()) {
    std::string_view name = NodeName(end.info);
    if (!end.info || name.empty()) continue;
    (end.info->is_switch() ? subject.switches : subject.hosts).emplace_back(name);
  }
  if (!f.switch_name.empty()) subject.switches.push_back(f.switch_name);
  if (!f.node_name.empty()) subject.hosts.push_back(f.node_name);
  for (const auto& [key, name] : f.switches) subject.switches.push_back(name);
  for (const auto& [key, name] : f.hosts) subject.hosts.push_back(name);
  return subject;
}

class SilencedGuard final : public Guard {
 public:
  const char* name() const override { return "silenced"; }
  GuardOutcome Check(const Finding& f, const GuardContext& ctx) const override {
    if (!ctx.world().AnySilences()) return GuardOutcome::Pass();
    const Silence* s = ctx.world().Silenced(SubjectOf(f, ctx), f.time);
    if (!s) return GuardOutcome::Pass();
    GuardOutcome o =
        GuardOutcome::Hold(DecisionKind::kSuppressed,
                           "silenced until " + FormatIsoTime(s->expires_at) + ": " + s->reason);
    o.silence_id = s->id;
    return o;
  }
};

}  // namespace

std::unique_ptr<Guard> MakeSilencedGuard() { return std::make_unique<SilencedGuard>(); }

}  // namespace ufmr
