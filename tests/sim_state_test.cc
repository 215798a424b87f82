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
  EXPECT_EQ(events[0].name, "Link went down");
  EXPECT_EQ(events[0].type, "Link");
  EXPECT_EQ(events[0].event_type, "329");
  EXPECT_EQ(events[0].severity, "Warning");
  EXPECT_EQ(events[0].category, "Fabric Topology");
  EXPECT_EQ(events[0].object_name, leaf_up_ + ":" + spine_);
  EXPECT_EQ(events[0].object_path, leaf_up_ + ":" + spine_);
  EXPECT_EQ(events[0].description, "Link went down: " + ends);
  EXPECT_EQ(events[0].time, kT0);
  EXPECT_EQ(events[1].id, 2);
  EXPECT_EQ(events[1].name, "Link went up");
  EXPECT_EQ(events[1].event_type, "328");
  EXPECT_EQ(events[1].severity, "Info");
  EXPECT_EQ(events[1].description, "Link went up: " + ends);
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
  EXPECT_EQ(disabled.name, "Port Action Disable Succeeded");
  EXPECT_EQ(disabled.type, "Port");
  EXPECT_EQ(disabled.object_name, host_);
  EXPECT_NE(disabled.description.find(host_), std::string::npos);
  EXPECT_NE(disabled.description.find("gpu-node-001"), std::string::npos);

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
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329", "337", "328"}));
  EXPECT_EQ(state_->Events()[2].name, "Port Action Enable Succeeded");
  EXPECT_EQ(S(host_).logical_state, "Active");
  EXPECT_EQ(S(leaf_host_).physical_state, "Link Up");
  EXPECT_EQ(RunAction("enable", host_, kT0 + seconds(4)).status, "Completed With Warnings");
}

TEST_F(SimStateTest, EnableWithAPendingFaultKeepsTheLinkDownUntilRepair) {
  RunAction("disable", leaf_up_, kT0);
  ASSERT_TRUE(state_->AddFault({{"kind", "link_down"}, {"port", spine_}}, kT0 + seconds(1)).ok());
  RunAction("enable", leaf_up_, kT0 + seconds(2));
  EXPECT_EQ(S(leaf_up_).logical_state, "Inactive");
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329", "337"}));
  ASSERT_TRUE(state_->Repair(spine_, kT0 + seconds(3)).ok());
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"336", "329", "337", "328"}));
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

}  // namespace
}  // namespace ufmr::sim
