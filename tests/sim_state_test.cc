#include "sim/sim_state.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ufmr::sim {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

const TimePoint kT0 = TimePoint(seconds(1'800'000'000));

class SimStateTest : public ::testing::Test {
 protected:
  void SetUp() override { Reset(SimOptions{}); }

  void Reset(SimOptions options) {
    Result<Topology> t = Topology::FromString("fat-tree:leaves=2,spines=1,hosts_per_leaf=2", 7);
    ASSERT_TRUE(t.ok());
    state_ = std::make_unique<SimState>(std::move(t.value()), options, kT0);
    const Topology& topo = state_->topology();
    // Leaf 1 port 1 <-> first host; leaf 1 port 3 <-> spine 1 port 1.
    leaf_host_ = topo.ports()[topo.nodes()[0].ports[0]].name;
    host_ = topo.ports()[topo.ports()[topo.nodes()[0].ports[0]].peer].name;
    leaf_up_ = topo.ports()[topo.nodes()[0].ports[2]].name;
    spine_ = topo.ports()[topo.ports()[topo.nodes()[0].ports[2]].peer].name;
  }

  const Port& P(const std::string& name) const {
    return state_->topology().ports()[*state_->topology().FindPort(name)];
  }
  PortStatus S(const std::string& name) const {
    return *state_->PortState(*state_->topology().FindPort(name));
  }
  std::vector<std::string> EventTypes() const {
    std::vector<std::string> out;
    for (const Event& e : state_->Events()) out.push_back(e.event_type);
    return out;
  }
  Json Action(const std::string& action, const std::string& port) const {
    return Json{{"action", action},
                {"object_type", "System"},
                {"object_ids", {P(port).system_guid}},
                {"params", {{"port_id", port}}},
                {"description", "test"},
                {"identifier", "id"}};
  }
  // Submits an action at `at` and runs time past the job delay.
  Job RunAction(const std::string& action, const std::string& port, TimePoint at) {
    Result<Job> job = state_->SubmitAction(Action(action, port), at);
    EXPECT_TRUE(job.ok()) << job.status().ToString();
    state_->Advance(at + milliseconds(500));
    return *state_->FindJob(job->id);
  }

  std::unique_ptr<SimState> state_;
  std::string leaf_host_, host_, leaf_up_, spine_;
};

TEST_F(SimStateTest, StartsHealthyAndTrafficGrows) {
  for (const PortStatus& s : state_->Ports()) {
    EXPECT_EQ(s.logical_state, "Active");
    EXPECT_EQ(s.physical_state, "Link Up");
    EXPECT_EQ(s.counters.port_xmit_data, 0u);
  }
  EXPECT_TRUE(state_->Events().empty());
  state_->Advance(kT0 + seconds(1));
  const PortStatus one = S(leaf_host_);
  state_->Advance(kT0 + seconds(2));
  const PortStatus two = S(leaf_host_);
  EXPECT_GT(one.counters.port_xmit_data, 0u);
  EXPECT_GT(one.counters.port_rcv_pkts, 0u);
  EXPECT_GT(two.counters.port_xmit_data, one.counters.port_xmit_data);
  EXPECT_GT(two.counters.port_rcv_data, one.counters.port_rcv_data);
  // What one end sends, the other receives.
  EXPECT_EQ(S(leaf_host_).counters.port_xmit_data, S(host_).counters.port_rcv_data);
  EXPECT_EQ(two.counters.symbol_errors, 0u);
  EXPECT_EQ(two.counters.link_downed, 0u);
}

TEST_F(SimStateTest, EachFaultKindMovesEventsAndCountersOnBothEnds) {
  struct Case {
    const char* name;
    Json params;
    std::vector<std::string> events;
    uint64_t link_downed;
    uint64_t symbol_errors;
    uint64_t rcv_errors;
    bool up_at_end;
  };
  const std::vector<Case> cases = {
      {"link_down", Json::object(), {"329"}, 1, 0, 0, false},
      // Down at 0, up at 2, down at 4, up at 6, down at 8; observed at 9.
      {"flap", {{"interval_s", 2}}, {"329", "328", "329", "328", "329"}, 3, 0, 0, false},
      {"symbol_errors", {{"rate", 50}, {"rcv_errors_rate", 5}}, {}, 0, 450, 45, true},
      {"symbol_errors", Json::object(), {}, 0, 450, 0, true},  // default rate 50/s
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Reset(SimOptions{});
    for (const std::string& port : {leaf_host_, leaf_up_}) {
      SCOPED_TRACE(port);
      Reset(SimOptions{});
      Json body = c.params;
      body["kind"] = c.name;
      body["port"] = port;
      Result<Fault> fault = state_->AddFault(body, kT0);
      ASSERT_TRUE(fault.ok()) << fault.status().ToString();
      state_->Advance(kT0 + seconds(9));
      EXPECT_EQ(EventTypes(), c.events);
      const std::string peer = state_->topology().ports()[P(port).peer].name;
      for (const std::string& end : {port, peer}) {
        const PortStatus s = S(end);
        EXPECT_EQ(s.counters.link_downed, c.link_downed) << end;
        EXPECT_EQ(s.counters.symbol_errors, c.symbol_errors) << end;
        EXPECT_EQ(s.counters.port_rcv_errors, c.rcv_errors) << end;
        EXPECT_EQ(s.link_up, c.up_at_end) << end;
        EXPECT_EQ(s.logical_state, c.up_at_end ? "Active" : "Inactive");
        EXPECT_EQ(s.physical_state, c.up_at_end ? "Link Up" : "Link Down");
      }
      // Other links are untouched.
      for (const PortStatus& s : state_->Ports()) {
        if (P(port).link == state_->topology().ports()[s.port].link) continue;
        EXPECT_TRUE(s.link_up);
        EXPECT_EQ(s.counters.symbol_errors, 0u);
      }
    }
  }
}

TEST_F(SimStateTest, FlapIsTheSameInSmallStepsAndOneJump) {
  auto run = [&](milliseconds step) {
    Reset(SimOptions{});
    EXPECT_TRUE(
        state_->AddFault({{"kind", "flap"}, {"port", host_}, {"interval_s", 0.5}}, kT0).ok());
    EXPECT_TRUE(
        state_->AddFault({{"kind", "symbol_errors"}, {"port", host_}, {"rate", 10}}, kT0).ok());
    for (TimePoint t = kT0; t < kT0 + seconds(10); t += step) state_->Advance(t);
    state_->Advance(kT0 + seconds(10));
    return std::make_pair(EventTypes(), S(host_).counters);
  };
  auto [events_fine, counters_fine] = run(milliseconds(100));
  auto [events_jump, counters_jump] = run(seconds(10));
  // Downs at 0, 1, ..., 10 s and ups at 0.5, 1.5, ..., 9.5 s.
  EXPECT_EQ(events_fine.size(), 21u);
  EXPECT_EQ(events_fine, events_jump);
  EXPECT_EQ(counters_fine.link_downed, 11u);
  EXPECT_EQ(counters_fine.link_downed, counters_jump.link_downed);
  // Symbol errors only while up: half the time.
  EXPECT_EQ(counters_fine.symbol_errors, 50u);
  EXPECT_EQ(counters_jump.symbol_errors, 50u);
  EXPECT_EQ(counters_fine.port_xmit_data, counters_jump.port_xmit_data);
}

TEST_F(SimStateTest, EventLayoutForLinks) {
  ASSERT_TRUE(state_->AddFault({{"kind", "link_down"}, {"port", spine_}}, kT0).ok());
  ASSERT_TRUE(state_->Repair(spine_, kT0 + seconds(1)).ok());
  const std::vector<Event> events = state_->Events();
  ASSERT_EQ(events.size(), 2u);
  const Port& a = P(leaf_up_);
  const Port& b = P(spine_);
  const std::string cable = state_->topology().links()[a.link].cable_serial;
  const std::string ends = "(Switch:ib-leaf-01:1/2/1)" + a.guid +
                           ":3 - (Switch:ib-spine-01:1/1/1)" + b.guid + ":1, cable S/N: " + cable;
  EXPECT_EQ(events[0].id, 1);
  EXPECT_EQ(events[0].name, "Link is Down");
  EXPECT_EQ(events[0].type, "Link");
  EXPECT_EQ(events[0].event_type, "329");
  EXPECT_EQ(events[0].severity, "Warning");
  EXPECT_EQ(events[0].category, "Fabric Topology");
  EXPECT_EQ(events[0].object_name, leaf_up_ + ":" + spine_);
  EXPECT_EQ(events[0].object_path, leaf_up_ + ":" + spine_);
  EXPECT_EQ(events[0].description, "Link went down: " + ends);
  EXPECT_EQ(events[0].time, kT0);
  EXPECT_EQ(events[1].id, 2);
  EXPECT_EQ(events[1].name, "Link is Up");
  EXPECT_EQ(events[1].event_type, "328");
  EXPECT_EQ(events[1].severity, "Info");
  EXPECT_EQ(events[1].description, "Link is up: " + ends);
  EXPECT_EQ(events[1].time, kT0 + seconds(1));
  EXPECT_EQ(FormatUfmTime(kT0 + milliseconds(1500)), "2027-01-15 08:00:01");
}

TEST_F(SimStateTest, HostLinkDescriptionNamesTheComputer) {
  ASSERT_TRUE(state_->AddFault({{"kind", "link_down"}, {"port", host_}}, kT0).ok());
  const Event e = state_->Events().at(0);
  EXPECT_EQ(e.object_name, leaf_host_ + ":" + host_) << "the switch side comes first";
  EXPECT_EQ(e.description,
            "Link went down: (Switch:ib-leaf-01:1/1/1)" + P(leaf_host_).guid +
                ":1 - (Computer:gpu-node-001 HCA-1)" + P(host_).guid +
                ":1, cable S/N: " + state_->topology().links()[P(host_).link].cable_serial);
}

TEST_F(SimStateTest, ActionJobRunsThenCompletes) {
  Result<Job> job = state_->SubmitAction(Action("disable", host_), kT0);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->id, 1);
  EXPECT_EQ(job->status, "Running");
  EXPECT_EQ(job->operation, "Disable Port");
  state_->Advance(kT0 + milliseconds(250));
  EXPECT_EQ(state_->FindJob(1)->status, "Running");
  EXPECT_EQ(state_->FindJob(1)->progress, 50);
  EXPECT_EQ(S(host_).logical_state, "Active") << "no effect before the job completes";
  state_->Advance(kT0 + milliseconds(500));
  const Job done = *state_->FindJob(1);
  EXPECT_EQ(done.status, "Completed");
  EXPECT_EQ(done.progress, 100);
  EXPECT_EQ(done.last_updated, kT0 + milliseconds(500));
  EXPECT_EQ(S(host_).logical_state, "Disabled");
  EXPECT_EQ(S(host_).physical_state, "Link Down");
  EXPECT_EQ(S(leaf_host_).logical_state, "Inactive");
  EXPECT_EQ(S(leaf_host_).physical_state, "Link Down");
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329"}));
  const Event disabled = state_->Events()[0];
  // UFM's table: 336 "Port Action Succeeded", `Port %s action %s succeeded`, Maintenance.
  EXPECT_EQ(disabled.name, "Port Action Succeeded");
  EXPECT_EQ(disabled.category, "Maintenance");
  EXPECT_EQ(disabled.type, "Port");
  EXPECT_EQ(disabled.object_name, host_);
  EXPECT_EQ(disabled.description, "Port " + host_ + " action disable succeeded");

  // Again: nothing to do, a warning.
  Job again = RunAction("disable", host_, kT0 + seconds(1));
  EXPECT_EQ(again.status, "Completed With Warnings");
  EXPECT_EQ(EventTypes().size(), 2u);

  const std::vector<ActionRecord> actions = state_->Actions();
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[0].action, "disable");
  EXPECT_EQ(actions[0].port, host_);
  EXPECT_EQ(actions[0].status, "Completed");
  EXPECT_EQ(actions[0].time, kT0);
  EXPECT_EQ(actions[1].status, "Completed With Warnings");
}

TEST_F(SimStateTest, ZeroDelayCompletesAtOnce) {
  SimOptions options;
  options.job_delay = milliseconds(0);
  Reset(options);
  Result<Job> job = state_->SubmitAction(Action("disable", leaf_up_), kT0);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->status, "Completed");
  EXPECT_EQ(S(leaf_up_).logical_state, "Disabled");
  EXPECT_EQ(S(spine_).logical_state, "Inactive");
}

TEST_F(SimStateTest, DisabledPortMakesNoErrorsNorTraffic) {
  RunAction("disable", leaf_host_, kT0);
  const PortCounters before = S(host_).counters;
  EXPECT_EQ(before.link_downed, 1u);
  ASSERT_TRUE(
      state_
          ->AddFault({{"kind", "symbol_errors"}, {"port", host_}, {"rate", 100}}, kT0 + seconds(1))
          .ok())
      << "faults on a disabled port still register";
  ASSERT_TRUE(state_->AddFault({{"kind", "flap"}, {"port", host_}}, kT0 + seconds(1)).ok());
  EXPECT_EQ(state_->Faults().size(), 2u);
  state_->Advance(kT0 + seconds(20));
  for (const std::string& end : {leaf_host_, host_}) {
    const PortStatus s = S(end);
    EXPECT_EQ(s.counters.symbol_errors, 0u) << end;
    EXPECT_EQ(s.counters.link_downed, 1u) << end;
    EXPECT_FALSE(s.link_up);
  }
  EXPECT_EQ(S(leaf_host_).logical_state, "Disabled");
  EXPECT_EQ(S(host_).logical_state, "Inactive");
  EXPECT_EQ(S(host_).counters.port_xmit_data, before.port_xmit_data);
  EXPECT_EQ(S(host_).counters.port_rcv_data, before.port_rcv_data);
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329"})) << "no flap events";
}

TEST_F(SimStateTest, RepairLeavesADisabledPortDisabled) {
  RunAction("disable", host_, kT0);
  ASSERT_TRUE(state_->AddFault({{"kind", "link_down"}, {"port", host_}}, kT0 + seconds(1)).ok());
  Result<int> link = state_->Repair(leaf_host_, kT0 + seconds(2));
  ASSERT_TRUE(link.ok());
  EXPECT_EQ(link.value(), P(host_).link);
  EXPECT_TRUE(state_->Faults().empty());
  EXPECT_EQ(S(host_).logical_state, "Disabled");
  EXPECT_EQ(S(leaf_host_).logical_state, "Inactive");
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329"})) << "no 328 while disabled";

  // Enable brings the link up.
  Job enable = RunAction("enable", host_, kT0 + seconds(3));
  EXPECT_EQ(enable.status, "Completed");
  EXPECT_EQ(enable.operation, "Enable Port");
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329", "336", "328"}));
  EXPECT_EQ(state_->Events()[2].name, "Port Action Succeeded");
  EXPECT_EQ(state_->Events()[2].description, "Port " + host_ + " action enable succeeded");
  EXPECT_EQ(S(host_).logical_state, "Active");
  EXPECT_EQ(S(leaf_host_).physical_state, "Link Up");
  EXPECT_EQ(RunAction("enable", host_, kT0 + seconds(4)).status, "Completed With Warnings");
}

TEST_F(SimStateTest, EnableWithAPendingFaultKeepsTheLinkDownUntilRepair) {
  RunAction("disable", leaf_up_, kT0);
  ASSERT_TRUE(state_->AddFault({{"kind", "link_down"}, {"port", spine_}}, kT0 + seconds(1)).ok());
  RunAction("enable", leaf_up_, kT0 + seconds(2));
  EXPECT_EQ(S(leaf_up_).logical_state, "Inactive");
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329", "336"}));
  ASSERT_TRUE(state_->Repair(spine_, kT0 + seconds(3)).ok());
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329", "336", "328"}));
  EXPECT_EQ(S(leaf_up_).logical_state, "Active");
  EXPECT_EQ(S(spine_).counters.link_downed, 1u);
}

TEST_F(SimStateTest, RepairStopsAFlap) {
  ASSERT_TRUE(state_->AddFault({{"kind", "flap"}, {"port", host_}, {"interval_s", 1}}, kT0).ok());
  state_->Advance(kT0 + milliseconds(2500));  // down 0, up 1, down 2
  ASSERT_TRUE(state_->Repair(host_, kT0 + milliseconds(2600)).ok());
  state_->Advance(kT0 + seconds(60));
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"329", "328", "329", "328"}));
  EXPECT_EQ(S(host_).counters.link_downed, 2u);
  EXPECT_TRUE(S(host_).link_up);
}

TEST_F(SimStateTest, EventRetentionKeepsTheNewest) {
  SimOptions options;
  options.max_events = 5;
  Reset(options);
  ASSERT_TRUE(state_->AddFault({{"kind", "flap"}, {"port", host_}, {"interval_s", 1}}, kT0).ok());
  state_->Advance(kT0 + milliseconds(11500));  // 12 transitions
  const std::vector<Event> events = state_->Events();
  ASSERT_EQ(events.size(), 5u);
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].id, static_cast<int64_t>(8 + i));
}

TEST_F(SimStateTest, TimeGoingBackwardsIsIgnored) {
  state_->Advance(kT0 + seconds(5));
  const PortCounters at5 = S(host_).counters;
  state_->Advance(kT0 + seconds(1));
  EXPECT_EQ(S(host_).counters.port_xmit_data, at5.port_xmit_data);
  EXPECT_EQ(state_->now(), kT0 + seconds(5));
  Result<Fault> f = state_->AddFault({{"kind", "link_down"}, {"port", host_}}, kT0);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->created, kT0 + seconds(5));
}

TEST_F(SimStateTest, BadFaultBodiesAreErrors) {
  struct Case {
    Json body;
    Status::Code code;
  };
  const std::string p = host_;
  const std::vector<Case> cases = {
      {Json::array(), Status::Code::kInvalidArgument},
      {Json("link_down"), Status::Code::kInvalidArgument},
      {Json::object(), Status::Code::kInvalidArgument},
      {{{"port", p}}, Status::Code::kInvalidArgument},
      {{{"kind", "melt"}, {"port", p}}, Status::Code::kInvalidArgument},
      {{{"kind", 3}, {"port", p}}, Status::Code::kInvalidArgument},
      {{{"kind", "link_down"}}, Status::Code::kInvalidArgument},
      {{{"kind", "link_down"}, {"port", 5}}, Status::Code::kInvalidArgument},
      {{{"kind", "link_down"}, {"port", p}, {"rate", 5}}, Status::Code::kInvalidArgument},
      {{{"kind", "flap"}, {"port", p}, {"interval_s", "2"}}, Status::Code::kInvalidArgument},
      {{{"kind", "flap"}, {"port", p}, {"interval_s", 0}}, Status::Code::kInvalidArgument},
      {{{"kind", "flap"}, {"port", p}, {"interval_s", -1}}, Status::Code::kInvalidArgument},
      {{{"kind", "flap"}, {"port", p}, {"interval", 2}}, Status::Code::kInvalidArgument},
      {{{"kind", "symbol_errors"}, {"port", p}, {"rate", -5}}, Status::Code::kInvalidArgument},
      {{{"kind", "symbol_errors"}, {"port", p}, {"rate", nullptr}}, Status::Code::kInvalidArgument},
      {{{"kind", "symbol_errors"}, {"port", p}, {"rcv_errors_rate", "x"}},
       Status::Code::kInvalidArgument},
      {{{"kind", "link_down"}, {"port", "nope_1"}}, Status::Code::kNotFound},
      {{{"kind", "flap"}, {"port", "0123456789abcdef_9"}}, Status::Code::kNotFound},
  };
  for (const Case& c : cases) {
    Result<Fault> f = state_->AddFault(c.body, kT0);
    EXPECT_FALSE(f.ok()) << c.body.dump();
    EXPECT_EQ(f.status().code(), c.code) << c.body.dump() << ": " << f.status().ToString();
    EXPECT_FALSE(f.status().message().empty());
  }
  EXPECT_TRUE(state_->Faults().empty());
  EXPECT_TRUE(state_->Events().empty());
  EXPECT_EQ(state_->Repair("nope_1", kT0).status().code(), Status::Code::kNotFound);
}

TEST_F(SimStateTest, BadActionBodiesAreErrors) {
  struct Case {
    const char* why;
    std::function<void(Json&)> edit;
    Status::Code code;
  };
  const std::vector<Case> cases = {
      {"not an object", [](Json& b) { b = Json::array(); }, Status::Code::kInvalidArgument},
      {"no action", [](Json& b) { b.erase("action"); }, Status::Code::kInvalidArgument},
      {"unknown action", [](Json& b) { b["action"] = "reboot"; }, Status::Code::kInvalidArgument},
      {"action not a string", [](Json& b) { b["action"] = 1; }, Status::Code::kInvalidArgument},
      {"no object_type", [](Json& b) { b.erase("object_type"); }, Status::Code::kInvalidArgument},
      {"wrong object_type", [](Json& b) { b["object_type"] = "Port"; },
       Status::Code::kInvalidArgument},
      {"no object_ids", [](Json& b) { b.erase("object_ids"); }, Status::Code::kInvalidArgument},
      {"empty object_ids", [](Json& b) { b["object_ids"] = Json::array(); },
       Status::Code::kInvalidArgument},
      {"object_ids not a list", [](Json& b) { b["object_ids"] = "x"; },
       Status::Code::kInvalidArgument},
      {"object_ids of numbers", [](Json& b) { b["object_ids"] = {1}; },
       Status::Code::kInvalidArgument},
      {"wrong system", [](Json& b) { b["object_ids"] = {"fc6a1c0300000001"}; },
       Status::Code::kInvalidArgument},
      {"no params", [](Json& b) { b.erase("params"); }, Status::Code::kInvalidArgument},
      {"params not an object", [](Json& b) { b["params"] = "x"; }, Status::Code::kInvalidArgument},
      {"no port_id", [](Json& b) { b["params"] = Json::object(); }, Status::Code::kInvalidArgument},
      {"port_id not a string", [](Json& b) { b["params"]["port_id"] = 3; },
       Status::Code::kInvalidArgument},
      {"description not a string", [](Json& b) { b["description"] = 3; },
       Status::Code::kInvalidArgument},
      {"unknown field", [](Json& b) { b["force"] = true; }, Status::Code::kInvalidArgument},
      {"unknown port", [](Json& b) { b["params"]["port_id"] = "0123456789abcdef_1"; },
       Status::Code::kNotFound},
  };
  for (const Case& c : cases) {
    Json body = Action("disable", host_);
    c.edit(body);
    Result<Job> job = state_->SubmitAction(body, kT0);
    EXPECT_FALSE(job.ok()) << c.why;
    EXPECT_EQ(job.status().code(), c.code) << c.why << ": " << job.status().ToString();
  }
  EXPECT_TRUE(state_->Actions().empty());
  EXPECT_FALSE(state_->FindJob(1).has_value());
}

Json Isolate(const std::vector<std::string>& ports, const std::string& policy = "UNHEALTHY") {
  Json body = {{"ports", ports}, {"ports_policy", policy}};
  if (policy == "UNHEALTHY") body["action"] = "isolate";
  return body;
}

// Before 6.17 the event log names a host port in the older form, by its node description and
// number, with the host's system GUID as dev_id.
TEST_F(SimStateTest, A616HostPortIsNamedInTheOlderForm) {
  SimOptions options;
  options.ufm_version = 616;
  Reset(options);
  ASSERT_TRUE(state_->SetPortsHealth(Isolate({host_}), kT0).ok());
  const Event e = state_->Events().back();
  EXPECT_EQ(e.type, "Port");
  EXPECT_EQ(e.object_path, host_);
  EXPECT_NE(
      FormatEventLogLine(e).find("IBPort [default(1) / Computer: gpu-node-001 HCA-1 / NA / 1]"),
      std::string::npos)
      << FormatEventLogLine(e);
}

TEST_F(SimStateTest, IsolationKeepsTheLinkUpAndSaysSoInEvent702) {
  state_->Advance(kT0 + seconds(1));
  const PortCounters before = S(host_).counters;
  Result<HealthChange> change = state_->SetPortsHealth(Isolate({host_}), kT0 + seconds(2));
  ASSERT_TRUE(change.ok()) << change.status().ToString();
  EXPECT_EQ(change->policy, "UNHEALTHY");
  EXPECT_EQ(change->ports, std::vector<std::string>{host_});
  EXPECT_EQ(change->changed, std::vector<std::string>{host_});

  const std::vector<Isolation> isolated = state_->UnhealthyPorts();
  ASSERT_EQ(isolated.size(), 1u);
  EXPECT_EQ(isolated[0].port, *state_->topology().FindPort(host_));
  EXPECT_EQ(isolated[0].condition, "MANUAL");
  EXPECT_EQ(isolated[0].time, kT0 + seconds(2));

  ASSERT_EQ(EventTypes(), std::vector<std::string>{"702"});
  const Event e = state_->Events()[0];
  EXPECT_EQ(e.name, "Unhealthy IB Port");
  EXPECT_EQ(e.type, "IBPort") << "a host port, from 6.17";
  EXPECT_EQ(e.object_path, "Computer: gpu-node-001 / HCA-1");
  EXPECT_NE(FormatEventLogLine(e).find("[Hardware] IBPort [Computer: gpu-node-001 / HCA-1] "
                                       "[dev_id: " +
                                       P(host_).guid + "]: Peer Port"),
            std::string::npos);
  EXPECT_EQ(e.severity, "Warning");
  EXPECT_EQ(e.category, "Hardware");
  EXPECT_EQ(e.object_name, host_);
  EXPECT_EQ(e.description,
            "Peer Port gpu-node-001 HCA-1:1 is considered by SM as unhealthy due to MANUAL.");
  EXPECT_EQ(e.time, kT0 + seconds(2));

  // The SM routes around it: the link stays up, traffic and faults go on.
  EXPECT_TRUE(S(host_).link_up);
  EXPECT_EQ(S(host_).logical_state, "Active");
  ASSERT_TRUE(
      state_->AddFault({{"kind", "symbol_errors"}, {"port", host_}, {"rate", 10}}, kT0 + seconds(2))
          .ok());
  state_->Advance(kT0 + seconds(4));
  EXPECT_GT(S(host_).counters.port_xmit_data, before.port_xmit_data);
  EXPECT_EQ(S(host_).counters.symbol_errors, 20u);

  // Isolating it again changes nothing and says nothing.
  Result<HealthChange> again = state_->SetPortsHealth(Isolate({host_}), kT0 + seconds(5));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->changed.empty());
  EXPECT_EQ(EventTypes().size(), 1u);
  EXPECT_EQ(state_->UnhealthyPorts()[0].time, kT0 + seconds(2));

  // Healthy again: gone from the list, no event.
  Result<HealthChange> healthy =
      state_->SetPortsHealth(Isolate({host_}, "HEALTHY"), kT0 + seconds(6));
  ASSERT_TRUE(healthy.ok()) << healthy.status().ToString();
  EXPECT_EQ(healthy->changed, std::vector<std::string>{host_});
  EXPECT_TRUE(state_->UnhealthyPorts().empty());
  EXPECT_EQ(EventTypes().size(), 1u);

  // Each port of each request is in the action log, without a job.
  const std::vector<ActionRecord> actions = state_->Actions();
  ASSERT_EQ(actions.size(), 3u);
  EXPECT_EQ(actions[0].action, "isolate");
  EXPECT_EQ(actions[0].port, host_);
  EXPECT_EQ(actions[0].status, "Completed");
  EXPECT_EQ(actions[0].job_id, 0);
  EXPECT_EQ(actions[0].time, kT0 + seconds(2));
  EXPECT_EQ(actions[1].action, "isolate");
  EXPECT_EQ(actions[2].action, "healthy");
  EXPECT_EQ(actions[2].status, "Completed");
  EXPECT_FALSE(state_->FindJob(0).has_value());
}

TEST_F(SimStateTest, IsolatingSeveralPortsNamesEachSwitchPortByItsLabel) {
  Result<HealthChange> change = state_->SetPortsHealth(Isolate({leaf_up_, spine_, leaf_up_}), kT0);
  ASSERT_TRUE(change.ok()) << change.status().ToString();
  EXPECT_EQ(change->ports, (std::vector<std::string>{leaf_up_, spine_})) << "once each";
  const std::vector<Event> events = state_->Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].object_name, leaf_up_);
  EXPECT_EQ(events[0].description,
            "Peer Port ib-leaf-01:1/2/1 is considered by SM as unhealthy due to MANUAL.");
  EXPECT_EQ(events[1].object_name, spine_);
  EXPECT_EQ(events[1].description,
            "Peer Port ib-spine-01:1/1/1 is considered by SM as unhealthy due to MANUAL.");
  EXPECT_EQ(FormatEventLogLine(events[0]),
            "2027-01-15 08:00:00.000 [1] [702] WARNING [Hardware] IBPort [default(1) / "
            "Switch: ib-leaf-01 / 1/2/1 / 3] [dev_id: " +
                leaf_up_.substr(0, leaf_up_.find('_')) +
                "]: Peer Port ib-leaf-01:1/2/1 is considered by SM as unhealthy due to MANUAL.");
  // Policy is read in any case; a lower-case port name is the same port.
  std::string upper = leaf_up_;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  Result<HealthChange> healthy =
      state_->SetPortsHealth({{"ports", {upper}}, {"ports_policy", "healthy"}}, kT0 + seconds(1));
  ASSERT_TRUE(healthy.ok()) << healthy.status().ToString();
  EXPECT_EQ(healthy->policy, "HEALTHY");
  EXPECT_EQ(healthy->changed, std::vector<std::string>{leaf_up_});
  ASSERT_EQ(state_->UnhealthyPorts().size(), 1u);
  EXPECT_EQ(P(spine_).name, state_->topology().ports()[state_->UnhealthyPorts()[0].port].name);
}

TEST_F(SimStateTest, BadUnhealthyPortsBodiesChangeNothing) {
  struct Case {
    const char* why;
    Json body;
    Status::Code code;
  };
  const std::vector<Case> cases = {
      {"not an object", Json::array({host_}), Status::Code::kInvalidArgument},
      {"no ports", {{"ports_policy", "UNHEALTHY"}}, Status::Code::kInvalidArgument},
      {"ports not a list",
       {{"ports", host_}, {"ports_policy", "UNHEALTHY"}},
       Status::Code::kInvalidArgument},
      {"empty ports",
       {{"ports", Json::array()}, {"ports_policy", "UNHEALTHY"}},
       Status::Code::kInvalidArgument},
      {"ports of numbers",
       {{"ports", {1, 2}}, {"ports_policy", "UNHEALTHY"}},
       Status::Code::kInvalidArgument},
      {"no policy", {{"ports", {host_}}}, Status::Code::kInvalidArgument},
      {"policy not a string",
       {{"ports", {host_}}, {"ports_policy", true}},
       Status::Code::kInvalidArgument},
      {"unknown policy",
       {{"ports", {host_}}, {"ports_policy", "SICK"}},
       Status::Code::kInvalidArgument},
      {"unknown action",
       {{"ports", {host_}}, {"ports_policy", "UNHEALTHY"}, {"action", "no_discover"}},
       Status::Code::kInvalidArgument},
      {"unknown field",
       {{"ports", {host_}}, {"ports_policy", "UNHEALTHY"}, {"force", true}},
       Status::Code::kInvalidArgument},
      {"unknown port", Isolate({"0123456789abcdef_1"}), Status::Code::kNotFound},
      {"one unknown port among good ones", Isolate({host_, "0123456789abcdef_1", spine_}),
       Status::Code::kNotFound},
  };
  for (const Case& c : cases) {
    Result<HealthChange> r = state_->SetPortsHealth(c.body, kT0);
    EXPECT_FALSE(r.ok()) << c.why;
    EXPECT_EQ(r.status().code(), c.code) << c.why << ": " << r.status().ToString();
    EXPECT_FALSE(r.status().message().empty()) << c.why;
  }
  EXPECT_TRUE(state_->UnhealthyPorts().empty());
  EXPECT_TRUE(state_->Events().empty());
  EXPECT_TRUE(state_->Actions().empty());
}

TEST_F(SimStateTest, OperatorActsAtOnceAndOutsideTheActionLog) {
  Result<OperatorRecord> off =
      state_->OperatorAction({{"port", host_}, {"action", "disable"}}, kT0 + seconds(1));
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_TRUE(off->changed);
  EXPECT_EQ(off->port, host_);
  EXPECT_EQ(S(host_).logical_state, "Disabled") << "no job delay";
  EXPECT_EQ(S(leaf_host_).physical_state, "Link Down");
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329"}));
  EXPECT_EQ(state_->Events()[0].name, "Port Action Succeeded");

  ASSERT_TRUE(state_->OperatorAction({{"port", host_}, {"action", "disable"}}, kT0 + seconds(2))
                  .ok());  // already disabled: nothing
  ASSERT_TRUE(
      state_->OperatorAction({{"port", spine_}, {"action", "isolate"}}, kT0 + seconds(3)).ok());
  ASSERT_TRUE(
      state_->OperatorAction({{"port", host_}, {"action", "enable"}}, kT0 + seconds(4)).ok());
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329", "702", "336", "328"}));
  EXPECT_EQ(state_->Events()[2].description,
            "Peer Port ib-spine-01:1/1/1 is considered by SM as unhealthy due to MANUAL.");
  ASSERT_EQ(state_->UnhealthyPorts().size(), 1u);
  EXPECT_EQ(state_->UnhealthyPorts()[0].condition, "MANUAL");
  ASSERT_TRUE(
      state_->OperatorAction({{"port", spine_}, {"action", "healthy"}}, kT0 + seconds(5)).ok());
  EXPECT_TRUE(state_->UnhealthyPorts().empty());
  EXPECT_EQ(EventTypes().size(), 5u);
  EXPECT_TRUE(S(host_).link_up);

  EXPECT_TRUE(state_->Actions().empty()) << "only what came through the REST API";
  const std::vector<OperatorRecord> log = state_->OperatorActions();
  ASSERT_EQ(log.size(), 5u);
  EXPECT_EQ(log[0].action, "disable");
  EXPECT_EQ(log[0].time, kT0 + seconds(1));
  EXPECT_TRUE(log[0].changed);
  EXPECT_FALSE(log[1].changed);
  EXPECT_EQ(log[2].action, "isolate");
  EXPECT_EQ(log[2].port, spine_);
  EXPECT_EQ(log[3].action, "enable");
  EXPECT_EQ(log[4].action, "healthy");

  for (const Json& bad :
       {Json::array(), Json{{"port", host_}}, Json{{"action", "disable"}},
        Json{{"port", host_}, {"action", "reboot"}}, Json{{"port", 3}, {"action", "disable"}},
        Json{{"port", host_}, {"action", "disable"}, {"who", "me"}}}) {
    Result<OperatorRecord> r = state_->OperatorAction(bad, kT0 + seconds(6));
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << bad.dump();
  }
  EXPECT_EQ(state_->OperatorAction({{"port", "0123456789abcdef_1"}, {"action", "isolate"}}, kT0)
                .status()
                .code(),
            Status::Code::kNotFound);
  EXPECT_EQ(state_->OperatorActions().size(), 5u);
}

TEST_F(SimStateTest, ExternalEventsJoinTheEventList) {
  ASSERT_TRUE(state_->AddFault({{"kind", "link_down"}, {"port", host_}}, kT0).ok());
  const Json body = {{"event_id", 553},
                     {"description", "ufm-remediator disabled port x (ticket 7)"},
                     {"external_event_name", "Remediation"},
                     {"external_event_type", "Remediator"},
                     {"external_event_source", "ufm-remediator"}};
  Result<Event> e = state_->AddExternalEvent(body, kT0 + seconds(3));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->id, 2);
  const std::vector<Event> events = state_->Events();
  ASSERT_EQ(events.size(), 2u);
  const Event& x = events[1];
  EXPECT_EQ(x.id, 2);
  EXPECT_EQ(x.event_type, "553");
  EXPECT_EQ(x.name, "Remediation");
  EXPECT_EQ(x.type, "Remediator");
  EXPECT_EQ(x.severity, "Minor");
  EXPECT_EQ(x.category, "External");
  EXPECT_EQ(x.object_name, "ufm-remediator");
  EXPECT_EQ(x.description, "ufm-remediator disabled port x (ticket 7)");
  EXPECT_EQ(x.time, kT0 + seconds(3));
  EXPECT_EQ(FormatEventLogLine(x),
            "2027-01-15 08:00:03.000 [2] [553] MINOR [External] Remediator [ufm-remediator]: "
            "ufm-remediator disabled port x (ticket 7)");

  // Severity by id; the name defaults.
  const char* severities[] = {"Info", "Warning", "Minor", "Critical"};
  for (int id = 551; id <= 554; ++id) {
    Result<Event> y = state_->AddExternalEvent({{"event_id", id}, {"description", "d"}}, kT0);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_EQ(y->severity, severities[id - 551]);
    EXPECT_EQ(y->name, "External Event");
    EXPECT_EQ(y->event_type, std::to_string(id));
  }
  const std::vector<ExternalEventRecord> received = state_->ExternalEvents();
  ASSERT_EQ(received.size(), 5u);
  EXPECT_EQ(received[0].body, body);
  EXPECT_EQ(received[0].time, kT0 + seconds(3));
  EXPECT_EQ(received[0].event_id, 2);

  for (const Json& bad :
       {Json::array(), Json{{"description", "d"}}, Json{{"event_id", 550}, {"description", "d"}},
        Json{{"event_id", 555}, {"description", "d"}},
        Json{{"event_id", "551"}, {"description", "d"}},
        Json{{"event_id", 551.5}, {"description", "d"}}, Json{{"event_id", 551}},
        Json{{"event_id", 551}, {"description", 5}},
        Json{{"event_id", 551}, {"description", "d"}, {"external_event_source", 1}},
        Json{{"event_id", 551}, {"description", "d"}, {"severity", "Info"}}}) {
    Result<Event> r = state_->AddExternalEvent(bad, kT0 + seconds(4));
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << bad.dump();
  }
  EXPECT_EQ(state_->Events().size(), 6u);
  EXPECT_EQ(state_->ExternalEvents().size(), 5u);
}

TEST_F(SimStateTest, JobsListsEveryJobWithItsDescription) {
  EXPECT_TRUE(state_->Jobs().empty());
  Json body = Action("disable", host_);
  body["description"] = "ufm-remediator ticket 7 [rid:abc123]";
  ASSERT_TRUE(state_->SubmitAction(body, kT0).ok());
  ASSERT_TRUE(state_->SubmitAction(Action("disable", spine_), kT0 + milliseconds(250)).ok());
  std::vector<Job> jobs = state_->Jobs();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, 1);
  EXPECT_EQ(jobs[0].description, "ufm-remediator ticket 7 [rid:abc123]");
  EXPECT_EQ(jobs[0].progress, 50);
  EXPECT_EQ(jobs[1].id, 2);
  EXPECT_EQ(jobs[1].progress, 0);
  state_->Advance(kT0 + seconds(1));
  jobs = state_->Jobs();
  EXPECT_EQ(jobs[0].status, "Completed");
  EXPECT_EQ(jobs[1].status, "Completed");
}

TEST_F(SimStateTest, SwitchRebootTakesEveryLinkDownThenUp) {
  const Node& leaf = state_->topology().nodes()[0];
  ASSERT_EQ(leaf.name, "ib-leaf-01");
  Result<Fault> f = state_->AddFault(
      {{"kind", "switch_reboot"}, {"switch", "ib-leaf-01"}, {"down_s", 30}}, kT0 + seconds(1));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->kind, FaultKind::kSwitchReboot);
  EXPECT_EQ(f->node, 0);
  EXPECT_EQ(f->link, -1);
  EXPECT_EQ(f->links.size(), 3u);  // 2 hosts + 1 spine
  EXPECT_EQ(f->ends, kT0 + seconds(31));
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"907", "329", "329", "329"}));
  const Event down = state_->Events()[0];
  EXPECT_EQ(down.name, "Switch is Down");
  EXPECT_EQ(down.type, "Switch");
  EXPECT_EQ(down.severity, "Critical");
  EXPECT_EQ(down.category, "Fabric Topology");
  EXPECT_EQ(down.object_name, leaf.system_guid);
  EXPECT_EQ(down.description, "Site configuration changes: ib-leaf-01 Switch is Down");
  EXPECT_EQ(FormatEventLogLine(down),
            "2027-01-15 08:00:01.000 [1] [907] CRITICAL [Fabric_Topology] Switch [default / "
            "Switch: ib-leaf-01] [dev_id: " +
                leaf.system_guid + "]: Site configuration changes: ib-leaf-01 Switch is Down");
  for (int port : leaf.ports) EXPECT_FALSE(state_->PortState(port)->link_up);
  EXPECT_EQ(S(leaf_host_).logical_state, "Inactive");
  EXPECT_EQ(S(spine_).counters.link_downed, 1u);
  EXPECT_EQ(S(host_).counters.link_downed, 1u);
  ASSERT_EQ(state_->Faults().size(), 1u);

  state_->Advance(kT0 + seconds(30));
  EXPECT_EQ(EventTypes().size(), 4u);
  EXPECT_FALSE(S(leaf_up_).link_up);
  state_->Advance(kT0 + seconds(40));
  EXPECT_EQ(EventTypes(),
            (std::vector<std::string>{"907", "329", "329", "329", "908", "328", "328", "328"}));
  const Event up = state_->Events()[4];
  EXPECT_EQ(up.name, "Switch is Up");
  EXPECT_EQ(up.severity, "Info");
  EXPECT_EQ(up.object_name, leaf.system_guid);
  EXPECT_EQ(up.description, "Site configuration changes: ib-leaf-01 Switch is Up");
  EXPECT_EQ(up.time, kT0 + seconds(31));
  EXPECT_EQ(state_->Events()[7].time, kT0 + seconds(31));
  for (int port : leaf.ports) EXPECT_TRUE(state_->PortState(port)->link_up);
  EXPECT_TRUE(state_->Faults().empty()) << "a reboot removes itself when it completes";
  // The other leaf never noticed.
  for (int port : state_->topology().nodes()[1].ports) {
    EXPECT_EQ(state_->PortState(port)->counters.link_downed, 0u);
  }
}

TEST_F(SimStateTest, SwitchRebootLeavesDownWhatElseHoldsDown) {
  RunAction("disable", leaf_host_, kT0);  // 336 329
  ASSERT_TRUE(state_->AddFault({{"kind", "link_down"}, {"port", spine_}}, kT0 + seconds(1)).ok());
  const std::string guid = state_->topology().nodes()[0].system_guid;
  std::string upper = "0x" + guid;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  upper[1] = 'x';
  ASSERT_TRUE(
      state_->AddFault({{"kind", "switch_reboot"}, {"switch", upper}}, kT0 + seconds(2)).ok())
      << "by system GUID, any case, with 0x";
  // Only the second host's link was still up.
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329", "329", "907", "329"}));
  state_->Advance(kT0 + seconds(21));
  EXPECT_EQ(EventTypes().size(), 5u) << "default down_s is 20";
  state_->Advance(kT0 + seconds(22));
  EXPECT_EQ(EventTypes(),
            (std::vector<std::string>{"336", "329", "329", "907", "329", "908", "328"}));
  EXPECT_FALSE(S(leaf_host_).link_up) << "disabled end";
  EXPECT_FALSE(S(leaf_up_).link_up) << "its own link_down fault";
  EXPECT_TRUE(S(state_->topology().ports()[state_->topology().nodes()[0].ports[1]].name).link_up);
  ASSERT_EQ(state_->Faults().size(), 1u);
  EXPECT_EQ(state_->Faults()[0].kind, FaultKind::kLinkDown);
}

TEST_F(SimStateTest, NodeRebootTakesItsLinksDownThenUp) {
  Result<Fault> f =
      state_->AddFault({{"kind", "node_reboot"}, {"node", "gpu-node-001"}, {"down_s", 10}}, kT0);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->kind, FaultKind::kNodeReboot);
  EXPECT_EQ(state_->topology().nodes()[f->node].name, "gpu-node-001");
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"331", "329"}));
  const Event down = state_->Events()[0];
  EXPECT_EQ(down.name, "Node is Down");
  EXPECT_EQ(down.type, "Computer");
  EXPECT_EQ(down.severity, "Warning");
  EXPECT_EQ(down.category, "Fabric Topology");
  EXPECT_EQ(down.object_name, "gpu-node-001");
  EXPECT_EQ(down.description, "Site configuration changes: gpu-node-001 node is Down");
  EXPECT_EQ(FormatEventLogLine(down),
            "2027-01-15 08:00:00.000 [1] [331] WARNING [Fabric_Topology] Computer [Computer: "
            "gpu-node-001]: Site configuration changes: gpu-node-001 node is Down");
  EXPECT_FALSE(S(host_).link_up);
  EXPECT_TRUE(S(leaf_up_).link_up);
  state_->Advance(kT0 + milliseconds(9999));
  EXPECT_FALSE(S(host_).link_up);
  state_->Advance(kT0 + seconds(10));
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"331", "329", "332", "328"}));
  const Event up = state_->Events()[2];
  EXPECT_EQ(up.name, "Node is Up");
  EXPECT_EQ(up.severity, "Info");
  EXPECT_EQ(up.object_name, "gpu-node-001");
  EXPECT_EQ(up.description, "Site configuration changes: gpu-node-001 node is Up");
  EXPECT_TRUE(S(host_).link_up);
  EXPECT_EQ(S(host_).counters.link_downed, 1u);
  EXPECT_TRUE(state_->Faults().empty());
}

TEST_F(SimStateTest, NodeRebootOfAHostWithTwoHcas) {
  Result<Topology> t =
      Topology::FromString("fat-tree:leaves=2,spines=1,hosts_per_leaf=2,hcas_per_host=2", 7);
  ASSERT_TRUE(t.ok());
  state_ = std::make_unique<SimState>(std::move(t.value()), SimOptions{}, kT0);
  ASSERT_TRUE(
      state_->AddFault({{"kind", "node_reboot"}, {"node", "GPU-NODE-003"}, {"down_s", 5}}, kT0)
          .ok())
      << "host names in any case";
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"331", "329", "329"}));
  const Node& host = state_->topology().nodes()[3 + 2];
  ASSERT_EQ(host.name, "gpu-node-003");
  for (int port : host.ports) EXPECT_FALSE(state_->PortState(port)->link_up);
  state_->Advance(kT0 + seconds(5));
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"331", "329", "329", "332", "328", "328"}));
  for (int port : host.ports) EXPECT_TRUE(state_->PortState(port)->link_up);
}

TEST_F(SimStateTest, RepairEndsARebootEarly) {
  ASSERT_TRUE(state_->AddFault({{"kind", "switch_reboot"}, {"switch", "ib-leaf-01"}}, kT0).ok());
  ASSERT_TRUE(state_->AddFault({{"kind", "link_down"}, {"port", host_}}, kT0 + seconds(1)).ok());
  ASSERT_EQ(state_->Faults().size(), 2u);
  Result<int> link = state_->Repair(spine_, kT0 + seconds(5));
  ASSERT_TRUE(link.ok());
  EXPECT_EQ(EventTypes(),
            (std::vector<std::string>{"907", "329", "329", "329", "908", "328", "328"}));
  EXPECT_EQ(state_->Events()[4].time, kT0 + seconds(5));
  EXPECT_FALSE(S(host_).link_up) << "its own fault is on another link";
  EXPECT_TRUE(S(spine_).link_up);
  ASSERT_EQ(state_->Faults().size(), 1u);
  EXPECT_EQ(state_->Faults()[0].kind, FaultKind::kLinkDown);
  state_->Advance(kT0 + seconds(60));
  EXPECT_EQ(EventTypes().size(), 7u) << "the reboot does not end a second time";
}

TEST_F(SimStateTest, RebootInOneJumpIsTheSameAsInSteps) {
  auto run = [&](milliseconds step) {
    Reset(SimOptions{});
    EXPECT_TRUE(
        state_->AddFault({{"kind", "node_reboot"}, {"node", "gpu-node-001"}, {"down_s", 2.5}}, kT0)
            .ok());
    EXPECT_TRUE(state_->AddFault({{"kind", "flap"}, {"port", host_}, {"interval_s", 1}}, kT0).ok());
    for (TimePoint t = kT0; t < kT0 + seconds(6); t += step) state_->Advance(t);
    state_->Advance(kT0 + seconds(6));
    std::vector<std::string> out;
    for (const Event& e : state_->Events()) {
      out.push_back(e.event_type + "@" + std::to_string((e.time - kT0).count()));
    }
    return out;
  };
  const std::vector<std::string> fine = run(milliseconds(100));
  EXPECT_EQ(fine, run(seconds(6)));
  // Down at once; the flap is down at 0-1, 2-3, ...: the node comes back at 2.5 s while the flap
  // holds the link down, which comes up with the flap at 3 s.
  ASSERT_GE(fine.size(), 4u);
  EXPECT_EQ(fine[0].substr(0, 4), "331@");
  EXPECT_EQ(fine[1].substr(0, 4), "329@");
  EXPECT_EQ(fine[2].substr(0, 4), "332@");
  EXPECT_EQ(fine[3].substr(0, 4), "328@");
}

TEST_F(SimStateTest, BadRebootBodiesAreErrors) {
  struct Case {
    Json body;
    Status::Code code;
  };
  const std::vector<Case> cases = {
      {{{"kind", "switch_reboot"}}, Status::Code::kInvalidArgument},
      {{{"kind", "switch_reboot"}, {"switch", 5}}, Status::Code::kInvalidArgument},
      {{{"kind", "switch_reboot"}, {"switch", ""}}, Status::Code::kInvalidArgument},
      {{{"kind", "switch_reboot"}, {"switch", "ib-leaf-01"}, {"down_s", 0}},
       Status::Code::kInvalidArgument},
      {{{"kind", "switch_reboot"}, {"switch", "ib-leaf-01"}, {"down_s", -3}},
       Status::Code::kInvalidArgument},
      {{{"kind", "switch_reboot"}, {"switch", "ib-leaf-01"}, {"down_s", "20"}},
       Status::Code::kInvalidArgument},
      {{{"kind", "switch_reboot"}, {"switch", "ib-leaf-01"}, {"down_s", 1e9}},
       Status::Code::kInvalidArgument},
      {{{"kind", "switch_reboot"}, {"switch", "ib-leaf-01"}, {"port", host_}},
       Status::Code::kInvalidArgument},
      {{{"kind", "switch_reboot"}, {"node", "gpu-node-001"}}, Status::Code::kInvalidArgument},
      {{{"kind", "node_reboot"}, {"node", "gpu-node-001"}, {"switch", "x"}},
       Status::Code::kInvalidArgument},
      {{{"kind", "switch_reboot"}, {"switch", "ib-leaf-99"}}, Status::Code::kNotFound},
      {{{"kind", "switch_reboot"}, {"switch", "gpu-node-001"}}, Status::Code::kNotFound},
      {{{"kind", "switch_reboot"}, {"switch", "0123456789abcdef"}}, Status::Code::kNotFound},
      {{{"kind", "node_reboot"}, {"node", "ib-leaf-01"}}, Status::Code::kNotFound},
      {{{"kind", "node_reboot"}, {"node", "gpu-node-099"}}, Status::Code::kNotFound},
  };
  for (const Case& c : cases) {
    Result<Fault> f = state_->AddFault(c.body, kT0);
    EXPECT_FALSE(f.ok()) << c.body.dump();
    EXPECT_EQ(f.status().code(), c.code) << c.body.dump() << ": " << f.status().ToString();
    EXPECT_FALSE(f.status().message().empty());
  }
  EXPECT_TRUE(state_->Faults().empty());
  EXPECT_TRUE(state_->Events().empty());
  // One reboot of a switch at a time.
  ASSERT_TRUE(state_->AddFault({{"kind", "switch_reboot"}, {"switch", "ib-spine-01"}}, kT0).ok());
  EXPECT_EQ(
      state_->AddFault({{"kind", "switch_reboot"}, {"switch", "ib-spine-01"}}, kT0).status().code(),
      Status::Code::kConflict);
  EXPECT_EQ(state_->Faults().size(), 1u);
}

}  // namespace
}  // namespace ufmr::sim
