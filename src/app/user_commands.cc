#include "app/user_commands.h"

#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <string>

#include "api/password.h"
#include "base/clock.h"

namespace ufmr::app {
namespace {

int Fail(const Status& s) {
  std::cerr << s.message() << "\n";
  return 1;
}

std::string Time(double epoch_s) { return FormatIsoTime(FromEpochSeconds(epoch_s)); }

// One line from the terminal with echo off; false at end of input.
bool ReadHidden(const char* prompt, std::string* out) {
  std::cerr << prompt << std::flush;
  termios old{};
  bool restore = tcgetattr(STDIN_FILENO, &old) == 0;
  if (restore) {
    termios quiet = old;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  bool ok = static_cast<bool>(std::getline(std::cin, *out));
  if (restore) tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
  std::cerr << "\n";
  return ok;
}

// The new password: asked twice without echo on a terminal, else the first line of stdin.
Result<std::string> ReadNewPassword() {
  std::string password;
  if (isatty(STDIN_FILENO)) {
    std::string again;
    if (!ReadHidden("New password: ", &password) || !ReadHidden("Again: ", &again)) {
      return Status::InvalidArgument("no password given");
    }
    if (password != again) return Status::InvalidArgument("the passwords differ");
  } else {
    std::getline(std::cin, password);
    if (!password.empty() && password.back() == '\r') password.pop_back();
  }
  if (Status s = CheckPasswordPolicy(password); !s.ok()) return s;
  return password;
}

int UserAdd(const CommandLine& cl, AuthStore& store) {
  if (cl.positional.size() != 2 || cl.One("role").empty()) {
    return UsageError({"user", "add"}, "give NAME and --role ROLE");
  }
  const std::string& name = cl.positional[1];
  auto role = ParseRole(cl.One("role"));
  if (!role) {
    return Fail(Status::InvalidArgument("unknown role '" + cl.One("role") +
                                        "': use viewer, technician, engineer or admin"));
  }
  if (Status s = ValidateUserName(name); !s.ok()) return Fail(s);
  auto existing = store.GetUser(name);
  if (existing.ok()) return Fail(Status::Conflict("user '" + name + "' already exists"));
  if (existing.status().code() != Status::Code::kNotFound) return Fail(existing.status());
  auto password = ReadNewPassword();
  if (!password.ok()) return Fail(password.status());
  if (Status s = store.AddUser(name, *role, password.value()); !s.ok()) return Fail(s);
  std::cerr << "added user " << name << " (" << RoleName(*role) << ")\n";
  return 0;
}

int UserList(AuthStore& store) {
  auto users = store.ListUsers();
  if (!users.ok()) return Fail(users.status());
  std::cout << std::left << std::setw(24) << "NAME" << std::setw(12) << "ROLE" << std::setw(26)
            << "CREATED"
            << "DISABLED\n";
  for (const auto& u : users.value()) {
    std::cout << std::setw(24) << u.name << std::setw(12) << RoleName(u.role) << std::setw(26)
              << Time(u.created_at) << (u.disabled ? "yes" : "no") << "\n";
  }
  return 0;
}

int UserPasswd(const CommandLine& cl, AuthStore& store) {
  if (cl.positional.size() != 2) return UsageError({"user", cl.positional[0]}, "give NAME");
  const std::string& name = cl.positional[1];
  auto user = store.GetUser(name);
  if (!user.ok()) return Fail(user.status());
  auto password = ReadNewPassword();
  if (!password.ok()) return Fail(password.status());
  if (Status s = store.SetPassword(name, password.value()); !s.ok()) return Fail(s);
  std::cerr << "password of " << name << " changed; their sessions have ended\n";
  return 0;
}

int UserDisable(const CommandLine& cl, AuthStore& store) {
  if (cl.positional.size() != 2) return UsageError({"user", cl.positional[0]}, "give NAME");
  if (Status s = store.DisableUser(cl.positional[1]); !s.ok()) return Fail(s);
  std::cerr << "disabled " << cl.positional[1] << ": sessions ended, tokens revoked\n";
  return 0;
}

int TokenCreate(const CommandLine& cl, AuthStore& store) {
  if (cl.positional.size() != 1 || cl.One("user").empty()) {
    return UsageError({"token", "create"}, "give --user NAME");
  }
  auto t = store.CreateToken(cl.One("user"), cl.One("label"));
  if (!t.ok()) return Fail(t.status());
  std::cout << t->token << std::endl;
  std::cerr << "token " << t->id << " (" << t->prefix << "...) for " << cl.One("user")
            << ": shown only now; send it as 'Authorization: Bearer <token>'\n";
  return 0;
}

int TokenList(AuthStore& store) {
  auto tokens = store.ListTokens();
  if (!tokens.ok()) return Fail(tokens.status());
  auto when = [](const std::optional<double>& t) { return t ? Time(*t) : std::string("-"); };
  std::cout << std::left << std::setw(6) << "ID" << std::setw(20) << "USER" << std::setw(14)
            << "PREFIX" << std::setw(20) << "LABEL" << std::setw(26) << "CREATED" << std::setw(26)
            << "LAST USED"
            << "REVOKED\n";
  for (const auto& t : tokens.value()) {
    std::cout << std::setw(6) << t.id << std::setw(20) << t.user << std::setw(14) << t.prefix
              << std::setw(20) << (t.label.empty() ? "-" : t.label) << std::setw(26)
              << Time(t.created_at) << std::setw(26) << when(t.last_used_at) << when(t.revoked_at)
              << "\n";
  }
  return 0;
}

int TokenRevoke(const CommandLine& cl, AuthStore& store) {
  if (cl.positional.size() != 2) return UsageError({"token", "revoke"}, "give ID");
  int64_t id = 0;
  try {
    size_t used = 0;
    id = std::stoll(cl.positional[1], &used);
    if (used != cl.positional[1].size() || id <= 0) throw std::invalid_argument("id");
  } catch (const std::exception&) {
    return Fail(Status::InvalidArgument("bad token id '" + cl.positional[1] +
                                        "': the number 'token list' shows"));
  }
  if (Status s = store.RevokeToken(id); !s.ok()) return Fail(s);
  std::cerr << "revoked token " << id << "\n";
  return 0;
}

}  // namespace

int UserCommand(const CommandLine& cl, AuthStore& store) {
  const std::string sub = cl.positional.empty() ? "" : cl.positional[0];
  if (sub == "add") return UserAdd(cl, store);
  if (sub == "list" && cl.positional.size() == 1) return UserList(store);
  if (sub == "passwd") return UserPasswd(cl, store);
  if (sub == "disable") return UserDisable(cl, store);
  return UsageError({"user"}, "give one of its commands: add, list, passwd, disable");
}

int TokenCommand(const CommandLine& cl, AuthStore& store) {
  const std::string sub = cl.positional.empty() ? "" : cl.positional[0];
  if (sub == "create") return TokenCreate(cl, store);
  if (sub == "list" && cl.positional.size() == 1) return TokenList(store);
  if (sub == "revoke") return TokenRevoke(cl, store);
  return UsageError({"token"}, "give one of its commands: create, list, revoke");
}

}  // namespace ufmr::app
