// Covers src/act/drain_worker.h against a real PostgreSQL (tests/support) and a fake job
// scheduler behind the Scheduler interface, with a fake clock: a drain is asked for once and the
// cut released only when the node's jobs have ended; a drain sent before a crash is adopted, not
// sent again; a person's drain is waited for but never claimed or resumed; the breaker and the cap
// hold a new drain and say so once; a scheduler that does not answer is asked again after
// retry_s, said once; an unknown node, or a host without one, fails the drain and the cut never
// happens; a person who resumes the node while it drains calls the cut off (drift); jobs past the
// deadline escalate once; a resume happens only while the reason names the service's ticket and
// no other ticket holds the node; the jobs on a new ticket's host are recorded. End to end with a
// real Slurm: scheduler_drain_test.cc.
#include "act/drain_worker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "act/breaker_window.h"
#include "act/staff_actions.h"
#include "support/test_env.h"
#include "ufm/inventory.h"

namespace ufmr {
namespace {

using std::chrono::seconds;

class FakeScheduler : public Scheduler {
 public:
  Result<SchedulerNode> Node(const std::string& name) override {
    calls.push_back("node " + name);
    if (on_node) std::exchange(on_node, nullptr)();  // once: something that happens meanwhile
    if (silent) return Status::Unavailable("slurm_load_node: Unable to contact slurm controller");
    auto it = nodes.find(name);
    if (it == nodes.end()) return Status::NotFound("Slurm does not know node " + name);
    it->second.busy = !jobs[name].empty();
    return it->second;
  }
  Status Drain(const std::string& name, const std::string& reason) override {
    calls.push_back("drain " + name);
    if (silent) return Status::Unavailable("Unable to contact slurm controller");
    if (!nodes.count(name)) return Status::NotFound("Invalid node name specified");
    nodes[name].drain = true;
    nodes[name].reason = reason;
    return Status::Ok();
  }
  Status Resume(const std::string& name) override {
    calls.push_back("resume " + name);
    if (silent) return Status::Unavailable("Unable to contact slurm controller");
    if (!nodes[name].drain) return Status::InvalidArgument("Invalid node state specified");
    nodes[name].drain = false;
    nodes[name].reason.clear();
    return Status::Ok();
  }
  Result<std::vector<SchedulerJob>> Jobs(const std::string& node) override {
    if (silent) return Status::Unavailable("Unable to contact slurm controller");
    if (!nodes.count(node)) return Status::NotFound("Invalid node name");
    return jobs[node];
  }
  Result<int> NodeCount() override {
    if (silent) return Status::Unavailable("Unable to contact slurm controller");
    return static_cast<int>(nodes.size());
  }
  int Count(const std::string& call) const {
    return static_cast<int>(std::count(calls.begin(), calls.end(), call));
  }

  std::map<std::string, SchedulerNode> nodes;
  std::map<std::string, std::vector<SchedulerJob>> jobs;
  std::vector<std::string> calls;
  bool silent = false;
  std::function<void()> on_node;
};

class DrainWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::Open(testing::TestPostgres::Get().CreateDatabase(), "test");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store.value());
    ASSERT_TRUE(store_->Migrate(testing::SourceDir() + "/schema").ok());
    config_.backend = "slurm";
    config_.max_drained_nodes = 10;
    config_.max_drained_percent = 0;
    config_.poll_interval_s = 5;
    config_.retry_s = 30;
    config_.drain_deadline_s = 3600;
    for (const char* n : {"gpu-node-001", "gpu-node-002", "gpu-node-003"}) {
      scheduler_.nodes[n] = SchedulerNode{n, "idle", "", false, false};
    }
    worker_ = std::make_unique<DrainWorker>(
        DrainWorker::Parts{config_, *store_, scheduler_, names_, metrics_, clock_});
  }

  struct Made {
    int64_t ticket = 0;
    int64_t cut = 0;
    int64_t drain = 0;
  };
  // A ticket whose host's drain waits to be asked for, as the record stage leaves it.
  // `mapped` is the node's name in the scheduler ("" when the host has none).
  // `rail` picks the host's link (leaf).
  Made Insert(const std::string& node, const std::string& state = ticket_state::kDraining,
              std::optional<std::string> mapped = std::nullopt, int rail = 1) {
    Made m;
    auto tx = store_->Begin();
    EXPECT_TRUE(tx.ok());
    auto& t = *tx.value();
    Ticket ticket;
    const std::string leaf = "fc6a1c030000000" + std::to_string(rail) + "_";
    ticket.port_a = leaf + node.substr(node.size() - 1);
    ticket.link_key = "e41d2d03000000" + node.substr(node.size() - 2) + "_" + std::to_string(rail) +
                      "|" + ticket.port_a;
    ticket.state = state;
    ticket.rule = "link_down";
    ticket.reason = "link went down";
    ticket.action_port = ticket.port_a;
    ticket.host_name = node;
    m.ticket = t.InsertTicket(ticket);
    PortAction cut;
    cut.ticket_id = m.ticket;
    cut.port = ticket.port_a;
    cut.action = "disable";
    cut.state = action_state::kWaiting;
    cut.reason = ticket.reason;
    m.cut = t.InsertAction(cut);
    NodeDrain d;
    d.ticket_id = m.ticket;
    d.host = node;
    d.node = mapped.value_or(node);
    d.reason = DrainReason(m.ticket, "link_down", ticket.port_a);
    d.cut_action = m.cut;
    m.drain = t.InsertDrain(d);
    t.Commit();
    return m;
  }
  // A failed soak's re-cut, as SoakWatch records it: the drained drain handed over, a new drain
  // and a new waiting cut. The returned Made names the new ones.
  Made Recut(const Made& m) {
    SetState(m, drain_state::kHandedOver);
    NodeDrain old = Drain(m);
    auto tx = store_->Begin();
    auto& t = *tx.value();
    Ticket ticket = *t.TicketById(m.ticket);
    ticket.state = ticket_state::kDraining;
    t.UpdateTicket(ticket);
    PortAction cut;
    cut.ticket_id = m.ticket;
    cut.port = ticket.action_port;
    cut.action = "disable";
    cut.state = action_state::kWaiting;
    cut.reason = "verification failed";
    Made again = m;
    again.cut = t.InsertAction(cut);
    NodeDrain d = old;
    d.id = 0;
    d.state = drain_state::kPending;
    d.sent_at.reset();
    d.cut_action = again.cut;
    again.drain = t.InsertDrain(d);
    t.Commit();
    return again;
  }
  NodeDrain Drain(const Made& m) {
    auto drains = store_->Drains(m.ticket);
    EXPECT_TRUE(drains.ok() && !drains->empty());
    if (!drains.ok()) return NodeDrain{};
    for (const auto& d : drains.value()) {
      if (d.id == m.drain) return d;
    }
    return NodeDrain{};
  }
  std::string Cut(const Made& m) {
    auto actions = store_->Actions(m.ticket);
    if (!actions.ok()) return "";
    for (const auto& a : actions.value()) {
      if (a.id == m.cut) return a.state;
    }
    return "";
  }
  Ticket TicketOf(const Made& m) { return store_->GetTicket(m.ticket).value(); }
  int Events(const Made& m, const std::string& kind) {
    int n = 0;
    const auto events = store_->Events(m.ticket).value();
    for (const auto& e : events) n += e.kind == kind;
    return n;
  }
  std::string Timeline(const Made& m) {
    std::string s;
    const auto events = store_->Events(m.ticket).value();
    for (const auto& e : events) s += e.kind + ": " + e.message + "\n";
    return s;
  }
  // One pass after the poll interval.
  void Pass() {
    clock_.Advance(seconds(6));
    worker_->RunDue();
  }
  void SetState(const Made& m, const std::string& drain_state) {
    auto tx = store_->Begin();
    NodeDrain d = Drain(m);
    d.state = drain_state;
    tx.value()->UpdateDrain(d);
    tx.value()->Commit();
  }

  // What staff do from the dashboard, on the same database.
  StaffActions Staff() {
    return StaffActions(*store_, inventory_, metrics_, clock_, breaker_,
                        [](const Ticket&) { return 600.0; });
  }
  void SetTicketState(const Made& m, const std::string& state) {
    auto tx = store_->Begin();
    auto t = tx.value()->TicketById(m.ticket);
    t->state = state;
    tx.value()->UpdateTicket(*t);
    tx.value()->Commit();
  }

  std::unique_ptr<Store> store_;
  Inventory inventory_;
  BreakerWindow breaker_;
  Config::Scheduler config_;
  FakeScheduler scheduler_;
  NodeNames names_;
  Metrics metrics_;
  FakeClock clock_;
  std::unique_ptr<DrainWorker> worker_;
};

TEST_F(DrainWorkerTest, TheCutIsReleasedOnlyOnceTheJobsHaveEnded) {
  scheduler_.jobs["gpu-node-001"] = {{"17", "alice", "pretrain", 8, "RUNNING"}};
  Made m = Insert("gpu-node-001");
  Pass();
  EXPECT_EQ(scheduler_.Count("drain gpu-node-001"), 1);
  EXPECT_EQ(scheduler_.nodes["gpu-node-001"].reason,
            "ufm-remediator #" + std::to_string(m.ticket) + ": link_down on fc6a1c0300000001_1");
  EXPECT_EQ(Drain(m).state, "draining");
  EXPECT_EQ(Cut(m), "waiting");
  EXPECT_NE(Timeline(m).find("1 job runs on it: 17 (alice, pretrain)"), std::string::npos)
      << Timeline(m);
  Pass();
  EXPECT_EQ(Drain(m).state, "draining");
  EXPECT_EQ(Cut(m), "waiting");
  scheduler_.jobs["gpu-node-001"].clear();
  Pass();
  EXPECT_EQ(Drain(m).state, "drained");
  EXPECT_EQ(Cut(m), "pending");
  EXPECT_EQ(TicketOf(m).state, "drained");
  Pass();
  EXPECT_EQ(scheduler_.Count("drain gpu-node-001"), 1);  // never asked twice
  EXPECT_EQ(Events(m, "drained"), 1);
}

TEST_F(DrainWorkerTest, ADrainSentBeforeACrashIsAdoptedNotSentAgain) {
  Made m = Insert("gpu-node-001");
  scheduler_.nodes["gpu-node-001"].drain = true;  // the scheduler took it; the row says pending
  scheduler_.nodes["gpu-node-001"].reason = Drain(m).reason;
  Pass();
  EXPECT_EQ(scheduler_.Count("drain gpu-node-001"), 0);
  EXPECT_EQ(Drain(m).state, "draining");
  EXPECT_NE(Drain(m).note.find("drained for this service already"), std::string::npos);
  Pass();
  EXPECT_EQ(Cut(m), "pending");
}

TEST_F(DrainWorkerTest, APersonsDrainIsWaitedForButNeverResumed) {
  scheduler_.nodes["gpu-node-001"].drain = true;
  scheduler_.nodes["gpu-node-001"].reason = "bad DIMM, DC-991";
  Made m = Insert("gpu-node-001");
  Pass();
  EXPECT_EQ(scheduler_.Count("drain gpu-node-001"), 0);
  EXPECT_NE(Drain(m).note.find("by a person"), std::string::npos) << Drain(m).note;
  Pass();
  EXPECT_EQ(Cut(m), "pending");  // drained: cutting is safe
  SetState(m, drain_state::kResuming);
  Pass();
  EXPECT_EQ(scheduler_.Count("resume gpu-node-001"), 0);
  EXPECT_EQ(Drain(m).state, "released");
  EXPECT_TRUE(scheduler_.nodes["gpu-node-001"].drain);
}

// A person's drain is waited for, never the service's: it does not count against the cap of nodes
// the service drains (with the cap at 1, another host is still drained), nor as a drain sent
// or a node drained by the service, and the ticket's end says the person's drain was kept.
TEST_F(DrainWorkerTest, APersonsDrainNeverCountsAgainstTheServicesCap) {
  config_.max_drained_nodes = 1;
  scheduler_.nodes["gpu-node-001"].drain = true;
  scheduler_.nodes["gpu-node-001"].reason = "bad DIMM, DC-991";
  Made persons = Insert("gpu-node-001");
  Pass();
  EXPECT_EQ(Drain(persons).state, "draining");
  EXPECT_TRUE(Drain(persons).by_person);
  EXPECT_EQ(metrics_.Get("ufmr_drains_total{result=\"sent\"}"), 0);
  EXPECT_EQ(metrics_.Get("ufmr_drains_total{result=\"person\"}"), 1);
  Made ours = Insert("gpu-node-002");
  Pass();
  EXPECT_EQ(scheduler_.Count("drain gpu-node-002"), 1) << Timeline(ours);
  EXPECT_EQ(Events(ours, "drain_waits"), 0) << Timeline(ours);
  EXPECT_EQ(metrics_.Get("ufmr_drains_total{result=\"sent\"}"), 1);
  EXPECT_EQ(metrics_.Get("ufmr_nodes_drained"), 1);
  Made third = Insert("gpu-node-003");
  Pass();
  EXPECT_EQ(scheduler_.Count("drain gpu-node-003"), 0);
  EXPECT_NE(Timeline(third).find("1 node is drained by the service already (at most 1"),
            std::string::npos)
      << Timeline(third);
  // A second ticket on the person's node waits for the same drain, not for the cap.
  Made again = Insert("gpu-node-001", ticket_state::kDraining, std::nullopt, 2);
  Pass();
  EXPECT_EQ(Drain(again).state, "draining") << Timeline(again);
  EXPECT_TRUE(Drain(again).by_person);
  EXPECT_EQ(scheduler_.Count("drain gpu-node-001"), 0);
  SetState(persons, drain_state::kResuming);
  Pass();
  EXPECT_EQ(Drain(persons).state, "released");
  EXPECT_NE(Timeline(persons).find("drained by a person before the service asked"),
            std::string::npos)
      << Timeline(persons);
  EXPECT_EQ(Timeline(persons).find("drained again by someone else"), std::string::npos);
  EXPECT_TRUE(scheduler_.nodes["gpu-node-001"].drain);
}

TEST_F(DrainWorkerTest, TheBreakerAndTheCapHoldANewDrainAndSaySoOnce) {
  {
    auto tx = store_->Begin();
    tx.value()->TripBreaker("storm", 0);
    tx.value()->Commit();
  }
  Made m = Insert("gpu-node-001");
  Pass();
  Pass();
  EXPECT_EQ(scheduler_.Count("drain gpu-node-001"), 0);
  EXPECT_EQ(Drain(m).state, "pending");
  EXPECT_EQ(Events(m, "drain_waits"), 1) << Timeline(m);
  {
    auto tx = store_->Begin();
    tx.value()->RearmBreaker("tech");
    tx.value()->Commit();
  }
  config_.max_drained_nodes = 1;
  Pass();
  EXPECT_EQ(Drain(m).state, "draining");
  Made second = Insert("gpu-node-002");
  Pass();
  Pass();
  EXPECT_EQ(scheduler_.Count("drain gpu-node-002"), 0);
  EXPECT_EQ(Events(second, "drain_waits"), 1) << Timeline(second);
  EXPECT_NE(Timeline(second).find("at most 1"), std::string::npos) << Timeline(second);
  // Percent of the scheduler's nodes: 50 % of 3 is 1.
  config_.max_drained_nodes = 10;
  config_.max_drained_percent = 50;
  Pass();
  EXPECT_EQ(scheduler_.Count("drain gpu-node-002"), 0);
  config_.max_drained_percent = 70;  // 2 of 3
  Pass();
  EXPECT_EQ(scheduler_.Count("drain gpu-node-002"), 1);
}

TEST_F(DrainWorkerTest, ASilentSchedulerIsAskedAgainAfterRetrySAndTheCutWaits) {
  scheduler_.silent = true;
  Made m = Insert("gpu-node-001");
  Pass();
  NodeDrain d = Drain(m);
  EXPECT_EQ(d.state, "pending");
  EXPECT_EQ(d.tries, 1);
  ASSERT_TRUE(d.next_try_at.has_value());
  EXPECT_DOUBLE_EQ(*d.next_try_at, ToEpochSeconds(clock_.Now()) + 30);
  const size_t calls = scheduler_.calls.size();
  Pass();  // 6 s later: not yet
  EXPECT_EQ(scheduler_.calls.size(), calls);
  clock_.Advance(seconds(30));
  worker_->RunDue();
  EXPECT_GT(scheduler_.calls.size(), calls);
  EXPECT_EQ(Events(m, "scheduler"), 1) << Timeline(m);  // said once, not every retry
  EXPECT_EQ(Cut(m), "waiting");
  scheduler_.silent = false;
  clock_.Advance(seconds(31));
  worker_->RunDue();
  EXPECT_EQ(Drain(m).state, "draining");
  EXPECT_EQ(Drain(m).tries, 0);
}

TEST_F(DrainWorkerTest, AnUnknownNodeOrAHostWithoutOneFailsTheDrainAndSkipsTheCut) {
  scheduler_.nodes.erase("gpu-node-001");
  Made m = Insert("gpu-node-001");
  Pass();
  EXPECT_EQ(Drain(m).state, "failed");
  EXPECT_EQ(Cut(m), "skipped");
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, "ticket_only");
  EXPECT_EQ(t.guard, "drain_failed");
  EXPECT_FALSE(RuleMayUpgrade(t));  // no rule files the cut again without the drain
  EXPECT_NE(Timeline(m).find("its link is not cut without the drain"), std::string::npos);

  // A host scheduler.node_pattern does not map is recorded with no node.
  Made none = Insert("gpu-node-002", ticket_state::kDraining, "");
  Pass();
  EXPECT_EQ(Drain(none).state, "failed");
  EXPECT_EQ(Cut(none), "skipped");
  EXPECT_NE(Drain(none).note.find("has no node for host gpu-node-002"), std::string::npos)
      << Drain(none).note;
  EXPECT_EQ(scheduler_.Count("drain "), 0);
}

TEST_F(DrainWorkerTest, APersonWhoResumesTheNodeWhileItDrainsCallsTheCutOff) {
  scheduler_.jobs["gpu-node-001"] = {{"17", "alice", "pretrain", 8, "RUNNING"}};
  Made m = Insert("gpu-node-001");
  Pass();
  ASSERT_EQ(Drain(m).state, "draining");
  scheduler_.nodes["gpu-node-001"].drain = false;  // scontrol update state=resume, by a person
  Pass();
  EXPECT_EQ(Drain(m).state, "released");
  EXPECT_EQ(Cut(m), "skipped");
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, "ticket_only");
  EXPECT_EQ(t.guard, "drift");
  EXPECT_FALSE(RuleMayUpgrade(t));  // the next finding on the link does not drain it again
  EXPECT_EQ(Events(m, "drift"), 1);
  Pass();
  EXPECT_EQ(Events(m, "drift"), 1);  // said once
  EXPECT_EQ(scheduler_.Count("drain gpu-node-001"), 1);
}

TEST_F(DrainWorkerTest, ARepairReportedBeforeTheNodeIsDrainedCallsTheCutOff) {
  scheduler_.jobs["gpu-node-001"] = {{"17", "alice", "pretrain", 8, "RUNNING"}};
  Made m = Insert("gpu-node-001");
  Pass();
  ASSERT_EQ(Drain(m).state, "draining");
  clock_.Advance(seconds(3600));
  Pass();
  ASSERT_EQ(TicketOf(m).state, "escalated");
  // A technician reports the repair while the jobs still run: the link was never cut, so it is
  // watched as it is (verifying), and the drain is no longer needed.
  auto repaired = Staff().ReportRepair(m.ticket, "tech", "reseat", "");
  ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
  EXPECT_EQ(TicketOf(m).state, "verifying");
  scheduler_.jobs["gpu-node-001"].clear();
  Pass();
  EXPECT_EQ(Cut(m), "skipped") << Timeline(m);  // the repaired link is not cut
  EXPECT_EQ(Drain(m).state, "resuming");
  EXPECT_EQ(TicketOf(m).state, "verifying");
  EXPECT_EQ(Events(m, "drained"), 0);
  Pass();
  EXPECT_EQ(Drain(m).state, "resumed") << Timeline(m);
  EXPECT_EQ(scheduler_.Count("resume gpu-node-001"), 1);
}

TEST_F(DrainWorkerTest, AChangeWhileTheSchedulerIsAskedIsSeenBeforeTheCutIsReleased) {
  Made m = Insert("gpu-node-001");
  Pass();
  ASSERT_EQ(Drain(m).state, "draining");
  // The ticket is closed between the worker's look at it and its record of the drained node:
  // the record, under the ticket's lock, sees it and calls the cut off.
  scheduler_.on_node = [&] { SetTicketState(m, ticket_state::kClosed); };
  Pass();
  EXPECT_EQ(Cut(m), "skipped") << Timeline(m);
  EXPECT_EQ(Drain(m).state, "resuming");
  EXPECT_EQ(TicketOf(m).state, "closed");
  EXPECT_NE(Timeline(m).find("the ticket no longer waits for the drain (it is closed)"),
            std::string::npos)
      << Timeline(m);
}

TEST_F(DrainWorkerTest, AcknowledgingADrainingTicketKeepsItsDrainAndItsPlaceUnderTheCap) {
  config_.max_drained_nodes = 1;
  scheduler_.jobs["gpu-node-001"] = {{"17", "alice", "pretrain", 8, "RUNNING"}};
  Made m = Insert("gpu-node-001");
  Pass();
  ASSERT_EQ(Drain(m).state, "draining");
  ASSERT_TRUE(Staff().Acknowledge(m.ticket, "tech", "on it").ok());
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, "draining");
  EXPECT_EQ(t.acknowledged_by, "tech");
  // A second host's drain still counts the first against the cap of one.
  Made other = Insert("gpu-node-002");
  Pass();
  EXPECT_EQ(Drain(other).state, "pending");
  EXPECT_EQ(scheduler_.Count("drain gpu-node-002"), 0);
  // The first host's jobs end: its cut is released from the acknowledged ticket.
  scheduler_.jobs["gpu-node-001"].clear();
  Pass();
  EXPECT_EQ(Cut(m), "pending");
  EXPECT_EQ(TicketOf(m).state, "drained");
}

TEST_F(DrainWorkerTest, AServiceThatIsNotTheLeaderDrainsNothing) {
  bool leader = false;
  worker_->set_may_act([&] { return leader; });
  Made m = Insert("gpu-node-001");
  Pass();
  EXPECT_EQ(Drain(m).state, "pending");
  EXPECT_TRUE(scheduler_.calls.empty());
  leader = true;
  Pass();
  EXPECT_EQ(Drain(m).state, "draining");
  EXPECT_EQ(scheduler_.Count("drain gpu-node-001"), 1);
}

TEST_F(DrainWorkerTest, JobsPastTheDeadlineEscalateTheTicketOnce) {
  scheduler_.jobs["gpu-node-001"] = {{"17", "alice", "pretrain", 8, "RUNNING"}};
  Made m = Insert("gpu-node-001");
  Pass();
  clock_.Advance(seconds(3600));
  Pass();
  EXPECT_EQ(TicketOf(m).state, "escalated");
  EXPECT_TRUE(Drain(m).escalated);
  Pass();
  EXPECT_EQ(Events(m, "escalated"), 1);
  EXPECT_EQ(Cut(m), "waiting");
  scheduler_.jobs["gpu-node-001"].clear();  // a person ended the jobs
  Pass();
  EXPECT_EQ(Cut(m), "pending");
  EXPECT_EQ(TicketOf(m).state, "drained");
}

TEST_F(DrainWorkerTest, AResumeNeedsOurReasonAndNoOtherTicketHoldingTheNode) {
  Made a = Insert("gpu-node-001");
  Pass();
  Pass();
  ASSERT_EQ(Drain(a).state, "drained");
  // A second ticket on the same host waits on the drain the first asked for.
  Made b = Insert("gpu-node-001", ticket_state::kDraining, std::nullopt, 2);
  Pass();
  Pass();
  ASSERT_EQ(Drain(b).state, "drained");
  EXPECT_EQ(scheduler_.Count("drain gpu-node-001"), 1);
  SetState(a, drain_state::kResuming);
  Pass();
  EXPECT_EQ(scheduler_.Count("resume gpu-node-001"), 0);
  EXPECT_EQ(Drain(a).state, "handed_over");
  EXPECT_NE(Drain(a).note.find("stays drained for ticket #" + std::to_string(b.ticket)),
            std::string::npos)
      << Drain(a).note;
  // The second's resume: the reason names the first ticket, one of the service's on this node.
  SetState(b, drain_state::kResuming);
  Pass();
  EXPECT_EQ(scheduler_.Count("resume gpu-node-001"), 1);
  EXPECT_EQ(Drain(b).state, "resumed");
  EXPECT_FALSE(scheduler_.nodes["gpu-node-001"].drain);
}

TEST_F(DrainWorkerTest, AReasonLeftOnANodeTheServiceGaveUpIsNotItsOwn) {
  Made a = Insert("gpu-node-001");
  Pass();
  Pass();
  ASSERT_EQ(Drain(a).state, "drained");
  // The first ticket closed without a passed soak: the node was left drained for a person, its
  // reason still naming the ticket.
  SetState(a, drain_state::kReleased);
  Made c = Insert("gpu-node-001", ticket_state::kDraining, std::nullopt, 2);
  Pass();
  EXPECT_NE(Timeline(c).find("drained by a person already"), std::string::npos) << Timeline(c);
  Pass();
  ASSERT_EQ(Drain(c).state, "drained");
  SetState(c, drain_state::kResuming);
  Pass();
  EXPECT_EQ(scheduler_.Count("resume gpu-node-001"), 0);  // the person's to give back
  EXPECT_EQ(Drain(c).state, "released");
  EXPECT_TRUE(scheduler_.nodes["gpu-node-001"].drain);
}

TEST_F(DrainWorkerTest, AFailedSoaksRecutLooksAtTheNodeAgainBeforeTheCut) {
  Made m = Insert("gpu-node-001");
  Pass();
  Pass();
  ASSERT_EQ(Drain(m).state, "drained");
  // Still drained for the ticket when the soak fails: adopted, then cut at once (no jobs).
  Made again = Recut(m);
  Pass();
  EXPECT_EQ(Drain(again).state, "draining");
  EXPECT_NE(Timeline(m).find("was drained for this service already"), std::string::npos)
      << Timeline(m);
  Pass();
  EXPECT_EQ(Cut(again), "pending");
  EXPECT_EQ(scheduler_.Count("drain gpu-node-001"), 1);

  // Resumed by a person since, with a job on it: drained again, and the cut waits for the job.
  Made third = Recut(again);
  scheduler_.nodes["gpu-node-001"].drain = false;
  scheduler_.nodes["gpu-node-001"].reason.clear();
  scheduler_.jobs["gpu-node-001"] = {{"18", "carol", "eval", 1, "RUNNING"}};
  Pass();
  EXPECT_EQ(scheduler_.Count("drain gpu-node-001"), 2);
  Pass();
  EXPECT_EQ(Cut(third), "waiting");
  EXPECT_EQ(Drain(third).state, "draining");
}

TEST_F(DrainWorkerTest, TheJobsOnANewTicketsHostAreRecorded) {
  scheduler_.jobs["gpu-node-003"] = {{"42", "bob", "finetune", 16, "RUNNING"}};
  Made m = Insert("gpu-node-003", ticket_state::kTicketOnly);
  config_.record_jobs = true;
  Pass();
  nlohmann::json jobs = TicketOf(m).host_jobs;
  ASSERT_TRUE(jobs.is_object()) << jobs.dump();
  EXPECT_EQ(jobs["node"], "gpu-node-003");
  ASSERT_EQ(jobs["jobs"].size(), 1u);
  EXPECT_EQ(jobs["jobs"][0]["id"], "42");
  EXPECT_EQ(jobs["jobs"][0]["nodes"], 16);
}

}  // namespace
}  // namespace ufmr
