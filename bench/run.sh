#!/usr/bin/env bash
# Builds and runs the benchmarks; prints figures (time per telemetry poll at fabric scale, event
# parsing, peak memory; the telemetry intake at 100k ports; rule evaluation and a 500-rule reload;
# the ticket-list API at 200 requests/s over 10,000 tickets, bench/api_bench.sh).
# Usage: bench/run.sh [PORTS] [POLLS]
# API_BENCH=0 skips the API benchmark (it needs PostgreSQL and wrk); API_BENCH_DURATION=S sets its
# seconds per URL (default 30).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" -j"$(nproc)" --target pipeline_bench >/dev/null
/usr/bin/time -f "peak RSS: %M KiB" "$build_dir/pipeline_bench" "${1:-20000}" "${2:-10}" rules
cmake --build "$build_dir" -j"$(nproc)" --target event_log_bench >/dev/null && /usr/bin/time -f "peak RSS: %M KiB" "$build_dir/event_log_bench"
cmake --build "$build_dir" -j"$(nproc)" --target telemetry_bench >/dev/null && /usr/bin/time -f "peak RSS: %M KiB" "$build_dir/telemetry_bench" "${TELEMETRY_PORTS:-100000}" 10 rules
# (no RSS here: the pre-generated event stream, not the engine, dominates it)
cmake --build "$build_dir" -j"$(nproc)" --target rules_bench >/dev/null && "$build_dir/rules_bench" "${RULE_EVENTS:-2000000}" rules
if [[ ${API_BENCH:-1} != 0 ]]; then
  BUILD_DIR="$build_dir" bench/api_bench.sh --duration "${API_BENCH_DURATION:-30}"
fi
