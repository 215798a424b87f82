#!/usr/bin/env bash
# Checks that what a webhook receiver is sent matches schema/notification.schema.json (ctest:
# notify_schema): `ufm-remediator notify test` posts to a receiver in Node, whose body Ajv
# validates. Installs ajv from npm here on first use, as run.sh does.
#
#   tests/schema/notification.sh BUILD_DIR
set -euo pipefail

die() { echo "notify_schema: FAIL: $*" >&2; exit 1; }
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v node >/dev/null || die "node not found (run scripts/install-deps.sh)"
if [[ ! -d "$here/node_modules" ]]; then
  command -v npm >/dev/null || die "npm not found (run scripts/install-deps.sh)"
  echo "notify_schema: installing ajv and yaml (npm install)"
  (cd "$here" && timeout 300 npm install --no-audit --no-fund) || die "npm install failed in $here"
fi
build=$(cd "$1" && pwd) || die "no such build directory: $1"
[[ -x "$build/ufm-remediator" ]] || die "$build/ufm-remediator not built"
exec timeout -k 10 60 node "$here/notification.mjs" "$build/ufm-remediator"
