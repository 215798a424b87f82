// Checks schema/openapi.yaml against the service (ctest: api_openapi): it parses as OpenAPI 3.0,
// every $ref resolves, every operation has responses, and its paths are exactly the routes the
// service's API registers in src/api/ (each route documented, nothing documented that the
// service lacks).
//
//   node tests/schema/openapi.mjs
//
// Offline: reads files only. Exit status 0 when every check passes.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import YAML from "yaml";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
let failures = 0;
function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures += 1;
}

const doc = YAML.parse(fs.readFileSync(path.join(root, "schema", "openapi.yaml"), "utf8"));
check(/^3\.0\.\d+$/.test(String(doc.openapi)), "openapi version 3.0.x");
check(doc.info && doc.info.title && doc.info.version, "info has a title and a version");

// Every $ref points at something that exists.
function resolve(ref) {
  if (!ref.startsWith("#/")) return undefined;
  return ref.slice(2).split("/").reduce((node, key) => (node ? node[key] : undefined), doc);
}
const refs = [];
(function walk(node) {
  if (Array.isArray(node)) return node.forEach(walk);
  if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref") refs.push(v);
      else walk(v);
    }
  }
})(doc);
for (const ref of new Set(refs)) check(resolve(ref) !== undefined, `$ref ${ref} resolves`);

// The routes the service registers (the API's route groups, the silences, the dashboard pages and
// the auth gate's login, logout, me, audit): every source file of src/api/.
const apiDir = path.join(root, "src", "api");
const source = fs
  .readdirSync(apiDir)
  .filter((f) => f.endsWith(".cc"))
  .sort()
  .map((f) => fs.readFileSync(path.join(apiDir, f), "utf8"))
  .join("\n");
const routes = new Set();
for (const m of source.matchAll(/\b(?:router|r)\.Add\(\s*"(GET|POST|PUT|PATCH|DELETE)",\s*"([^"]+)"/g)) {
  routes.add(`${m[1].toLowerCase()} ${m[2]}`);
}
check(routes.size >= 10, `found the service's routes in src/api/ (${routes.size})`);
const documented = new Set();
for (const [p, item] of Object.entries(doc.paths || {})) {
  for (const [method, op] of Object.entries(item)) {
    if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
    documented.add(`${method} ${p}`);
    check(op.responses && Object.keys(op.responses).length > 0, `${method} ${p} has responses`);
    for (const param of op.parameters || []) {
      const q = param.$ref ? resolve(param.$ref) : param;
      if (q && q.in === "path") {
        check(p.includes(`{${q.name}}`), `${method} ${p}: path parameter {${q.name}} in the path`);
      }
    }
  }
}
for (const r of routes) check(documented.has(r), `route ${r} is documented`);
for (const d of documented) check(routes.has(d), `documented ${d} is served`);

console.log(failures === 0 ? "openapi: all checks pass" : `openapi: ${failures} checks failed`);
process.exit(failures === 0 ? 0 : 1);
