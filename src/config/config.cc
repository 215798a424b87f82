#include "config/config.h"

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "base/clock.h"
#include "base/duration.h"
#include "config/config_reader.h"
#include "config/db_url.h"
#include "config/notify_config.h"
#include "config/secret_mask.h"
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

using config_internal::Reader;

// Every key the loader reads, section by section; "" holds the top level's plain keys (each
// section's name is a top-level key too). The unknown-key check (CheckKeys) and
// KnownConfigKeys() both read this table, and a listed key the loader does not read is reported
// when a file sets it (CheckUnread), so the three cannot drift apart.
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
      {"inventory", {"refresh_interval_s", "host_pattern"}},
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
      {"scheduler",
       {"backend", "scontrol", "sinfo", "squeue", "extra_args", "slurm_conf", "timeout_s",
        "node_pattern", "node_name", "drain_on_last_link", "drain_deadline_s", "max_drained_nodes",
        "max_drained_percent", "poll_interval_s", "retry_s", "record_jobs"}},
      {"notify", {"dashboard_url", "receivers", "route", "retry_max_s", "give_up_after_s"}},
  };
  return table;
}

std::string KeyPath(const std::string& section, const std::string& key) {
  return section.empty() ? key : section + "." + key;
}

// A telemetry column map: our column name -> the endpoint's (TelemetryColumns). Empty (or an
// empty string, as a --set or a documented default gives) is no map.
void ReadColumns(Reader* r, const YAML::Node& parent, const char* key, const std::string& path,
                 std::map<std::string, std::string>* out) {
  r->read.insert(path);
  YAML::Node n = parent[key];
  if (!n || n.IsNull() || (n.IsScalar() && n.Scalar().empty())) return;
  if (!n.IsMap()) {
    return r->Fail(n, path,
                   "expected a mapping of counter names to the endpoint's column names, e.g. "
                   "SymbolErrorCounterExtended: Infiniband_SymbolErrors_u_Errors");
  }
  for (const auto& kv : n) {
    const std::string ours = kv.first.IsScalar() ? kv.first.Scalar() : "";
    const std::string item = path + "." + ours;
    if (!kv.second.IsScalar() && !kv.second.IsNull()) {
      return r->Fail(kv.second, item, "expected the endpoint's column name (a string)");
    }
    const std::string canonical(CanonicalTelemetryColumn(ours));
    if (canonical.empty()) {
      return r->Fail(kv.first, item,
                     "unknown counter name '" + ours +
                         "' (docs/TELEMETRY.md lists the names a column map may use)");
    }
    const std::string theirs = kv.second.IsNull() ? "" : kv.second.Scalar();
    if (theirs.find_first_not_of(" \t") == std::string::npos) {
      return r->Fail(kv.second, item,
                     "empty column name: give the endpoint's name for " + canonical);
    }
    if (out->count(canonical)) return r->Fail(kv.first, item, canonical + " is mapped twice");
    (*out)[canonical] = theirs;
  }
  if (auto all = TelemetryColumns::Make(*out); !all.ok()) r->Fail(n, path, all.status().message());
}

// Fails on a key of `map` that KeyTable() does not list for `section` ("": the top level).
void CheckKeys(Reader* r, const YAML::Node& map, const std::string& section) {
  if (!map.IsMap()) return r->Fail(map, section.empty() ? "(top)" : section, "expected a mapping");
  std::set<std::string> ok;
  for (const SectionKeys& s : KeyTable()) {
    if (section.empty() && *s.section) ok.insert(s.section);
    if (s.section == section) ok.insert(s.keys.begin(), s.keys.end());
  }
  for (const auto& kv : map) {
    if (!ok.count(kv.first.Scalar())) {
      r->Fail(kv.first, KeyPath(section, kv.first.Scalar()), "unknown key");
    }
  }
}

// A key the file sets, that KeyTable() lists, but the loader never looked up: a loader bug
// (the key would be silently ignored), reported rather than ignored.
void CheckUnread(Reader* r, const YAML::Node& root) {
  for (const SectionKeys& s : KeyTable()) {
    const YAML::Node map = *s.section ? root[s.section] : root;
    if (!map || !map.IsMap()) continue;
    for (const char* k : s.keys) {
      std::string path = KeyPath(s.section, k);
      if (map[k] && !r->read.count(path)) r->Fail(map[k], path, "is known but never read (a bug)");
    }
  }
}

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

// One section of the file: its keys read through the Reader under their dotted paths
// ("ufm.url").
class SectionReader {
 public:
  SectionReader(Reader* r, YAML::Node node, const char* section)
      : r_(r), node_(std::move(node)), section_(section) {}

  void Str(const char* key, std::string* out) { r_->Str(node_, key, Path(key), out); }
  void Bool(const char* key, bool* out) { r_->Bool(node_, key, Path(key), out); }
  void Int(const char* key, int* out, int min, int max) {
    r_->Int(node_, key, Path(key), out, min, max);
  }
  void Num(const char* key, double* out, double min, double max) {
    r_->Num(node_, key, Path(key), out, min, max);
  }
  void Secs(const char* key, double* out, double min) { r_->Secs(node_, key, Path(key), out, min); }
  void Columns(const char* key, std::map<std::string, std::string>* out) {
    ReadColumns(r_, node_, key, Path(key), out);
  }
  void Fail(const char* key, const std::string& msg) { r_->Fail(node_[key], Path(key), msg); }

 private:
  std::string Path(const char* key) const { return section_ + "." + key; }

  Reader* r_;
  YAML::Node node_;
  std::string section_;
};

// Reads section `name` with `read` when the file has it; a key the section does not know is an
// error.
template <typename Settings>
void ReadSection(Reader* r, const YAML::Node& root, const char* name, Settings* settings,
                 void (*read)(SectionReader&, Settings*)) {
  if (auto n = r->Section(root, name)) {
    CheckKeys(r, n, name);
    SectionReader s(r, n, name);
    read(s, settings);
  }
}

void ReadUfm(SectionReader& s, Config::Ufm* u) {
  s.Str("url", &u->url);
  s.Str("auth", &u->auth);
  s.Str("user", &u->user);
  s.Str("password", &u->password);
  s.Str("password_env", &u->password_env);
  s.Bool("insecure_tls", &u->insecure_tls);
  s.Str("ca_bundle", &u->ca_bundle);
  s.Secs("timeout_s", &u->timeout_s, 0.1);
  s.Str("token", &u->token);
  s.Str("token_env", &u->token_env);
  s.Int("retries", &u->retries, 0, 20);
  s.Secs("retry_base_s", &u->retry_base_s, 0);
  s.Secs("retry_max_s", &u->retry_max_s, 0);
  s.Bool("external_events", &u->external_events);
  s.Int("external_event_id_cut", &u->external_event_id_cut, 551, 554);
  s.Int("external_event_id_restore", &u->external_event_id_restore, 551, 554);
  std::string utc_offset = FormatUtcOffset(u->utc_offset_s);
  s.Str("utc_offset", &utc_offset);
  if (!ParseUtcOffset(utc_offset, &u->utc_offset_s)) {
    s.Fail("utc_offset", "must be an offset from UTC like +02:00 or -05:30 (at most 14:00), got '" +
                             utc_offset + "'");
  }
  if (u->auth != "basic" && u->auth != "session" && u->auth != "token" && u->auth != "local") {
    s.Fail("auth", "must be basic, session, token or local");
  }
}

void ReadTelemetry(SectionReader& s, Config::Telemetry* t) {
  s.Str("url", &t->url);
  s.Secs("interval_s", &t->interval_s, 0.1);
  s.Str("format", &t->format);
  if (t->format != "auto" && t->format != "csv" && t->format != "prometheus") {
    s.Fail("format", "must be csv, prometheus or auto");
  }
  s.Int("shards", &t->shards, 1, 64);
  s.Str("secondary_url", &t->secondary_url);
  s.Secs("secondary_interval_s", &t->secondary_interval_s, 1);
  s.Columns("columns", &t->columns);
  s.Columns("secondary_columns", &t->secondary_columns);
  if (!t->secondary_url.empty() && t->url.empty()) {
    s.Fail("secondary_url", "needs telemetry.url (the primary)");
  }
}

void ReadDatabase(SectionReader& s, Config::Database* d) {
  s.Str("url", &d->url);
  s.Str("schema_dir", &d->schema_dir);
}

void ReadRules(SectionReader& s, Config::Rules* x) {
  s.Str("dir", &x->dir);
  s.Secs("reload_check_interval_s", &x->reload_check_interval_s, 0);
}

void ReadEvents(SectionReader& s, Config::Events* e) {
  s.Secs("poll_interval_s", &e->poll_interval_s, 0.1);
}

void ReadEventLog(SectionReader& s, Config::EventLog* l) {
  s.Str("path", &l->path);
  s.Secs("poll_interval_s", &l->poll_interval_s, 0.05);
  s.Str("rotated_suffix", &l->rotated_suffix);
}

void ReadSyslog(SectionReader& s, Config::Syslog* y) {
  s.Str("listen", &y->listen);
  s.Int("udp_port", &y->udp_port, -1, 65535);
  s.Int("tcp_port", &y->tcp_port, -1, 65535);
}

void ReadInventory(SectionReader& s, Config::Inventory* i) {
  s.Secs("refresh_interval_s", &i->refresh_interval_s, 1);
  s.Str("host_pattern", &i->host_pattern);
  if (!i->host_pattern.empty()) {
    re2::RE2 re(i->host_pattern, re2::RE2::Quiet);
    if (!re.ok()) {
      s.Fail("host_pattern", "not an RE2 pattern: " + re.error());
    } else if (re.NumberOfCapturingGroups() < 1) {
      s.Fail("host_pattern", "needs a capture group: the machine's name");
    }
  }
}

void ReadHttp(SectionReader& s, Config::Http* h) {
  s.Str("listen", &h->listen);
  s.Int("port", &h->port, 0, 65535);
  s.Int("max_connections", &h->max_connections, 1, 1000000);
}

void ReadHa(SectionReader& s, Config::Ha* h) { s.Secs("lock_retry_s", &h->lock_retry_s, 0.1); }

void ReadLog(SectionReader& s, Config::Log* l) {
  s.Str("format", &l->format);
  if (l->format != "text" && l->format != "json") {
    s.Fail("format", "must be text or json, got '" + l->format + "'");
  }
}

void ReadAuth(SectionReader& s, Config::Auth* a) {
  s.Bool("anonymous_read", &a->anonymous_read);
  s.Secs("session_ttl_s", &a->session_ttl_s, 60);
  s.Bool("secure_cookies", &a->secure_cookies);
  s.Int("login_max_failures", &a->login_max_failures, 1, 1000);
  s.Secs("login_lockout_s", &a->login_lockout_s, 1);
}

void ReadDashboard(SectionReader& s, Config::Dashboard* d) {
  s.Str("rack_pattern", &d->rack_pattern);
  s.Secs("counter_history_s", &d->counter_history_s, 3600);
  s.Secs("counter_sample_interval_s", &d->counter_sample_interval_s, 1);
}

// The guards, the repair flow and the action outbox.
void ReadRemediation(SectionReader& s, Config::Remediation* x) {
  s.Bool("dry_run", &x->dry_run);
  s.Int("max_disabled_ports", &x->max_disabled_ports, 0, 100000);
  s.Num("max_disabled_percent", &x->max_disabled_percent, 0, 100);
  s.Int("max_disabled_per_switch", &x->max_disabled_per_switch, 0, 10000);
  s.Int("max_actions_per_hour", &x->max_actions_per_hour, 0, 100000);
  s.Secs("port_cooldown_s", &x->port_cooldown_s, 0);
  s.Int("min_active_links_host", &x->min_active_links_host, 0, 64);
  s.Int("min_active_links_switch", &x->min_active_links_switch, 0, 1024);
  s.Int("breaker_findings", &x->breaker_findings, 0, 1000000);
  s.Secs("breaker_window_s", &x->breaker_window_s, 1);
  s.Secs("soak_s", &x->soak_s, 0);
  s.Int("max_attempts", &x->max_attempts, 1, 100);
  s.Int("repeat_offender_tickets", &x->repeat_offender_tickets, 1, 1000);
  s.Secs("repeat_offender_window_s", &x->repeat_offender_window_s, 1);
  s.Secs("job_timeout_s", &x->job_timeout_s, 1);
  s.Secs("job_poll_interval_s", &x->job_poll_interval_s, 0.05);
  s.Secs("action_retry_s", &x->action_retry_s, 0);
  s.Int("action_max_tries", &x->action_max_tries, 1, 1000);
  s.Secs("reconcile_interval_s", &x->reconcile_interval_s, 1);
}

// The scheduler integration: which backend, how to run its commands, the drain guards.
void ReadScheduler(SectionReader& s, Config::Scheduler* x) {
  s.Str("backend", &x->backend);
  if (x->backend != "none" && x->backend != "slurm") {
    s.Fail("backend", "must be none or slurm, got '" + x->backend + "'");
  }
  s.Str("scontrol", &x->scontrol);
  s.Str("sinfo", &x->sinfo);
  s.Str("squeue", &x->squeue);
  s.Str("extra_args", &x->extra_args);
  s.Str("slurm_conf", &x->slurm_conf);
  s.Secs("timeout_s", &x->timeout_s, 0.1);
  s.Str("node_pattern", &x->node_pattern);
  s.Str("node_name", &x->node_name);
  if (!x->node_pattern.empty()) {
    re2::RE2 re(x->node_pattern, re2::RE2::Quiet);
    std::string why;
    if (!re.ok()) {
      s.Fail("node_pattern", "not an RE2 pattern: " + re.error());
    } else if (!re.CheckRewriteString(x->node_name, &why)) {
      s.Fail("node_name", why);
    }
  }
  s.Bool("drain_on_last_link", &x->drain_on_last_link);
  s.Secs("drain_deadline_s", &x->drain_deadline_s, 1);
  s.Int("max_drained_nodes", &x->max_drained_nodes, 0, 100000);
  s.Num("max_drained_percent", &x->max_drained_percent, 0, 100);
  s.Secs("poll_interval_s", &x->poll_interval_s, 0.1);
  s.Secs("retry_s", &x->retry_s, 0);
  s.Bool("record_jobs", &x->record_jobs);
}

// Every section, in KeyTable()'s order (the first error found is the one reported).
void ReadSections(Reader* r, const YAML::Node& root, Config* c) {
  r->Str(root, "fabric", "fabric", &c->fabric);
  ReadSection(r, root, "ufm", &c->ufm, ReadUfm);
  ReadSection(r, root, "telemetry", &c->telemetry, ReadTelemetry);
  ReadSection(r, root, "database", &c->database, ReadDatabase);
  ReadSection(r, root, "rules", &c->rules, ReadRules);
  ReadSection(r, root, "events", &c->events, ReadEvents);
  ReadSection(r, root, "event_log", &c->event_log, ReadEventLog);
  ReadSection(r, root, "syslog", &c->syslog, ReadSyslog);
  ReadSection(r, root, "inventory", &c->inventory, ReadInventory);
  ReadSection(r, root, "http", &c->http, ReadHttp);
  ReadSection(r, root, "ha", &c->ha, ReadHa);
  ReadSection(r, root, "log", &c->log, ReadLog);
  ReadSection(r, root, "auth", &c->auth, ReadAuth);
  ReadSection(r, root, "dashboard", &c->dashboard, ReadDashboard);
  ReadSection(r, root, "remediation", &c->remediation, ReadRemediation);
  ReadSection(r, root, "scheduler", &c->scheduler, ReadScheduler);
  if (auto n = r->Section(root, "notify")) {  // notify_config.cc
    CheckKeys(r, n, "notify");
    ReadNotifyConfig(r, n, &c->notify);
  }
}

// Secrets (and per-host values) from the environment win over the file: a unit's
// EnvironmentFile or a container's secrets keep them out of config.yaml. A --set of the same key
// wins over the variable.
void ApplyEnvironmentOverrides(const Reader& r, Config* c) {
  for (const auto& [var, key, field] : EnvironmentOverrides(c)) {
    if (r.from_flags.count(key)) continue;
    if (const char* v = std::getenv(var)) *field = v;
  }
}

// The password and token from the variables ufm.password_env and ufm.token_env name.
Status ReadSecretVariables(const std::string& name, Config::Ufm* u) {
  if (!u->password_env.empty()) {
    const char* v = std::getenv(u->password_env.c_str());
    if (!v) {
      return Status::InvalidArgument(name + ": ufm.password_env: variable " + u->password_env +
                                     " is not set");
    }
    u->password = v;
  }
  if (!u->token_env.empty()) {
    const char* v = std::getenv(u->token_env.c_str());
    if (!v) {
      return Status::InvalidArgument(name + ": ufm.token_env: variable " + u->token_env +
                                     " is not set");
    }
    u->token = v;
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
  CheckKeys(&r, root, "");
  ReadSections(&r, root, &c);
  if (r.error.empty()) CheckUnread(&r, root);
  ApplyEnvironmentOverrides(r, &c);
  if (r.error.empty() && c.ufm.url.empty()) r.Fail(root, "ufm.url", "is required");
  if (r.error.empty() && c.database.url.empty()) r.Fail(root, "database.url", "is required");
  if (!r.error.empty()) return Status::InvalidArgument(r.error);
  if (Status s = ReadSecretVariables(name, &c.ufm); !s.ok()) return s;
  if (Status s = ReadNotifySecrets(name, &c.notify); !s.ok()) return s;
  ApplyEnvironmentOverrides(r, &c);  // over ufm.password_env / token_env too
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
    auto c = LoadConfigTextUnchecked(text, name, sets);
    if (c.ok()) MaskConfigSecrets(c.value());  // from now on, masked wherever they show
    return c;
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
