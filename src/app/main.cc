// ufm-remediator: the command-line entry point. It reads the command line (app/cli.h) against the
// table of commands (app/commands.cc, where each one's usage and help live) and runs the command:
// serve, db migrate, rules check|test, replay, parse, probe, config check, user ..., token ....
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/api.h"
#include "api/auth_gate.h"
#include "api/auth_store.h"
#include "app/cli.h"
#include "app/commands.h"
#include "app/config_commands.h"
#include "app/masked_output.h"
#include "app/notify_command.h"
#include "app/parse_command.h"
#include "app/probe_command.h"
#include "app/rules_commands.h"
#include "app/user_commands.h"
#include "base/metrics.h"
#include "config/config.h"
#include "http/http_server.h"
#include "ingest/syslog_receiver.h"
#include "loop/remediator.h"
#include "loop/ufm_claim.h"
#include "notify/notifier.h"
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

// The options of a command that reads the service's config file.
struct Args {
  std::string config;
  std::vector<std::string> sets;  // --set KEY=VALUE, over the config file
  ufmr::app::CommandLine command;
};

Args ArgsOf(const ufmr::app::CommandLine& cl) { return {cl.One("config"), cl.All("set"), cl}; }

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

// The notifier runs on the leader (the loop's view of it) and watches the loop's inputs. Without
// receivers it still routes (to nobody), so events do not pile up.
ufmr::Notifier::Parts NotifierParts(const ufmr::Config& c, ufmr::Store& store,
                                    ufmr::Metrics& metrics, ufmr::Remediator& remediator,
                                    const ufmr::Clock& clock) {
  ufmr::Notifier::Parts p{c, store, metrics, {}, {}, {}};
  p.inputs = [&remediator, &clock] { return remediator.inputs().ToJson(clock.Now()); };
  p.may_act = [&remediator] { return remediator.leading(); };
  if (!c.notify.receivers.empty()) {
    spdlog::info("notify: {} receivers", c.notify.receivers.size());
  }
  return p;
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
    ufmr::app::UseJsonLogs();
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
        ufmr::HttpResponse answer = router.Dispatch(copy);
        ufmr::app::MaskAnswer(&answer);
        return answer;
      },
      4);
  server.set_max_connections(c.http.max_connections);
  server.set_metrics(&metrics);
  if (Step("start web", server.Start())) return 1;
  spdlog::info("dashboard: http://{}:{}/", c.http.listen, server.port());
  ufmr::Notifier notifier(NotifierParts(c, *store, metrics, remediator, clock));
  notifier.Start();
  RunLoop(remediator, c);
  spdlog::info("stopping");
  notifier.Stop();
  server.Stop();
  return 0;
}

// `user ...` and `token ...`: the config's database, on a schema as new as this build.
int AuthCommand(const std::vector<std::string>& words, const Args& args) {
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
  cl.positional.insert(cl.positional.begin(), words[1]);  // the subcommand first
  return words[0] == "user" ? ufmr::app::UserCommand(cl, auth) : ufmr::app::TokenCommand(cl, auth);
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

// Runs the command the words name (the command line has checked its options).
int Run(const std::vector<std::string>& words, const ufmr::app::CommandLine& cl) {
  const std::string& first = words[0];
  const std::string second = words.size() > 1 ? words[1] : "";
  if (first == "serve") return Serve(ArgsOf(cl));
  if (first == "db") return Migrate(ArgsOf(cl));
  if (first == "rules") {
    return second == "check" ? ufmr::app::RulesCheck(cl) : ufmr::app::RulesTest(cl);
  }
  if (first == "replay") return ufmr::app::Replay(cl);
  if (first == "parse") return ufmr::app::ParseCommand(cl);
  if (first == "probe") return ufmr::app::ProbeCommand(cl);
  if (first == "config") {
    if (cl.positional.empty() != cl.Has("config")) {  // neither given, or both
      return ufmr::app::UsageError(words, "give the config file, as FILE or --config FILE");
    }
    return ufmr::app::ConfigCheck(cl.positional.empty() ? cl.One("config") : cl.positional[0],
                                  cl.All("set"));
  }
  if (first == "user" || first == "token") return AuthCommand(words, ArgsOf(cl));
  if (first == "notify") return ufmr::app::NotifyTest(cl);
  return ufmr::app::UsageError(words, "unknown command");
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
  // Every configured secret is masked in all the program writes (config/secret_mask.h).
  ufmr::app::MaskOutput("%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ %v");
  std::vector<std::string> given(argv + 1, argv + argc);
  ufmr::app::Invocation inv =
      ufmr::app::ReadCommandLine(ufmr::app::Commands(), given, kVersion, std::cout, std::cerr);
  if (inv.exit_code) return *inv.exit_code;
  const ufmr::app::CommandLine& cl = inv.line;
  const std::string level = cl.One("log-level", "info");
  if (spdlog::level::from_str(level) == spdlog::level::off && level != "off") {
    return ufmr::app::UsageError(inv.words,
                                 "--log-level must be trace, debug, info, warn, "
                                 "error, critical or off");
  }
  spdlog::set_level(spdlog::level::from_str(level));
  return Run(inv.words, cl);
}
