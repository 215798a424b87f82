// ufm-remediator: the command-line entry point.
//   serve --config FILE        run the loop, the dashboard and the API
//   db migrate --config FILE   apply the SQL migrations in schema/
//   rules check PATH...        load rules files or folders and print their diagnostics
//   rules test PATH...         run rule tests (promtool style)
//   replay --rules PATH ...    the decision path over recorded data, acting on nothing
//   user add|list|passwd|disable ... --config FILE   who may log in to the dashboard and API
//   token create|list|revoke ... --config FILE       API tokens for scripts
//   config check FILE          check a config file (as serve would load it) without connecting
//   parse --event-log FILE ... what the service reads from one input file, as JSONL
//   probe --config FILE        a read-only first contact with a UFM: what the service would get
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/api.h"
#include "api/auth_gate.h"
#include "api/auth_store.h"
#include "app/config_commands.h"
#include "app/parse_command.h"
#include "app/probe_command.h"
#include "app/rules_commands.h"
#include "app/user_commands.h"
#include "base/json_log.h"
#include "base/metrics.h"
#include "config/config.h"
#include "http/http_server.h"
#include "ingest/syslog_receiver.h"
#include "loop/remediator.h"
#include "loop/ufm_claim.h"
#include "rules/rule_loader.h"
#include "store/leader_lock.h"
#include "store/store.h"
#include "ufm/inventory.h"
#include "ufm/ufm_client.h"

namespace {

std::atomic<bool> g_stop{false};

std::atomic<ufmr::Remediator*> g_remediator{nullptr};

void OnSignal(int) { g_stop.store(true); }
// SIGHUP: reload the rules (the loop runs the load as a dry run first).
void OnHangup(int) {
  if (auto* r = g_remediator.load()) r->RequestReload();
}

constexpr const char* kVersion = UFMR_VERSION;  // project(... VERSION) in CMakeLists.txt

void Usage(std::ostream& out) {
  out << "usage:\n"
         "  ufm-remediator serve --config FILE [--set KEY=VALUE ...] [--log-level LEVEL]\n"
         "  ufm-remediator db migrate --config FILE [--set KEY=VALUE ...]\n"
         "  ufm-remediator rules check PATH... [--format text|json]\n"
         "  ufm-remediator rules test PATH... [--format text|json]\n"
         "  ufm-remediator replay --rules PATH --event-log FILE [--telemetry FILE_OR_DIR ...]\n"
         "                        [--ports FILE] [--silences FILE] [--utc-offset +HH:MM]\n"
         "                        [--max-disabled N] [--format jsonl|text] [--jobs N]\n"
         "                        [--progress] [--scheduler none|slurm]\n"
         "  ufm-remediator user add NAME --role viewer|technician|engineer|admin --config FILE\n"
         "  ufm-remediator user list|passwd NAME|disable NAME --config FILE\n"
         "  ufm-remediator token create --user NAME [--label TEXT] --config FILE\n"
         "  ufm-remediator config check FILE [--set KEY=VALUE ...]\n"
         "  ufm-remediator token list|revoke ID --config FILE\n"
         "  ufm-remediator parse (--event-log|--syslog|--rest-events|--telemetry) FILE\n"
         "                       [--ports FILE] [--utc-offset +HH:MM]\n"
         "  ufm-remediator probe --config FILE [--format text|json] [--syslog-seconds N]\n"
         "  ufm-remediator --version\n";
}

std::string FindSchemaDir(const ufmr::Config& config) {
  namespace fs = std::filesystem;
  if (!config.database.schema_dir.empty()) return config.database.schema_dir;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> candidates;
  if (!ec) {
    candidates.push_back(exe.parent_path() / ".." / "schema");
    candidates.push_back(exe.parent_path() / ".." / "share" / "ufm-remediator" / "schema");
  }
  candidates.push_back("schema");
  for (const auto& c : candidates) {
    if (fs::is_directory(c, ec)) return fs::weakly_canonical(c, ec).string();
  }
  return "schema";
}

struct Args {
  std::vector<std::string> positional;
  std::string config;
  std::string log_level = "info";
  std::vector<std::string> sets;   // --set KEY=VALUE, over the config file
  ufmr::app::CommandLine command;  // the options every command may take, by name
};

bool ParseArgs(int argc, char** argv, Args* args) {
  static const std::set<std::string> kValued = {
      "config", "log-level", "format",     "rules",        "event-log", "telemetry",
      "ports",  "silences",  "utc-offset", "max-disabled", "role",      "user",
      "label",  "set",       "jobs",       "scheduler"};
  static const std::set<std::string> kFlags = {"progress"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) == 0 && kFlags.count(a.substr(2))) {
      args->command.options[a.substr(2)].push_back("1");
    } else if (a.rfind("--", 0) == 0 && a != "--help" && a != "--version") {
      std::string name = a.substr(2), value;
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else if (kValued.count(name) && i + 1 < argc) {
        value = argv[++i];
      } else {
        std::cerr << (kValued.count(name) ? "option --" + name + " needs a value"
                                          : "unknown option " + a)
                  << "\n";
        return false;
      }
      if (!kValued.count(name)) {
        std::cerr << "unknown option --" << name << "\n";
        return false;
      }
      if (name == "config") args->config = value;
      if (name == "log-level") args->log_level = value;
      if (name == "set") args->sets.push_back(value);
      args->command.options[name].push_back(value);
    } else {
      args->positional.push_back(a);
    }
  }
  return true;
}

int Step(const char* name, const ufmr::Status& s) {
  if (s.ok()) {
    spdlog::info("startup: {}: ok", name);
    return 0;
  }
  spdlog::critical("startup: {}: {}", name, s.ToString());
  return 1;
}

// The rules of rules.dir, their diagnostics logged; nullptr when they have errors.
std::shared_ptr<const ufmr::RuleSet> LoadRules(const ufmr::Config& c) {
  auto rules = ufmr::LoadRulesDir(c.rules.dir);
  for (const auto& d : rules.diagnostics) {
    (d.warning ? spdlog::warn("{}", d.ToString()) : spdlog::error("{}", d.ToString()));
  }
  if (Step("load rules", rules.ok() ? ufmr::Status::Ok()
                                    : ufmr::Status::InvalidArgument("rules in " + c.rules.dir +
                                                                    " have errors"))) {
    return nullptr;
  }
  spdlog::info("loaded {} rules from {} (hash {})", rules.rules->rules.size(), c.rules.dir,
               rules.rules->hash);
  return std::shared_ptr<const ufmr::RuleSet>(std::move(rules.rules));
}

// The database, on a schema as new as this build (a missing table would fail mid-pass); nullptr,
// logged, otherwise.
std::unique_ptr<ufmr::Store> OpenStore(const ufmr::Config& c, const std::string& config_path) {
  auto store = ufmr::Store::Open(c.database.url, c.fabric);
  if (Step("open database", store.ok() ? ufmr::Status::Ok() : store.status())) return nullptr;
  auto pending = store.value()->PendingMigrations(FindSchemaDir(c));
  if (!pending.ok()) {
    Step("check schema", pending.status());
    return nullptr;
  }
  if (!pending->empty()) {
    std::string names;
    for (const auto& m : pending.value()) names += (names.empty() ? "" : ", ") + m;
    Step("check schema", ufmr::Status::Unavailable("the database lacks migrations " + names +
                                                   "; run 'ufm-remediator db migrate --config " +
                                                   config_path + "' first"));
    return nullptr;
  }
  Step("check schema", ufmr::Status::Ok());
  return std::move(store.value());
}

// The syslog receiver when the config asks for one (else *out stays empty); 1 when it cannot
// start.
int StartSyslog(const ufmr::Config& c, std::unique_ptr<ufmr::SyslogReceiver>* out) {
  if (c.syslog.udp_port < 0 && c.syslog.tcp_port < 0) return 0;
  *out =
      std::make_unique<ufmr::SyslogReceiver>(c.syslog.listen, c.syslog.udp_port, c.syslog.tcp_port);
  if (Step("start syslog", (*out)->Start())) return 1;
  spdlog::info("syslog: udp {} tcp {} on {}", (*out)->udp_port(), (*out)->tcp_port(),
               c.syslog.listen);
  return 0;
}

// Whether this instance may act: one instance of a fabric acts (the holder of the leader lock);
// the others serve the dashboard and take over when it is gone. A leader that loses its lock
// stops at once: it exits, and a fresh start (systemd's restart) resumes from the database as
// leader or standby. And one fabric per UFM: a leader whose UFM an older fabric's live leader
// acts on waits.
std::function<bool()> MayAct(ufmr::LeaderLock& leader, ufmr::UfmClaim& claim,
                             const ufmr::Config& c) {
  return [&leader, &claim, &c] {
    ufmr::LeaderLock::State s = leader.Check();
    if (s == ufmr::LeaderLock::State::kLost) {
      spdlog::critical("leader: lost the leader lock for fabric {}: stopping at once (exit 75)",
                       c.fabric);
      spdlog::shutdown();
      std::_Exit(75);
    }
    return s == ufmr::LeaderLock::State::kLeader && claim.Clear();
  };
}

void WarnIfNoUsers(ufmr::AuthStore& auth_store, const std::string& config_path) {
  if (auto any = auth_store.HasActiveUser(); any.ok() && !any.value()) {
    spdlog::warn(
        "no users yet: add one with 'ufm-remediator user add NAME --role admin "
        "--config {}'",
        config_path);
  }
}

// Runs the loop until SIGINT or SIGTERM; SIGHUP reloads the rules meanwhile.
void RunLoop(ufmr::Remediator& remediator, const ufmr::Config& c) {
  g_remediator.store(&remediator);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGHUP, OnHangup);
  spdlog::info("watching fabric '{}' at {}", c.fabric, c.ufm.url);
  remediator.Run(g_stop);
  std::signal(SIGHUP, SIG_IGN);
  g_remediator.store(nullptr);
}

int Serve(const Args& args) {
  auto config = ufmr::LoadConfigFile(args.config, args.sets);
  if (config.ok() && config->log.format == "json") {
    spdlog::set_formatter(std::make_unique<ufmr::JsonLogFormatter>());
  }
  if (Step("load config", config.ok() ? ufmr::Status::Ok() : config.status())) return 1;
  const ufmr::Config& c = config.value();
  std::shared_ptr<const ufmr::RuleSet> rule_set = LoadRules(c);
  if (!rule_set) return 1;
  std::unique_ptr<ufmr::Store> store = OpenStore(c, args.config);
  if (!store) return 1;
  if (c.remediation.dry_run) spdlog::warn("dry run: no port will be disabled or enabled");

  ufmr::SystemClock clock;
  ufmr::Metrics metrics;
  metrics.Set(ufmr::MetricName("ufmr_info", {{"fabric", c.fabric}, {"version", kVersion}}), 1);
  store->set_metrics(&metrics);
  ufmr::Inventory inventory;
  ufmr::RestUfmClient ufm(c);
  ufm.set_metrics(&metrics);
  std::unique_ptr<ufmr::SyslogReceiver> syslog;
  if (StartSyslog(c, &syslog)) return 1;
  if (!c.event_log.path.empty()) spdlog::info("event log: following {}", c.event_log.path);
  ufmr::Remediator remediator(c, *store, ufm, inventory, metrics, clock, rule_set, syslog.get());
  ufmr::LeaderLock leader(c.database.url, c.fabric, clock, c.ha.lock_retry_s);
  ufmr::UfmClaim claim(*store, c.ufm.url, clock, metrics);
  remediator.set_may_act(MayAct(leader, claim, c));
  ufmr::AuthStore auth_store(*store);
  ufmr::AuthGate gate(auth_store, c.auth, clock);
  ufmr::Api api(*store, inventory, metrics, remediator, clock, gate);
  api.set_repeat_offender_tickets(c.remediation.repeat_offender_tickets);
  WarnIfNoUsers(auth_store, args.config);
  spdlog::info("auth: anonymous reads {}", c.auth.anonymous_read ? "allowed" : "refused");
  ufmr::HttpRouter router;
  api.Register(router);  // with the gate's login, logout, me and audit routes
  ufmr::HttpServer server(
      c.http.listen, static_cast<uint16_t>(c.http.port),
      [&router](const ufmr::HttpRequest& req) {
        ufmr::HttpRequest copy = req;
        return router.Dispatch(copy);
      },
      4);
  server.set_max_connections(c.http.max_connections);
  server.set_metrics(&metrics);
  if (Step("start web", server.Start())) return 1;
  spdlog::info("dashboard: http://{}:{}/", c.http.listen, server.port());
  RunLoop(remediator, c);
  spdlog::info("stopping");
  server.Stop();
  return 0;
}

// `user ...` and `token ...`: the config's database, on a schema as new as this build.
int AuthCommand(const Args& args) {
  auto config = ufmr::LoadConfigFile(args.config, args.sets);
  if (!config.ok()) {
    std::cerr << config.status().message() << "\n";
    return 1;
  }
  auto store = ufmr::Store::Open(config->database.url, config->fabric);
  if (!store.ok()) {
    std::cerr << store.status().message() << "\n";
    return 1;
  }
  auto pending = store.value()->PendingMigrations(FindSchemaDir(config.value()));
  if (!pending.ok()) {
    std::cerr << pending.status().message() << "\n";
    return 1;
  }
  if (!pending->empty()) {
    std::cerr << "the database lacks migrations; run 'ufm-remediator db migrate --config "
              << args.config << "' first\n";
    return 1;
  }
  ufmr::AuthStore auth(*store.value());
  ufmr::app::CommandLine cl = args.command;
  cl.positional.assign(args.positional.begin() + 1, args.positional.end());
  return args.positional[0] == "user" ? ufmr::app::UserCommand(cl, auth)
                                      : ufmr::app::TokenCommand(cl, auth);
}

int Migrate(const Args& args) {
  auto config = ufmr::LoadConfigFile(args.config, args.sets);
  if (!config.ok()) {
    std::cerr << config.status().message() << "\n";
    return 1;
  }
  auto store = ufmr::Store::Open(config->database.url, config->fabric);
  if (!store.ok()) {
    std::cerr << store.status().message() << "\n";
    return 1;
  }
  std::string dir = FindSchemaDir(config.value());
  ufmr::Status s = store.value()->Migrate(dir);
  if (!s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  std::cout << "database is up to date (migrations from " << dir << ")\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A reload asked for before the service is up (systemctl reload during start) must not kill it;
  // `serve` installs the real handler once the loop exists.
  std::signal(SIGHUP, SIG_IGN);
  // libpq waits for a connection without limit by default: a database host that drops packets
  // would hold a pass, or a readiness probe, for minutes. A URL's own connect_timeout (or the
  // operator's PGCONNECT_TIMEOUT) still wins.
  setenv("PGCONNECT_TIMEOUT", "5", /*overwrite=*/0);
  // Commands that read their own options (one clear line on a mistake).
  if (argc >= 2 && std::strcmp(argv[1], "parse") == 0) {
    return ufmr::app::ParseCommand(std::vector<std::string>(argv + 2, argv + argc));
  }
  if (argc >= 2 && std::strcmp(argv[1], "probe") == 0) {
    return ufmr::app::ProbeCommand(std::vector<std::string>(argv + 2, argv + argc));
  }
  Args args;
  if (!ParseArgs(argc, argv, &args)) {
    Usage(std::cerr);
    return 2;
  }
  auto level = spdlog::level::from_str(args.log_level);
  spdlog::set_level(level);
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ %v");
  const auto& p = args.positional;
  if (p.empty() || p[0] == "--help" || p[0] == "help") {
    Usage(p.empty() ? std::cerr : std::cout);
    return p.empty() ? 2 : 0;
  }
  if (p[0] == "--version") {
    std::cout << "ufm-remediator " << kVersion << "\n";
    return 0;
  }
  if (p[0] == "rules" && p.size() >= 2 && (p[1] == "check" || p[1] == "test")) {
    ufmr::app::CommandLine cl = args.command;
    cl.positional.assign(p.begin() + 2, p.end());
    return p[1] == "check" ? ufmr::app::RulesCheck(cl) : ufmr::app::RulesTest(cl);
  }
  if (p[0] == "replay") {
    ufmr::app::CommandLine cl = args.command;
    cl.positional.assign(p.begin() + 1, p.end());
    return ufmr::app::Replay(cl);
  }
  if (p[0] == "config" && p.size() >= 2 && p[1] == "check") {
    if (p.size() > 3 || (p.size() == 2 && args.config.empty())) {
      std::cerr << "usage: ufm-remediator config check FILE\n";
      return 2;
    }
    return ufmr::app::ConfigCheck(p.size() == 3 ? p[2] : args.config, args.sets);
  }
  if ((p[0] == "serve" || p[0] == "user" || p[0] == "token" ||
       (p[0] == "db" && p.size() >= 2 && p[1] == "migrate")) &&
      args.config.empty()) {
    std::cerr << "--config FILE is required\n";
    Usage(std::cerr);
    return 2;
  }
  if (p[0] == "serve") return Serve(args);
  if (p[0] == "db" && p.size() >= 2 && p[1] == "migrate") return Migrate(args);
  if (p[0] == "user" || p[0] == "token") return AuthCommand(args);
  std::cerr << "unknown command '" << p[0] << "'\n";
  Usage(std::cerr);
  return 2;
}
