// Checks the editor schemas for rules files and rule tests (schema/rules.schema.json,
// schema/rule-tests.schema.json): both compile as JSON Schema draft 2020-12 under Ajv's strict
// mode; every shipped rules/*.yaml and rules/tests/*.yaml is accepted; the valid examples below
// are accepted and the typical mistakes below are rejected.
//
//   node tests/schema/check.mjs [UFM_REMEDIATOR]
//
// With the path of a built ufm-remediator, every rules example also goes through the real checker
// (`rules check`): an example the schema accepts must load, and an example marked `loader:
// "error"` must be refused, so the schema and the loader cannot drift apart unnoticed. Examples
// the loader only warns about or silently accepts are marked as such: there the schema is
// deliberately stricter. Offline: reads files only. Exit status 0 when every check passes.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import Ajv2020 from "ajv/dist/2020.js";
import YAML from "yaml";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
const binary = process.argv[2] || "";

let failures = 0;
let passes = 0;
function pass(what) {
  passes += 1;
  console.log(`ok   ${what}`);
}
function fail(what, detail) {
  failures += 1;
  console.log(`FAIL ${what}`);
  if (detail) console.log(detail.replace(/^/gm, "       "));
}

function loadSchema(name) {
  return JSON.parse(fs.readFileSync(path.join(root, "schema", name), "utf8"));
}

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
let validateRules;
let validateTests;
try {
  validateRules = ajv.compile(loadSchema("rules.schema.json"));
  pass("schema/rules.schema.json compiles (draft 2020-12, strict)");
  validateTests = ajv.compile(loadSchema("rule-tests.schema.json"));
  pass("schema/rule-tests.schema.json compiles (draft 2020-12, strict)");
} catch (e) {
  fail("the schemas compile", String(e && e.message ? e.message : e));
  process.exit(1);
}

function explain(errors) {
  return (errors || [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || "/"}: ${e.message}${e.params ? " " + JSON.stringify(e.params) : ""}`)
    .join("\n");
}

function parse(text) {
  // YAML 1.2, as editors read it; duplicate keys are errors.
  return YAML.parse(text, { uniqueKeys: true });
}

function yamlFiles(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(dir, e.name))
    .sort();
}

// 1. The shipped files.
const shipped = [
  ...yamlFiles(path.join(root, "rules")).map((f) => [f, validateRules]),
  ...yamlFiles(path.join(root, "rules", "tests")).map((f) => [f, validateTests]),
];
if (shipped.length === 0) fail("shipped rules and tests found", "no *.yaml under rules/");
for (const [file, validate] of shipped) {
  const rel = path.relative(root, file);
  let doc;
  try {
    doc = parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    fail(`${rel} parses as YAML`, String(e.message));
    continue;
  }
  if (validate(doc)) pass(`${rel} is accepted`);
  else fail(`${rel} is accepted`, explain(validate.errors));
}

// 2. Rules examples. ok: whether the schema accepts it; at: where a rejected one must have an
// error (JSON pointer into the document); loader: what `rules check` makes of a rejected one:
// "error" (refused), "warning" (loads, with a warning) or "ignored" (loads silently).
const ruleCases = [
  {
    name: "event rule with a list, a macro, count and window",
    ok: true,
    text: `
lists:
  down_ids: [329]
macros:
  went_down: {event_id: "@down_ids"}
rules:
  - name: link_down_twice
    match: {use: went_down, severity: [warning, critical], switch: "^ib-leaf-"}
    count: 2
    window: 24h
    scope: port
    action: ticket_only
    title: "{port_node} {port_label}: {count} downs in {window}"
`,
  },
  {
    name: "held event rule with clear, shadow mode",
    ok: true,
    text: `
rules:
  - name: trial_link_down
    match: {event_id: 329}
    clear: {event_id: 328}
    for: 45s
    mode: shadow
    action: disable_port
`,
  },
  {
    name: "counter rules: rate with clear and window, ber with min_link_uptime, delta, value",
    ok: true,
    text: `
rules:
  - name: rcv_errors
    counter: PortRcvErrorsExtended
    rate: {above: 500, per: 1m}
    window: 5m
    for: 2m
    clear: {below: 50}
    action: isolate_port
  - name: ber
    counter: SymbolBER
    ber: {above: 1e-12}
    window: 10m
    min_link_uptime: 125m
    action: ticket_only
  - name: recoveries
    counter: LinkErrorRecoveryCounterExtended
    delta: {above: 5}
    window: 1h
    scope: port
    action: log_only
  - name: ber_level
    counter: SymbolBER
    value: {above: 1e-10}
    action: ticket_only
`,
  },
  {
    name: "flapping rule with and without match",
    ok: true,
    text: `
rules:
  - name: flap_default_events
    flapping: {downs: 2, within: 24h}
    action: ticket_only
  - name: flap_own_events
    flapping: {downs: 3, within: 10m}
    match: {event_id: [329, 702]}
    action: disable_port
`,
  },
  {
    name: "switch rule that inhibits a list of rules",
    ok: true,
    text: `
lists:
  port_rules: [link_down]
rules:
  - name: link_down
    match: {event_id: 329}
    action: disable_port
  - name: switch_down
    match: {event_id: 907}
    clear: {event_id: 908}
    scope: switch
    inhibits: {rules: "@port_rules", for: 20m}
    action: ticket_only
    severity: critical
`,
  },
  {
    name: "an empty file",
    ok: true,
    text: "# nothing yet\n",
  },
  { name: "unknown action", ok: false, at: "/rules/0/action", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, action: disable}\n" },
  {
    name: "both counter and match",
    ok: false,
    at: "/rules/0/match",
    loader: "error",
    text: "rules:\n  - {name: r, counter: SymbolErrorCounterExtended, rate: {above: 1}, match: {event_id: 110}, action: ticket_only}\n",
  },
  { name: "missing name", ok: false, at: "/rules/0", loader: "error", text: "rules:\n  - {match: {event_id: 329}, action: ticket_only}\n" },
  { name: "missing action", ok: false, at: "/rules/0", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}}\n" },
  { name: "no condition", ok: false, at: "/rules/0", loader: "error", text: "rules:\n  - {name: r, action: ticket_only}\n" },
  { name: "name with a space", ok: false, at: "/rules/0/name", loader: "error", text: "rules:\n  - {name: link down, match: {event_id: 329}, action: ticket_only}\n" },
  { name: "bad scope", ok: false, at: "/rules/0/scope", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, scope: cable, action: ticket_only}\n" },
  { name: "bad severity", ok: false, at: "/rules/0/severity", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, severity: high, action: ticket_only}\n" },
  { name: "bad mode", ok: false, at: "/rules/0/mode", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, mode: dry, action: ticket_only}\n" },
  { name: "switch rule that disables a port", ok: false, at: "/rules/0/action", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 907}, scope: switch, action: disable_port}\n" },
  { name: "two counter measures", ok: false, at: "/rules/0", loader: "error", text: "rules:\n  - {name: r, counter: X, rate: {above: 1}, delta: {above: 1}, action: ticket_only}\n" },
  { name: "rate without counter", ok: false, at: "/rules/0", loader: "error", text: "rules:\n  - {name: r, rate: {above: 100}, action: ticket_only}\n" },
  { name: "counter without a measure", ok: false, at: "/rules/0", loader: "error", text: "rules:\n  - {name: r, counter: SymbolBER, action: ticket_only}\n" },
  { name: "threshold without above", ok: false, at: "/rules/0/rate", loader: "error", text: "rules:\n  - {name: r, counter: X, rate: {per: 1m}, action: ticket_only}\n" },
  { name: "negative threshold", ok: false, at: "/rules/0/delta/above", loader: "error", text: "rules:\n  - {name: r, counter: X, delta: {above: -1}, action: ticket_only}\n" },
  { name: "counter clear as a match", ok: false, at: "/rules/0/clear", loader: "error", text: "rules:\n  - {name: r, counter: X, rate: {above: 10}, clear: {event_id: 328}, action: ticket_only}\n" },
  { name: "counter rule with count", ok: false, at: "/rules/0/count", loader: "error", text: "rules:\n  - {name: r, counter: X, rate: {above: 10}, count: 2, action: ticket_only}\n" },
  { name: "counter rule on a switch", ok: false, at: "/rules/0/scope", loader: "error", text: "rules:\n  - {name: r, counter: X, rate: {above: 10}, scope: switch, action: ticket_only}\n" },
  { name: "count above 1 without window", ok: false, at: "/rules/0", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, count: 3, action: ticket_only}\n" },
  { name: "count 0", ok: false, at: "/rules/0/count", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, count: 0, action: ticket_only}\n" },
  { name: "for on an event rule without clear", ok: false, at: "/rules/0", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, for: 30s, action: disable_port}\n" },
  { name: "min_link_uptime on an event rule", ok: false, at: "/rules/0/min_link_uptime", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, min_link_uptime: 2h, action: ticket_only}\n" },
  { name: "flapping with downs 1", ok: false, at: "/rules/0/flapping/downs", loader: "error", text: "rules:\n  - {name: r, flapping: {downs: 1, within: 10m}, action: ticket_only}\n" },
  { name: "flapping without within", ok: false, at: "/rules/0/flapping", loader: "error", text: "rules:\n  - {name: r, flapping: {downs: 3}, action: ticket_only}\n" },
  { name: "flapping with clear", ok: false, at: "/rules/0/clear", loader: "error", text: "rules:\n  - {name: r, flapping: {downs: 3, within: 10m}, clear: {event_id: 328}, action: ticket_only}\n" },
  { name: "flapping with count", ok: false, at: "/rules/0/count", loader: "error", text: "rules:\n  - {name: r, flapping: {downs: 3, within: 10m}, count: 2, action: ticket_only}\n" },
  { name: "flapping with window", ok: false, at: "/rules/0/window", loader: "error", text: "rules:\n  - {name: r, flapping: {downs: 3, within: 10m}, window: 1h, action: ticket_only}\n" },
  { name: "bad duration", ok: false, at: "/rules/0/window", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, count: 2, window: 10 minutes, action: ticket_only}\n" },
  { name: "compound duration", ok: false, at: "/rules/0/window", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, count: 2, window: 1h30m, action: ticket_only}\n" },
  { name: "empty match", ok: false, at: "/rules/0/match", loader: "error", text: "rules:\n  - {name: r, match: {}, action: ticket_only}\n" },
  { name: "event id 0", ok: false, at: "/rules/0/match/event_id", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 0}, action: ticket_only}\n" },
  { name: "event id not a number", ok: false, at: "/rules/0/match/event_id/1", loader: "error", text: "rules:\n  - {name: r, match: {event_id: [329, link_down]}, action: ticket_only}\n" },
  { name: "empty event id list", ok: false, at: "/rules/0/match/event_id", loader: "error", text: "rules:\n  - {name: r, match: {event_id: []}, action: ticket_only}\n" },
  { name: "pattern given as a list", ok: false, at: "/rules/0/match/description", loader: "error", text: "rules:\n  - {name: r, match: {description: [a, b]}, action: ticket_only}\n" },
  { name: "unknown placeholder", ok: false, at: "/rules/0/title", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, title: \"{port_lable}\", action: ticket_only}\n" },
  { name: "unclosed placeholder", ok: false, at: "/rules/0/repair_hint", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, repair_hint: \"replace {cable_serial\", action: ticket_only}\n" },
  { name: "inhibits on a link rule", ok: false, at: "/rules/1", loader: "error", text: "rules:\n  - {name: a, match: {event_id: 329}, action: ticket_only}\n  - {name: r, match: {event_id: 907}, inhibits: {rules: [a]}, action: ticket_only}\n" },
  { name: "inhibits without rules", ok: false, at: "/rules/0/inhibits", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 907}, scope: switch, inhibits: {for: 10m}, action: ticket_only}\n" },
  { name: "enabled not a boolean", ok: false, at: "/rules/0/enabled", loader: "error", text: "rules:\n  - {name: r, match: {event_id: 329}, enabled: maybe, action: ticket_only}\n" },
  { name: "rules not a list", ok: false, at: "/rules", loader: "error", text: "rules:\n  name: r\n" },
  { name: "a list that is not a sequence", ok: false, at: "/lists/ids", loader: "error", text: "lists:\n  ids: 329\nrules: []\n" },
  { name: "a macro that is not a mapping", ok: false, at: "/macros/m", loader: "error", text: "macros:\n  m: [329]\nrules: []\n" },
  // Typos the loader only warns about: the rest of the rule loads without the mistyped key, so a
  // typo in `mode` makes a shadow rule enforce, one in a match field widens the match.
  { name: "typo in a rule key (mdoe: shadow)", ok: false, at: "/rules/0", loader: "warning", text: "rules:\n  - {name: r, match: {event_id: 329}, mdoe: shadow, action: disable_port}\n" },
  { name: "typo in a match field (severty)", ok: false, at: "/rules/0/match", loader: "warning", text: "rules:\n  - {name: r, match: {event_id: 329, severty: critical}, action: ticket_only}\n" },
  { name: "unknown top-level key", ok: false, at: "", loader: "warning", text: "rule:\n  - {name: r, match: {event_id: 329}, action: ticket_only}\n" },
  { name: "unknown key in rate", ok: false, at: "/rules/0/rate", loader: "warning", text: "rules:\n  - {name: r, counter: X, rate: {above: 1, window: 1m}, action: ticket_only}\n" },
];

// 3. Rule tests examples (the schema and the test runner both refuse unknown keys).
const testCases = [
  {
    name: "a test with ports, a line event, an event_id event, a series and expectations",
    ok: true,
    text: `
rule_files: [../links.yaml, ../errors.yaml]
ports:
  - {name: 9c0591030090e000_3, systemID: 9c0591030090e000, system_name: sw-1, description: Switch IB Port, label: 1/2/1, peer: e41d2d0300b00001_1, number: 3}
tests:
  - name: t
    events:
      - {at: 0s, line: "[329] WARNING [Fabric_Topology] Link [Source 9c0591030090e000_3  TO Dest: e41d2d0300b00001_1]: Link went down"}
      - {at: 1m, event_id: 328, name: Link is Up, ports: [9c0591030090e000_3, e41d2d0300b00001_1]}
    counters:
      - {port: 9c0591030090e000_3, counter: SymbolErrorCounterExtended, interval: 30s, start: 2m, values: "0+600x5 _ 3000x2 100-10x3"}
    expect:
      - {at: 30s, rule: link_down, decision: blocked, port: 9c0591030090e000_3, guard: manual}
    until: 1h
`,
  },
  { name: "no tests list", ok: false, at: "", text: "rule_files: [..]\n" },
  { name: "typo in a test key (evnts)", ok: false, at: "/tests/0", text: "tests:\n  - {name: t, evnts: [{at: 0s, event_id: 329}], expect: []}\n" },
  { name: "unknown decision", ok: false, at: "/tests/0/expect/0/decision", text: "tests:\n  - {name: t, expect: [{at: 0s, rule: r, decision: disabled}]}\n" },
  { name: "unknown guard", ok: false, at: "/tests/0/expect/0/guard", text: "tests:\n  - {name: t, expect: [{at: 0s, rule: r, decision: blocked, guard: dryrun}]}\n" },
  { name: "expectation without decision", ok: false, at: "/tests/0/expect/0", text: "tests:\n  - {name: t, expect: [{at: 0s, rule: r}]}\n" },
  { name: "event with neither line nor event_id", ok: false, at: "/tests/0/events/0", text: "tests:\n  - {name: t, events: [{at: 0s, name: Link went down}]}\n" },
  { name: "event without at", ok: false, at: "/tests/0/events/0", text: "tests:\n  - {name: t, events: [{event_id: 329}]}\n" },
  { name: "series with a bad token", ok: false, at: "/tests/0/counters/0/values", text: "tests:\n  - {name: t, counters: [{port: 9c0591030090e000_3, counter: X, values: \"0+10\"}]}\n" },
  { name: "series with a bad port name", ok: false, at: "/tests/0/counters/0/port", text: "tests:\n  - {name: t, counters: [{port: sw-1/1/2/1, counter: X, values: \"0 1\"}]}\n" },
];

let tmp = "";
function loaderVerdict(text) {
  if (!tmp) tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ufmr-schema-"));
  const file = path.join(tmp, "case.yaml");
  fs.writeFileSync(file, text);
  try {
    const out = execFileSync(binary, ["rules", "check", "--format", "json", file], { encoding: "utf8" });
    const report = JSON.parse(out);
    return report.warnings > 0 ? "warning" : "ok";
  } catch (e) {
    if (e.status === 1) return "error";
    throw e;
  }
}

function runCases(kind, cases, validate, withLoader) {
  for (const c of cases) {
    const label = `${kind}: ${c.name}: ${c.ok ? "accepted" : "rejected"}`;
    let doc;
    try {
      doc = parse(c.text);
    } catch (e) {
      fail(label, `the example is not YAML: ${e.message}`);
      continue;
    }
    const valid = validate(doc);
    if (valid !== c.ok) {
      fail(label, valid ? "the schema accepts it" : explain(validate.errors));
      continue;
    }
    // A rejection must come from the place the example breaks, not from something incidental.
    if (!valid && c.at !== undefined && !validate.errors.some((e) => e.instancePath === c.at)) {
      fail(label, `no error at "${c.at}":\n${explain(validate.errors)}`);
      continue;
    }
    if (!withLoader) {
      pass(label);
      continue;
    }
    const want = c.ok ? "ok" : c.loader === "ignored" ? "ok" : c.loader;
    const got = loaderVerdict(c.text);
    if (got !== want) {
      fail(label, `ufm-remediator rules check says ${got}, expected ${want}`);
      continue;
    }
    pass(`${label} (rules check: ${got})`);
  }
}

const withLoader = binary !== "";
if (withLoader && !fs.existsSync(binary)) {
  fail("ufm-remediator found", `${binary} does not exist`);
  process.exit(1);
}
try {
  runCases("rules", ruleCases, validateRules, withLoader);
  runCases("tests", testCases, validateTests, false);
} finally {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}

console.log(`${passes} passed, ${failures} failed${withLoader ? "" : " (schema only: no ufm-remediator given)"}`);
process.exit(failures ? 1 : 0);
