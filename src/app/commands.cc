#include "app/commands.h"

namespace ufmr::app {
namespace {

OptionSpec LogLevel() {
  return {"log-level", "LEVEL", "trace, debug, info (default), warn, error, critical or off"};
}

// The options of every command that reads the service's config file.
std::vector<OptionSpec> ConfigOptions(std::vector<OptionSpec> more = {}) {
  std::vector<OptionSpec> options = {
      {"config", "FILE", "the service's config file", true},
      {"set", "KEY=VALUE", "override a config key, e.g. --set http.port=8081", false, true},
      LogLevel(),
  };
  options.insert(options.end(), more.begin(), more.end());
  return options;
}

OptionSpec Format(const char* choices, const char* help) { return {"format", choices, help}; }

constexpr const char* kProgramFooter =
    "Run 'ufm-remediator COMMAND --help' (or 'ufm-remediator help COMMAND') for a command's own "
    "usage.\n"
    "The documentation: README.md, rules/README.md (the rules), docs/CONFIG.md (the config file).";

constexpr const char* kServeFooter =
    "Runs until SIGINT or SIGTERM; SIGHUP reloads the rules (a dry run first: rules with errors "
    "are\n"
    "refused and the old ones stay). Exit 1 when it cannot start (the config, the rules, the "
    "database\n"
    "or its schema: run 'db migrate' first); exit 75 when it loses the leader lock.";

constexpr const char* kReplayFooter =
    "Runs the service's decision path (rules, guards, caps, silences) over recorded data and acts "
    "on\n"
    "nothing: give at least one of --event-log and --telemetry. The decisions go to stdout, one "
    "JSON\n"
    "object per line (--format jsonl, fields in rules/README.md) or a line of text each; a summary "
    "goes\n"
    "to stderr. Exit 0 done, 1 an input cannot be read or the rules have errors, 2 a usage error.";

constexpr const char* kParseFooter =
    "Give exactly one input. Prints one JSON object per observation (JSONL):\n"
    "  {\"time\": ISO-8601 UTC or null, \"source\": "
    "\"event_log\"|\"syslog\"|\"rest\"|\"telemetry\",\n"
    "   \"event_id\": UFM's event type id (329, 110, ...) or null (telemetry),\n"
    "   \"severity\": as the input writes it, or null (telemetry),\n"
    "   \"ports\": [port names \"<guid>_<n>\"], \"switch\": the first switch named, or null,\n"
    "   \"host\": the first host named, or null, \"labels\": [port labels \"1/17/1\"],\n"
    "   \"message\": the event's text; for telemetry an object of counter name -> value}\n"
    "and, for each line it cannot place (telemetry: after the rows):\n"
    "  {\"error\": \"what was wrong\", \"line\": N}   (1-based; an event log entry's first line)\n"
    "At the end, on stderr: \"parsed N observations, M errors\". Exit 0 (errors included), 1 when "
    "a\n"
    "file cannot be read (or --ports is not a ports answer), 2 on a usage error.";

constexpr const char* kProbeFooter =
    "Reads ports, links, recent events, unhealthy ports, jobs, a telemetry sample and, when\n"
    "configured, the event log and a few seconds of syslog, and reports what the service would\n"
    "understand of them. It never writes to UFM (no port action, isolation or external event; a\n"
    "session login is the only POST, with auth session). Exit 0 when everything the service needs "
    "is\n"
    "there, 1 when something is missing (ports or events unreadable, telemetry configured but\n"
    "unreadable, event log unreadable, syslog cannot listen, credentials that may not act), 2 on "
    "a\n"
    "usage error.";

constexpr const char* kUserFooter =
    "Passwords are read from stdin: asked twice without echo on a terminal, else its first line.\n"
    "Exit 0 done, 1 refused or failed (a message on stderr), 2 a usage error.";

constexpr const char* kTokenFooter =
    "A new token is printed once, on stdout; only its hash is kept. Scripts send it as\n"
    "'Authorization: Bearer TOKEN'. Exit 0 done, 1 refused or failed, 2 a usage error.";

// The program, the service and its database.
std::vector<CommandSpec> ServiceCommands() {
  return {
      {{},
       "UFM Remediator: watches an InfiniBand fabric through NVIDIA UFM, takes failing links out "
       "of service behind guards, and files maintenance tickets.",
       {},
       {},
       kProgramFooter},
      {{"serve"},
       "Run the service: the loop over UFM, the dashboard and the API",
       {},
       ConfigOptions(),
       kServeFooter},
      {{"db"}, "The service's PostgreSQL database"},
      {{"db", "migrate"},
       "Apply the SQL migrations in schema/ that the database lacks",
       {},
       ConfigOptions()},
      {{"config"}, "The service's config file"},
      {{"config", "check"},
       "Check a config file as serve would load it, without connecting to anything",
       {{"FILE", "the config file (or --config FILE)", false}},
       [] {
         auto options = ConfigOptions();
         options[0].required = false;
         return options;
       }(),
       "Prints what the service would use (never a secret) and warnings for what would stop it "
       "at start.\nExit 0 good (warnings allowed), 1 the config has errors, 2 a usage error."},
  };
}

// What engineers run offline, and the first contact with a UFM.
std::vector<CommandSpec> OfflineCommands() {
  return {
      {{"rules"}, "Rules files, checked and tested offline"},
      {{"rules", "check"},
       "Load rules files or folders and print their diagnostics (exit 1 on errors)",
       {{"PATH", "rules files or folders (default: rules)", false, true}},
       {Format("text|json", "text (default) or one JSON object"), LogLevel()}},
      {{"rules", "test"},
       "Run rule tests (promtool style): exit 0 when every test passes",
       {{"PATH", "rule test files or folders", true, true}},
       {Format("text|json", "text (default) or one JSON object"), LogLevel()}},
      {{"replay"},
       "Backtest rules over recorded data: what the service would have decided",
       {},
       {{"rules", "PATH", "rules file or folder (repeatable)", true, true},
        {"event-log", "FILE", "UFM's event.log"},
        {"telemetry", "FILE_OR_DIR", "UFM Telemetry CSV samples", false, true},
        {"ports", "FILE", "a saved GET /resources/ports answer (port names, hosts, links)"},
        {"silences", "FILE", "silences to apply, as YAML"},
        {"utc-offset", "+HH:MM", "the UFM server's zone (its timestamps have none); default UTC"},
        {"max-disabled", "N", "the cap on ports held out of service"},
        Format("jsonl|text", "one JSON object per decision (default), or text"),
        {"jobs", "N", "parse the event log on N threads (1 to 64; the rules stay on one)"},
        {"progress", "", "show lines read, rate and log time on stderr (also when a terminal)"},
        {"scheduler", "none|slurm", "as with a job scheduler: a host short of links is drained"},
        LogLevel()},
       kReplayFooter},
      {{"parse"},
       "What the service reads from one input file, as JSONL",
       {},
       {{"event-log", "FILE", "UFM's event.log (an entry may span several lines)"},
        {"syslog", "FILE", "forwarded syslog records, one a line"},
        {"rest-events", "FILE", "a saved GET /app/events answer"},
        {"telemetry", "FILE", "a UFM Telemetry CSV sample (/csv/metrics)"},
        {"ports", "FILE", "a saved GET /resources/ports answer, to resolve ports and name hosts"},
        {"utc-offset", "+HH:MM", "the UFM server's zone (its timestamps have none); default UTC"}},
       kParseFooter},
      {{"probe"},
       "A read-only first contact with a UFM: what the service would get from it",
       {},
       {{"config", "FILE", "the service's config file (as serve loads it)", true},
        Format("text|json", "text for a person (default), or one JSON object (docs/PROBE.md)"),
        {"syslog-seconds", "N", "how long to listen for syslog when it is configured (default 5)"},
        {"record", "DIR",
         "also save every answer read, anonymised, as ufm-sim --recording DIR serves it"},
        {"set", "KEY=VALUE", "override a config key, as serve takes it", false, true}},
       kProbeFooter},
  };
}

// Who is told of what the service does.
std::vector<CommandSpec> NotifyCommands() {
  return {
      {{"notify"}, "Messages to people: webhooks, chat and email"},
      {{"notify", "test"},
       "Send a test message to each receiver of the config (or the one named)",
       {},
       ConfigOptions({{"receiver", "NAME", "send to this receiver only"}}),
       "Says per receiver whether it took the message. Touches neither UFM nor the database.\n"
       "Exit 0 every receiver took it, 1 one did not (or no receivers), 2 a usage error."},
  };
}

// Who may log in, and API tokens.
std::vector<CommandSpec> AccessCommands() {
  const ArgumentSpec user_name{"NAME", "the user's login name"};
  return {
      {{"user"}, "Who may log in to the dashboard and the API", {}, {}, kUserFooter},
      {{"user", "add"},
       "Add a user (the password from stdin)",
       {user_name},
       ConfigOptions({{"role", "ROLE", "viewer, technician, engineer or admin", true}}),
       kUserFooter},
      {{"user", "list"},
       "List the users: role, when created, whether disabled",
       {},
       ConfigOptions()},
      {{"user", "passwd"},
       "Set a user's password (from stdin); their sessions end",
       {user_name},
       ConfigOptions(),
       kUserFooter},
      {{"user", "disable"},
       "Disable a user: sessions end, tokens are revoked",
       {user_name},
       ConfigOptions()},
      {{"token"}, "API tokens for scripts", {}, {}, kTokenFooter},
      {{"token", "create"},
       "Create a token with a user's role",
       {},
       ConfigOptions({{"user", "NAME", "the user the token acts as", true},
                      {"label", "TEXT", "what the token is for"}}),
       kTokenFooter},
      {{"token", "list"}, "List the tokens (never their secrets)", {}, ConfigOptions()},
      {{"token", "revoke"},
       "Revoke a token",
       {{"ID", "the token's id, as token list shows it"}},
       ConfigOptions()},
  };
}

}  // namespace

const std::vector<CommandSpec>& Commands() {
  static const std::vector<CommandSpec> commands = [] {
    std::vector<CommandSpec> all = ServiceCommands();
    for (auto part : {OfflineCommands(), NotifyCommands(), AccessCommands()}) {
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
  }();
  return commands;
}

}  // namespace ufmr::app
