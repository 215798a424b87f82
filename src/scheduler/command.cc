#include "scheduler/command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

extern char** environ;

namespace ufmr {

namespace {

// Both ends of a pipe, closed when it goes.
struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  bool Open() { return pipe2(fd, O_CLOEXEC) == 0; }
  void CloseWrite() {
    if (fd[1] >= 0) close(fd[1]);
    fd[1] = -1;
  }
};

// The service's environment with `extra` set over it, as "NAME=value" strings.
std::vector<std::string> ChildEnvironment(const CommandOptions& options) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view var(*e);
    bool replaced = false;
    for (const auto& [name, value] : options.env) {
      if (var.size() > name.size() && var.substr(0, name.size()) == name &&
          var[name.size()] == '=') {
        replaced = true;
      }
    }
    if (!replaced) env.emplace_back(var);
  }
  for (const auto& [name, value] : options.env) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

// Reads both pipes until they close or the deadline passes; false on a timeout or too much
// output (*why says which).
bool Drain(int out_fd, int err_fd, const CommandOptions& options, CommandOutput* result,
           std::string* why) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(options.timeout_s * 1000));
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* into[2] = {&result->out, &result->err};
  int open = 2;
  char buf[8192];
  while (open > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      *why = "did not finish within " + std::to_string(options.timeout_s) + " s";
      return false;
    }
    int n = poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), INT_MAX)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = std::string("poll: ") + std::strerror(errno);
      return false;
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || fds[k].revents == 0) continue;
      ssize_t got = read(fds[k].fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        fds[k].fd = -1;
        --open;
        continue;
      }
      into[k]->append(buf, static_cast<size_t>(got));
      if (into[k]->size() > options.max_output_bytes) {
        *why = "wrote more than " + std::to_string(options.max_output_bytes) + " bytes";
        return false;
      }
    }
  }
  return true;
}

// The child's exit status, waiting for it; -1 when a signal ended it or it cannot be waited for
// (never read as success).
int Reap(pid_t pid) {
  int status = 0;
  pid_t got = 0;
  do {
    got = waitpid(pid, &status, 0);
  } while (got < 0 && errno == EINTR);
  if (got != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The child's standard streams (stdin from /dev/null) and its own process group, so a timeout
// kills whatever it started too. False when either cannot be set up.
bool SetUpChild(posix_spawn_file_actions_t* actions, posix_spawnattr_t* attr, int out_fd,
                int err_fd) {
  return posix_spawn_file_actions_addopen(actions, 0, "/dev/null", O_RDONLY, 0) == 0 &&
         posix_spawn_file_actions_adddup2(actions, out_fd, 1) == 0 &&
         posix_spawn_file_actions_adddup2(actions, err_fd, 2) == 0 &&
         posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP) == 0 &&
         posix_spawnattr_setpgroup(attr, 0) == 0;
}

}  // namespace

Result<CommandOutput> RunProgram(const std::vector<std::string>& argv,
                                 const CommandOptions& options) {
  if (argv.empty() || argv[0].empty()) return Status::InvalidArgument("no program to run");
  Pipe out, err;
  if (!out.Open() || !err.Open()) {
    return Status::Unavailable(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  if (posix_spawn_file_actions_init(&actions) != 0) return Status::Unavailable("out of memory");
  if (posix_spawnattr_init(&attr) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return Status::Unavailable("out of memory");
  }
  std::vector<std::string> args = argv;
  std::vector<std::string> env = ChildEnvironment(options);
  std::vector<char*> arg_ptrs = Pointers(args), env_ptrs = Pointers(env);
  pid_t pid = 0;
  int rc =
      SetUpChild(&actions, &attr, out.fd[1], err.fd[1])
          ? posix_spawnp(&pid, args[0].c_str(), &actions, &attr, arg_ptrs.data(), env_ptrs.data())
          : ENOMEM;
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return Status::Unavailable("cannot run " + argv[0] + ": " + std::strerror(rc));
  out.CloseWrite();
  err.CloseWrite();
  CommandOutput result;
  std::string why;
  if (!Drain(out.fd[0], err.fd[0], options, &result, &why)) {
    kill(-pid, SIGKILL);  // its process group: the program and anything it started
    Reap(pid);
    return Status::Unavailable(argv[0] + " " + why);
  }
  result.exit_code = Reap(pid);
  return result;
}

}  // namespace ufmr
