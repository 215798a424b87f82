// The campaign (scripts/campaign --minutes N; the suite runs 3 minutes): the service as a site runs
// it, attacked at random moments from a printed seed, then checked for every promise the docs make.
// Two instances (HA) against ufm-sim in a real UFM version's shapes, a private Slurm with jobs, a
// receiver that flips between 200, 503 and hanging and echoes what it gets, and PostgreSQL with a
// synchronous replica. Rules that disable (link_down), isolate (symbol_errors) and drain
// (link_flapping: drain_then_disable). Meanwhile the campaign:
//   - injects link faults, flaps, symbol errors, a spine's and hosts' reboots, and repairs (the
//     fault gone, then reported through the API);
//   - makes a person's moves: a disable, an enable, an isolation, a healthy again in UFM, a drain
//     and a resume in Slurm;
//   - SIGKILLs the leader or the standby every few seconds, often right when a UFM job, a drain
//     or a delivery is in flight; restarts PostgreSQL's primary, and fails it over once;
//   - makes UFM answer 5xx, slowly, or not at all (frozen).
// Then, left alone to settle, it checks and prints as a table: faults acted on or ticketed (0
// lost); duplicate UFM actions (0); ports disabled or isolated with no open ticket holding them
// (0); nodes drained by the service with no open ticket (0); a person's disables, isolations and
// drains touched (0); notifications: every event told, once per key, in order per receiver;
// service exits other than the kills (0). UFMR_CAMPAIGN_MINUTES (3) and UFMR_CAMPAIGN_SEED.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/http_receiver.h"
#include "support/postgres_pair.h"
#include "support/service_config.h"
#include "support/service_process.h"
#include "support/shipped_rules.h"
#include "support/sim_process.h"
#include "support/test_env.h"
#include "support/test_slurm.h"
#include "ufm/http_client.h"

namespace ufmr {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;
using testing::WaitUntil;

// 8 hosts of two HCAs on 4 leaves (4 host ports a leaf), 2 spines.
constexpr const char* kTopology = "fat-tree:leaves=4,spines=2,hosts_per_leaf=2,hcas_per_host=2";
constexpr const char* kFabric = "campaign";
constexpr const char* kPersonReason = "person: DIMM check DC-";
constexpr double kQuietS = 25;  // no fault on a leaf this long after a reboot or a fault there

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// A leaf-host link of the campaign's.
struct Link {
  std::string sw, host;          // the leaf's port (the one the service acts on), the host's
  std::string leaf, host_name;   // their systems
  std::string fault;             // the fault on it now ("" none)
  Clock::time_point faulted_at;  // when
};

// A fault the campaign made, and whether a ticket answered it.
struct Fault {
  std::string kind, sw;
  double at = 0;  // epoch seconds
};

// The figures of the run.
struct Tally {
  int kills = 0, kills_job = 0, kills_drain = 0, kills_delivery = 0, self_stops = 0;
  int unexpected_exits = 0, pg_restarts = 0, failovers = 0, ufm_5xx = 0, ufm_slow = 0;
  int ufm_frozen = 0, receiver_flips = 0, repairs = 0, person_moves = 0, person_drains = 0;
  int reboots = 0, jobs = 0;
  std::map<std::string, int> faults;
};

double EpochNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class CampaignTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // --- the parts ---
  std::unique_ptr<testing::ServiceProcess> Instance(const std::string& name);
  std::string Rules();
  void PickLinks();

  // --- what the campaign does ---
  void Step();
  void InjectFault();
  void Repair();
  void PersonMove();
  void PersonDrain();
  void Reboot(bool spine);
  void UfmTrouble();
  void FlipReceiver();
  void StartJob();
  void KillOne();
  void RestartStopped();
  void Judge(testing::ServiceProcess& in);
  void PostgresTrouble(double elapsed_share);

  // --- what it reads ---
  json Get(const std::string& url);
  int Post(const std::string& url, const json& body);
  json Tickets();
  bool LeafQuiet(const std::string& leaf);
  bool UfmJobRunning();
  bool DrainInFlight();

  // --- the checks ---
  void Settle();
  void Check();
  int LostFaults(const json& tickets);
  std::string DecisionsOn(const std::string& port);
  int DuplicateActions();
  int HeldWithoutTicket(const json& tickets);
  int DrainedWithoutTicket(const json& tickets);
  int PersonsTouched();
  void CheckNotifications(int* untold, int* twice, int* out_of_order);

  std::string dir_, db_url_;
  unsigned seed_ = 0;
  std::mt19937 rng_;
  int Between(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::unique_ptr<testing::PostgresPair> pg_;
  std::unique_ptr<testing::SimProcess> sim_;
  std::unique_ptr<testing::TestSlurm> slurm_;
  testing::HttpReceiver hook_;
  std::vector<std::unique_ptr<testing::ServiceProcess>> instances_;
  std::map<testing::ServiceProcess*, Clock::time_point> restart_at_;
  std::map<testing::ServiceProcess*, bool> killed_;
  HttpClient http_;
  std::vector<Link> faulty_;   // links the campaign faults (two a leaf, distinct hosts)
  std::vector<Link> persons_;  // links a person disables or isolates (one a leaf)
  std::map<std::string, std::string> person_state_;  // person port -> disabled|isolated|""
  std::map<std::string, std::string> person_drain_;  // node -> the person's reason, or ""
  // node -> when the person's drains stood (epoch seconds, from, to)
  std::map<std::string, std::vector<std::pair<double, double>>> person_spans_;
  std::set<std::string> host_blocked_;  // rebooted hosts: no fault on their links from then on
  std::map<std::string, Clock::time_point> leaf_busy_;  // a leaf's last fault or reboot
  std::vector<Fault> faults_;
  Clock::time_point last_pg_event_{};
  bool failed_over_ = false;
  int pg_restarts_due_ = 0;
  Tally tally_;
  int only_ticketed_ = 0;  // faults a ticket of another rule answered, with no action
};

void CampaignTest::SetUp() {
  seed_ = static_cast<unsigned>(
      EnvInt("UFMR_CAMPAIGN_SEED", static_cast<int>(std::random_device{}() & 0x7fffffff)));
  rng_.seed(seed_);
  std::cout << "[ CAMPAIGN ] seed " << seed_ << " (UFMR_CAMPAIGN_SEED=" << seed_ << " replays it)"
            << std::endl;
  dir_ = testing::MakeTempDir("campaign");
  pg_ = std::make_unique<testing::PostgresPair>(dir_);
  db_url_ = pg_->CreateDatabase();
  const char* versions[] = {"6.16", "6.19", "6.22"};
  const std::string version = versions[Between(0, 2)];
  std::cout << "[ CAMPAIGN ] ufm-sim in UFM " << version << "'s shapes" << std::endl;
  sim_ = std::make_unique<testing::SimProcess>(
      dir_, std::vector<std::string>{"--topology", kTopology, "--job-delay-ms", "1500",
                                     "--ufm-version", version});
  ASSERT_TRUE(sim_->AwaitReady());
  PickLinks();
  std::set<std::string> nodes;
  for (const auto& l : faulty_) nodes.insert(l.host_name);
  slurm_ =
      std::make_unique<testing::TestSlurm>(std::vector<std::string>(nodes.begin(), nodes.end()));
  for (const auto& n : nodes) person_drain_[n] = "";
  hook_.set_echo(true);
  for (const char* name : {"service-a", "service-b"}) instances_.push_back(Instance(name));
  ASSERT_TRUE(instances_[0]->Migrate());
  http_.SetHeader("Authorization", "Bearer " + instances_[0]->CreateToken("tech", "engineer"));
}

void CampaignTest::TearDown() {
  sim_->Signal(SIGCONT);
  instances_.clear();
  sim_.reset();
  slurm_.reset();
  pg_.reset();
  if (!dir_.empty() && !HasFailure()) testing::RemoveTree(dir_);
}

std::unique_ptr<testing::ServiceProcess> CampaignTest::Instance(const std::string& name) {
  auto in = std::make_unique<testing::ServiceProcess>(dir_, name);
  in->PrintOnFailure(3, 20000);
  const std::string scontrol = dir_ + "/scontrol";
  testing::WriteFile(scontrol, "#!/bin/sh\necho \"$(date +%s.%N) $*\" >> '" + dir_ +
                                   "/scontrol.calls'\nexec scontrol \"$@\"\n");
  chmod(scontrol.c_str(), 0755);
  in->WriteConfig(testing::ServiceConfigYaml(
      {.fabric = kFabric,
       .ufm_url = sim_->url(),
       .telemetry_url = sim_->telemetry_url(),
       .db_url = db_url_,
       .rules_dir = Rules(),
       .http_port = in->port(),
       // No cooldown: a link repaired and broken again within the hour is cut again.
       .remediation_extra = std::string(testing::kHighCaps) + "  port_cooldown_s: 0\n",
       .ufm_extra = "  timeout_s: 1\n",
       .sections_extra =
           "ha:\n  lock_retry_s: 0.5\nscheduler:\n  backend: slurm\n  scontrol: " + scontrol +
           "\n  slurm_conf: " + slurm_->conf() +
           "\n  poll_interval_s: 0.5\n  retry_s: 1\n  timeout_s: 5\n  max_drained_nodes: 4\n"
           "  max_drained_percent: 50\nnotify:\n  retry_max_s: 2\n  receivers:\n"
           "    - {name: hook, type: webhook, url: \"" +
           hook_.Url("/hooks/T0CAMPAIGN/B0CAMPAIGN/xoxbCampaignKey77") +
           "\", timeout_s: 2}\n  route:\n    receiver: hook\n    group_wait: 1s\n"
           "    group_interval: 2s\n"}));
  return in;
}

std::string CampaignTest::Rules() {
  const std::string dir = dir_ + "/rules";
  if (std::ifstream(dir + "/links.yaml").good()) return dir;
  EXPECT_TRUE(testing::ShippedRules(
      dir,
      {testing::ShortHold(),
       {"links.yaml", "name: link_flapping", "action: disable_port", "action: drain_then_disable"},
       {"errors.yaml", "name: symbol_errors", "action: disable_port", "action: isolate_port"}}));
  return dir;
}

void CampaignTest::PickLinks() {
  std::map<std::string, int> per_leaf;
  std::set<std::string> used_hosts;
  std::vector<Link> all;
  for (const auto& l : Get(sim_->url() + "/sim/links")) {
    if (l["b"]["is_switch"].get<bool>()) continue;
    all.push_back(
        {l["a"]["port"], l["b"]["port"], l["a"]["system_name"], l["b"]["system_name"], "", {}});
  }
  for (const auto& l : all) {  // two a leaf, each on a host of its own
    if (per_leaf[l.leaf] >= 2 || used_hosts.count(l.host_name)) continue;
    ++per_leaf[l.leaf];
    used_hosts.insert(l.host_name);
    faulty_.push_back(l);
  }
  std::set<std::string> person_leaves;
  for (const auto& l : all) {  // one a leaf, on the other HCA of a faulty link's host
    if (person_leaves.count(l.leaf) || per_leaf[l.leaf] >= 3) continue;
    bool taken = false;
    for (const auto& f : faulty_) taken = taken || f.sw == l.sw;
    if (taken) continue;
    person_leaves.insert(l.leaf);
    ++per_leaf[l.leaf];
    persons_.push_back(l);
    person_state_[l.sw] = "";
  }
  ASSERT_EQ(faulty_.size(), 8u);
  ASSERT_EQ(persons_.size(), 4u);
}

// --- what it reads ---

json CampaignTest::Get(const std::string& url) {
  auto r = http_.Get(url);
  if (!r.ok() || r->status != 200) return json();
  return json::parse(r->body, nullptr, false);
}

int CampaignTest::Post(const std::string& url, const json& body) {
  auto r = http_.Post(url, body.dump());
  return r.ok() ? r->status : 0;
}

json CampaignTest::Tickets() {
  for (auto& in : instances_) {
    json t = Get(in->api() + "/api/tickets?state=all&limit=1000");
    if (t.is_object() && t["tickets"].is_array()) return t["tickets"];
  }
  return json();
}

bool CampaignTest::LeafQuiet(const std::string& leaf) {
  auto it = leaf_busy_.find(leaf);
  return it == leaf_busy_.end() ||
         std::chrono::duration<double>(Clock::now() - it->second).count() > kQuietS;
}

bool CampaignTest::UfmJobRunning() {
  HttpClientOptions o;
  o.basic_user = "admin";
  o.basic_password = "123456";
  o.timeout = milliseconds(500);
  HttpClient ufm(o);
  auto r = ufm.Get(sim_->url() + "/ufmRest/jobs");
  return r.ok() && r->body.find("\"Running\"") != std::string::npos;
}

bool CampaignTest::DrainInFlight() {
  try {
    pqxx::connection c(db_url_);
    pqxx::nontransaction w(c);
    // Asked for and not yet done: to be sent, waiting for the node's jobs, or to be resumed.
    return w.exec(
                "SELECT count(*) FROM node_drains WHERE state IN ('pending', 'draining', "
                "'resuming')")[0][0]
               .as<int>() > 0;
  } catch (const std::exception&) {
    return false;  // the database is down: nothing is in flight
  }
}

// --- what the campaign does ---

void CampaignTest::InjectFault() {
  std::vector<Link*> free;
  const json tickets = Tickets();
  if (!tickets.is_array()) return;  // not known now (both instances down): not a fault's moment
  for (auto& l : faulty_) {
    bool open = false;
    for (const auto& t : tickets) {
      open = open || (t["state"] != "closed" &&
                      t["link"].get<std::string>().find(l.sw) != std::string::npos);
    }
    if (l.fault.empty() && !open && LeafQuiet(l.leaf) && !host_blocked_.count(l.host_name)) {
      free.push_back(&l);
    }
  }
  if (free.empty()) return;
  Link& l = *free[Between(0, static_cast<int>(free.size()) - 1)];
  // A flap on a host a person drained: the drain the flapping rule asks for is theirs already.
  const int kind = person_drain_[l.host_name].empty() ? Between(0, 9) : 9;
  json fault = kind < 5   ? json{{"kind", "link_down"}, {"port", l.host}}
               : kind < 8 ? json{{"kind", "symbol_errors"}, {"port", l.host}, {"rate", 400}}
                          : json{{"kind", "flap"}, {"port", l.host}, {"interval_s", 0.4}};
  if (Post(sim_->url() + "/sim/faults", fault) != 201) return;
  l.fault = fault["kind"];
  l.faulted_at = Clock::now();
  leaf_busy_[l.leaf] = Clock::now();
  faults_.push_back({l.fault, l.sw, EpochNow()});
  ++tally_.faults[l.fault];
}

void CampaignTest::Repair() {
  const json tickets = Tickets();
  if (!tickets.is_array()) return;
  // A link held out (its fault, or a soak that failed): the fault is gone, then reported.
  std::vector<std::pair<Link*, int64_t>> held;
  for (auto& l : faulty_) {
    for (const auto& t : tickets) {
      if (t["state"] == "port_disabled" &&
          t["link"].get<std::string>().find(l.sw) != std::string::npos) {
        held.emplace_back(&l, t["id"].get<int64_t>());
      }
    }
  }
  if (held.empty()) return;
  auto [l, id] = held[Between(0, static_cast<int>(held.size()) - 1)];
  Post(sim_->url() + "/sim/repair", {{"port", l->host}});
  for (auto& in : instances_) {  // whichever is up takes it
    Post(in->api() + "/api/tickets/" + std::to_string(id) + "/repaired",
         {{"by", "campaign"}, {"kind", "cable_replaced"}});
  }
  l->fault.clear();
  ++tally_.repairs;
}

void CampaignTest::PersonMove() {
  Link& l = persons_[Between(0, static_cast<int>(persons_.size()) - 1)];
  std::string& state = person_state_[l.sw];
  std::string action;
  if (state.empty()) {
    if (!LeafQuiet(l.leaf) || host_blocked_.count(l.host_name)) return;
    action = Between(0, 1) ? "disable" : "isolate";
    leaf_busy_[l.leaf] = Clock::now();
  } else {
    action = state == "disabled" ? "enable" : "healthy";
  }
  if (Post(sim_->url() + "/sim/operator", {{"port", l.sw}, {"action", action}}) != 200) return;
  state = action == "disable" ? "disabled" : action == "isolate" ? "isolated" : "";
  ++tally_.person_moves;
}

void CampaignTest::PersonDrain() {
  auto it = person_drain_.begin();
  std::advance(it, Between(0, static_cast<int>(person_drain_.size()) - 1));
  const std::string& node = it->first;
  if (it->second.empty()) {
    if (slurm_->State(node).find("drain") != std::string::npos) return;  // the service's
    const std::string reason = kPersonReason + std::to_string(Between(100, 999));
    auto r =
        slurm_->Run({"scontrol", "update", "NodeName=" + node, "State=DRAIN", "Reason=" + reason});
    if (r.exit_code != 0) return;
    it->second = reason;
    person_spans_[node].push_back({EpochNow(), 1e18});
  } else {
    if (slurm_->Reason(node).rfind(kPersonReason, 0) != 0) return;  // not theirs any more
    person_spans_[node].back().second = EpochNow();
    auto r = slurm_->Run({"scontrol", "update", "NodeName=" + node, "State=RESUME"});
    if (r.exit_code != 0) return;
    it->second.clear();
  }
  ++tally_.person_drains;
}

void CampaignTest::Reboot(bool spine) {
  if (spine) {
    if (Post(sim_->url() + "/sim/faults",
             {{"kind", "switch_reboot"}, {"switch", "ib-spine-01"}, {"down_s", 6}}) != 201) {
      return;
    }
    for (const auto& l : faulty_) leaf_busy_[l.leaf] = Clock::now() + seconds(8);
    ++tally_.reboots;
    return;
  }
  // A host whose links are quiet: its link rules are inhibited for 15 minutes after (a reboot's
  // links are no faults), so it gets no fault in that time.
  const json tickets = Tickets();
  if (!tickets.is_array()) return;
  for (int tries = 0; tries < 4; ++tries) {
    Link& l = faulty_[Between(0, static_cast<int>(faulty_.size()) - 1)];
    const Link* other = nullptr;
    for (const auto& p : persons_) other = p.host_name == l.host_name ? &p : other;
    bool open = false;
    for (const auto& t : tickets) {
      open = open || (t["state"] != "closed" &&
                      t["link"].get<std::string>().find(l.sw) != std::string::npos);
    }
    if (!l.fault.empty() || open || !LeafQuiet(l.leaf) || host_blocked_.count(l.host_name) ||
        (other && (!person_state_[other->sw].empty() || !LeafQuiet(other->leaf)))) {
      continue;
    }
    if (Post(sim_->url() + "/sim/faults",
             {{"kind", "node_reboot"}, {"node", l.host_name}, {"down_s", 5}}) != 201) {
      return;
    }
    host_blocked_.insert(l.host_name);
    leaf_busy_[l.leaf] = Clock::now() + seconds(7);
    if (other) leaf_busy_[other->leaf] = Clock::now() + seconds(7);
    ++tally_.reboots;
    return;
  }
}

void CampaignTest::UfmTrouble() {
  switch (Between(0, 2)) {
    case 0:
      Post(sim_->url() + "/sim/misbehave",
           {{"mode", Between(0, 1) ? "status_500" : "echo_503"}, {"count", Between(1, 6)}});
      ++tally_.ufm_5xx;
      break;
    case 1:
      Post(sim_->url() + "/sim/misbehave",
           {{"mode", "slow"}, {"count", Between(1, 3)}, {"delay_ms", 1500}});
      ++tally_.ufm_slow;
      break;
    default:
      sim_->Signal(SIGSTOP);
      std::this_thread::sleep_for(milliseconds(Between(500, 2500)));
      sim_->Signal(SIGCONT);
      ++tally_.ufm_frozen;
  }
}

void CampaignTest::FlipReceiver() {
  switch (Between(0, 2)) {
    case 0:
      hook_.set_status(200);
      hook_.set_delay(milliseconds(0));
      break;
    case 1:
      hook_.set_status(503);
      hook_.set_delay(milliseconds(0));
      break;
    default:  // hangs past the service's timeout (2 s)
      hook_.set_status(503);
      hook_.set_delay(milliseconds(3000));
  }
  ++tally_.receiver_flips;
}

void CampaignTest::StartJob() {
  const Link& l = faulty_[Between(0, static_cast<int>(faulty_.size()) - 1)];
  auto r = slurm_->Run({"sbatch", "--parsable", "-w", l.host_name, "-J", "train", "-o", "/dev/null",
                        "--wrap", "sleep " + std::to_string(Between(5, 20))});
  if (r.exit_code == 0) ++tally_.jobs;
}

// Kills the leader (mostly) or the standby, the leader often right as a UFM job, a drain or a
// delivery is in flight.
void CampaignTest::KillOne() {
  testing::ServiceProcess* leader = nullptr;
  testing::ServiceProcess* standby = nullptr;
  for (auto& in : instances_) {
    if (!in->running()) continue;
    json h = Get(in->api() + "/healthz");
    if (h.is_object() && h["role"] == "leader") leader = in.get();
    if (h.is_object() && h["role"] == "standby") standby = in.get();
  }
  testing::ServiceProcess* target = Between(0, 9) < 7 ? leader : standby;
  if (!target) target = leader ? leader : standby;
  if (!target) return;
  bool job = false, drain = false, delivery = false;
  if (target == leader) {  // wait up to 3 s for something in flight
    WaitUntil(
        [&] {
          job = UfmJobRunning();
          drain = DrainInFlight();
          delivery = hook_.in_flight() > 0;
          return job || drain || delivery;
        },
        seconds(3), milliseconds(50));
  }
  target->Signal(SIGKILL);
  killed_[target] = true;
  restart_at_[target] = Clock::now() + milliseconds(Between(300, 2500));
  ++tally_.kills;
  tally_.kills_job += job;
  tally_.kills_drain += drain;
  tally_.kills_delivery += delivery;
}

// Starts again what is not running (as systemd does), and judges how it ended.
void CampaignTest::RestartStopped() {
  for (auto& in : instances_) {
    if (in->running()) continue;
    auto due = restart_at_.find(in.get());
    if (due == restart_at_.end()) {
      Judge(*in);
      restart_at_[in.get()] = Clock::now() + milliseconds(Between(300, 2000));
      continue;
    }
    if (Clock::now() < due->second) continue;
    restart_at_.erase(due);
    killed_[in.get()] = false;
    in->Start({.log_level = "debug", .crash_at = ""});
  }
}

// An instance that ended by itself: only a leader that lost its lock's connection to a database
// restart or failover (exit 75), or a start while no server took writes (exit 1), may.
void CampaignTest::Judge(testing::ServiceProcess& in) {
  if (in.term_signal() == SIGKILL && killed_[&in]) return;
  const double since_pg = std::chrono::duration<double>(Clock::now() - last_pg_event_).count();
  const std::string log = in.Log();
  const bool lost_lock =
      in.exit_code() == 75 && log.find("lost the leader lock") != std::string::npos;
  // A start while PostgreSQL restarts: opening the database failed, or the connection went
  // between two startup steps (opened, then the schema check found it gone).
  const bool no_database =
      in.exit_code() == 1 &&
      ((log.find("startup: open database:") != std::string::npos &&
        log.find("startup: open database: ok") == std::string::npos) ||
       log.find("critical startup: check schema: Unavailable: database:") != std::string::npos);
  if (since_pg < 60 && (lost_lock || no_database)) {
    ++tally_.self_stops;
    return;
  }
  ++tally_.unexpected_exits;
  ADD_FAILURE() << in.name() << " ended by itself (exit " << in.exit_code() << ", signal "
                << in.term_signal()
                << "): " << log.substr(log.size() > 3000 ? log.size() - 3000 : 0);
}

void CampaignTest::PostgresTrouble(double share) {
  if (!failed_over_ && share >= 0.5) {
    pg_->KillPrimary();
    std::this_thread::sleep_for(milliseconds(Between(500, 3000)));
    pg_->Promote();
    failed_over_ = true;
    last_pg_event_ = Clock::now();
    ++tally_.failovers;
  } else if ((pg_restarts_due_ == 0 && share >= 0.25) || (pg_restarts_due_ == 1 && share >= 0.8)) {
    pg_->RestartPrimary();
    ++pg_restarts_due_;
    last_pg_event_ = Clock::now();
    ++tally_.pg_restarts;
  }
}

void CampaignTest::Step() {
  const int pick = Between(0, 99);
  if (pick < 35) return InjectFault();
  if (pick < 60) return Repair();
  if (pick < 66) return PersonMove();
  if (pick < 71) return PersonDrain();
  if (pick < 73) return Reboot(false);
  if (pick < 81) return UfmTrouble();
  if (pick < 88) return FlipReceiver();
  StartJob();
}

// --- the checks ---

// Everything back to normal, then wait for the service to finish what it started: no port
// action or drain step pending, no message undelivered.
void CampaignTest::Settle() {
  sim_->Signal(SIGCONT);
  hook_.set_status(200);
  hook_.set_delay(milliseconds(0));
  for (auto& in : instances_) {
    if (in->running()) continue;
    if (!restart_at_.count(in.get())) Judge(*in);  // not one the campaign killed
    in->Start({.log_level = "debug", .crash_at = ""});
  }
  restart_at_.clear();
  const bool settled = WaitUntil(
      [&] {
        try {
          pqxx::connection c(db_url_);
          pqxx::nontransaction w(c);
          return w.exec(
                      "SELECT (SELECT count(*) FROM port_actions WHERE state IN ('pending', "
                      "'submitted')) + (SELECT count(*) FROM node_drains WHERE state IN "
                      "('pending', 'resuming')) + (SELECT count(*) FROM notify_deliveries "
                      "WHERE state = 'pending') + (SELECT count(*) FROM notify_events WHERE "
                      "routed_at IS NULL)")[0][0]
                     .as<int>() == 0;
        } catch (const std::exception&) {
          return false;
        }
      },
      seconds(180), milliseconds(500));
  EXPECT_TRUE(settled) << "the service never settled";
  std::this_thread::sleep_for(seconds(3));
}

// Faults neither acted on nor ticketed (a link with fewer tickets of any rule than faults), and
// faults ticketed twice (more tickets of the rules that answer them than faults). Faults answered
// only by another rule's ticket (repeated_link_downs: a ticket, no action) are counted apart.
int CampaignTest::LostFaults(const json& tickets) {
  std::map<std::string, int> faults, answered, any;
  for (const auto& f : faults_) ++faults[f.sw];
  for (const auto& t : tickets) {
    const std::string rule = t["rule"];
    const bool answering =
        rule == "link_down" || rule == "symbol_errors" || rule == "link_flapping";
    for (const auto& l : faulty_) {
      const bool on = t["link"].get<std::string>().find(l.sw) != std::string::npos;
      any[l.sw] += on;
      answered[l.sw] += on && answering;
    }
  }
  int lost = 0;
  for (const auto& l : faulty_) {
    const int n = faults[l.sw];
    const int bad = std::max(0, n - any[l.sw]) + std::max(0, answered[l.sw] - n);
    only_ticketed_ += std::max(0, n - answered[l.sw]) - std::max(0, n - any[l.sw]);
    if (bad == 0) continue;
    lost += bad;
    std::string seen;
    for (const auto& f : faults_) {
      if (f.sw == l.sw) seen += "\n  fault " + f.kind + " at " + std::to_string(f.at);
    }
    for (const auto& t : tickets) {
      if (t["link"].get<std::string>().find(l.sw) != std::string::npos) {
        seen += "\n  ticket " + t.dump();
      }
    }
    seen += DecisionsOn(l.sw);
    ADD_FAILURE() << l.sw << ": " << n << " faults, " << any[l.sw] << " tickets (" << answered[l.sw]
                  << " of the answering rules)" << seen;
  }
  return lost;
}

// What the service decided about a link, oldest first: why a fault got no ticket.
std::string CampaignTest::DecisionsOn(const std::string& port) {
  std::string out;
  try {
    pqxx::connection c(db_url_);
    pqxx::nontransaction w(c);
    for (const auto& r : w.exec_params(
             "SELECT to_char(finding_at, 'HH24:MI:SS.MS'), rule, decision, guard, reason, "
             "coalesce(ticket_id, 0) FROM decisions WHERE entity LIKE '%' || $1 || '%' ORDER BY id",
             port)) {
      out += "\n  decision " + r[0].as<std::string>() + " " + r[1].as<std::string>() + " " +
             r[2].as<std::string>() + " [" + r[3].as<std::string>() + "] ticket " +
             r[5].as<std::string>() + ": " + r[4].as<std::string>();
    }
  } catch (const std::exception& e) {
    out += "\n  (decisions not read: " + std::string(e.what()) + ")";
  }
  return out;
}

int CampaignTest::DuplicateActions() {
  std::map<std::string, std::string> last;
  int duplicates = 0;
  for (const auto& a : Get(sim_->url() + "/sim/actions")) {
    const std::string port = a["port"], action = a["action"];
    if (last[port] == action) {
      ++duplicates;
      ADD_FAILURE() << "duplicate " << action << " on " << port;
    }
    last[port] = action;
  }
  return duplicates;
}

int CampaignTest::HeldWithoutTicket(const json& tickets) {
  std::set<std::string> held;
  for (const auto& l : Get(sim_->url() + "/sim/links")) {
    for (const char* end : {"a", "b"}) {
      if (l[end]["logical_state"] == "Disabled" || l[end]["physical_state"] == "Disabled") {
        held.insert(l[end]["port"]);
      }
    }
  }
  for (const auto& a : Get(sim_->url() + "/sim/actions")) {  // isolated, not made healthy
    if (a["action"] == "isolate") held.insert(a["port"].get<std::string>());
    if (a["action"] == "healthy" || a["action"] == "make_healthy") {
      held.erase(a["port"].get<std::string>());
    }
  }
  int bad = 0;
  for (const auto& port : held) {
    if (person_state_.count(port) && !person_state_[port].empty()) continue;  // the person's
    bool open = false;
    for (const auto& t : tickets) {
      open = open || (t["state"] != "closed" &&
                      t["link"].get<std::string>().find(port) != std::string::npos);
    }
    if (!open) {
      ++bad;
      ADD_FAILURE() << port << " is held out with no open ticket";
    }
  }
  return bad;
}

int CampaignTest::DrainedWithoutTicket(const json& tickets) {
  int bad = 0;
  for (const auto& [node, person] : person_drain_) {
    const std::string reason = slurm_->Reason(node);
    if (reason.rfind("ufm-remediator #", 0) != 0) continue;
    const int64_t id = std::atoll(reason.c_str() + 16);
    bool open = false;
    for (const auto& t : tickets) open = open || (t["id"] == id && t["state"] != "closed");
    if (!open && slurm_->State(node).find("drain") != std::string::npos) {
      ++bad;
      ADD_FAILURE() << node << " is drained for ticket " << id << ", which is not open";
    }
  }
  return bad;
}

int CampaignTest::PersonsTouched() {
  int touched = 0;
  for (const auto& a : Get(sim_->url() + "/sim/actions")) {
    if (person_state_.count(a["port"].get<std::string>())) {
      ++touched;
      ADD_FAILURE() << "the service acted on a person's port: " << a.dump();
    }
  }
  for (const auto& [node, reason] : person_drain_) {
    if (!reason.empty() && slurm_->Reason(node) != reason) {
      ++touched;
      ADD_FAILURE() << node << ": the person's drain (" << reason << ") is now "
                    << slurm_->State(node) << " " << slurm_->Reason(node);
    }
  }
  // The service's scontrol calls: no drain or resume of a node while a person's drain stood.
  std::ifstream calls(dir_ + "/scontrol.calls");
  for (std::string line; std::getline(calls, line);) {
    if (line.find("State=RESUME") == std::string::npos &&
        line.find("State=DRAIN") == std::string::npos) {
      continue;
    }
    const double at = std::atof(line.c_str());
    for (const auto& [node, spans] : person_spans_) {
      if (line.find("NodeName=" + node + " ") == std::string::npos) continue;
      for (const auto& [from, to] : spans) {
        if (at > from + 1 && at < to - 1) {
          ++touched;
          ADD_FAILURE() << "during a person's drain of " << node << ": " << line;
        }
      }
    }
  }
  return touched;
}

// Every event told (in a message the receiver took), each in one message (a reminder of what is
// unresolved aside), and the messages first taken in the outbox's order.
void CampaignTest::CheckNotifications(int* untold, int* twice, int* out_of_order) {
  std::map<std::string, int64_t> id_of;  // idempotency key -> delivery id
  std::set<std::string> delivered;
  pqxx::connection c(db_url_);
  pqxx::nontransaction w(c);
  for (const auto& r : w.exec("SELECT idempotency_key, id, state, repeat FROM notify_deliveries")) {
    id_of[r[0].as<std::string>()] = r[1].as<int64_t>();
    if (r[2].as<std::string>() == "delivered") delivered.insert(r[0].as<std::string>());
  }
  *untold = w.exec(
                 "SELECT count(*) FROM notify_events e WHERE silenced_by IS NULL AND NOT "
                 "EXISTS (SELECT 1 FROM notify_group_events g JOIN notify_deliveries d ON "
                 "d.id = g.delivery_id WHERE g.event_id = e.id AND d.state = 'delivered')")[0][0]
                .as<int>();
  // The receiver's side: what it took (200), first time per key, and in which messages each
  // notification came.
  const auto requests = hook_.Requests();
  const auto statuses = hook_.Statuses();
  std::set<std::string> taken;
  std::map<std::string, std::set<std::string>> keys_of;  // a notification -> keys it came in
  int64_t last_id = 0;
  *twice = *out_of_order = 0;
  for (size_t i = 0; i < requests.size() && i < statuses.size(); ++i) {
    if (statuses[i] != 200) continue;
    const std::string key = requests[i].Header("idempotency-key");
    if (!taken.insert(key).second) continue;  // taken again: at least once, the same key
    if (id_of.count(key) && id_of[key] < last_id) ++*out_of_order;
    last_id = std::max(last_id, id_of[key]);
    json body = json::parse(requests[i].body, nullptr, false);
    if (!body.is_object()) continue;
    for (const auto& n : body["notifications"]) {
      if (n["title"].get<std::string>().rfind("Still unresolved", 0) == 0) continue;
      keys_of[n["kind"].get<std::string>() + "|" + n["at"].get<std::string>() + "|" +
              n["labels"].dump()]
          .insert(key);
    }
  }
  for (const auto& [n, keys] : keys_of) *twice += keys.size() > 1;
  for (const auto& key : delivered) *untold += !taken.count(key);
}

void CampaignTest::Check() {
  const json tickets = Tickets();
  ASSERT_TRUE(tickets.is_array() && !tickets.empty()) << "no tickets to check";
  for (const char* list : {"/sim/links", "/sim/actions"}) {  // the checks read these
    const json l = Get(sim_->url() + list);
    ASSERT_TRUE(l.is_array() && !l.empty()) << list << " is empty: nothing would be checked";
  }
  int decided_twice = 0, persons_waited = 0;
  {
    pqxx::connection c(db_url_);
    pqxx::nontransaction w(c);
    decided_twice = w.exec(
                         "SELECT count(*) FROM (SELECT trigger FROM decisions WHERE trigger "
                         "<> '' GROUP BY fabric, trigger HAVING count(*) > 1) twice")[0][0]
                        .as<int>();
    persons_waited = w.exec("SELECT count(*) FROM node_drains WHERE by_person")[0][0].as<int>();
  }
  const int lost = LostFaults(tickets);
  const int duplicates = DuplicateActions();
  const int held = HeldWithoutTicket(tickets);
  const int drained = DrainedWithoutTicket(tickets);
  const int touched = PersonsTouched();
  int untold = 0, twice = 0, out_of_order = 0;
  CheckNotifications(&untold, &twice, &out_of_order);
  int faults = 0;
  for (const auto& [kind, n] : tally_.faults) faults += n;
  const auto row = [](const std::string& what, int value) {
    std::printf("| %-66s | %6d |\n", what.c_str(), value);
  };
  std::printf("\n| %-66s | %6s |\n|%s|%s|\n", ("campaign, seed " + std::to_string(seed_)).c_str(),
              "", std::string(68, '-').c_str(), std::string(8, '-').c_str());
  row("faults injected (link_down, symbol_errors, flap)", faults);
  row("kills (SIGKILL) of the leader or the standby", tally_.kills);
  row("  of them with a UFM job in flight", tally_.kills_job);
  row("  of them with a drain in flight", tally_.kills_drain);
  row("  of them with a delivery in flight", tally_.kills_delivery);
  row("PostgreSQL primary restarts", tally_.pg_restarts);
  row("PostgreSQL failovers (primary killed, replica promoted)", tally_.failovers);
  row("a person's drains the service waited for (never counted, never resumed)", persons_waited);
  row("faults lost (neither acted on nor ticketed) or ticketed twice", lost);
  row("  faults answered by another rule's ticket only (no action; not counted)", only_ticketed_);
  row("findings decided twice (one event, rule and link)", decided_twice);
  row("duplicate UFM actions", duplicates);
  row("ports disabled or isolated with no open ticket holding them", held);
  row("nodes drained by the service with no open ticket", drained);
  row("a person's disables, isolations and drains touched", touched);
  row("notification events not told", untold);
  row("notifications told under two keys", twice);
  row("messages first taken out of the outbox's order", out_of_order);
  row("service exits other than the kills (exit 75 on a database event aside)",
      tally_.unexpected_exits);
  std::printf("\n");
  std::cout << "[ CAMPAIGN ] also: " << tally_.self_stops << " exits 75 on a database event, "
            << tally_.repairs << " repairs, " << tally_.person_moves << " person's moves in UFM, "
            << tally_.person_drains << " in Slurm, " << tally_.reboots << " reboots, "
            << tally_.jobs << " jobs, UFM 5xx " << tally_.ufm_5xx << " / slow " << tally_.ufm_slow
            << " / frozen " << tally_.ufm_frozen << " times, receiver flipped "
            << tally_.receiver_flips << " times, " << tickets.size() << " tickets" << std::endl;
  EXPECT_EQ(lost + decided_twice + duplicates + held + drained + touched + untold + twice +
                out_of_order + tally_.unexpected_exits,
            0);
}

TEST_F(CampaignTest, EveryPromiseHoldsUnderKillsFaultsAndAFailover) {
  const int minutes = EnvInt("UFMR_CAMPAIGN_MINUTES", 3);
  const auto start = Clock::now();
  const auto end = start + std::chrono::minutes(minutes);
  instances_[0]->Start({.log_level = "debug", .crash_at = ""});
  ASSERT_TRUE(instances_[0]->AwaitInventory(seconds(30)));
  ASSERT_TRUE(instances_[0]->AwaitLog({"skipping", "resuming events"}, seconds(10)));
  instances_[1]->Start({.log_level = "debug", .crash_at = ""});
  auto next_kill = Clock::now() + seconds(Between(3, 8));
  bool spine_rebooted = false;
  while (Clock::now() < end) {
    const double share =
        std::chrono::duration<double>(Clock::now() - start).count() / (minutes * 60.0);
    RestartStopped();
    PostgresTrouble(share);
    if (!spine_rebooted && share > 0.1) {
      Reboot(true);
      spine_rebooted = true;
    }
    if (Clock::now() >= next_kill) {
      KillOne();
      next_kill = Clock::now() + seconds(Between(4, 14));
    }
    Step();
    std::this_thread::sleep_for(milliseconds(Between(200, 1500)));
    if (HasFatalFailure()) return;
  }
  std::cout << "[ CAMPAIGN ] " << minutes << " minutes done; settling" << std::endl;
  Settle();
  Check();
  EXPECT_GE(tally_.kills, minutes * 100 / 30) << "at least 100 kills in 30 minutes";
  EXPECT_EQ(tally_.failovers, 1);
}

}  // namespace
}  // namespace ufmr
