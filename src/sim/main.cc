// ufm-sim: a simulated NVIDIA UFM (REST API, telemetry CSV and a fault-injection control API)
// over a generated fat-tree fabric. See --help.
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "http/http_server.h"
#include "sim/recorded_ufm.h"
#include "sim/sim_server.h"
#include "sim/sim_state.h"
#include "sim/topology.h"

namespace {

constexpr const char* kUsage = R"(usage: ufm-sim [options]

A simulated NVIDIA UFM: REST API (basic auth) and control API on --port, telemetry CSV on
--telemetry-port, over a generated fat-tree fabric.

options:
  --listen ADDR          address to listen on (default 127.0.0.1)
  --port N               UFM REST + /sim control port, 0 = any free port (default 8443)
  --telemetry-port N     telemetry port (/csv/metrics), 0 = any free port (default 9001)
  --topology SPEC        fat-tree:leaves=L,spines=S,hosts_per_leaf=H[,hcas_per_host=N]
                         [,devices=hca|mlx5] (default fat-tree:leaves=4,spines=2,hosts_per_leaf=4);
                         N single-port HCAs per host (1..8, default 1), "gpu-node-001 HCA-k"
                         (devices=hca) or "gpu-node-001 mlx5_<k-1>" (devices=mlx5; the default
                         from --ufm-version 6.17), HCA-k of a host on leaf l cabled to leaf
                         (l + k - 1) % L
  --user NAME            basic-auth user for /ufmRest (default admin)
  --password PASS        basic-auth password for /ufmRest (default 123456)
  --seed N               seed for GUIDs, cable serials and traffic rates (default 1)
  --job-delay-ms N       how long a port action job stays Running (default 500)
  --ready-file PATH      once listening, write {"port": P, "telemetry_port": T} here (atomically)
  --event-log PATH       append each event to PATH as a line of UFM's event.log
  --syslog HOST:PORT     forward each event over UDP syslog as UFM does ("eventlog[PID]:
                         SEVERITY - <event-log line>", a trailing NUL)
  --fault JSON           inject a fault at start, same body as POST /sim/faults (repeatable)
  --ufm-version X.Y      answer as this UFM version (default 6.22): before 6.17 events carry
                         their id in "type" and milliseconds in "timestamp", and a host port in
                         the older IBPort form; from 6.17 a host port is "Computer: <host> /
                         <device>"; from 6.19 GET /app/unhealthy_ports/<port> answers one port;
                         before 6.20 links carry no *_port_name and give a host end by its
                         system's GUID
  --recording DIR        answer as a recording says (ufm-remediator probe --record DIR, or
                         tests/testdata/recorded/): its ports, links, events, unhealthy ports,
                         jobs and telemetry sample in their recorded shapes, through the same
                         ways in as above; POST /sim/faults {"kind": "link_down", "port"}, POST /sim/operator
                         {"port", "action": "isolate"}, GET /sim/requests, /sim/actions. The
                         topology, fault, event-log and syslog options do not apply
  --disabled-state S     how a disabled port reads in /resources/ports: physical (default:
                         physical_state "Disabled", logical_state "Down"), logical
                         (logical_state "Disabled"), ambiguous ("Down" / "Link Down", as a
                         broken link of an enabled port reads)
  --log-level LEVEL      trace, debug, info, warn, error (default info)
  --help                 show this help

UFM REST API (on --port, under /ufmRest (basic auth), /ufmRestV2 (session from POST /dologin),
/ufmRestV3 (token from POST /ufmRest/app/tokens) or no prefix with X-Remote-User: ufmsystem):
  GET  /app/events[?type=&event_type=&severity=&object_name=&category=], /app/events/<id>
  POST /app/events/external_event  {"event_id": 551..554, "description": "...",
                    "external_event_name": "...", "external_event_type": "...",
                    "external_event_source": "..."}
  GET  /resources/ports[?system=&active=&show_disabled=] (disabled ports only with
                    show_disabled=true), /resources/ports/<name>,
                    /resources/links[?cable_info=true][&page_number=1&rpp=N -> {"data": [...]}]
  POST /actions     {"action": "disable"|"enable", "object_type": "System", "object_ids": [G],
                    "params": {"port_id": "<guid>_<n>"}, "description": "..."} -> 202, Location
  GET  /jobs, /jobs/<id> ([] for a job it does not know)
  PUT  /app/unhealthy_ports  {"ports": ["<guid>_<n>", ...], "ports_policy": "UNHEALTHY",
                    "action": "isolate"} or {"ports": [...], "ports_policy": "HEALTHY"}
                    (702 "... unhealthy due to MANUAL"; logged in /sim/actions, job_id 0)
  GET  /app/unhealthy_ports (UnhealthyGUID + UnhealthyPortNumber name a port),
       /app/unhealthy_ports/<name> (6.19+: one port, Condition a list)

control API (no auth, on --port):
  POST /sim/faults  {"kind": "link_down"|"flap"|"symbol_errors", "port": "<guid>_<n>", ...}
                    flap: "interval_s" (default 2); symbol_errors: "rate" (default 50/s),
                    "rcv_errors_rate" (default 0)
                    {"kind": "switch_reboot", "switch": "<name or system GUID>", "down_s": 20}
                    {"kind": "node_reboot", "node": "<host name>", "down_s": 20}
                    (907/331, links down; after down_s 908/332, links up)
  POST /sim/repair  {"port": "<guid>_<n>"} (also ends a reboot of either end)
  POST /sim/operator {"port": "<guid>_<n>", "action": "disable"|"enable"|"isolate"|"healthy"}
                    a person acting in UFM's GUI: at once, not in /sim/actions
  POST /sim/node_description {"port": "<guid>_<n>", "description": "..."}
                    the node description of the port's node from now on ("" restores it)
  POST /sim/misbehave {"mode": "html_error"|"html_login"|"status_500"|"status_401"|
                    "malformed_json"|"slow"|"echo_400"|"echo_401"|"echo_503",
                    "count": 1, "delay_ms": 0}
  POST /sim/events/reset_ids, /sim/events/skip {"count": N}
  GET  /sim/faults, /sim/actions, /sim/operator, /sim/external_events, /sim/links
)";

struct Options {
  std::string listen = "127.0.0.1";
  int port = 8443;
  int telemetry_port = 9001;
  std::string topology = "fat-tree:leaves=4,spines=2,hosts_per_leaf=4";
  std::string user = "admin";
  std::string password = "123456";
  uint64_t seed = 1;
  int job_delay_ms = 500;
  std::string ready_file;
  std::string event_log;  // append each event to this file, as UFM's event.log
  std::string syslog;     // forward each event to this HOST:PORT over UDP, as UFM's syslog
  std::vector<std::string> faults;
  std::string log_level = "info";
  int ufm_version = 622;
  std::string disabled_state = "physical";
  std::string recording;  // serve this recording instead of a generated fabric
};

int BadArgs(const std::string& message) {
  std::cerr << "ufm-sim: " << message << "\n(see ufm-sim --help)\n";
  return 2;
}

std::optional<uint64_t> ParseUnsigned(const std::string& s, uint64_t max) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (max - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

// The option that takes any text as it is, or null.
std::string* TextOption(const std::string& arg, Options* o) {
  if (arg == "--ready-file") return &o->ready_file;
  if (arg == "--event-log") return &o->event_log;
  if (arg == "--log-level") return &o->log_level;
  if (arg == "--recording") return &o->recording;
  return nullptr;
}

// Returns an exit code to stop with, or nullopt to run.
std::optional<int> ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    static const std::vector<std::string> kWithValue = {
        "--listen",     "--port",        "--telemetry-port", "--topology",
        "--user",       "--password",    "--seed",           "--job-delay-ms",
        "--ready-file", "--fault",       "--log-level",      "--event-log",
        "--syslog",     "--ufm-version", "--disabled-state", "--recording"};
    if (std::find(kWithValue.begin(), kWithValue.end(), arg) == kWithValue.end()) {
      return BadArgs("unknown argument '" + arg + "'");
    }
    if (!has_value) {
      if (i + 1 >= argc) return BadArgs(arg + " needs a value");
      value = argv[++i];
    }
    auto port = [&](int* out) -> bool {
      std::optional<uint64_t> v = ParseUnsigned(value, 65535);
      if (!v) return false;
      *out = static_cast<int>(*v);
      return true;
    };
    if (arg == "--listen") {
      o->listen = value;
    } else if (arg == "--port") {
      if (!port(&o->port)) return BadArgs("--port must be 0..65535, got '" + value + "'");
    } else if (arg == "--telemetry-port") {
      if (!port(&o->telemetry_port)) {
        return BadArgs("--telemetry-port must be 0..65535, got '" + value + "'");
      }
    } else if (arg == "--topology") {
      o->topology = value;
    } else if (arg == "--user") {
      o->user = value;
    } else if (arg == "--password") {
      o->password = value;
    } else if (arg == "--seed") {
      std::optional<uint64_t> v = ParseUnsigned(value, UINT64_MAX);
      if (!v) return BadArgs("--seed must be a non-negative integer, got '" + value + "'");
      o->seed = *v;
    } else if (arg == "--job-delay-ms") {
      std::optional<uint64_t> v = ParseUnsigned(value, 3'600'000);
      if (!v) return BadArgs("--job-delay-ms must be 0..3600000, got '" + value + "'");
      o->job_delay_ms = static_cast<int>(*v);
    } else if (std::string* text = TextOption(arg, o)) {
      *text = value;
    } else if (arg == "--fault") {
      o->faults.push_back(value);
    } else if (arg == "--syslog") {
      if (value.find(':') == std::string::npos) return BadArgs("--syslog takes HOST:PORT");
      o->syslog = value;
    } else if (arg == "--ufm-version") {
      std::optional<int> v = ufmr::sim::ParseUfmVersion(value);
      if (!v) return BadArgs("--ufm-version takes a version such as 6.22, got '" + value + "'");
      o->ufm_version = *v;
    } else if (arg == "--disabled-state") {
      if (value != "physical" && value != "logical" && value != "ambiguous") {
        return BadArgs("--disabled-state is physical, logical or ambiguous, got '" + value + "'");
      }
      o->disabled_state = value;
    }
  }
  if (o->user.empty()) return BadArgs("--user must not be empty");
  return std::nullopt;
}

bool WriteReadyFile(const std::string& path, uint16_t port, uint16_t telemetry_port) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return false;
    out << nlohmann::json{{"port", port}, {"telemetry_port", telemetry_port}}.dump() << "\n";
    out.close();
    if (!out) return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

// An event-log line as UFM forwards it over syslog (IBM CAST's collectors print such a record):
// "<PRI>Mmm dd hh:mm:ss HOST eventlog[PID]: SEVERITY - <event-log line>" and a trailing NUL. The
// header's time and severity are the line's own; the facility is local0.
std::string SyslogRecord(const std::string& line) {
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  // "YYYY-MM-DD HH:MM:SS.mmm [index] [event id] SEVERITY [...": FormatEventLogLine's shape.
  int month = line.size() > 23 ? std::atoi(line.substr(5, 2).c_str()) : 0;
  int day = line.size() > 23 ? std::atoi(line.substr(8, 2).c_str()) : 0;
  if (month < 1 || month > 12) return line + std::string(1, '\0');
  size_t index_end = line.find("] ", 23);
  size_t id_end = index_end == std::string::npos ? index_end : line.find("] ", index_end + 2);
  std::string severity = id_end == std::string::npos
                             ? "INFO"
                             : line.substr(id_end + 2, line.find(' ', id_end + 2) - id_end - 2);
  int level = severity == "CRITICAL"                         ? 2
              : severity == "MAJOR"                          ? 3
              : severity == "WARNING" || severity == "MINOR" ? 4
                                                             : 6;
  char header[64];
  std::snprintf(header, sizeof(header), "<%d>%s %2d %s ufm-sim eventlog[%d]: ", 16 * 8 + level,
                kMonths[month - 1], day, line.substr(11, 8).c_str(), static_cast<int>(getpid()));
  return header + severity + " - " + line + std::string(1, '\0');
}

// Where each event goes besides the state's list: a file in the shape of UFM's event.log
// (--event-log) and UDP syslog as UFM forwards it (--syslog). Opened before the state exists; the
// state calls Sink() under its lock.
class EventForwarder {
 public:
  // "" when both (or whichever was asked for) are open; else why not.
  std::string Open(const Options& options) {
    if (!options.event_log.empty()) {
      event_log_.open(options.event_log, std::ios::app);
      if (!event_log_) return "cannot open --event-log " + options.event_log;
    }
    if (options.syslog.empty()) return "";
    size_t colon = options.syslog.rfind(':');
    boost::system::error_code ec;
    auto addr = boost::asio::ip::make_address(options.syslog.substr(0, colon), ec);
    std::optional<uint64_t> port = ParseUnsigned(options.syslog.substr(colon + 1), 65535);
    if (ec || !port) return "--syslog takes HOST:PORT with an IP address";
    syslog_to_ = boost::asio::ip::udp::endpoint(addr, static_cast<uint16_t>(*port));
    syslog_socket_.open(syslog_to_.protocol(), ec);
    if (ec) return "--syslog: " + ec.message();
    return "";
  }

  // SimOptions::on_event_line: empty when there is nowhere to forward to.
  std::function<void(const std::string& line)> Sink() {
    if (!event_log_.is_open() && !syslog_socket_.is_open()) return nullptr;
    return [this](const std::string& line) {
      if (event_log_.is_open()) event_log_ << line << '\n' << std::flush;
      if (syslog_socket_.is_open()) {
        std::string record = SyslogRecord(line);
        boost::system::error_code ec;
        syslog_socket_.send_to(boost::asio::buffer(record), syslog_to_, 0, ec);
      }
    };
  }

 private:
  std::ofstream event_log_;
  boost::asio::io_context ioc_;
  boost::asio::ip::udp::socket syslog_socket_{ioc_};
  boost::asio::ip::udp::endpoint syslog_to_;
};

// Moves the state to the clock's now every 100 ms, on its own thread, until Stop().
class Ticker {
 public:
  Ticker(ufmr::sim::SimState& state, const ufmr::Clock& clock)
      : thread_([this, &state, &clock] { Run(state, clock); }) {}
  ~Ticker() { Stop(); }
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Run(ufmr::sim::SimState& state, const ufmr::Clock& clock) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(100), [&] { return stopping_; })) {
      lock.unlock();
      state.Advance(clock.Now());
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

// Each --fault, injected at start; an exit code when one is bad.
std::optional<int> InjectFaults(const std::vector<std::string>& faults, ufmr::sim::SimState& state,
                                const ufmr::Clock& clock) {
  for (const std::string& text : faults) {
    nlohmann::json body = nlohmann::json::parse(text, nullptr, false);
    if (body.is_discarded()) return BadArgs("--fault is not valid JSON: " + text);
    ufmr::Result<ufmr::sim::Fault> fault = state.AddFault(body, clock.Now());
    if (!fault.ok()) return BadArgs("--fault " + text + ": " + fault.status().message());
  }
  return std::nullopt;
}

// Blocks the stop signals (SIGINT, SIGTERM) in this thread and every thread started after; the
// main thread waits for them with sigwait.
sigset_t BlockStopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  return stop_signals;
}

ufmr::sim::SimServerOptions ServerOptions(const Options& options) {
  ufmr::sim::SimServerOptions server_options;
  server_options.address = options.listen;
  server_options.port = static_cast<uint16_t>(options.port);
  server_options.telemetry_port = static_cast<uint16_t>(options.telemetry_port);
  server_options.user = options.user;
  server_options.password = options.password;
  server_options.ufm_version = options.ufm_version;
  server_options.disabled_state = options.disabled_state;
  return server_options;
}

void LogEndpoints(const Options& options, const ufmr::sim::SimServer& server) {
  const std::string base = "http://" + options.listen + ":";
  spdlog::info("UFM REST:  {}{}/ufmRest/ (basic auth user '{}')", base, server.port(),
               options.user);
  spdlog::info("control:   {}{}/sim/ (faults, repair, operator, actions, links)", base,
               server.port());
  spdlog::info("telemetry: {}{}/csv/metrics", base, server.telemetry_port());
}

// Blocks until SIGINT or SIGTERM (blocked on every thread, BlockStopSignals) arrives.
void AwaitStop(const sigset_t& stop_signals) {
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  spdlog::info("signal {} received, stopping", signal_number);
}

// --recording DIR: a RecordedUfm on the REST and telemetry ports until SIGINT/SIGTERM.
int ServeRecording(const Options& options) {
  auto ufm = ufmr::sim::RecordedUfm::Load(options.recording, options.user, options.password);
  if (!ufm.ok()) return BadArgs(ufm.status().message());
  ufmr::sim::RecordedUfm& recorded = *ufm.value();
  const sigset_t stop_signals = BlockStopSignals();
  auto handler = [&recorded](const ufmr::HttpRequest& r) { return recorded.Answer(r); };
  ufmr::HttpServer rest(options.listen, static_cast<uint16_t>(options.port), handler);
  ufmr::HttpServer telemetry(options.listen, static_cast<uint16_t>(options.telemetry_port),
                             handler);
  for (ufmr::HttpServer* s : {&rest, &telemetry}) {
    if (ufmr::Status started = s->Start(); !started.ok()) {
      spdlog::error("cannot start: {}", started.message());
      return 1;
    }
  }
  spdlog::info(
      "recording {}: UFM {}.{}, {} ports; REST http://{}:{}/ufmRest/, telemetry "
      "http://{}:{}/csv/metrics",
      options.recording, recorded.ufm_version() / 100, recorded.ufm_version() % 100,
      recorded.port_count(), options.listen, rest.port(), options.listen, telemetry.port());
  if (!options.ready_file.empty() &&
      !WriteReadyFile(options.ready_file, rest.port(), telemetry.port())) {
    spdlog::error("cannot write ready file {}", options.ready_file);
    return 1;
  }
  AwaitStop(stop_signals);
  rest.Stop();
  telemetry.Stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (std::optional<int> exit_code = ParseArgs(argc, argv, &options)) return *exit_code;

  spdlog::level::level_enum level = spdlog::level::from_str(options.log_level);
  if (level == spdlog::level::off && options.log_level != "off") {
    return BadArgs("unknown --log-level '" + options.log_level + "'");
  }
  spdlog::set_level(level);
  if (!options.recording.empty()) return ServeRecording(options);

  ufmr::Result<ufmr::sim::TopologySpec> topology_spec =
      ufmr::sim::ParseTopologySpec(options.topology);
  if (!topology_spec.ok()) return BadArgs(topology_spec.status().message());
  // Hosts' adapters as the version's documented examples name them (mlx5_0 from 6.17), unless
  // the topology says.
  if (!topology_spec->devices_set) topology_spec->mlx5_devices = options.ufm_version >= 617;
  ufmr::Result<ufmr::sim::Topology> topology =
      ufmr::sim::Topology::Generate(topology_spec.value(), options.seed);
  if (!topology.ok()) return BadArgs(topology.status().message());

  ufmr::SystemClock clock;
  EventForwarder forwarder;
  if (std::string error = forwarder.Open(options); !error.empty()) return BadArgs(error);
  ufmr::sim::SimOptions sim_options;
  sim_options.job_delay = std::chrono::milliseconds(options.job_delay_ms);
  sim_options.seed = options.seed;
  sim_options.ufm_version = options.ufm_version;
  sim_options.on_event_line = forwarder.Sink();
  const ufmr::sim::TopologySpec spec = topology->spec();
  ufmr::sim::SimState state(std::move(topology.value()), sim_options, clock.Now());
  spdlog::info("fabric: {} leaves, {} spines, {} hosts ({} HCAs each), {} ports, {} links",
               spec.leaves, spec.spines, spec.leaves * spec.hosts_per_leaf, spec.hcas_per_host,
               state.topology().ports().size(), state.topology().links().size());
  if (std::optional<int> bad = InjectFaults(options.faults, state, clock)) return *bad;

  const sigset_t stop_signals = BlockStopSignals();
  ufmr::sim::SimServer server(state, clock, ServerOptions(options));
  if (ufmr::Status s = server.Start(); !s.ok()) {
    spdlog::error("cannot start: {}", s.message());
    return 1;
  }
  LogEndpoints(options, server);

  Ticker ticker(state, clock);
  if (!options.ready_file.empty()) {
    if (!WriteReadyFile(options.ready_file, server.port(), server.telemetry_port())) {
      spdlog::error("cannot write ready file {}", options.ready_file);
      ticker.Stop();
      server.Stop();
      return 1;
    }
    spdlog::info("ready file written: {}", options.ready_file);
  }

  AwaitStop(stop_signals);
  ticker.Stop();
  server.Stop();
  return 0;
}
