#include "app/config_commands.h"

#include <re2/re2.h>

#include <filesystem>
#include <iostream>

#include "base/clock.h"
#include "config/config.h"
#include "rules/rule_loader.h"
#include "ufm/ufm_client.h"

namespace ufmr::app {

namespace {

// Where a secret-bearing value came from, without the value.
std::string Source(const std::string& value, const char* env_var) {
  if (value.empty()) return "not set";
  if (env_var && std::getenv(env_var)) return std::string("set (from ") + env_var + ")";
  return "set";
}

// The receivers by name and type (never their URLs: a Slack URL is a secret).
std::string Receivers(const Config::Notify& n) {
  if (n.receivers.empty()) return "no receivers";
  std::string out;
  for (const auto& r : n.receivers) out += (out.empty() ? "" : ", ") + r.name + " (" + r.type + ")";
  return out + (n.dashboard_url.empty() ? "; messages carry no links (notify.dashboard_url)"
                                        : "; links to " + n.dashboard_url);
}

// Whether a program is there to run: a path that is executable, or a bare name found on PATH.
bool ProgramFound(const std::string& program) {
  namespace fs = std::filesystem;
  auto executable = [](const fs::path& p) {
    std::error_code ec;
    auto st = fs::status(p, ec);
    return !ec && fs::is_regular_file(st) &&
           (st.permissions() & (fs::perms::owner_exec | fs::perms::group_exec |
                                fs::perms::others_exec)) != fs::perms::none;
  };
  if (program.find('/') != std::string::npos) return executable(program);
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    if (end > start && executable(fs::path(dirs.substr(start, end - start)) / program)) return true;
    start = end + 1;
  }
  return false;
}

// The scheduler's commands that are not there to run.
std::vector<std::string> MissingSchedulerPrograms(const Config::Scheduler& s) {
  std::vector<std::string> missing;
  if (s.backend != "slurm") return missing;
  for (const std::string* program : {&s.scontrol, &s.sinfo, &s.squeue}) {
    if (!ProgramFound(*program)) missing.push_back(*program);
  }
  return missing;
}

}  // namespace

int ConfigCheck(const std::string& path, const std::vector<std::string>& sets) {
  auto loaded = LoadConfigFile(path, sets);
  if (!loaded.ok()) {
    std::cerr << loaded.status().message() << "\n";
    return 1;
  }
  const Config& c = loaded.value();
  int errors = 0;
  auto error = [&](const std::string& m) {
    std::cerr << path << ": " << m << "\n";
    ++errors;
  };
  auto warn = [&](const std::string& m) { std::cerr << path << ": warning: " << m << "\n"; };
  if (c.ufm.url.rfind("http://", 0) != 0 && c.ufm.url.rfind("https://", 0) != 0) {
    error("ufm.url must start with http:// or https://, got '" + c.ufm.url + "'");
  }
  for (const char* m : {"basic", "session", "token", "local"}) {
    if (c.ufm.auth == m) break;
    if (std::string(m) == "local") error("ufm.auth must be basic, session, token or local");
  }
  if ((c.ufm.auth == "basic" || c.ufm.auth == "session") && c.ufm.password.empty()) {
    warn("ufm.auth is " + c.ufm.auth +
         " but no password is set (ufm.password, ufm.password_env or "
         "UFM_REMEDIATOR_UFM_PASSWORD)");
  }
  if (c.ufm.insecure_tls) warn("ufm.insecure_tls is on: UFM's certificate is not checked");
  if (std::string w = CleartextUfmWarning(c); !w.empty()) warn(w);
  if (!c.dashboard.rack_pattern.empty()) {
    re2::RE2 re(c.dashboard.rack_pattern, re2::RE2::Quiet);
    if (!re.ok()) {
      error("dashboard.rack_pattern: " + re.error());
    } else if (re.NumberOfCapturingGroups() < 1) {
      error("dashboard.rack_pattern needs a capture group (the rack)");
    }
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(c.rules.dir, ec)) {
    warn("rules.dir " + c.rules.dir + " is not a folder here: the service will not start");
  } else {
    RuleLoadResult rules = LoadRulesDir(c.rules.dir);
    if (!rules.ok()) {
      warn("the rules in " + c.rules.dir + " have errors (ufm-remediator rules check " +
           c.rules.dir + "):\n" + rules.Report());
    }
  }
  if (!c.event_log.path.empty() && !std::filesystem::exists(c.event_log.path, ec)) {
    warn("event_log.path " + c.event_log.path + " does not exist (yet)");
  }
  for (const std::string& missing : MissingSchedulerPrograms(c.scheduler)) {
    warn("scheduler: " + missing +
         " is not found here: hosts cannot be drained, and their last links are not cut");
  }
  if (c.http.listen != "127.0.0.1" && c.http.listen != "::1" && c.auth.anonymous_read) {
    warn("auth.anonymous_read is on and the dashboard listens on " + c.http.listen +
         ": anyone who can reach it can read the tickets");
  }
  if (errors > 0) return 1;
  std::cout << path << ": ok\n"
            << "  fabric:    " << c.fabric << "\n"
            << "  ufm:       " << c.ufm.url << " (auth " << c.ufm.auth << ", password "
            << Source(c.ufm.password, "UFM_REMEDIATOR_UFM_PASSWORD") << ", UTC offset "
            << FormatUtcOffset(c.ufm.utc_offset_s) << ")\n"
            << "  database:  " << Source(c.database.url, "UFM_REMEDIATOR_DB_URL") << "\n"
            << "  telemetry: " << (c.telemetry.url.empty() ? "off" : c.telemetry.url) << "\n"
            << "  rules:     " << c.rules.dir << "\n"
            << "  dashboard: http://" << c.http.listen << ":" << c.http.port << "/"
            << (c.auth.anonymous_read ? " (anonymous reads on)" : "") << "\n"
            << "  remediation: " << (c.remediation.dry_run ? "dry run" : "acts on the fabric")
            << "\n"
            << "  scheduler: "
            << (c.scheduler.backend == "slurm"
                    ? "slurm (a host is drained before its last link is cut)"
                    : "none (a host's last link is left to a person)")
            << "\n"
            << "  notify:    " << Receivers(c.notify) << "\n";
  return 0;
}

}  // namespace ufmr::app
