#!/usr/bin/env bash
# Builds UFM Remediator and runs every test: unit tests, end-to-end tests against ufm-sim and a
# throwaway PostgreSQL, and the dashboard in headless Chromium. Exits non-zero on any failure.
#
#   scripts/test.sh                  install missing packages (as root), build, run all tests
#   scripts/test.sh -R REGEX ...     extra arguments go to ctest (e.g. -L unit, -R Rules)
#   scripts/test.sh --sanitize ...   the suite built with ASan (and LeakSanitizer) and UBSan in
#                                    build-asan; every report, from a test or from a service or
#                                    simulator a test started, is written to
#                                    build-asan/sanitizer/ and fails the run. Tests whose labels
#                                    match SANITIZE_SKIP_LABELS are left out (see below)
#   scripts/test.sh --both ...       the plain suite, then the sanitized one (what CI runs); the
#                                    sanitized build runs at low priority while the plain tests
#                                    run, since they mostly wait on servers
#
# Environment: BUILD_DIR (default build, or build-asan), BUILD_TYPE (default RelWithDebInfo),
# UFMR_WERROR=ON to make warnings errors, UFMR_UNITY (default ON: each library compiles in batches,
# about a third of the time; OFF compiles file by file), TEST_JOBS (default 2, and 3 for the
# sanitized suite, whose tests spend most of their time waiting on the servers they start: the
# tests start their servers on free ports and private sockets, so they do not collide),
# PLAIN_SKIP_LABELS (a ctest label regex the plain suite leaves out; default none),
# SANITIZE_SKIP_LABELS (a ctest label
# regex; default "chaos|campaign|browser|schema|services|shape": the chaos test and the campaign
# kill the service with SIGKILL, which leaves a sanitizer nothing to report, and the others test
# no C++ the rest of the suite does not; empty runs everything sanitized).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode=plain
case "${1:-}" in
  --sanitize) mode=sanitize; shift ;;
  --both) mode=both; shift ;;
esac
if [[ $mode == both ]]; then
  # The sanitized build (nice 19, in the background) overlaps the plain tests; its output goes
  # to build-asan/build.log, shown if it fails. Each suite has its own folder (BUILD_DIR would
  # make them share one).
  unset BUILD_DIR
  start=$SECONDS
  mkdir -p build-asan
  scripts/install-deps.sh
  status=0
  (NO_TESTS=1 nice -n 19 "$0" --sanitize >build-asan/build.log 2>&1) &
  asan_build=$!
  "$0" "$@" || status=$?
  plain=$((SECONDS - start))
  if ! wait "$asan_build"; then
    echo "== sanitized build failed:"; tail -n 100 build-asan/build.log; exit 1
  fi
  grep '^== times' build-asan/build.log || true
  # The plain run's test times order the sanitized run too (the longest first), unless it has
  # times of its own.
  costs=Testing/Temporary/CTestCostData.txt
  if [[ -f build/$costs && ! -f build-asan/$costs ]]; then
    mkdir -p "build-asan/$(dirname $costs)" && cp "build/$costs" "build-asan/$costs"
  fi
  "$0" --sanitize "$@" || status=$?
  echo "== both suites: plain ${plain}s (the sanitized build alongside), sanitized tests" \
    "$((SECONDS - start - plain))s, total $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
  exit "$status"
fi
sanitize=$([[ $mode == sanitize ]] && echo ON || echo OFF)
build_dir=${BUILD_DIR:-$([[ $sanitize == ON ]] && echo build-asan || echo build)}
jobs=${TEST_JOBS:-$([[ $mode == sanitize ]] && echo 3 || echo 2)}
cores=$(nproc 2>/dev/null || echo 2)

# Each phase prints its name, and the time it took at the end (CI has a budget: see .ci/run).
phase_name=""
phase_start=$SECONDS
phase_times=()
phase() {
  if [[ -n $phase_name ]]; then phase_times+=("$phase_name $((SECONDS - phase_start))s"); fi
  phase_name=$1
  phase_start=$SECONDS
  [[ -n $phase_name ]] && echo "== $phase_name" || true
}
report_times() {
  phase ""
  echo "== times ($build_dir): ${phase_times[*]}"
}
trap report_times EXIT

phase "dependencies"
scripts/install-deps.sh

phase "configure and build ($build_dir)"
# RelWithDebInfo with line tables only (-g1): failures and sanitizer reports keep their functions
# and lines, and the build takes a fifth less time than with full debug information.
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DUFMR_WERROR="${UFMR_WERROR:-OFF}" -DUFMR_SANITIZE="$sanitize" -DUFMR_UNITY="${UFMR_UNITY:-ON}"
cmake --build "$build_dir" -j"$cores"

if [[ -n "${NO_TESTS:-}" ]]; then exit 0; fi

phase "dashboard test packages"
if [[ ! -f tests/dashboard/node_modules/playwright-core/package.json ||
      tests/dashboard/package-lock.json -nt tests/dashboard/node_modules/.package-lock.json ]]; then
  (cd tests/dashboard && npm ci --no-audit --no-fund --loglevel=error)
fi

reports=""
if [[ $sanitize == ON ]]; then
  # Every process the tests start inherits these: a report goes to a file of its own (the
  # services' own logs are not read by every test), and the run fails on any.
  reports="$(pwd)/$build_dir/sanitizer"
  rm -rf "$reports" && mkdir -p "$reports"
  export ASAN_OPTIONS="log_path=$reports/asan:log_exe_name=1:detect_leaks=1:abort_on_error=0:strict_string_checks=1"
  export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"
  export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
fi

phase "tests"
status=0
skip=()
if [[ $sanitize != ON ]]; then
  plain_skip=${PLAIN_SKIP_LABELS-}
  [[ -n $plain_skip ]] && skip=(-LE "$plain_skip")
fi
if [[ $sanitize == ON ]]; then
  skip_labels=${SANITIZE_SKIP_LABELS-chaos|campaign|browser|schema|services|shape}
  [[ -n $skip_labels ]] && skip=(-LE "$skip_labels")
fi
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j"$jobs" "${skip[@]}" "$@" ||
  status=$?
# A test that failed with the suite around it is run again alone, once, when at most three did: one
# that then passes is named as flaky (its failure is printed above); one that fails again fails
# the run, and so do more than three failures (that is a breakage, not load).
failed_log="$build_dir/Testing/Temporary/LastTestsFailed.log"
if [[ $status -eq 8 && -f $failed_log && $(wc -l <"$failed_log") -le 3 ]]; then
  failed=$(cut -d: -f2- "$failed_log" | tr '\n' ' ')
  echo "== failed with the suite: $failed; run again alone, once"
  if ctest --test-dir "$build_dir" --output-on-failure --rerun-failed -j1; then
    echo "== FLAKY (failed with the suite, passed alone): $failed"
    status=0
  fi
fi
if [[ -n "$reports" ]] && compgen -G "$reports/*" >/dev/null; then
  echo "== sanitizer reports ($reports)"
  for f in "$reports"/*; do
    echo "---- $f"
    cat "$f"
  done
  status=1
fi
exit "$status"
