#!/usr/bin/env bash
# Checks the editor schemas for rules files and rule tests (ctest: rules_schema).
#
#   tests/schema/run.sh [BUILD_DIR]
#
# schema/rules.schema.json and schema/rule-tests.schema.json must accept every shipped
# rules/*.yaml and rules/tests/*.yaml and reject typical mistakes (tests/schema/check.mjs, with Ajv
# and the yaml package from npm, installed here on first use). With BUILD_DIR holding a built
# ufm-remediator, every rules example also goes through `ufm-remediator rules check`, so the schema
# cannot drift from the loader unnoticed. Reads files only; needs no service.
set -euo pipefail

die() { echo "rules_schema: FAIL: $*" >&2; exit 1; }

[[ $# -le 1 ]] || { echo "usage: $0 [BUILD_DIR]" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v node >/dev/null || die "node not found (run scripts/install-deps.sh)"

if [[ ! -d "$here/node_modules" ]]; then
  command -v npm >/dev/null || die "npm not found (run scripts/install-deps.sh)"
  echo "rules_schema: installing ajv and yaml (npm install)"
  (cd "$here" && timeout 300 npm install --no-audit --no-fund) || die "npm install failed in $here"
fi

binary=""
if [[ $# -eq 1 ]]; then
  build=$(cd "$1" && pwd) || die "no such build directory: $1"
  [[ -x "$build/ufm-remediator" ]] || die "$build/ufm-remediator not built"
  binary="$build/ufm-remediator"
fi

exec timeout -k 10 120 node "$here/check.mjs" ${binary:+"$binary"}
