#include "config/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "base/clock.h"
#include "base/duration.h"
#include "config/db_url.h"
#include "config/telemetry_columns.h"

namespace ufmr {

std::vector<EnvironmentOverride> EnvironmentOverrides(Config* c) {
  return {{"UFM_REMEDIATOR_UFM_URL", "ufm.url", &c->ufm.url},
          {"UFM_REMEDIATOR_UFM_USER", "ufm.user", &c->ufm.user},
          {"UFM_REMEDIATOR_UFM_PASSWORD", "ufm.password", &c->ufm.password},
          {"UFM_REMEDIATOR_UFM_TOKEN", "ufm.token", &c->ufm.token},
          {"UFM_REMEDIATOR_DB_URL", "database.url", &c->database.url}};
}

namespace {

// Every key the loader reads, section by section; "" holds the top level's plain keys (each
// section's name is a top-level key too). The unknown-key check (Reader::Keys) and
// KnownConfigKeys() both read this table, and a listed key the loader does not read is reported
// when a file sets it (Reader::Unread), so the three cannot drift apart.
struct SectionKeys {
  const char* section;
  std::vector<const char*> keys;
};

const std::vector<SectionKeys>& KeyTable() {
  static const std::vector<SectionKeys> table = {
      {"", {"fabric"}},
      {"ufm",
       {"url", "auth", "user", "password", "password_env", "insecure_tls", "ca_bundle", "timeout_s",
        "token", "token_env", "retries", "retry_base_s", "retry_max_s", "external_events",
        "external_event_id_cut", "external_event_id_restore", "utc_offset"}},
      {"telemetry",
       {"url", "interval_s", "format", "shards", "secondary_url", "secondary_interval_s", "columns",
        "secondary_columns"}},
      {"database", {"url", "schema_dir"}},
      {"rules", {"dir", "reload_check_interval_s"}},
      {"events", {"poll_interval_s"}},
      {"event_log", {"path", "poll_interval_s", "rotated_suffix"}},
      {"syslog", {"listen", "udp_port", "tcp_port"}},
      {"inventory", {"refresh_interval_s"}},
      {"http", {"listen", "port", "max_connections"}},
      {"ha", {"lock_retry_s"}},
      {"log", {"format"}},
      {"auth",
       {"anonymous_read", "session_ttl_s", "secure_cookies", "login_max_failures",
        "login_lockout_s"}},
      {"dashboard", {"rack_pattern", "counter_history_s", "counter_sample_interval_s"}},
      {"remediation",
       {"dry_run", "max_disabled_ports", "max_disabled_percent", "max_disabled_per_switch",
        "max_actions_per_hour", "port_cooldown_s", "min_active_links_host",
        "min_active_links_switch", "breaker_findings", "breaker_window_s", "soak_s", "max_attempts",
        "repeat_offender_tickets", "repeat_offender_window_s", "job_timeout_s",
        "job_poll_interval_s", "action_retry_s", "action_max_tries", "reconcile_interval_s"}},
  };
  return table;
}

std::string KeyPath(const std::string& section, const std::string& key) {
  return section.empty() ? key : section + "." + key;
}

struct Reader {
  std::string name;
  std::string error;
  std::set<std::string> read;        // the dotted paths the loader looked up
  std::set<std::string> from_flags;  // the dotted paths a --set gave

  void Fail(const YAML::Node& n, const std::string& key, const std::string& msg) {
    if (!error.empty()) return;
    if (from_flags.count(key)) {
      error = "--set " + key + ": " + msg;
      return;
    }
    error = name;
    if (n.IsDefined() && n.Mark().line >= 0) {
      error += ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1);
    }
    error += ": " + key + ": " + msg;
  }

  void Str(const YAML::Node& parent, const char* key, const std::string& path, std::string* out) {
    read.insert(path);
    YAML::Node n = parent[key];
    if (!n) return;
    if (!n.IsScalar()) return Fail(n, path, "expected a string");
    *out = n.Scalar();
  }

  void Bool(const YAML::Node& parent, const char* key, const std::string& path, bool* out) {
    read.insert(path);
    YAML::Node n = parent[key];
    if (!n) return;
    try {
      *out = n.as<bool>();
    } catch (const YAML::Exception&) {
      Fail(n, path, "expected true or false");
    }
  }

  void Int(const YAML::Node& parent, const char* key, const std::string& path, int* out, int min,
           int max) {
    read.insert(path);
    YAML::Node n = parent[key];
    if (!n) return;
    try {
      int v = n.as<int>();
      if (v < min || v > max) {
        return Fail(n, path,
                    "must be between " + std::to_string(min) + " and " + std::to_string(max));
      }
      *out = v;
    } catch (const YAML::Exception&) {
      Fail(n, path, "expected an integer");
    }
  }

  void Num(const YAML::Node& parent, const char* key, const std::string& path, double* out,
           double min, double max) {
    read.insert(path);
    YAML::Node n = parent[key];
    if (!n) return;
    double v = 0;
    try {
      if (!n.IsScalar()) throw YAML::Exception(n.Mark(), "not a scalar");
      v = n.as<double>();
    } catch (const YAML::Exception&) {
      return Fail(n, path, "expected a number");
    }
    if (!(v >= min && v <= max)) {
      std::ostringstream m;
      m << "must be between " << min << " and " << max;
      return Fail(n, path, m.str());
    }
    *out = v;
  }

  // Accepts a number of seconds or a duration string ("30s", "10m").
  void Secs(const YAML::Node& parent, const char* key, const std::string& path, double* out,
            double min) {
    read.insert(path);
    YAML::Node n = parent[key];
    if (!n) return;
    if (!n.IsScalar()) return Fail(n, path, "expected a duration");
    auto d = ParseDuration(n.Scalar());
    if (!d.ok()) return Fail(n, path, d.status().message());
    if (d.value() < min) return Fail(n, path, "must be at least " + FormatDuration(min));
    *out = d.value();
  }

  // A telemetry column map: our column name -> the endpoint's (TelemetryColumns). Empty (or an
  // empty string, as a --set or a documented default gives) is no map.
  void Columns(const YAML::Node& parent, const char* key, const std::string& path,
               std::map<std::string, std::string>* out) {
    read.insert(path);
    YAML::Node n = parent[key];
    if (!n || n.IsNull() || (n.IsScalar() && n.Scalar().empty())) return;
    if (!n.IsMap()) {
      return Fail(n, path,
                  "expected a mapping of counter names to the endpoint's column names, e.g. "
                  "SymbolErrorCounterExtended: Infiniband_SymbolErrors_u_Errors");
    }
    for (const auto& kv : n) {
      const std::string ours = kv.first.IsScalar() ? kv.first.Scalar() : "";
      const std::string item = path + "." + ours;
      if (!kv.second.IsScalar() && !kv.second.IsNull()) {
        return Fail(kv.second, item, "expected the endpoint's column name (a string)");
      }
      const std::string canonical(CanonicalTelemetryColumn(ours));
      if (canonical.empty()) {
        return Fail(kv.first, item,
                    "unknown counter name '" + ours +
                        "' (docs/TELEMETRY.md lists the names a column map may use)");
      }
      const std::string theirs = kv.second.IsNull() ? "" : kv.second.Scalar();
      if (theirs.find_first_not_of(" \t") == std::string::npos) {
        return Fail(kv.second, item,
                    "empty column name: give the endpoint's name for " + canonical);
      }
      if (out->count(canonical)) return Fail(kv.first, item, canonical + " is mapped twice");
      (*out)[canonical] = theirs;
    }
    if (auto all = TelemetryColumns::Make(*out); !all.ok()) Fail(n, path, all.status().message());
  }

  // The named section if it is a mapping; otherwise an error and an undefined node.
  YAML::Node Section(const YAML::Node& root, const char* key) {
    YAML::Node n = root[key];
    if (!n) return n;
    if (!n.IsMap()) {
      Fail(n, key, "expected a mapping of settings");
      return YAML::Node(YAML::NodeType::Undefined);
    }
    return n;
  }

  // Fails on a key of `map` that KeyTable() does not list for `section` ("": the top level).
  void Keys(const YAML::Node& map, const std::string& section) {
    if (!map.IsMap()) return Fail(map, section.empty() ? "(top)" : section, "expected a mapping");
    std::set<std::string> ok;
    for (const SectionKeys& s : KeyTable()) {
      if (section.empty() && *s.section) ok.insert(s.section);
      if (s.section == section) ok.insert(s.keys.begin(), s.keys.end());
    }
    for (const auto& kv : map) {
      if (!ok.count(kv.first.Scalar())) {
        Fail(kv.first, KeyPath(section, kv.first.Scalar()), "unknown key");
      }
    }
  }

  // A key the file sets, that KeyTable() lists, but the loader never looked up: a loader bug
  // (the key would be silently ignored), reported rather than ignored.
  void Unread(const YAML::Node& root) {
    for (const SectionKeys& s : KeyTable()) {
      const YAML::Node map = *s.section ? root[s.section] : root;
      if (!map || !map.IsMap()) continue;
      for (const char* k : s.keys) {
        std::string path = KeyPath(s.section, k);
        if (map[k] && !read.count(path)) Fail(map[k], path, "is known but never read (a bug)");
      }
    }
  }
};

// Applies `--set KEY=VALUE` flags to the parsed file: each KEY must be a known key (all of them
// are scalars); VALUE is taken as the scalar text a file would hold.
Status ApplySets(YAML::Node& root, const std::vector<std::string>& sets, Reader* r) {
  const std::vector<std::string> known = KnownConfigKeys();
  for (const std::string& set : sets) {
    size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      // Not echoed: a mistyped `--set ufm.password:...` must not print the secret.
      return Status::InvalidArgument("--set: expected KEY=VALUE (e.g. http.port=8081)");
    }
    const std::string key = set.substr(0, eq);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return Status::InvalidArgument("--set " + key + ": unknown key (docs/CONFIG.md lists them)");
    }
    // The process list shows every argument: secrets come from the file or the environment.
    const std::string value_text = set.substr(eq + 1);
    if (key == "ufm.password" || key == "ufm.token" ||
        (key == "database.url" && !DatabasePassword(value_text).empty())) {
      return Status::InvalidArgument(
          "--set " + key +
          ": secrets are not taken on the command line, where the process list shows them; use " +
          (key == "ufm.password" ? "UFM_REMEDIATOR_UFM_PASSWORD or ufm.password_env"
           : key == "ufm.token"  ? "UFM_REMEDIATOR_UFM_TOKEN or ufm.token_env"
                                 : "UFM_REMEDIATOR_DB_URL"));
    }
    YAML::Node value(value_text);
    size_t dot = key.find('.');
    if (dot == std::string::npos) {
      root[key] = value;
    } else {
      const std::string section = key.substr(0, dot);
      if (!root[section] || !root[section].IsMap()) root[section] = YAML::Node(YAML::NodeType::Map);
      root[section][key.substr(dot + 1)] = value;
    }
    r->from_flags.insert(key);
  }
  return Status::Ok();
}

Result<Config> LoadConfigTextUnchecked(const std::string& text, const std::string& name,
                                       const std::vector<std::string>& sets) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    return Status::InvalidArgument(name + ":" + std::to_string(e.mark.line + 1) + ":" +
                                   std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  Config c;
  Reader r{name, "", {}, {}};
  if (!root.IsMap()) return Status::InvalidArgument(name + ": the config must be a YAML mapping");
  if (Status s = ApplySets(root, sets, &r); !s.ok()) return s;
  r.Keys(root, "");
  r.Str(root, "fabric", "fabric", &c.fabric);
  if (auto u = r.Section(root, "ufm")) {
    r.Keys(u, "ufm");
    r.Str(u, "url", "ufm.url", &c.ufm.url);
    r.Str(u, "auth", "ufm.auth", &c.ufm.auth);
    r.Str(u, "user", "ufm.user", &c.ufm.user);
    r.Str(u, "password", "ufm.password", &c.ufm.password);
    r.Str(u, "password_env", "ufm.password_env", &c.ufm.password_env);
    r.Bool(u, "insecure_tls", "ufm.insecure_tls", &c.ufm.insecure_tls);
    r.Str(u, "ca_bundle", "ufm.ca_bundle", &c.ufm.ca_bundle);
    r.Secs(u, "timeout_s", "ufm.timeout_s", &c.ufm.timeout_s, 0.1);
    r.Str(u, "token", "ufm.token", &c.ufm.token);
    r.Str(u, "token_env", "ufm.token_env", &c.ufm.token_env);
    r.Int(u, "retries", "ufm.retries", &c.ufm.retries, 0, 20);
    r.Secs(u, "retry_base_s", "ufm.retry_base_s", &c.ufm.retry_base_s, 0);
    r.Secs(u, "retry_max_s", "ufm.retry_max_s", &c.ufm.retry_max_s, 0);
    r.Bool(u, "external_events", "ufm.external_events", &c.ufm.external_events);
    r.Int(u, "external_event_id_cut", "ufm.external_event_id_cut", &c.ufm.external_event_id_cut,
          551, 554);
    r.Int(u, "external_event_id_restore", "ufm.external_event_id_restore",
          &c.ufm.external_event_id_restore, 551, 554);
    std::string utc_offset = FormatUtcOffset(c.ufm.utc_offset_s);
    r.Str(u, "utc_offset", "ufm.utc_offset", &utc_offset);
    if (!ParseUtcOffset(utc_offset, &c.ufm.utc_offset_s)) {
      r.Fail(u["utc_offset"], "ufm.utc_offset",
             "must be an offset from UTC like +02:00 or -05:30 (at most 14:00), got '" +
                 utc_offset + "'");
    }
    if (c.ufm.auth != "basic" && c.ufm.auth != "session" && c.ufm.auth != "token" &&
        c.ufm.auth != "local") {
      r.Fail(u["auth"], "ufm.auth", "must be basic, session, token or local");
    }
  }
  if (auto t = r.Section(root, "telemetry")) {
    r.Keys(t, "telemetry");
    r.Str(t, "url", "telemetry.url", &c.telemetry.url);
    r.Secs(t, "interval_s", "telemetry.interval_s", &c.telemetry.interval_s, 0.1);
    r.Str(t, "format", "telemetry.format", &c.telemetry.format);
    if (c.telemetry.format != "auto" && c.telemetry.format != "csv" &&
        c.telemetry.format != "prometheus") {
      r.Fail(t["format"], "telemetry.format", "must be csv, prometheus or auto");
    }
    r.Int(t, "shards", "telemetry.shards", &c.telemetry.shards, 1, 64);
    r.Str(t, "secondary_url", "telemetry.secondary_url", &c.telemetry.secondary_url);
    r.Secs(t, "secondary_interval_s", "telemetry.secondary_interval_s",
           &c.telemetry.secondary_interval_s, 1);
    r.Columns(t, "columns", "telemetry.columns", &c.telemetry.columns);
    r.Columns(t, "secondary_columns", "telemetry.secondary_columns",
              &c.telemetry.secondary_columns);
    if (!c.telemetry.secondary_url.empty() && c.telemetry.url.empty()) {
      r.Fail(t["secondary_url"], "telemetry.secondary_url", "needs telemetry.url (the primary)");
    }
  }
  if (auto d = r.Section(root, "database")) {
    r.Keys(d, "database");
    r.Str(d, "url", "database.url", &c.database.url);
    r.Str(d, "schema_dir", "database.schema_dir", &c.database.schema_dir);
  }
  if (auto x = r.Section(root, "rules")) {
    r.Keys(x, "rules");
    r.Str(x, "dir", "rules.dir", &c.rules.dir);
    r.Secs(x, "reload_check_interval_s", "rules.reload_check_interval_s",
           &c.rules.reload_check_interval_s, 0);
  }
  if (auto e = r.Section(root, "events")) {
    r.Keys(e, "events");
    r.Secs(e, "poll_interval_s", "events.poll_interval_s", &c.events.poll_interval_s, 0.1);
  }
  if (auto l = r.Section(root, "event_log")) {
    r.Keys(l, "event_log");
    r.Str(l, "path", "event_log.path", &c.event_log.path);
    r.Secs(l, "poll_interval_s", "event_log.poll_interval_s", &c.event_log.poll_interval_s, 0.05);
    r.Str(l, "rotated_suffix", "event_log.rotated_suffix", &c.event_log.rotated_suffix);
  }
  if (auto y = r.Section(root, "syslog")) {
    r.Keys(y, "syslog");
    r.Str(y, "listen", "syslog.listen", &c.syslog.listen);
    r.Int(y, "udp_port", "syslog.udp_port", &c.syslog.udp_port, -1, 65535);
    r.Int(y, "tcp_port", "syslog.tcp_port", &c.syslog.tcp_port, -1, 65535);
  }
  if (auto i = r.Section(root, "inventory")) {
    r.Keys(i, "inventory");
    r.Secs(i, "refresh_interval_s", "inventory.refresh_interval_s", &c.inventory.refresh_interval_s,
           1);
  }
  if (auto h = r.Section(root, "http")) {
    r.Keys(h, "http");
    r.Str(h, "listen", "http.listen", &c.http.listen);
    r.Int(h, "port", "http.port", &c.http.port, 0, 65535);
    r.Int(h, "max_connections", "http.max_connections", &c.http.max_connections, 1, 1000000);
  }
  if (auto h = r.Section(root, "ha")) {
    r.Keys(h, "ha");
    r.Secs(h, "lock_retry_s", "ha.lock_retry_s", &c.ha.lock_retry_s, 0.1);
  }
  if (auto l = r.Section(root, "log")) {
    r.Keys(l, "log");
    r.Str(l, "format", "log.format", &c.log.format);
    if (c.log.format != "text" && c.log.format != "json") {
      r.Fail(l["format"], "log.format", "must be text or json, got '" + c.log.format + "'");
    }
  }
  if (auto a = r.Section(root, "auth")) {
    r.Keys(a, "auth");
    r.Bool(a, "anonymous_read", "auth.anonymous_read", &c.auth.anonymous_read);
    r.Secs(a, "session_ttl_s", "auth.session_ttl_s", &c.auth.session_ttl_s, 60);
    r.Bool(a, "secure_cookies", "auth.secure_cookies", &c.auth.secure_cookies);
    r.Int(a, "login_max_failures", "auth.login_max_failures", &c.auth.login_max_failures, 1, 1000);
    r.Secs(a, "login_lockout_s", "auth.login_lockout_s", &c.auth.login_lockout_s, 1);
  }
  if (auto d = r.Section(root, "dashboard")) {
    r.Keys(d, "dashboard");
    r.Str(d, "rack_pattern", "dashboard.rack_pattern", &c.dashboard.rack_pattern);
    r.Secs(d, "counter_history_s", "dashboard.counter_history_s", &c.dashboard.counter_history_s,
           3600);
    r.Secs(d, "counter_sample_interval_s", "dashboard.counter_sample_interval_s",
           &c.dashboard.counter_sample_interval_s, 1);
  }
  if (auto m = r.Section(root, "remediation")) {
    r.Keys(m, "remediation");
    auto& x = c.remediation;
    r.Bool(m, "dry_run", "remediation.dry_run", &x.dry_run);
    r.Int(m, "max_disabled_ports", "remediation.max_disabled_ports", &x.max_disabled_ports, 0,
          100000);
    r.Num(m, "max_disabled_percent", "remediation.max_disabled_percent", &x.max_disabled_percent, 0,
          100);
    r.Int(m, "max_disabled_per_switch", "remediation.max_disabled_per_switch",
          &x.max_disabled_per_switch, 0, 10000);
    r.Int(m, "max_actions_per_hour", "remediation.max_actions_per_hour", &x.max_actions_per_hour, 0,
          100000);
    r.Secs(m, "port_cooldown_s", "remediation.port_cooldown_s", &x.port_cooldown_s, 0);
    r.Int(m, "min_active_links_host", "remediation.min_active_links_host", &x.min_active_links_host,
          0, 64);
    r.Int(m, "min_active_links_switch", "remediation.min_active_links_switch",
          &x.min_active_links_switch, 0, 1024);
    r.Int(m, "breaker_findings", "remediation.breaker_findings", &x.breaker_findings, 0, 1000000);
    r.Secs(m, "breaker_window_s", "remediation.breaker_window_s", &x.breaker_window_s, 1);
    r.Secs(m, "soak_s", "remediation.soak_s", &x.soak_s, 0);
    r.Int(m, "max_attempts", "remediation.max_attempts", &x.max_attempts, 1, 100);
    r.Int(m, "repeat_offender_tickets", "remediation.repeat_offender_tickets",
          &x.repeat_offender_tickets, 1, 1000);
    r.Secs(m, "repeat_offender_window_s", "remediation.repeat_offender_window_s",
           &x.repeat_offender_window_s, 1);
    r.Secs(m, "job_timeout_s", "remediation.job_timeout_s", &x.job_timeout_s, 1);
    r.Secs(m, "job_poll_interval_s", "remediation.job_poll_interval_s", &x.job_poll_interval_s,
           0.05);
    r.Secs(m, "action_retry_s", "remediation.action_retry_s", &x.action_retry_s, 0);
    r.Int(m, "action_max_tries", "remediation.action_max_tries", &x.action_max_tries, 1, 1000);
    r.Secs(m, "reconcile_interval_s", "remediation.reconcile_interval_s", &x.reconcile_interval_s,
           1);
  }
  if (r.error.empty()) r.Unread(root);
  // Secrets (and per-host values) from the environment win over the file: a unit's
  // EnvironmentFile or a container's secrets keep them out of config.yaml.
  for (const auto& [var, key, field] : EnvironmentOverrides(&c)) {
    if (r.from_flags.count(key)) continue;  // a --set of the same key wins
    if (const char* v = std::getenv(var)) *field = v;
  }
  if (r.error.empty() && c.ufm.url.empty()) r.Fail(root, "ufm.url", "is required");
  if (r.error.empty() && c.database.url.empty()) r.Fail(root, "database.url", "is required");
  if (!r.error.empty()) return Status::InvalidArgument(r.error);
  if (!c.ufm.password_env.empty()) {
    const char* v = std::getenv(c.ufm.password_env.c_str());
    if (!v) {
      return Status::InvalidArgument(name + ": ufm.password_env: variable " + c.ufm.password_env +
                                     " is not set");
    }
    c.ufm.password = v;
  }
  if (!c.ufm.token_env.empty()) {
    const char* v = std::getenv(c.ufm.token_env.c_str());
    if (!v) {
      return Status::InvalidArgument(name + ": ufm.token_env: variable " + c.ufm.token_env +
                                     " is not set");
    }
    c.ufm.token = v;
  }
  for (const auto& [var, key, field] : EnvironmentOverrides(&c)) {
    if (r.from_flags.count(key)) continue;
    if (const char* v = std::getenv(var)) *field = v;  // over ufm.password_env / token_env too
  }
  if (c.ufm.auth == "token" && c.ufm.token.empty()) {
    return Status::InvalidArgument(name + ": ufm.auth is token but no ufm.token or ufm.token_env");
  }
  while (!c.ufm.url.empty() && c.ufm.url.back() == '/') c.ufm.url.pop_back();
  return c;
}

}  // namespace

Result<Config> LoadConfigText(const std::string& text, const std::string& name,
                              const std::vector<std::string>& sets) {
  try {
    return LoadConfigTextUnchecked(text, name, sets);
  } catch (const YAML::Exception& e) {
    // A shape the reader did not foresee is still a config error, never a crash.
    return Status::InvalidArgument(name + ": " + e.what());
  }
}

std::vector<std::string> KnownConfigKeys() {
  std::vector<std::string> keys;
  for (const SectionKeys& s : KeyTable()) {
    for (const char* k : s.keys) keys.push_back(KeyPath(s.section, k));
  }
  return keys;
}

Result<Config> LoadConfigFile(const std::string& path, const std::vector<std::string>& sets) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read config file " + path);
  std::stringstream buf;
  buf << in.rdbuf();
  return LoadConfigText(buf.str(), path, sets);
}

}  // namespace ufmr
