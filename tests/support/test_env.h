// Test support: real parts for tests. TestPostgres hands out fresh databases in a throwaway
// PostgreSQL (scripts/pg-temp.sh): the one ctest starts for the whole run, or the process's own;
// ChildProcess runs a built executable with its output in a log file and kills it on destruction;
// WaitUntil polls a condition with a deadline. The simulator and the service as end-to-end tests
// run them are in sim_process.h and service_process.h. Use from the test's main thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace ufmr::testing {

std::string SourceDir();
std::string BinaryDir();
// A new folder under /tmp, removed by RemoveTree.
std::string MakeTempDir(const std::string& prefix);
void RemoveTree(const std::string& dir);
std::string ReadFile(const std::string& path);
// A file under tests/testdata/, e.g. ReadFixture("telemetry/primary.csv"); fails the current
// test if it cannot be read.
std::string ReadFixture(const std::string& relative);
void WriteFile(const std::string& path, const std::string& text);

class TestPostgres {
 public:
  // The server this test process uses: the run's shared one when ctest started it (the
  // `postgres` fixture, named by UFMR_TEST_PG_DIR), else one of the binary's own, started on
  // first use and stopped at exit.
  static TestPostgres& Get();
  // A server of this process's own, for a test that restarts it: a restart of the shared one
  // would cut every other test's connections.
  static TestPostgres& Own();
  // A new, empty database; returns its libpq connection string. A shared server's databases
  // are dropped when the process exits.
  std::string CreateDatabase();
  const std::string& admin_url() const { return admin_url_; }
  // Stops the server at once, as a crash would, and starts it again (every connection drops).
  // Only for a server of the process's own (Own).
  void Restart();

 private:
  explicit TestPostgres(const std::string& shared_dir);
  ~TestPostgres();
  std::string dir_;  // empty for the shared server: it is the fixture's to stop
  std::string admin_url_;
  std::vector<std::string> created_;
};

class ChildProcess {
 public:
  ChildProcess(std::vector<std::string> argv, std::string log_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool running();
  void Stop();           // SIGTERM, then SIGKILL after 5 s
  void Signal(int sig);  // e.g. SIGHUP
  std::string Log() const;
  // The signal that ended the process (9 after a SIGKILL), once running() saw it end; 0 if none.
  int term_signal() const { return term_signal_; }
  // Its exit status, once running() saw it exit; -1 if it did not exit (a signal ended it).
  int exit_code() const { return exit_code_; }

 private:
  pid_t pid_ = -1;
  int term_signal_ = 0;
  int exit_code_ = -1;
  std::string log_path_;
};

// Adds a user with `role` (password on stdin) and an API token for it through the built
// ufm-remediator (`user add`, `token create`) against the service's config; returns the token for
// `Authorization: Bearer`. Throws if either command fails.
std::string CreateApiToken(const std::string& config_path, const std::string& name,
                           const std::string& role);

bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
               std::chrono::milliseconds every = std::chrono::milliseconds(100));

// What a command printed and how it ended.
struct CommandResult {
  int exit_code = -1;  // -1 when it did not exit normally
  std::string out, err;
};
// Runs argv through the shell (each word quoted), with `env` ("NAME=value ..." words) in front
// and `input` on stdin; captures stdout and stderr.
CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& env = "",
                         const std::string& input = "");

// A free TCP port on 127.0.0.1, picked by the kernel (the small race before the caller binds it
// is acceptable in tests); 0 if none could be had.
int FreePort();

}  // namespace ufmr::testing
