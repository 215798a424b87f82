// Checks schema/notification.schema.json against what the service sends: the schema compiles
// under Ajv's strict mode (draft 2020-12); the body `ufm-remediator notify test` posts to a
// webhook receiver (an HTTP server here, on loopback) is valid, and carries its idempotency key
// as a header too; typical mistakes (no key, an unknown field, a bad time) are rejected.
//
//   node tests/schema/notification.mjs UFM_REMEDIATOR
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import Ajv2020 from "ajv/dist/2020.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
const binary = process.argv[2];
let failures = 0;
function check(ok, what, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) {
    failures += 1;
    if (detail) console.log(String(detail).replace(/^/gm, "       "));
  }
}

const schema = JSON.parse(fs.readFileSync(path.join(root, "schema", "notification.schema.json"), "utf8"));
const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);

// A receiver that records one POST.
const received = [];
const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => { body += c; });
  req.on("end", () => {
    received.push({ method: req.method, headers: req.headers, body });
    res.writeHead(200, { "Content-Type": "text/plain" });
    res.end("ok");
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "notify-schema-"));
const config = path.join(dir, "config.yaml");
fs.writeFileSync(config, [
  "fabric: schema-check",
  "ufm: {url: 'https://127.0.0.1:1'}",
  "database: {url: 'postgresql://nobody@127.0.0.1:1/none'}",
  "notify:",
  "  dashboard_url: http://dash.example/",
  "  receivers:",
  `    - {name: hook, type: webhook, url: 'http://127.0.0.1:${server.address().port}/hook'}`,
  ""].join("\n"));
try {
  const { stdout } = await promisify(execFile)(binary, ["notify", "test", "--config", config]);
  check(stdout.includes("hook (webhook): delivered"), "notify test says the message was delivered", stdout);
} catch (e) {
  check(false, "notify test exits 0", `${e.message}\n${e.stdout || ""}${e.stderr || ""}`);
}
server.close();
fs.rmSync(dir, { recursive: true, force: true });

check(received.length === 1, "the receiver got one POST", JSON.stringify(received));
if (received.length === 1) {
  const body = JSON.parse(received[0].body);
  check(validate(body), "the webhook body matches the schema", JSON.stringify(validate.errors, null, 2));
  check(received[0].headers["idempotency-key"] === body.idempotency_key,
    "the Idempotency-Key header is the body's idempotency_key", received[0].headers["idempotency-key"]);
  const mistakes = {
    "no idempotency_key": (b) => { delete b.idempotency_key; },
    "an unknown field": (b) => { b.extra = 1; },
    "a time without milliseconds": (b) => { b.notifications[0].at = "2026-12-04T10:00:00Z"; },
    "no notifications": (b) => { b.notifications = []; },
    "a label that is not a string": (b) => { b.notifications[0].labels.ticket = 12; },
  };
  for (const [what, spoil] of Object.entries(mistakes)) {
    const b = structuredClone(body);
    spoil(b);
    check(!validate(b), `the schema rejects ${what}`);
  }
}
process.exit(failures ? 1 : 0);
