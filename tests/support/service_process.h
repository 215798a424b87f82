// Test support: one `ufm-remediator serve` instance as an end-to-end test runs it, started as often
// as the test likes. Its files live in the test's folder: the config <dir>/<name>.yaml and a log
// per start, <dir>/<name>-<n>.log. It picks a free port for its API, migrates the database, makes
// API tokens, starts the built binary (at a log level, optionally armed with a crash point),
// signals and stops it, and waits for it to answer. Several instances may share one database (the
// first migrates it, for all). Destroying it stops the process and, when the test has failed,
// prints its logs. Use from the test's main thread (CreateToken from any).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "test_env.h"

namespace ufmr::testing {

// How `serve` is started.
struct ServeOptions {
  std::string log_level = "debug";  // --log-level; "" for the default
  std::string crash_at;  // UFMR_CRASH_AT: a crash point that kills it (src/base/crash_point.h)
};

class ServiceProcess {
 public:
  ServiceProcess(std::string dir, std::string name);
  ~ServiceProcess();
  ServiceProcess(const ServiceProcess&) = delete;
  ServiceProcess& operator=(const ServiceProcess&) = delete;

  const std::string& name() const { return name_; }
  int port() const { return port_; }
  const std::string& api() const { return api_; }  // "http://127.0.0.1:<port>"
  const std::string& config_path() const { return config_path_; }

  // The config, e.g. ServiceConfigYaml({..., port(), ...}); written again to change it.
  void WriteConfig(const std::string& yaml);
  // `db migrate` with the config; fails unless it exits 0 saying the schema is up to date.
  ::testing::AssertionResult Migrate();
  // A user with `role` and an API token for it (testing::CreateApiToken); throws on failure.
  std::string CreateToken(const std::string& user, const std::string& role) const;

  // Starts `serve` (a new log); a previous process of this instance must have ended.
  void Start(const ServeOptions& options = {});
  bool running();
  void Signal(int sig);
  // SIGTERM, then SIGKILL after 5 s; nothing when it is not running.
  void Stop();
  // The signal that ended the last process (SIGKILL after a kill -9), once running() saw it end.
  int term_signal() const;
  // The last process's exit status once running() saw it exit; -1 if a signal ended it.
  int exit_code() const;

  // The last start's log ("" before the first), and every start's log file in order.
  std::string Log() const;
  const std::vector<std::string>& logs() const { return logs_; }

  // Waits for GET /healthz to answer 200.
  ::testing::AssertionResult AwaitHealthz(std::chrono::milliseconds timeout);
  // Waits for GET /healthz to answer 200 with UFM's ports read (inventory_ports > 0).
  ::testing::AssertionResult AwaitInventory(std::chrono::milliseconds timeout);
  // Waits for GET /readyz to answer 200: the database, UFM and the rules all fine.
  ::testing::AssertionResult AwaitReadyz(std::chrono::milliseconds timeout);
  // Waits for the last start's log to hold one of `texts`.
  ::testing::AssertionResult AwaitLog(const std::vector<std::string>& texts,
                                      std::chrono::milliseconds timeout);

  // What a failed test prints: the last `starts` starts' logs, each cut to its last `chars`.
  void PrintOnFailure(size_t starts, size_t chars);

 private:
  ::testing::AssertionResult Await(const std::function<bool()>& condition,
                                   std::chrono::milliseconds timeout, const std::string& what);
  void PrintLogs() const;

  std::string dir_, name_, config_path_, api_;
  int port_ = 0;
  std::vector<std::string> logs_;
  std::unique_ptr<ChildProcess> process_;
  size_t print_starts_ = static_cast<size_t>(-1);
  size_t print_chars_ = static_cast<size_t>(-1);
};

}  // namespace ufmr::testing
