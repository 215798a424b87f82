#!/usr/bin/env bash
# The replay benchmark: `ufm-remediator replay` over generated UFM event logs
# (bench/fabric_history.cc: a fat tree's log with the production mix of events), decisions
# written as JSONL. Prints one row per figure (figure, value, target, ok/MISS/info,
# tab-separated) for scripts/bench; progress goes to stderr.
#
#   bench/replay_bench.sh [--quick] [--imbue SCRIPT] [--build-dir DIR] [--no-build]
#
# Figures: lines/s on one core over 1,000,000 lines of a 32-leaf, 16-spine fabric (1,024 links),
# and with --jobs 2 on two cores (its decisions must be the same); the cost per line of a fabric
# 32 times wider (1,024 leaves) against the narrow one; 30 days of a 100,000-port fabric's log
# with reboots and storms (about 20 million lines) with --jobs 2: time and peak RSS. --quick uses 200,000 lines and a 2-day history. With --imbue (or
# IMBUE_SCRIPT), Imbue's find_problematic_events.py (github.com/imbue-ai/cluster-health,
# ufm_events/; needs python3-attr and python3-requests) runs over the same narrow log, in the
# same run, through bench/imbue_replay.py, and the ratio is shown.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
quick=0
imbue=${IMBUE_SCRIPT:-}
build=${BUILD_DIR:-build-bench}
do_build=1
usage="usage: bench/replay_bench.sh [--quick] [--imbue SCRIPT] [--build-dir DIR] [--no-build]"
while (($#)); do
  case $1 in
    --quick) quick=1 ;;
    --imbue) imbue=${2:?--imbue needs the script\'s path}; shift ;;
    --build-dir) build=${2:?--build-dir needs a folder}; shift ;;
    --no-build) do_build=0 ;;
    -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift
done
if [[ -n $imbue && ! -f $imbue ]]; then
  echo "replay_bench: no such script: $imbue" >&2
  exit 2
fi
log() { echo "replay_bench: $*" >&2; }
out="$build/bench/replay"
mkdir -p "$out"

if ((do_build)); then
  log "building (RelWithDebInfo) in $build"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j"$(nproc)" --target ufm-remediator fabric_history >&2
fi
bin="$build/ufm-remediator"
gen="$build/fabric_history"

# run NAME ARGS...: replay with ARGS on CPU 0; sets secs, rss_mb and lines (of the log).
run() {
  local name=$1
  shift
  /usr/bin/time -f '%e %M' -o "$out/$name.time" taskset -c "${CPUS:-0}" \
    "$bin" replay --rules rules/ --format jsonl "$@" >"$out/$name.jsonl" 2>"$out/$name.err"
  read -r secs rss_kb <"$out/$name.time"
  rss_mb=$((rss_kb / 1024))
  log "$name: ${secs}s, peak RSS ${rss_mb} MB: $(tail -n 1 "$out/$name.err")"
}
rate() { python3 -c "import sys; print(f'{int(float(sys.argv[1]) / float(sys.argv[2])):,}')" "$@"; }
check() { python3 -c "import sys; print('ok' if eval(sys.argv[1]) else 'MISS')" "$1"; }

if ((quick)); then lines=200000; else lines=1000000; fi

log "generating $lines lines of a 32-leaf fabric and of a 1,024-leaf one"
"$gen" --lines "$lines" --leaves 32 --spines 16 --hosts 16 --out "$out/narrow.log"
"$gen" --lines "$lines" --leaves 1024 --spines 16 --hosts 16 --out "$out/wide.log"

run narrow --event-log "$out/narrow.log"
narrow_s=$secs
printf 'replay, %s lines of a 1,024-link fabric, 1 core (lines/s)\t%s\t>= 1,000,000\t%s\n' \
  "$(rate "$lines" 1)" "$(rate "$lines" "$secs")" "$(check "$lines / $secs >= 1e6")"

CPUS=0,1 run narrow-jobs2 --event-log "$out/narrow.log" --jobs 2
printf 'replay, the same with --jobs 2 on 2 cores (lines/s)\t%s\t\tinfo\n' "$(rate "$lines" "$secs")"
if ! cmp -s "$out/narrow.jsonl" "$out/narrow-jobs2.jsonl"; then
  printf 'replay --jobs 2 decides as one thread does\tno\tsame\tMISS\n'
fi

run wide --event-log "$out/wide.log"
ratio=$(python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" \
  "$secs" "$narrow_s")
printf 'replay, 32 times wider fabric: cost per line against the narrow one\t%s\t<= 2\t%s\n' \
  "$ratio" "$(check "$ratio <= 2")"

if [[ -n $imbue ]]; then
  log "Imbue's find_problematic_events.py over the narrow log"
  read -r imbue_s imbue_actions < <(python3 bench/imbue_replay.py "$imbue" "$out/narrow.log" \
    "$out/imbue-actions.txt")
  printf 'find_problematic_events.py, the same %s lines (s)\t%s\t\tinfo\n' \
    "$(rate "$lines" 1)" "$imbue_s"
  printf 'replay against find_problematic_events.py (times faster)\t%s\t\tinfo\n' \
    "$(python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.1f}')" \
      "$imbue_s" "$narrow_s")"
  log "Imbue: ${imbue_s}s, $imbue_actions actions"
fi

# 30 days of a 100,000-port fabric: 1,563 leaves of 16 hosts and 16 spine links each (50,016
# links), an entry every 0.13 s on average, reboots and storms.
if ((quick)); then days=2; else days=30; fi
history_lines=$((days * 86400 * 100 / 13))
log "generating $days days of a 100,000-port fabric ($history_lines lines)"
"$gen" --lines "$history_lines" --leaves 1563 --spines 16 --hosts 16 --interval 0.13 --storms \
  --out "$out/history.log"
CPUS=0,1 run history --event-log "$out/history.log" --jobs 2
printf 'replay, %s days of a 100,000-port fabric (%s lines), 2 cores (s)\t%s\t<= %s\t%s\n' \
  "$days" "$(rate "$history_lines" 1)" "$secs" "$((days * 2))" "$(check "$secs <= $days * 2")"
printf 'replay, the same: peak RSS (MB)\t%s\t<= 1024\t%s\n' "$rss_mb" "$(check "$rss_mb <= 1024")"
rm -f "$out"/*.log
