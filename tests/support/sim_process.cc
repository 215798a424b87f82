#include "sim_process.h"

#include <signal.h>

#include <iostream>
#include <nlohmann/json.hpp>

namespace ufmr::testing {

SimProcess::SimProcess(std::string dir, const std::vector<std::string>& args, std::string name)
    : dir_(std::move(dir)), name_(std::move(name)) {
  std::vector<std::string> argv = {BinaryDir() + "/ufm-sim",    "--port", "0",
                                   "--telemetry-port",          "0",      "--ready-file",
                                   dir_ + "/" + name_ + ".json"};
  argv.insert(argv.end(), args.begin(), args.end());
  process_ = std::make_unique<ChildProcess>(argv, dir_ + "/" + name_ + ".log");
}

SimProcess::~SimProcess() {
  Stop();
  if (::testing::Test::HasFailure()) {
    std::cerr << "---- " << name_ << " log ----\n" << Log() << "\n";
  }
}

::testing::AssertionResult SimProcess::AwaitReady(std::chrono::milliseconds timeout) {
  nlohmann::json ready;
  const std::string file = dir_ + "/" + name_ + ".json";
  const bool ok = WaitUntil(
      [&] {
        ready = nlohmann::json::parse(ReadFile(file), nullptr, false);
        return ready.is_object() && ready.contains("port") && ready["port"].is_number() &&
               ready.contains("telemetry_port") && ready["telemetry_port"].is_number();
      },
      timeout);
  if (!ok) {
    return ::testing::AssertionFailure() << "ufm-sim wrote no ready file " << file << "\n" << Log();
  }
  url_ = "http://127.0.0.1:" + std::to_string(ready["port"].get<int>());
  telemetry_url_ =
      "http://127.0.0.1:" + std::to_string(ready["telemetry_port"].get<int>()) + "/csv/metrics";
  return ::testing::AssertionSuccess();
}

void SimProcess::Stop() {
  process_->Signal(SIGCONT);
  process_->Stop();
}

}  // namespace ufmr::testing
