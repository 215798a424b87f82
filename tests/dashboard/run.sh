#!/usr/bin/env bash
# End-to-end test of the dashboard in real headless Chromium (ctest: e2e_dashboard_chromium).
#
#   tests/dashboard/run.sh BUILD_DIR
#
# Starts a throwaway PostgreSQL, ufm-sim and ufm-remediator serve, breaks a leaf-host link in the
# simulator, waits for the service to open a ticket and disable a port, then drives the dashboard
# with playwright-core (tests/dashboard/e2e.mjs): the ticket list, the ticket page with its
# evidence and timeline, "Mark repaired" with what was done, a repeat offender, and the circuit
# breaker's banner (tripped through psql) and "Re-arm". Leaves screenshots and the logs in
# BUILD_DIR/e2e_dashboard/.
# Every wait is bounded; everything started here is stopped on exit.
set -euo pipefail

die() { echo "e2e_dashboard: FAIL: $*" >&2; exit 1; }
# shellcheck source=scripts/service-wait.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/service-wait.sh"
log() { echo "e2e_dashboard: $*"; }

[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
out="$build/e2e_dashboard"

chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[[ -x "$build/ufm-sim" ]] || die "$build/ufm-sim not built"
[[ -x "$build/ufm-remediator" ]] || die "$build/ufm-remediator not built"
[[ -n "$chromium" && -x "$chromium" ]] || die "chromium not found (run scripts/install-deps.sh)"
command -v node >/dev/null || die "node not found (run scripts/install-deps.sh)"
command -v curl >/dev/null || die "curl not found (run scripts/install-deps.sh)"
command -v python3 >/dev/null || die "python3 not found (run scripts/install-deps.sh)"
command -v psql >/dev/null || die "psql not found (run scripts/install-deps.sh)"

if [[ ! -f "$here/node_modules/playwright-core/package.json" ]]; then
  log "installing playwright-core (npm ci)"
  (cd "$here" && timeout 300 npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed in $here"
fi

tmp=$(mktemp -d /tmp/ufmr-e2e-dash.XXXXXX)
pids=()
cleanup() {
  local rc=$?
  set +e
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null
  done
  wait 2>/dev/null
  mkdir -p "$out"
  cp "$tmp"/*.log "$tmp"/config.yaml "$out"/ 2>/dev/null
  if [[ $rc -ne 0 ]]; then
    for f in "$tmp"/serve.log "$tmp"/sim.log; do
      [[ -s "$f" ]] || continue
      echo "----- last lines of $(basename "$f") -----" >&2
      tail -n 40 "$f" >&2
    done
    echo "e2e_dashboard: logs kept in $out" >&2
  fi
  "$src/scripts/pg-temp.sh" stop "$tmp/pg" >/dev/null 2>&1
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
rm -rf "$out"; mkdir -p "$out"

# Starts a command in a process group of its own (so cleanup also stops its children).
start_bg() {
  local logf=$1; shift
  setsid "$@" >"$logf" 2>&1 </dev/null &
  pids+=("$!")
}
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
# json_get EXPR: evaluates a Python expression over the JSON document on stdin, bound to `d`.
json_get() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

log "starting PostgreSQL"
db_url=$("$src/scripts/pg-temp.sh" start "$tmp/pg") || die "could not start PostgreSQL"

log "starting ufm-sim"
start_bg "$tmp/sim.log" "$build/ufm-sim" --listen 127.0.0.1 --port 0 --telemetry-port 0 \
  --topology fat-tree:leaves=4,spines=2,hosts_per_leaf=4 --user admin --password 123456 \
  --ready-file "$tmp/sim-ready.json"
for _ in $(seq 300); do
  [[ -s "$tmp/sim-ready.json" ]] && break
  kill -0 "${pids[0]}" 2>/dev/null || die "ufm-sim exited early"
  sleep 0.1
done
[[ -s "$tmp/sim-ready.json" ]] || die "ufm-sim did not write its ready file within 30 s"
sim_port=$(json_get 'd["port"]' <"$tmp/sim-ready.json")
tel_port=$(json_get 'd["telemetry_port"]' <"$tmp/sim-ready.json")
sim="http://127.0.0.1:$sim_port"

http_port=$(free_port)
# A copy of the shipped rules: the browser checks break and mend it to see the reload banner.
mkdir -p "$tmp/rules"
cp "$src"/rules/*.yaml "$tmp/rules/"
cat >"$tmp/config.yaml" <<EOF
fabric: e2e
ufm:
  url: http://127.0.0.1:$sim_port
  auth: basic
  user: admin
  password: "123456"
  insecure_tls: false
telemetry:
  url: http://127.0.0.1:$tel_port/csv/metrics
  interval_s: 1
database:
  url: "$db_url"
  schema_dir: $src/schema
rules:
  dir: $tmp/rules
  reload_check_interval_s: 1
events:
  poll_interval_s: 1
inventory:
  refresh_interval_s: 2
http:
  listen: 127.0.0.1
  port: $http_port
remediation:
  dry_run: false
  max_disabled_ports: 20
  soak_s: 3
  max_attempts: 3
  # The fat tree's hosts have one link each: the test disables it, which the last-link guard
  # would otherwise refuse.
  min_active_links_host: 0
EOF

log "migrating the database"
timeout 60 "$build/ufm-remediator" db migrate --config "$tmp/config.yaml" >"$tmp/migrate.log" 2>&1 ||
  { cat "$tmp/migrate.log" >&2; die "ufm-remediator db migrate failed"; }

log "starting ufm-remediator serve on port $http_port"
start_bg "$tmp/serve.log" "$build/ufm-remediator" serve --config "$tmp/config.yaml"
serve_pid=${pids[-1]}
base="http://127.0.0.1:$http_port"
wait_healthy "$base" "$serve_pid"
wait_first_pass "$base"

# Break the first leaf-host link, at its switch-side port.
curl -fsS --max-time 10 "$sim/sim/links" >"$tmp/links.json" || die "GET /sim/links failed"
fault_port=$(python3 "$here/jsonq.py" leaf-host-port <"$tmp/links.json") || die "no leaf-host link in /sim/links"
log "injecting link_down on $fault_port"
curl -fsS --max-time 10 -X POST -H 'Content-Type: application/json' \
  -d "{\"kind\":\"link_down\",\"port\":\"$fault_port\"}" "$sim/sim/faults" >/dev/null ||
  die "POST /sim/faults failed"

log "waiting for a ticket with a disabled port"
ticket_id=""
state=""
for _ in $(seq 90); do
  if curl -fsS --max-time 5 "$base/api/tickets?state=all" >"$tmp/tickets.json" 2>/dev/null; then
    read -r ticket_id state < <(python3 "$here/jsonq.py" ticket "$fault_port" <"$tmp/tickets.json") || true
    [[ "$state" == port_disabled ]] && break
  fi
  kill -0 "$serve_pid" 2>/dev/null || die "ufm-remediator serve exited"
  sleep 1
done
[[ -n "$ticket_id" ]] || die "no ticket within 90 s of the link_down fault"
[[ "$state" == port_disabled ]] ||
  die "ticket $ticket_id is '$state', not port_disabled, after 90 s: $(curl -fsS --max-time 5 "$base/api/tickets/$ticket_id")"
log "ticket $ticket_id is $state"

# UFM loses events (its ids jump) while another link breaks: the service must raise an intake
# alert, which the browser half finds as a banner and dismisses.
curl -fsS --max-time 10 -X POST -H 'Content-Type: application/json' -d '{"count":3}' \
  "$sim/sim/events/skip" >/dev/null || die "POST /sim/events/skip failed"
other_port=$(python3 "$here/jsonq.py" leaf-host-port 1 <"$tmp/links.json") || die "no second leaf-host link"
curl -fsS --max-time 10 -X POST -H 'Content-Type: application/json' \
  -d "{\"kind\":\"link_down\",\"port\":\"$other_port\"}" "$sim/sim/faults" >/dev/null ||
  die "POST /sim/faults failed"
for _ in $(seq 60); do
  curl -fsS --max-time 2 "$base/api/alerts" 2>/dev/null | grep -q '"event_id_gap"' && break
  sleep 0.5
done
curl -fsS --max-time 2 "$base/api/alerts" | grep -q '"event_id_gap"' ||
  die "no event_id_gap alert within 30 s of lost UFM events"
log "intake alert raised"

# Fix the cable in the simulator, as a technician would, before reporting the repair.
curl -fsS --max-time 10 -X POST -H 'Content-Type: application/json' \
  -d "{\"port\":\"$fault_port\"}" "$sim/sim/repair" >/dev/null || die "POST /sim/repair failed"

log "driving the dashboard in headless Chromium"
TMPDIR="$tmp" BASE_URL="$base" TICKET_ID="$ticket_id" OUT_DIR="$out" CHROMIUM="$chromium" \
  RULES_DIR="$tmp/rules" SIM_URL="$sim" FAULT_PORT="$fault_port" DB_URL="$db_url" FABRIC=e2e \
  timeout -k 10 180 node "$here/e2e.mjs" || die "browser checks failed (see above)"

log "PASS (screenshots in $out)"
