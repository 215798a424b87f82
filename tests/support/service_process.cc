#include "service_process.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "ufm/http_client.h"

namespace ufmr::testing {
namespace {

std::string Tail(const std::string& text, size_t chars) {
  return text.size() > chars ? text.substr(text.size() - chars) : text;
}

// The answer to GET `url`, if one came.
Result<HttpResult> Fetch(const std::string& url) {
  HttpClient http;
  return http.Get(url);
}

}  // namespace

ServiceProcess::ServiceProcess(std::string dir, std::string name)
    : dir_(std::move(dir)), name_(std::move(name)), config_path_(dir_ + "/" + name_ + ".yaml") {
  port_ = FreePort();
  EXPECT_NE(port_, 0) << "no free port for " << name_ << "'s API";
  api_ = "http://127.0.0.1:" + std::to_string(port_);
}

ServiceProcess::~ServiceProcess() {
  Stop();
  if (::testing::Test::HasFailure()) PrintLogs();
}

void ServiceProcess::WriteConfig(const std::string& yaml) {
  testing::WriteFile(config_path_, yaml);
}

::testing::AssertionResult ServiceProcess::Migrate() {
  const CommandResult r =
      RunCommand({BinaryDir() + "/ufm-remediator", "db", "migrate", "--config", config_path_});
  const std::string out = r.out + r.err;
  if (r.exit_code == 0 && out.find("up to date") != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "db migrate --config " << config_path_ << ": exit " << r.exit_code << "\n"
         << out;
}

std::string ServiceProcess::CreateToken(const std::string& user, const std::string& role) const {
  return CreateApiToken(config_path_, user, role);
}

void ServiceProcess::Start(const ServeOptions& options) {
  process_.reset();
  std::vector<std::string> argv;
  if (!options.crash_at.empty()) argv = {"/usr/bin/env", "UFMR_CRASH_AT=" + options.crash_at};
  argv.insert(argv.end(), {BinaryDir() + "/ufm-remediator", "serve", "--config", config_path_});
  if (!options.log_level.empty()) argv.insert(argv.end(), {"--log-level", options.log_level});
  logs_.push_back(dir_ + "/" + name_ + "-" + std::to_string(logs_.size() + 1) + ".log");
  process_ = std::make_unique<ChildProcess>(argv, logs_.back());
}

bool ServiceProcess::running() { return process_ && process_->running(); }

void ServiceProcess::Signal(int sig) {
  if (process_) process_->Signal(sig);
}

void ServiceProcess::Stop() {
  if (process_) process_->Stop();
}

int ServiceProcess::term_signal() const { return process_ ? process_->term_signal() : 0; }
int ServiceProcess::exit_code() const { return process_ ? process_->exit_code() : -1; }

std::string ServiceProcess::Log() const { return logs_.empty() ? "" : ReadFile(logs_.back()); }

::testing::AssertionResult ServiceProcess::AwaitHealthz(std::chrono::milliseconds timeout) {
  return Await(
      [&] {
        auto r = Fetch(api_ + "/healthz");
        return r.ok() && r->status == 200;
      },
      timeout, "GET /healthz answered 200");
}

::testing::AssertionResult ServiceProcess::AwaitInventory(std::chrono::milliseconds timeout) {
  return Await(
      [&] {
        auto r = Fetch(api_ + "/healthz");
        if (!r.ok() || r->status != 200) return false;
        const nlohmann::json health = nlohmann::json::parse(r->body, nullptr, false);
        return health.is_object() && health.value("inventory_ports", 0) > 0;
      },
      timeout, "GET /healthz answered 200 with UFM's ports read");
}

::testing::AssertionResult ServiceProcess::AwaitReadyz(std::chrono::milliseconds timeout) {
  return Await(
      [&] {
        auto r = Fetch(api_ + "/readyz");
        return r.ok() && r->status == 200;
      },
      timeout, "GET /readyz answered 200");
}

::testing::AssertionResult ServiceProcess::AwaitLog(const std::vector<std::string>& texts,
                                                    std::chrono::milliseconds timeout) {
  std::string what = "the log said";
  for (const auto& t : texts) what += " \"" + t + "\"" + (&t == &texts.back() ? "" : " or");
  return Await(
      [&] {
        const std::string log = Log();
        for (const auto& t : texts) {
          if (log.find(t) != std::string::npos) return true;
        }
        return false;
      },
      timeout, what);
}

::testing::AssertionResult ServiceProcess::Await(const std::function<bool()>& condition,
                                                 std::chrono::milliseconds timeout,
                                                 const std::string& what) {
  if (WaitUntil(condition, timeout)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << name_ << ": never " << what << " within " << timeout.count() << " ms\n"
         << Log();
}

void ServiceProcess::PrintOnFailure(size_t starts, size_t chars) {
  print_starts_ = starts;
  print_chars_ = chars;
}

void ServiceProcess::PrintLogs() const {
  const size_t first = logs_.size() > print_starts_ ? logs_.size() - print_starts_ : 0;
  for (size_t i = first; i < logs_.size(); ++i) {
    std::cerr << "---- " << name_ << " log " << logs_[i].substr(logs_[i].rfind('/') + 1)
              << " ----\n"
              << Tail(ReadFile(logs_[i]), print_chars_) << "\n";
  }
}

}  // namespace ufmr::testing
