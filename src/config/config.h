// Config: the service's YAML configuration file, with defaults for everything but the UFM and
// database addresses. Loading validates every value and names the offending key. Plain data.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace ufmr {

struct Config {
  std::string fabric = "default";

  struct Ufm {
    std::string url;  // e.g. https://ufm.example:443; the auth method's prefix is appended
    // basic: user/password on /ufmRest; session: /dologin then a cookie on /ufmRestV2;
    // token: "Authorization: Basic <token>" on /ufmRestV3; local: X-Remote-User, no prefix
    // (plain HTTP to 127.0.0.1:8000 on the UFM host itself).
    std::string auth = "basic";
    std::string user = "admin";
    std::string password;
    std::string password_env;  // read the password from this variable if set
    std::string token;
    std::string token_env;  // read the token from this variable if set
    bool insecure_tls = false;
    std::string ca_bundle;
    double timeout_s = 10;
    int retries = 3;            // further attempts of a failed read (and of a refused connect)
    double retry_base_s = 0.5;  // backoff: a random wait up to base * 2^attempt ...
    double retry_max_s = 8;     // ... capped here
    // Post a UFM external event when this service disables, isolates or restores a port, so
    // UFM's own log says who acted. Ids 551-554 are UFM's external event severities.
    bool external_events = true;
    int external_event_id_cut = 552;      // disable, isolate (warning)
    int external_event_id_restore = 551;  // enable, un-isolate (info)
    // The UFM server's offset from UTC ("+02:00" in the file): UFM's event timestamps are its
    // local time with no zone. Used for the event lag metric.
    int utc_offset_s = 0;
    bool operator==(const Ufm&) const = default;
  } ufm;

  struct Telemetry {
    std::string url;  // primary, e.g. http://ufm.example:9001/csv/metrics; empty disables
    double interval_s = 60;
    std::string format = "auto";  // csv | prometheus | auto (by Content-Type or the body)
    int shards = 1;               // > 1: N requests ?num_shards=N&shard=K&sharding_field=port_guid
    std::string secondary_url;    // optional, e.g. http://ufm.example:9002/csv/xcset/low_freq_debug
    double secondary_interval_s = 300;
    // Per endpoint: our column name (a counter, or port_guid, port_num, timestamp...) -> the
    // endpoint's, for collectors that name counters their own way. Names match in any case.
    std::map<std::string, std::string> columns;
    std::map<std::string, std::string> secondary_columns;
    bool operator==(const Telemetry&) const = default;
  } telemetry;

  struct Database {
    std::string url;         // libpq connection string or URI
    std::string schema_dir;  // empty: found next to the executable
    bool operator==(const Database&) const = default;
  } database;

  struct Rules {
    std::string dir = "rules";
    // How often the rules folder is checked for changes (then reloaded); 0: only on SIGHUP.
    double reload_check_interval_s = 2;
    bool operator==(const Rules&) const = default;
  } rules;

  struct Events {
    double poll_interval_s = 10;
    bool operator==(const Events&) const = default;
  } events;

  struct EventLog {
    std::string path;  // UFM's event.log (the path differs by version); empty disables
    double poll_interval_s = 1;
    std::string rotated_suffix = ".1";  // where logrotate moves the previous file
    bool operator==(const EventLog&) const = default;
  } event_log;

  struct Syslog {
    std::string listen = "0.0.0.0";
    int udp_port = -1;  // -1 disables; UFM's PUT /app/syslog points here
    int tcp_port = -1;
    bool operator==(const Syslog&) const = default;
  } syslog;

  struct Inventory {
    double refresh_interval_s = 300;
    // A host port's machine (RE2, the machine in its first group); "" is HostNamer's default,
    // which drops a trailing adapter (" mlx5_0", " HCA-1") and port (":1").
    std::string host_pattern;
    bool operator==(const Inventory&) const = default;
  } inventory;

  // Several instances on one database: one leads (acts), the others stand by (LeaderLock).
  struct Ha {
    double lock_retry_s = 2;  // how often a standby tries to take the leader lock
    bool operator==(const Ha&) const = default;
  } ha;

  struct Log {
    std::string format = "text";  // text (for people) | json (one JSON object per line)
    bool operator==(const Log&) const = default;
  } log;

  struct Http {
    std::string listen = "127.0.0.1";
    int port = 8080;
    int max_connections = 512;  // open at once; one more is answered 503 and closed
    bool operator==(const Http&) const = default;
  } http;

  // Who may use the dashboard and the API (docs/CONFIG.md, docs/API.md).
  struct Auth {
    bool anonymous_read = false;   // read-only pages and GET APIs without logging in
    double session_ttl_s = 43200;  // a login lasts this long (12 h)
    bool secure_cookies = false;   // mark the session cookie Secure (behind a TLS proxy)
    int login_max_failures = 5;    // failed logins for one name before it is throttled
    double login_lockout_s = 300;  // ... for this long
    bool operator==(const Auth&) const = default;
  } auth;

  struct Dashboard {
    // Groups the technician's queue by rack: the first capture group of this RE2 pattern, applied
    // to the switch's name; a name it does not match is grouped by the switch alone.
    std::string rack_pattern = "^(.+)-U[0-9]+$";
    double counter_history_s = 7 * 86400.0;  // counter samples of ticketed ports kept this long
    double counter_sample_interval_s = 60;   // ... taken at most this often (and at a new ticket)
    bool operator==(const Dashboard&) const = default;
  } dashboard;

  struct Remediation {
    bool dry_run = false;
    // Guards (the decision stage; docs/CONFIG.md). Caps count ports this service holds out of
    // service (disabled or isolated, or about to be).
    int max_disabled_ports = 20;       // fabric-wide, absolute
    double max_disabled_percent = 10;  // fabric-wide, % of the ports UFM reports (at least 1)
    int max_disabled_per_switch = 3;   // links held out of service touching one switch
    int max_actions_per_hour = 10;     // ports taken out of service in any hour
    double port_cooldown_s = 3600;     // no new action on a port this service acted on lately
    int min_active_links_host = 1;     // a host keeps at least this many active links
    int min_active_links_switch = 1;   // a switch keeps at least this many active links
    int breaker_findings = 20;         // findings that would act within the window trip it
    double breaker_window_s = 300;
    double soak_s = 1800;             // ~30 min of clean counters confirms a repaired link
    int max_attempts = 3;             // failed soaks before the ticket is escalated
    int repeat_offender_tickets = 1;  // earlier tickets on a link that make it a repeat offender
    double repeat_offender_window_s = 90 * 86400.0;
    double job_timeout_s = 120;
    double job_poll_interval_s = 1;
    double action_retry_s = 30;        // wait before retrying an action after a transient failure
    int action_max_tries = 5;          // transient failures before an action is given up
    double reconcile_interval_s = 60;  // UFM's disabled and isolated ports against ours
    bool operator==(const Remediation&) const = default;
  } remediation;

  // The job scheduler the hosts run their jobs under (docs/CONFIG.md, docs/SCHEDULER.md): a host
  // whose last link would be cut is drained first, and resumed after the repair.
  struct Scheduler {
    std::string backend = "none";  // none | slurm
    std::string scontrol = "scontrol";
    std::string sinfo = "sinfo";
    std::string squeue = "squeue";
    std::string extra_args;  // given to every Slurm command, split on blanks ("-M gpu")
    std::string slurm_conf;  // SLURM_CONF for the commands; empty: Slurm's default
    double timeout_s = 10;   // a Slurm command that runs longer is killed (and retried later)
    // UFM's host name to the scheduler's node name: the same, or node_pattern's match (RE2)
    // rewritten by node_name ("\\1").
    std::string node_pattern;
    std::string node_name = "\\1";
    bool drain_on_last_link = true;        // a cut held only by last_link on a host drains it first
    double drain_deadline_s = 4 * 3600.0;  // jobs still running after this: escalate the ticket
    int max_drained_nodes = 4;             // nodes drained by the service at once, absolute
    double max_drained_percent = 5;        // ... and as % of the scheduler's nodes (at least 1)
    double poll_interval_s = 15;           // a draining node's state, read this often
    double retry_s = 30;                   // wait before asking a scheduler that did not answer
    bool record_jobs = true;               // a ticket on a host's link lists the host's jobs
    bool operator==(const Scheduler&) const = default;
  } scheduler;

  // Who is told of what the service does (docs/NOTIFY.md): receivers of messages, and the route
  // tree that says which receiver hears of what, grouped how (as Alertmanager's route does).
  struct Notify {
    std::string dashboard_url;  // messages link to ticket pages under it; empty: no links
    struct Receiver {
      std::string name;
      std::string type;  // webhook (JSON, schema/notification.schema.json) | slack | email
      // webhook, slack: where to POST (a Slack URL is a secret: url_file or url_env keep it out
      // of the file). email: the SMTP server, smtp://host:587 (STARTTLS) or smtps://host:465.
      std::string url;
      std::string url_file;
      std::string url_env;
      double timeout_s = 10;
      bool insecure_tls = false;
      std::string ca_bundle;
      // email only.
      std::string from;
      std::vector<std::string> to;
      bool starttls = true;  // smtp://: refuse to send unless the server takes STARTTLS
      std::string username;  // SMTP authentication, when set
      std::string password;  // read from password_file or password_env, never from the file
      std::string password_file;
      std::string password_env;
      bool operator==(const Receiver&) const = default;
    };
    std::vector<Receiver> receivers;
    // A node of the route tree. An event goes down the tree: a child whose match and match_re
    // all hold takes it (and the walk stops there unless it says continue); a node no child took
    // it at sends it to its own receiver. Children inherit receiver, group_by and the timings.
    struct Route {
      std::string receiver;
      std::map<std::string, std::string> match;     // label: value (exactly)
      std::map<std::string, std::string> match_re;  // label: RE2 pattern (all of the value)
      std::vector<std::string> group_by;            // labels; empty: one group for the route
      double group_wait_s = 30;       // a new group's first message waits this long for more
      double group_interval_s = 300;  // a group's next message, for events that joined since
      double repeat_interval_s = 4 * 3600.0;  // a reminder of what is still unresolved
      bool continue_matching = false;         // `continue`: siblings after it may take it too
      std::vector<Route> routes;
      bool operator==(const Route&) const = default;
    };
    // Without a route in the file: every receiver hears of everything (a child route each).
    Route route;
    double retry_max_s = 300;              // the longest wait between two tries of a message
    double give_up_after_s = 3 * 86400.0;  // a message not taken by then is expired
    bool operator==(const Notify&) const = default;
  } notify;

  // Field by field, for tests (e.g. a documented default written out loads as the default).
  bool operator==(const Config&) const = default;
};

// `sets` are `--set KEY=VALUE` flags ("http.port=8081"): each replaces (or adds) one key of the
// file before it is read, so it is checked like the file's own keys; errors name the flag.
Result<Config> LoadConfigFile(const std::string& path, const std::vector<std::string>& sets = {});
// The environment variables that override the file (UFM_REMEDIATOR_UFM_PASSWORD,
// UFM_REMEDIATOR_DB_URL, ...) and the fields they set; applied by LoadConfig*.
struct EnvironmentOverride {
  const char* var;     // UFM_REMEDIATOR_UFM_PASSWORD
  const char* key;     // ufm.password: a --set of it wins over the variable
  std::string* field;  // in the Config given
};
std::vector<EnvironmentOverride> EnvironmentOverrides(Config* c);
Result<Config> LoadConfigText(const std::string& text, const std::string& name,
                              const std::vector<std::string>& sets = {});
// Every key the loader accepts, as dotted paths ("fabric", "ufm.url", "remediation.soak_s"), in
// the loader's order. The loader's unknown-key check reads the same table, so this list is
// exactly what a config file may contain (docs/CONFIG.md documents each; config_docs_test).
std::vector<std::string> KnownConfigKeys();

}  // namespace ufmr
