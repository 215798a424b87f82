// Covers src/act/action_executor.h against a real PostgreSQL (tests/support) and a fake UFM
// behind the UfmClient interface, with a fake clock. RunOpen: a pending disable is submitted
// once, its job followed and the port's state confirmed (ticket port_disabled, disabled_by_us);
// an enable starts the soak; a `submitted` row without a job id is confirmed when the port is
// already as wanted, or adopts the UFM job whose description carries its marker, with no second
// submission; a transient failure leaves the row submitted with tries and next_try_at (nothing
// happens before then) and gives up after action_max_tries; a permanent failure fails at once
// (ticket ticket_only, guard action_failed, the reason on its timeline); a port already as wanted
// before the service touched it is "done by hand" (guard manual); isolation goes through
// SetPortHealth and is confirmed from GetUnhealthyPorts. A disabled port reads by its physical
// state ("Disabled") as UFM documents it; a job ends in any status but Running (Aborted
// included), and a job UFM no longer knows ([]) is judged by the port at once; a cut UFM took
// whose port then reads neither disabled nor enabled ("Down" / "Link Down") is held as the
// service's, guard "uncertain", never left untracked. AnnouncePending: one UFM external event
// per confirmed action carrying its marker, then marked announced; not posted again when UFM's
// events already hold the marker; nothing when ufm.external_events is off.
#include "act/action_executor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "support/test_env.h"

namespace ufmr {
namespace {

using std::chrono::seconds;

const std::string kSw = "fc6a1c0300000001_1";    // ib-leaf-01 1/1/1
const std::string kSw2 = "fc6a1c0300000001_2";   // ib-leaf-01 1/1/2
const std::string kHost = "e41d2d0300000001_1";  // gpu-node-001 HCA-1
const std::string kHost2 = "e41d2d0300000002_1";

class FakeUfm : public UfmClient {
 public:
  struct Job {
    std::string status;
    std::string description;
    std::string port;
    std::string action;  // applied to the port when the job completes
  };
  struct Health {
    std::string port;
    bool isolate = false;
    std::string why;
  };
  struct Posted {
    int event_id = 0;
    std::string name;
    std::string description;
  };

  FakeUfm() {
    AddPort(kSw, "fc6a1c0300000001", "ib-leaf-01", "ib-leaf-01:1/1/1", kHost);
    AddPort(kSw2, "fc6a1c0300000001", "ib-leaf-01", "ib-leaf-01:1/1/2", kHost2);
    AddPort(kHost, "e41d2d0300000001", "gpu-node-001", "gpu-node-001 HCA-1", kSw);
    AddPort(kHost2, "e41d2d0300000002", "gpu-node-002", "gpu-node-002 HCA-1", kSw2);
  }

  void AddPort(const std::string& name, const std::string& system_guid, const std::string& system,
               const std::string& node_description, const std::string& peer) {
    PortInfo p;
    p.name = name;
    p.guid = name.substr(0, 16);
    p.system_guid = system_guid;
    p.system_name = system;
    p.node_description = node_description;
    p.description =
        node_description.find(':') != std::string::npos ? "Switch IB Port" : "Computer IB Port";
    p.logical_state = "Active";
    p.physical_state = "Link Up";
    p.peer = peer;
    ports[name] = p;
  }

  Result<ParsedEvents> GetEvents() override {
    ParsedEvents p;
    p.events = events;
    return p;
  }
  Result<PortTable> GetPorts() override {
    std::vector<PortInfo> out;
    for (const auto& [name, p] : ports) out.push_back(p);
    return PortTable::From(out);
  }
  Result<PortInfo> GetPort(const std::string& name) override {
    ++get_port_calls;
    auto it = ports.find(name);
    if (it == ports.end()) return Status::NotFound("no port " + name);
    return it->second;
  }
  Result<std::string> SubmitPortAction(const std::string& action, const PortInfo& port,
                                       const std::string& description) override {
    submitted.push_back(action + " " + port.name);
    targets.push_back(port);
    descriptions.push_back(description);
    if (!submit_errors.empty()) {
      Status s = submit_errors.front();
      submit_errors.pop_front();
      return s;
    }
    std::string id = std::to_string(next_job++);
    jobs[id] = {"Running", description, port.name, action};
    return id;
  }
  // A job completes when it is first polled: the port changes then.
  Result<JobStatus> GetJob(const std::string& job_id) override {
    polled.push_back(job_id);
    auto it = jobs.find(job_id);
    if (it == jobs.end()) return Status::NotFound("no job " + job_id);
    Job& j = it->second;
    if (j.status == "Running") {
      j.status = job_ends;
      PortInfo& p = ports[j.port];
      if (j.action == "disable" && job_changes_port) {
        p.logical_state = disabled_shows.first;
        p.physical_state = disabled_shows.second;
      } else if (job_changes_port) {
        p.logical_state = "Active";
        p.physical_state = "Link Up";
      }
    }
    if (forget_jobs) return Status::NotFound("UFM answered [] for job " + job_id);
    return JobStatus{j.status, ""};
  }
  Result<std::vector<JobInfo>> GetJobs() override {
    ++get_jobs_calls;
    std::vector<JobInfo> out;
    for (const auto& [id, j] : jobs) out.push_back({id, j.status, j.description});
    return out;
  }
  Status SetPortHealth(const std::string& port, bool isolate, const std::string& why) override {
    health.push_back({port, isolate, why});
    if (isolate) {
      unhealthy.insert(port);
    } else {
      unhealthy.erase(port);
    }
    return Status::Ok();
  }
  Result<std::vector<UnhealthyPort>> GetUnhealthyPorts() override {
    std::vector<UnhealthyPort> out;
    for (const auto& p : unhealthy) {
      UnhealthyPort u;
      u.port = p;
      u.condition = "MANUAL";
      out.push_back(u);
    }
    return out;
  }
  Status PostExternalEvent(int event_id, const std::string& name,
                           const std::string& description) override {
    posted.push_back({event_id, name, description});
    return Status::Ok();
  }
  Result<std::string> GetTelemetryCsv() override { return Status::NotFound("none"); }

  std::map<std::string, PortInfo> ports;
  std::map<std::string, Job> jobs;
  // How a job ends and what a disabled port then reads as {logical_state, physical_state}.
  std::string job_ends = "Completed";
  bool job_changes_port = true;
  bool forget_jobs = false;  // GetJob answers as UFM does for a job it does not know
  std::pair<std::string, std::string> disabled_shows = {"Disabled", "Link Down"};
  std::set<std::string> unhealthy;
  std::vector<UfmEvent> events;
  std::deque<Status> submit_errors;  // answered to the next submissions, in order
  std::vector<std::string> submitted;
  std::vector<PortInfo> targets;
  std::vector<std::string> descriptions;
  std::vector<std::string> polled;
  std::vector<Health> health;
  std::vector<Posted> posted;
  int get_port_calls = 0;
  int get_jobs_calls = 0;
  int next_job = 500;
};

class ActionExecutorTest : public ::testing::Test {
 protected:
  struct Made {
    int64_t ticket = 0;
    int64_t action = 0;
  };

  void SetUp() override {
    auto store = Store::Open(testing::TestPostgres::Get().CreateDatabase(), "test");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store.value());
    ASSERT_TRUE(store_->Migrate(testing::SourceDir() + "/schema").ok());
    config_.ufm.url = "http://fake";
    config_.remediation.job_poll_interval_s = 0.01;
    config_.remediation.job_timeout_s = 1;
    config_.remediation.soak_s = 60;
  }

  std::unique_ptr<ActionExecutor> Make() {
    return std::make_unique<ActionExecutor>(
        config_, *store_, ufm_, inventory_, metrics_, clock_, [](const Ticket&) { return 60.0; },
        [this](const PortAction& a, ActionExecutor::Outcome o) {
          outcomes_.emplace_back(a.id, o);
        });
  }

  // An open ticket on the port's link and its action in the given state, as the decision stage
  // records them (no job id, no tries).
  Made Insert(const std::string& action, const std::string& state, const std::string& port = kSw) {
    Made m;
    auto tx = store_->Begin();
    EXPECT_TRUE(tx.ok()) << tx.status().ToString();
    if (!tx.ok()) return m;
    const std::string peer = ufm_.ports[port].peer;
    Ticket t;
    t.link_key = std::min(port, peer) + "|" + std::max(port, peer);
    t.port_a = port;
    t.port_b = peer;
    t.state = action == "enable" ? ticket_state::kRepairReported : ticket_state::kOpen;
    t.rule = "link_down";
    t.reason = "link went down 3 times within 10m";
    t.action_port = port;
    t.disabled_by_us = action == "enable";
    t.method = action == "isolate" ? "isolate" : "disable";
    m.ticket = tx.value()->InsertTicket(t);
    tx.value()->AddEvent(m.ticket, "opened", "service", t.reason);
    PortAction a;
    a.ticket_id = m.ticket;
    a.port = port;
    a.system_guid = ufm_.ports[port].system_guid;
    a.action = action;
    a.state = state;
    a.reason = t.reason;
    m.action = tx.value()->InsertAction(a);
    tx.value()->Commit();
    return m;
  }

  PortAction Action(const Made& m) {
    auto actions = store_->Actions(m.ticket);
    EXPECT_TRUE(actions.ok()) << actions.status().ToString();
    if (actions.ok()) {
      for (const auto& a : actions.value()) {
        if (a.id == m.action) return a;
      }
    }
    ADD_FAILURE() << "no action " << m.action;
    return {};
  }

  Ticket TicketOf(const Made& m) {
    auto t = store_->GetTicket(m.ticket);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? t.value() : Ticket{};
  }

  std::string Timeline(const Made& m) {
    std::string s;
    auto events = store_->Events(m.ticket);
    if (!events.ok()) return events.status().ToString();
    for (const auto& e : events.value()) s += e.kind + ": " + e.message + "\n";
    return s;
  }

  double Now() const { return ToEpochSeconds(clock_.Now()); }

  std::unique_ptr<Store> store_;
  Config config_;
  FakeUfm ufm_;
  Inventory inventory_;
  Metrics metrics_;
  FakeClock clock_;
  std::vector<std::pair<int64_t, ActionExecutor::Outcome>> outcomes_;
};

using Outcomes = std::vector<std::pair<int64_t, ActionExecutor::Outcome>>;

TEST_F(ActionExecutorTest, MarkerNamesTheAction) {
  EXPECT_EQ(ActionExecutor::Marker(17), "[ufm-remediator action 17]");
}

TEST_F(ActionExecutorTest, DisableIsSubmittedOnceFollowedAndConfirmed) {
  Made m = Insert("disable", action_state::kPending);
  auto ex = Make();
  ex->RunOpen();
  ASSERT_EQ(ufm_.submitted, std::vector<std::string>{"disable " + kSw});
  EXPECT_EQ(ufm_.targets[0].system_guid, "fc6a1c0300000001");
  EXPECT_NE(ufm_.descriptions[0].find(ActionExecutor::Marker(m.action)), std::string::npos)
      << ufm_.descriptions[0];
  EXPECT_EQ(ufm_.polled, std::vector<std::string>{"500"});
  PortAction a = Action(m);
  EXPECT_EQ(a.state, action_state::kConfirmed);
  EXPECT_EQ(a.job_id, "500");
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.tries, 0);
  EXPECT_TRUE(a.confirmed_at.has_value());
  EXPECT_FALSE(a.announced);
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, ticket_state::kPortDisabled) << Timeline(m);
  EXPECT_TRUE(t.disabled_by_us);
  EXPECT_EQ(t.method, "disable");
  EXPECT_EQ(t.guard, "");
  EXPECT_NE(Timeline(m).find("disable " + kSw + " confirmed: UFM job 500 Completed"),
            std::string::npos)
      << Timeline(m);
  EXPECT_EQ(outcomes_, (Outcomes{{m.action, ActionExecutor::Outcome::kConfirmed}}));
  EXPECT_EQ(inventory_.Get(kSw)->logical_state, "Disabled") << "the inventory follows";

  ex->RunOpen();  // nothing open any more
  EXPECT_EQ(ufm_.submitted.size(), 1u);
  EXPECT_EQ(outcomes_.size(), 1u);
}

// UFM's documented shape of a disabled port: physical_state "Disabled", logical_state "Down".
TEST_F(ActionExecutorTest, ADisabledPortReadsByItsPhysicalState) {
  ufm_.disabled_shows = {"Down", "Disabled"};
  Made m = Insert("disable", action_state::kPending);
  Make()->RunOpen();
  EXPECT_EQ(Action(m).state, action_state::kConfirmed);
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, ticket_state::kPortDisabled) << Timeline(m);
  EXPECT_TRUE(t.disabled_by_us);
  EXPECT_EQ(t.guard, "");
  EXPECT_EQ(outcomes_, (Outcomes{{m.action, ActionExecutor::Outcome::kConfirmed}}));
}

// A UFM that shows a disabled port only as "Down" / "Link Down" (as a broken link of an enabled
// port reads): the job completed, but whether the port is disabled cannot be read. The cut is
// never left untracked: the ticket holds the port as the service's and says it is uncertain.
TEST_F(ActionExecutorTest, ACutWhoseOutcomeCannotBeReadIsHeldAsOursAndSaidUncertain) {
  ufm_.disabled_shows = {"Down", "Link Down"};
  Made m = Insert("disable", action_state::kPending);
  Make()->RunOpen();
  EXPECT_EQ(ufm_.submitted.size(), 1u);
  PortAction a = Action(m);
  EXPECT_EQ(a.state, action_state::kConfirmed) << "nothing more to send";
  EXPECT_EQ(a.error.rfind("uncertain: ", 0), 0u) << a.error;
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, ticket_state::kPortDisabled) << Timeline(m);
  EXPECT_TRUE(t.disabled_by_us) << "a repair report must still bring it back";
  EXPECT_EQ(t.method, "disable");
  EXPECT_EQ(t.guard, "uncertain");
  EXPECT_NE(Timeline(m).find("disable " + kSw + " uncertain: UFM job 500 ended 'Completed'"),
            std::string::npos)
      << Timeline(m);
  EXPECT_EQ(outcomes_, (Outcomes{{m.action, ActionExecutor::Outcome::kUncertain}}));
}

// A job a person aborted is final: what the port then reads decides.
TEST_F(ActionExecutorTest, AnAbortedJobIsFinalAndThePortDecides) {
  ufm_.job_ends = "Aborted";
  ufm_.job_changes_port = false;  // still Active, Link Up: plainly not done
  Made failed = Insert("disable", action_state::kPending);
  Make()->RunOpen();
  EXPECT_EQ(Action(failed).state, action_state::kFailed);
  EXPECT_EQ(TicketOf(failed).guard, "action_failed") << Timeline(failed);
  EXPECT_FALSE(TicketOf(failed).disabled_by_us);
  EXPECT_NE(Timeline(failed).find("ended 'Aborted'"), std::string::npos) << Timeline(failed);

  // Aborted, but the port reads "Down" / "Link Down": UFM took the cut and may have done it.
  ufm_.job_changes_port = true;
  ufm_.disabled_shows = {"Down", "Link Down"};
  Made held = Insert("disable", action_state::kPending, kSw2);
  Make()->RunOpen();
  EXPECT_EQ(TicketOf(held).guard, "uncertain") << Timeline(held);
  EXPECT_TRUE(TicketOf(held).disabled_by_us);
}

// UFM answers [] for a job it does not know (purged, or UFM restarted): the port decides at once.
TEST_F(ActionExecutorTest, AJobUfmNoLongerKnowsIsJudgedByThePort) {
  ufm_.forget_jobs = true;
  ufm_.disabled_shows = {"Down", "Disabled"};
  Made m = Insert("disable", action_state::kPending);
  Make()->RunOpen();
  EXPECT_EQ(ufm_.polled.size(), 1u) << "not polled until the deadline";
  EXPECT_EQ(Action(m).state, action_state::kConfirmed);
  EXPECT_NE(Timeline(m).find("UFM does not know job 500"), std::string::npos) << Timeline(m);
  EXPECT_TRUE(TicketOf(m).disabled_by_us);
}

TEST_F(ActionExecutorTest, EnableStartsTheSoak) {
  ufm_.ports[kSw].logical_state = "Disabled";
  Made m = Insert("enable", action_state::kPending);
  Make()->RunOpen();
  EXPECT_EQ(ufm_.submitted, std::vector<std::string>{"enable " + kSw});
  EXPECT_EQ(Action(m).state, action_state::kConfirmed);
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, ticket_state::kVerifying) << Timeline(m);
  EXPECT_FALSE(t.disabled_by_us);
  ASSERT_TRUE(t.soak_until.has_value());
  EXPECT_NEAR(*t.soak_until, Now() + 60, 0.01);
  EXPECT_NE(Timeline(m).find("soak_started: "), std::string::npos) << Timeline(m);
}

TEST_F(ActionExecutorTest, SubmittedWithoutJobAndAlreadyDisabledIsConfirmedWithoutSending) {
  Made m = Insert("disable", action_state::kSubmitted);
  ufm_.ports[kSw].logical_state = "Disabled";  // UFM got it before the answer was lost
  Make()->RunOpen();
  EXPECT_TRUE(ufm_.submitted.empty());
  EXPECT_EQ(ufm_.get_jobs_calls, 0);
  PortAction a = Action(m);
  EXPECT_EQ(a.state, action_state::kConfirmed);
  EXPECT_EQ(a.job_id, "");
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, ticket_state::kPortDisabled) << Timeline(m);
  EXPECT_TRUE(t.disabled_by_us);
  EXPECT_NE(Timeline(m).find("found disabled when resuming"), std::string::npos) << Timeline(m);
}

TEST_F(ActionExecutorTest, SubmittedWithoutJobAdoptsTheJobCarryingItsMarker) {
  Made m = Insert("disable", action_state::kSubmitted);
  // Another action's job, and this action's: only the marker tells them apart.
  ufm_.jobs["76"] = {"Running", "disable " + kSw2 + " " + ActionExecutor::Marker(m.action + 100),
                     kSw2, "disable"};
  ufm_.jobs["77"] = {"Running",
                     "ufm-remediator: disable for ticket 1: x " + ActionExecutor::Marker(m.action),
                     kSw, "disable"};
  Make()->RunOpen();
  EXPECT_TRUE(ufm_.submitted.empty()) << "UFM has the request already: not sent again";
  EXPECT_EQ(ufm_.get_jobs_calls, 1);
  EXPECT_EQ(ufm_.polled, std::vector<std::string>{"77"});
  PortAction a = Action(m);
  EXPECT_EQ(a.state, action_state::kConfirmed);
  EXPECT_EQ(a.job_id, "77");
  EXPECT_EQ(ufm_.ports[kSw2].logical_state, "Active");
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, ticket_state::kPortDisabled) << Timeline(m);
  EXPECT_TRUE(t.disabled_by_us);
  EXPECT_NE(Timeline(m).find("confirmed: UFM job 77 Completed"), std::string::npos) << Timeline(m);
}

TEST_F(ActionExecutorTest, TransientFailureWaitsThenRetries) {
  ufm_.submit_errors.push_back(Status::Unavailable("POST /actions: HTTP 503: busy"));
  Made m = Insert("disable", action_state::kPending);
  auto ex = Make();
  ex->RunOpen();
  ASSERT_EQ(ufm_.submitted.size(), 1u);
  PortAction a = Action(m);
  EXPECT_EQ(a.state, action_state::kSubmitted);
  EXPECT_EQ(a.tries, 1);
  ASSERT_TRUE(a.next_try_at.has_value());
  EXPECT_NEAR(*a.next_try_at, Now() + config_.remediation.action_retry_s, 0.01);
  EXPECT_NE(a.error.find("HTTP 503"), std::string::npos) << a.error;
  EXPECT_EQ(a.job_id, "");
  EXPECT_EQ(TicketOf(m).state, ticket_state::kOpen);
  EXPECT_TRUE(outcomes_.empty());

  // Before next_try_at: not even a look at UFM.
  const int reads = ufm_.get_port_calls;
  ex->RunOpen();
  clock_.Advance(seconds(29));
  ex->RunOpen();
  EXPECT_EQ(ufm_.get_port_calls, reads);
  EXPECT_EQ(ufm_.submitted.size(), 1u);
  EXPECT_EQ(Action(m).tries, 1);

  // Then: UFM's jobs are checked for it first, and it is sent again.
  clock_.Advance(seconds(2));
  ex->RunOpen();
  EXPECT_EQ(ufm_.get_jobs_calls, 1);
  EXPECT_EQ(ufm_.submitted.size(), 2u);
  a = Action(m);
  EXPECT_EQ(a.state, action_state::kConfirmed);
  EXPECT_EQ(a.tries, 1);
  EXPECT_FALSE(a.next_try_at.has_value());
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(TicketOf(m).state, ticket_state::kPortDisabled) << Timeline(m);
}

TEST_F(ActionExecutorTest, GivesUpAfterActionMaxTries) {
  config_.remediation.action_max_tries = 3;
  for (int i = 0; i < 3; ++i) {
    ufm_.submit_errors.push_back(Status::Unavailable("POST /actions: HTTP 502"));
  }
  Made m = Insert("disable", action_state::kPending);
  auto ex = Make();
  for (int i = 1; i <= 2; ++i) {
    ex->RunOpen();
    PortAction a = Action(m);
    EXPECT_EQ(a.state, action_state::kSubmitted) << "try " << i;
    EXPECT_EQ(a.tries, i);
    clock_.Advance(seconds(31));
  }
  ex->RunOpen();
  EXPECT_EQ(ufm_.submitted.size(), 3u);
  PortAction a = Action(m);
  EXPECT_EQ(a.state, action_state::kFailed);
  EXPECT_EQ(a.tries, 3);
  EXPECT_EQ(a.error.rfind("gave up after 3 failed tries: POST /actions: HTTP 502", 0), 0u)
      << a.error;
  EXPECT_FALSE(a.next_try_at.has_value());
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, ticket_state::kTicketOnly) << Timeline(m);
  EXPECT_EQ(t.guard, "action_failed");
  EXPECT_FALSE(t.disabled_by_us);
  EXPECT_EQ(outcomes_, (Outcomes{{m.action, ActionExecutor::Outcome::kFailed}}));
  clock_.Advance(seconds(31));
  ex->RunOpen();
  EXPECT_EQ(ufm_.submitted.size(), 3u) << "a failed action is not tried again";
}

TEST_F(ActionExecutorTest, PermanentFailureFailsAtOnce) {
  ufm_.submit_errors.push_back(
      Status::InvalidArgument("POST /actions: UFM rejected the request: HTTP 400: unknown port"));
  Made m = Insert("disable", action_state::kPending);
  Make()->RunOpen();
  EXPECT_EQ(ufm_.submitted.size(), 1u);
  PortAction a = Action(m);
  EXPECT_EQ(a.state, action_state::kFailed);
  EXPECT_EQ(a.tries, 0);
  EXPECT_EQ(a.error,
            "UFM rejected the action: POST /actions: UFM rejected the request: HTTP 400: unknown "
            "port");
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, ticket_state::kTicketOnly) << Timeline(m);
  EXPECT_EQ(t.guard, "action_failed");
  EXPECT_FALSE(t.disabled_by_us);
  EXPECT_NE(Timeline(m).find("action: disable " + kSw +
                             " failed: UFM rejected the action: POST /actions: UFM rejected the "
                             "request: HTTP 400: unknown port"),
            std::string::npos)
      << Timeline(m);
  EXPECT_EQ(outcomes_, (Outcomes{{m.action, ActionExecutor::Outcome::kFailed}}));
}

TEST_F(ActionExecutorTest, APortAlreadyDisabledIsDoneByHand) {
  ufm_.ports[kSw].logical_state = "Disabled";  // a person did it before the service could
  Made m = Insert("disable", action_state::kPending);
  Make()->RunOpen();
  EXPECT_TRUE(ufm_.submitted.empty());
  PortAction a = Action(m);
  EXPECT_EQ(a.state, action_state::kFailed);
  EXPECT_EQ(a.error, "port was already disabled in UFM, not by this service");
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, ticket_state::kTicketOnly) << Timeline(m);
  EXPECT_EQ(t.guard, "manual");
  EXPECT_FALSE(t.disabled_by_us);
  EXPECT_NE(Timeline(m).find("that is a person's, and stays theirs"), std::string::npos)
      << Timeline(m);
  EXPECT_EQ(outcomes_, (Outcomes{{m.action, ActionExecutor::Outcome::kAlreadyDoneByHand}}));
}

TEST_F(ActionExecutorTest, IsolateGoesThroughUnhealthyPorts) {
  Made m = Insert("isolate", action_state::kPending);
  Make()->RunOpen();
  EXPECT_TRUE(ufm_.submitted.empty()) << "no port action job for an isolation";
  ASSERT_EQ(ufm_.health.size(), 1u);
  EXPECT_EQ(ufm_.health[0].port, kSw);
  EXPECT_TRUE(ufm_.health[0].isolate);
  EXPECT_NE(ufm_.health[0].why.find(ActionExecutor::Marker(m.action)), std::string::npos)
      << ufm_.health[0].why;
  EXPECT_EQ(ufm_.unhealthy, std::set<std::string>{kSw});
  PortAction a = Action(m);
  EXPECT_EQ(a.state, action_state::kConfirmed);
  EXPECT_EQ(a.job_id, "");
  Ticket t = TicketOf(m);
  EXPECT_EQ(t.state, ticket_state::kPortDisabled) << Timeline(m);
  EXPECT_TRUE(t.disabled_by_us);
  EXPECT_EQ(t.method, "isolate");
  EXPECT_NE(
      Timeline(m).find("isolate " + kSw + " confirmed: UFM's unhealthy ports list confirms it"),
      std::string::npos)
      << Timeline(m);
}

TEST_F(ActionExecutorTest, AnIsolationAlreadyInUfmsListIsDoneByHand) {
  ufm_.unhealthy.insert(kSw);
  Made m = Insert("isolate", action_state::kPending);
  Make()->RunOpen();
  EXPECT_TRUE(ufm_.health.empty());
  EXPECT_EQ(Action(m).error, "port was already isolated in UFM, not by this service");
  EXPECT_EQ(TicketOf(m).guard, "manual");
}

TEST_F(ActionExecutorTest, AnnouncesEachConfirmedActionOnce) {
  Made cut = Insert("disable", action_state::kPending, kSw);
  Made iso = Insert("isolate", action_state::kPending, kSw2);
  auto ex = Make();
  ex->RunOpen();
  ASSERT_EQ(Action(cut).state, action_state::kConfirmed);
  ASSERT_EQ(Action(iso).state, action_state::kConfirmed);
  ex->AnnouncePending();
  ASSERT_EQ(ufm_.posted.size(), 2u);
  const FakeUfm::Posted& p0 = ufm_.posted[0];
  EXPECT_EQ(p0.event_id, 552);
  EXPECT_EQ(p0.name, "Port disabled by ufm-remediator");
  EXPECT_EQ(p0.description, "ufm-remediator disabled port " + kSw +
                                " (ib-leaf-01:1/1/1) for ticket " + std::to_string(cut.ticket) +
                                ": link went down 3 times within 10m " +
                                ActionExecutor::Marker(cut.action));
  const FakeUfm::Posted& p1 = ufm_.posted[1];
  EXPECT_EQ(p1.event_id, 552);
  EXPECT_EQ(p1.name, "Port isolated by ufm-remediator");
  EXPECT_NE(p1.description.find(ActionExecutor::Marker(iso.action)), std::string::npos)
      << p1.description;
  EXPECT_TRUE(Action(cut).announced);
  EXPECT_TRUE(Action(iso).announced);

  ex->AnnouncePending();
  EXPECT_EQ(ufm_.posted.size(), 2u) << "announced once";
}

TEST_F(ActionExecutorTest, AnEventAlreadyCarryingTheMarkerIsNotPostedAgain) {
  config_.ufm.external_event_id_cut = 553;
  Made done = Insert("disable", action_state::kPending, kSw);
  Made other = Insert("disable", action_state::kPending, kSw2);
  auto ex = Make();
  ex->RunOpen();
  // Posted before a crash, never marked: UFM's log has it.
  UfmEvent e;
  e.id = 900;
  e.event_type = 553;
  e.name = "Port disabled by ufm-remediator";
  e.description = "ufm-remediator disabled port " + kSw + " " + ActionExecutor::Marker(done.action);
  ufm_.events.push_back(e);
  ex->AnnouncePending();
  ASSERT_EQ(ufm_.posted.size(), 1u);
  EXPECT_EQ(ufm_.posted[0].event_id, 553);
  EXPECT_NE(ufm_.posted[0].description.find(ActionExecutor::Marker(other.action)),
            std::string::npos);
  EXPECT_TRUE(Action(done).announced);
  EXPECT_TRUE(Action(other).announced);
}

TEST_F(ActionExecutorTest, NoExternalEventsWhenTurnedOff) {
  config_.ufm.external_events = false;
  Made m = Insert("disable", action_state::kPending);
  auto ex = Make();
  ex->RunOpen();
  ASSERT_EQ(Action(m).state, action_state::kConfirmed);
  ex->AnnouncePending();
  EXPECT_TRUE(ufm_.posted.empty());
  EXPECT_FALSE(Action(m).announced);
}

}  // namespace
}  // namespace ufmr
