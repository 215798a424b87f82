// Test support: a running ufm-sim (the simulated UFM) for an end-to-end test. It listens on ports
// of its choosing (--port 0 --telemetry-port 0) and says which in its ready file; the test adds
// the options it needs (--topology, --job-delay-ms, --event-log, ...). Its ready file and log are
// <dir>/<name>.json and <dir>/<name>.log. Destroying it stops the simulator (continuing it first,
// should the test have stopped it with SIGSTOP) and, when the test has failed, prints its log.
// Use from the test's main thread.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "test_env.h"

namespace ufmr::testing {

class SimProcess {
 public:
  // Launches the simulator; AwaitReady says when it answers.
  SimProcess(std::string dir, const std::vector<std::string>& args, std::string name = "sim");
  ~SimProcess();
  SimProcess(const SimProcess&) = delete;
  SimProcess& operator=(const SimProcess&) = delete;

  // Waits for the ready file and reads the ports from it; a failure carries the simulator's log.
  ::testing::AssertionResult AwaitReady(
      std::chrono::milliseconds timeout = std::chrono::seconds(20));

  // UFM's REST API ("http://127.0.0.1:<port>", the paths start /ufmRest or /sim).
  const std::string& url() const { return url_; }
  // UFM Telemetry's CSV ("http://127.0.0.1:<telemetry port>/csv/metrics").
  const std::string& telemetry_url() const { return telemetry_url_; }

  std::string Log() const { return process_->Log(); }
  void Signal(int sig) { process_->Signal(sig); }  // e.g. SIGSTOP to freeze UFM, SIGCONT
  void Stop();

 private:
  std::string dir_, name_;
  std::string url_, telemetry_url_;
  std::unique_ptr<ChildProcess> process_;
};

}  // namespace ufmr::testing
