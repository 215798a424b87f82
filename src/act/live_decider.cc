#include "act/live_decider.h"

namespace ufmr {

namespace {

// The decision stage's questions, answered from the pass's transaction and the inventory.
class TxDecisionContext final : public DecisionContext {
 public:
  TxDecisionContext(Store::Tx& tx, const Inventory& inventory, const SilenceSet& silences,
                    const ManualMarks& marks,
                    const std::map<std::string, std::string>& persons_isolated,
                    BreakerWindow& breaker)
      : tx_(tx),
        inventory_(inventory),
        silences_(silences),
        marks_(marks),
        persons_isolated_(persons_isolated),
        breaker_(breaker) {}
  // A copy of the port, kept for the decision: the inventory's refresh may replace it meanwhile.
  const PortInfo* Port(const std::string& name) override {
    auto [it, added] = ports_.try_emplace(name);
    if (added) it->second = inventory_.Get(name);
    return it->second ? &*it->second : nullptr;
  }
  std::optional<OpenTicketInfo> OpenTicket(const std::string& entity) override {
    open_ = tx_.OpenTicketForLink(entity);
    if (!open_) return std::nullopt;
    return OpenTicketInfo{open_->id, !RuleMayUpgrade(*open_)};
  }
  const Silence* Silenced(const SilenceSubject& subject, TimePoint t) override {
    return silences_.Match(subject, t);
  }
  bool AnySilences() override { return silences_.size() > 0; }
  std::string OwnedByPerson(const std::string& port) override {
    if (std::string why = marks_.Why(port); !why.empty()) return why;
    if (auto it = persons_isolated_.find(port); it != persons_isolated_.end()) return it->second;
    auto info = inventory_.Get(port);
    // No open ticket of ours covers this link (that is checked first), so a disabled port was
    // disabled by someone else.
    if (info && info->disabled()) return "disabled in UFM, not by this service";
    return "";
  }
  std::vector<std::string> HeldPorts() override { return tx_.HeldPorts(); }
  int FabricPorts() override { return static_cast<int>(inventory_.size()); }
  std::vector<NodeLink> NodeLinks(const PortInfo& port) override {
    return inventory_.NodeLinks(port);
  }
  int ActionsSince(TimePoint since) override { return tx_.CutActionsSince(ToEpochSeconds(since)); }
  std::optional<TimePoint> LastActionOn(const std::string& port) override {
    auto t = tx_.LastActionOn(port);
    if (!t) return std::nullopt;
    return FromEpochSeconds(*t);
  }
  bool BreakerTripped() override { return tx_.Breaker().tripped; }
  int CountActingFinding(TimePoint t, double window_s) override {
    return breaker_.Count(t, window_s);
  }
  void TripBreaker(const Decision&, int count) override { tripped_count_ = count; }
  std::optional<Ticket>& open() { return open_; }
  // Set when this decision tripped the breaker: the findings counted in its window.
  std::optional<int> tripped_count() const { return tripped_count_; }

 private:
  Store::Tx& tx_;
  const Inventory& inventory_;
  const SilenceSet& silences_;
  const ManualMarks& marks_;
  const std::map<std::string, std::string>& persons_isolated_;
  BreakerWindow& breaker_;
  std::map<std::string, std::optional<PortInfo>> ports_;  // asked for this decision
  std::optional<Ticket> open_;
  std::optional<int> tripped_count_;
};

// A re-cut after a failed soak (LiveDecider::Recut): the inner context without what applies to
// new findings only.
class RecutContext final : public DecisionContext {
 public:
  explicit RecutContext(DecisionContext& inner) : inner_(inner) {}
  const PortInfo* Port(const std::string& name) override { return inner_.Port(name); }
  std::optional<OpenTicketInfo> OpenTicket(const std::string&) override { return std::nullopt; }
  const Silence* Silenced(const SilenceSubject&, TimePoint) override { return nullptr; }
  bool AnySilences() override { return false; }
  std::string OwnedByPerson(const std::string& port) override { return inner_.OwnedByPerson(port); }
  std::vector<std::string> HeldPorts() override { return inner_.HeldPorts(); }
  int FabricPorts() override { return inner_.FabricPorts(); }
  std::vector<NodeLink> NodeLinks(const PortInfo& port) override { return inner_.NodeLinks(port); }
  int ActionsSince(TimePoint since) override { return inner_.ActionsSince(since); }
  std::optional<TimePoint> LastActionOn(const std::string&) override { return std::nullopt; }
  bool BreakerTripped() override { return inner_.BreakerTripped(); }
  int CountActingFinding(TimePoint, double) override { return 0; }
  void TripBreaker(const Decision&, int) override {}

 private:
  DecisionContext& inner_;
};

}  // namespace

Status LiveDecider::LoadSilences(Store& store) {
  auto silences = store.ActiveSilences();
  if (!silences.ok()) return silences.status();
  silences_ = SilenceSet(std::move(silences.value()));
  return Status::Ok();
}

LiveDecider::Verdict LiveDecider::Decide(Store::Tx& tx, const Finding& f) {
  TxDecisionContext ctx(tx, inventory_, silences_, marks_, persons_isolated_, breaker_);
  Decision d = decider_.Decide(f, ctx);
  return Verdict{std::move(d), std::move(ctx.open()), ctx.tripped_count()};
}

Decision LiveDecider::Recut(Store::Tx& tx, const Finding& f) {
  TxDecisionContext base(tx, inventory_, silences_, marks_, persons_isolated_, breaker_);
  RecutContext ctx(base);
  return decider_.Decide(f, ctx);
}

}  // namespace ufmr
