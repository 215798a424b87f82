#!/usr/bin/env bash
# The inventory benchmark: a 100,352-port ports answer (ufm-sim's fat tree of 256 leaves, 64
# spines and 66 hosts a leaf with 2 HCAs each, read from its GET /resources/ports, some 50 MB)
# loaded by `ufm-remediator replay --ports` (read, parsed in one pass, indexed), beside Python's
# json.load of the same file. Prints one row per figure (figure, value, target, ok/MISS/info,
# tab-separated) for scripts/bench; progress goes to stderr.
#
#   bench/inventory_bench.sh [--build-dir DIR] [--no-build]
#
# Figures (the median of 3 runs each): the load time as the replay reports it; the peak RSS the
# load adds (a replay with --ports against the same replay without); Python's json.load; and the
# ratio of the two times.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${BUILD_DIR:-build-bench}
do_build=1
while (($#)); do
  case $1 in
    --build-dir) build=${2:?--build-dir needs a folder}; shift ;;
    --no-build) do_build=0 ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "usage: bench/inventory_bench.sh [--build-dir DIR] [--no-build]" >&2; exit 2 ;;
  esac
  shift
done
log() { echo "inventory_bench: $*" >&2; }
out="$build/bench/inventory"
mkdir -p "$out"
if ((do_build)); then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j"$(nproc)" --target ufm-remediator ufm-sim >&2
fi
bin="$build/ufm-remediator"

if [[ ! -s $out/ports.json ]]; then
  log "reading a 100,352-port answer from ufm-sim"
  rm -f "$out/ready.json"
  "$build/ufm-sim" --port 0 --telemetry-port 0 --ready-file "$out/ready.json" \
    --topology fat-tree:leaves=256,spines=64,hosts_per_leaf=66,hcas_per_host=2 \
    >"$out/sim.log" 2>&1 &
  sim=$!
  trap 'kill $sim 2>/dev/null || true' EXIT
  for _ in $(seq 600); do [[ -s $out/ready.json ]] && break; sleep 0.1; done
  port=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['port'])" "$out/ready.json")
  python3 - "$port" "$out/ports.json.part" <<'PY'
import base64, sys, urllib.request
req = urllib.request.Request(
    f"http://127.0.0.1:{sys.argv[1]}/ufmRest/resources/ports?show_disabled=true",
    headers={"Authorization": "Basic " + base64.b64encode(b"admin:123456").decode()})
with urllib.request.urlopen(req, timeout=300) as r, open(sys.argv[2], "wb") as f:
    f.write(r.read())
PY
  mv "$out/ports.json.part" "$out/ports.json"
  kill $sim 2>/dev/null || true
  trap - EXIT
fi
: >"$out/empty.log"

# replay [--ports]: one replay of the empty log on CPU 0; prints "load_s rss_kb".
replay() {
  /usr/bin/time -f '%M' -o "$out/time.txt" taskset -c 0 "$bin" replay --rules rules/ \
    --event-log "$out/empty.log" --format jsonl "$@" >/dev/null 2>"$out/replay.err"
  local load
  load=$(sed -n 's/^replay: .* ports from .* in \([0-9.]*\) s$/\1/p' "$out/replay.err")
  [[ -n $load ]] && cp "$out/replay.err" "$out/replay-ports.err"
  echo "${load:-0} $(cat "$out/time.txt")"
}
median() { sort -g | sed -n 2p; }

log "loading it 3 times, and 3 times without it"
loads=() with=() without=()
for _ in 1 2 3; do
  read -r s kb < <(replay --ports "$out/ports.json")
  loads+=("$s") with+=("$kb")
  read -r _ kb < <(replay)
  without+=("$kb")
done
load_s=$(printf '%s\n' "${loads[@]}" | median)
rss_with=$(printf '%s\n' "${with[@]}" | median)
rss_without=$(printf '%s\n' "${without[@]}" | median)
added_mb=$(((rss_with - rss_without) / 1024))
ports=$(sed -n 's/^replay: \([0-9]*\) ports from .*/\1/p' "$out/replay-ports.err")
log "Python's json.load, 3 times"
py_s=$(for _ in 1 2 3; do
  taskset -c 0 python3 -c "
import json, sys, time
t = time.perf_counter(); json.load(open(sys.argv[1])); print(time.perf_counter() - t)" \
    "$out/ports.json"
done | median)

check() { python3 -c "import sys; print('ok' if eval(sys.argv[1]) else 'MISS')" "$1"; }
printf 'inventory of %s ports from ports.json: load time (s)\t%.3f\t<= 0.5\t%s\n' \
  "$ports" "$load_s" "$(check "$load_s <= 0.5")"
printf 'the same: peak RSS it adds (MB)\t%s\t<= 100\t%s\n' "$added_mb" "$(check "$added_mb <= 100")"
printf "the same file by Python's json.load (s)\t%.3f\t\tinfo\n" "$py_s"
printf "the load against Python's json.load (ratio of times)\t%.2f\t<= 1\t%s\n" \
  "$(python3 -c "print($load_s / $py_s)")" "$(check "$load_s <= $py_s")"
