#!/usr/bin/env bash
# Checks schema/openapi.yaml against the routes the service registers (ctest: api_openapi).
# Installs the yaml package from npm here on first use, as run.sh does. Reads files only.
set -euo pipefail

die() { echo "api_openapi: FAIL: $*" >&2; exit 1; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v node >/dev/null || die "node not found (run scripts/install-deps.sh)"
if [[ ! -d "$here/node_modules" ]]; then
  command -v npm >/dev/null || die "npm not found (run scripts/install-deps.sh)"
  echo "api_openapi: installing ajv and yaml (npm install)"
  (cd "$here" && timeout 300 npm install --no-audit --no-fund) || die "npm install failed in $here"
fi
exec timeout -k 10 60 node "$here/openapi.mjs"
