#include "test_env.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <pqxx/pqxx>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "http/http_server.h"

namespace ufmr::testing {

std::string SourceDir() { return UFMR_SOURCE_DIR; }
std::string BinaryDir() { return UFMR_BINARY_DIR; }

std::string MakeTempDir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + ".XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
  return buf.data();
}

void RemoveTree(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string ReadFixture(const std::string& relative) {
  const std::string path = SourceDir() + "/tests/testdata/" + relative;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read fixture " << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

namespace {

std::string RunCapture(const std::string& cmd) {
  std::array<char, 4096> buf{};
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + cmd);
  while (fgets(buf.data(), buf.size(), p)) out += buf.data();
  int rc = pclose(p);
  if (rc != 0) throw std::runtime_error("command failed (" + std::to_string(rc) + "): " + cmd);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

std::string CreateApiToken(const std::string& config_path, const std::string& name,
                           const std::string& role) {
  const std::string bin = BinaryDir() + "/ufm-remediator";
  RunCapture("printf '%s\\n' 'test-password-1' | " + bin + " user add " + name + " --role " + role +
             " --config '" + config_path + "' 2>&1");
  return RunCapture(bin + " token create --user " + name + " --config '" + config_path +
                    "' 2>/dev/null");
}

TestPostgres& TestPostgres::Get() {
  const char* shared = std::getenv("UFMR_TEST_PG_DIR");
  if (!shared || !*shared) return Own();
  static TestPostgres instance(shared);
  return instance;
}

TestPostgres& TestPostgres::Own() {
  static TestPostgres instance("");
  return instance;
}

TestPostgres::TestPostgres(const std::string& shared_dir) {
  if (!shared_dir.empty()) {
    admin_url_ = ReadFile(shared_dir + "/url");
    while (!admin_url_.empty() && admin_url_.back() == '\n') admin_url_.pop_back();
    if (admin_url_.empty()) {
      throw std::runtime_error("no PostgreSQL URL in " + shared_dir +
                               "/url: did the postgres_start fixture run?");
    }
    return;
  }
  dir_ = MakeTempDir("ufmr-test");
  admin_url_ = RunCapture(SourceDir() + "/scripts/pg-temp.sh start " + dir_ + "/pg");
}

TestPostgres::~TestPostgres() {
  if (dir_.empty()) {
    // The shared server outlives this process: leave it as found (best effort). Through psql,
    // not libpq: by now the TLS library libpq loaded may have run its own exit handlers.
    if (created_.empty()) return;
    std::string cmd = "psql -q -X '" + admin_url_ + "'";
    for (const auto& name : created_) {
      cmd += " -c 'DROP DATABASE IF EXISTS " + name + " WITH (FORCE)'";
    }
    cmd += " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "dropping test databases failed\n");
    return;
  }
  std::string cmd = SourceDir() + "/scripts/pg-temp.sh stop " + dir_ + "/pg >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "pg-temp stop failed\n");
  RemoveTree(dir_);
}

void TestPostgres::Restart() {
  if (dir_.empty()) throw std::logic_error("Restart needs a server of its own (TestPostgres::Own)");
  std::string cmd = SourceDir() + "/scripts/pg-temp.sh restart " + dir_ + "/pg";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("pg-temp restart failed");
}

std::string TestPostgres::CreateDatabase() {
  // The process id keeps names apart between the test processes sharing a server.
  std::string name = "t" + std::to_string(getpid()) + "_" + std::to_string(created_.size());
  pqxx::connection c(admin_url_);
  pqxx::nontransaction w(c);
  w.exec("CREATE DATABASE " + name);
  created_.push_back(name);
  std::string url = admin_url_;
  auto pos = url.find("dbname=postgres");
  url.replace(pos, std::string("dbname=postgres").size(), "dbname=" + name);
  return url;
}

ChildProcess::ChildProcess(std::vector<std::string> argv, std::string log_path)
    : log_path_(std::move(log_path)) {
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    FILE* log = std::fopen(log_path_.c_str(), "w");
    if (log) {
      dup2(fileno(log), 1);
      dup2(fileno(log), 2);
    }
    setpgid(0, 0);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::perror("execv");
    _exit(127);
  }
}

ChildProcess::~ChildProcess() { Stop(); }

bool ChildProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    if (WIFSIGNALED(status)) term_signal_ = WTERMSIG(status);
    if (WIFEXITED(status)) exit_code_ = WEXITSTATUS(status);
    return false;
  }
  return true;
}

void ChildProcess::Signal(int sig) {
  if (pid_ > 0) kill(pid_, sig);
}

void ChildProcess::Stop() {
  if (!running()) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string ChildProcess::Log() const { return ReadFile(log_path_); }

bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
               std::chrono::milliseconds every) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(every);
  }
}

CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& env,
                         const std::string& input) {
  const std::string dir = MakeTempDir("command");
  WriteFile(dir + "/in", input);
  std::string cmd = env.empty() ? "" : "env " + env + " ";
  for (const auto& a : argv) cmd += "'" + a + "' ";
  cmd += "<'" + dir + "/in' >'" + dir + "/out' 2>'" + dir + "/err'";
  CommandResult r;
  const int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(dir + "/out");
  r.err = ReadFile(dir + "/err");
  RemoveTree(dir);
  return r;
}

int FreePort() {
  HttpServer probe("127.0.0.1", 0, [](const HttpRequest&) { return HttpResponse(); });
  if (!probe.Start().ok()) return 0;
  const int port = probe.port();
  probe.Stop();
  return port;
}

}  // namespace ufmr::testing
