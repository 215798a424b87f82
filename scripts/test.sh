#!/usr/bin/env bash
# Builds UFM Remediator and runs every test: unit tests, end-to-end tests against ufm-sim and a
# throwaway PostgreSQL, and the dashboard in headless Chromium. Exits non-zero on any failure.
#
#   scripts/test.sh                  install missing packages (as root), build, run all tests
#   scripts/test.sh -R REGEX ...     extra arguments go to ctest (e.g. -L unit, -R Rules)
#
# Environment: BUILD_DIR (default build), BUILD_TYPE (default RelWithDebInfo), UFMR_WERROR=ON to
# make warnings errors, TEST_JOBS (default 2: the tests start their own servers on free ports and
# private sockets, so they do not collide).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=${BUILD_DIR:-build}
jobs=${TEST_JOBS:-2}
cores=$(nproc 2>/dev/null || echo 2)

echo "== dependencies"
scripts/install-deps.sh

echo "== configure and build ($build_dir)"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DUFMR_WERROR="${UFMR_WERROR:-OFF}"
cmake --build "$build_dir" -j"$cores"

echo "== dashboard test packages"
if [[ ! -f tests/dashboard/node_modules/playwright-core/package.json ||
      tests/dashboard/package-lock.json -nt tests/dashboard/node_modules/.package-lock.json ]]; then
  (cd tests/dashboard && npm ci --no-audit --no-fund --loglevel=error)
fi

echo "== tests"
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j"$jobs" "$@"
