#!/usr/bin/env bash
# End-to-end test of the dashboard in real headless Chromium (ctest: e2e_dashboard_chromium).
#
#   tests/dashboard/run.sh BUILD_DIR
#
# Starts a throwaway PostgreSQL, ufm-sim and ufm-remediator serve (no anonymous reads), creates a
# technician, a viewer and an engineer with the CLI (and an API token for the engineer, used by
# the test's own API reads), makes UFM lose events so an intake alert is up, then drives the
# dashboard with playwright-core (tests/dashboard/e2e.mjs): logging in, a fault injected while
# the queue is open appearing without a reload, the ticket page (both ends, evidence, counter
# chart, a hostile node description shown as text), acknowledge, assign, comment, the repair
# report followed live to closed, CSV export, the printable work order, a repeat offender, the
# viewer's read-only page (its mutations answer 403), anonymous reads (401), and as the engineer
# the alert and rules-reload banners, the circuit breaker's banner and "Re-arm", silences and
# "won't fix" / reopen. Leaves screenshots and the logs in BUILD_DIR/e2e_dashboard/.
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
# link_down waits 4 s instead of 30 s for the link to come back, to keep the test short.
mkdir -p "$tmp/rules"
cp "$src"/rules/*.yaml "$tmp/rules/"
sed -i '0,/^    for: 30s$/s//    for: 4s/' "$tmp/rules/links.yaml"
grep -q '^    for: 4s$' "$tmp/rules/links.yaml" || die "could not shorten link_down's wait in the rules copy"
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
dashboard:
  # Counter samples every second, so the ticket page's chart has data within the test.
  counter_sample_interval_s: 1
remediation:
  dry_run: false
  max_disabled_ports: 20
  # Long enough that the page, polling every 3 s, sees "verifying" before "closed".
  soak_s: 10
  max_attempts: 3
  # The fat tree's hosts have one link each: the test disables it, which the last-link guard
  # would otherwise refuse.
  min_active_links_host: 0
notify:
  # A receiver that is never there (nothing listens on port 9): its messages fail, and the page
  # says so.
  receivers:
    - {name: e2e-hook, type: webhook, url: "http://127.0.0.1:9/hook", timeout_s: 1}
  route: {receiver: e2e-hook, group_wait: 1s, group_interval: 1s}
EOF

log "migrating the database"
timeout 60 "$build/ufm-remediator" db migrate --config "$tmp/config.yaml" >"$tmp/migrate.log" 2>&1 ||
  { cat "$tmp/migrate.log" >&2; die "ufm-remediator db migrate failed"; }

# People: passwords on stdin (first line), as an administrator would type them.
tech_user=tech.e2e tech_pass="tech-pass-$RANDOM$RANDOM"
viewer_user=viewer.e2e viewer_pass="viewer-pass-$RANDOM$RANDOM"
eng_user=eng.e2e eng_pass="eng-pass-$RANDOM$RANDOM"
add_user() {
  printf '%s\n' "$3" | timeout 30 "$build/ufm-remediator" user add "$1" --role "$2" --config "$tmp/config.yaml" \
    >>"$tmp/users.log" 2>&1 || { cat "$tmp/users.log" >&2; die "ufm-remediator user add $1 --role $2 failed"; }
}
log "creating users (technician, viewer, engineer)"
add_user "$tech_user" technician "$tech_pass"
add_user "$viewer_user" viewer "$viewer_pass"
add_user "$eng_user" engineer "$eng_pass"
token=$(timeout 30 "$build/ufm-remediator" token create --user "$eng_user" --config "$tmp/config.yaml" 2>>"$tmp/users.log" |
  tail -n 1 | tr -d '[:space:]') || die "ufm-remediator token create failed: $(cat "$tmp/users.log")"
[[ -n "$token" ]] || die "ufm-remediator token create printed no token: $(cat "$tmp/users.log")"
auth=(-H "Authorization: Bearer $token")

log "starting ufm-remediator serve on port $http_port"
start_bg "$tmp/serve.log" "$build/ufm-remediator" serve --config "$tmp/config.yaml"
serve_pid=${pids[-1]}
base="http://127.0.0.1:$http_port"
wait_healthy "$base" "$serve_pid"
wait_first_pass "$base"

code=$(curl -sS --max-time 5 -o /dev/null -w '%{http_code}' "$base/api/tickets") || die "GET /api/tickets failed"
[[ "$code" == 401 ]] || die "GET /api/tickets without credentials answered HTTP $code, expected 401"
curl -fsS --max-time 5 "${auth[@]}" "$base/api/me" >"$tmp/me.json" || die "GET /api/me with the engineer's token failed"
[[ $(json_get 'd.get("role")' <"$tmp/me.json") == engineer ]] || die "GET /api/me with the token: $(cat "$tmp/me.json")"

# The link the browser breaks (at its switch-side port) and its host end; two more links for the
# intake alert, each on a leaf of its own (links down together on one leaf look like a switch
# problem, which covers the link findings).
curl -fsS --max-time 10 "$sim/sim/links" >"$tmp/links.json" || die "GET /sim/links failed"
fault_port=$(python3 "$here/jsonq.py" leaf-host-port <"$tmp/links.json") || die "no leaf-host link in /sim/links"
host_port=$(python3 "$here/jsonq.py" peer "$fault_port" <"$tmp/links.json") || die "no host end for $fault_port"
other_port=$(python3 "$here/jsonq.py" leaf-host-port 4 <"$tmp/links.json") || die "no second leaf-host link"

# Another link breaks and the service reads its events; then UFM loses events (its ids jump) and a
# third link breaks: the service must raise an intake alert, which the browser half finds as a
# banner and an engineer dismisses.
third_port=$(python3 "$here/jsonq.py" leaf-host-port 8 <"$tmp/links.json") || die "no third leaf-host link"
curl -fsS --max-time 10 -X POST -H 'Content-Type: application/json' \
  -d "{\"kind\":\"link_down\",\"port\":\"$other_port\"}" "$sim/sim/faults" >/dev/null ||
  die "POST /sim/faults failed"
for _ in $(seq 60); do
  curl -fsS --max-time 2 "${auth[@]}" "$base/api/tickets?state=all" >"$tmp/tickets.json" 2>/dev/null &&
    python3 "$here/jsonq.py" ticket "$other_port" <"$tmp/tickets.json" >/dev/null 2>&1 && break
  sleep 0.5
done
python3 "$here/jsonq.py" ticket "$other_port" <"$tmp/tickets.json" >/dev/null 2>&1 ||
  die "no ticket for the link_down on $other_port within 30 s"
curl -fsS --max-time 10 -X POST -H 'Content-Type: application/json' -d '{"count":3}' \
  "$sim/sim/events/skip" >/dev/null || die "POST /sim/events/skip failed"
curl -fsS --max-time 10 -X POST -H 'Content-Type: application/json' \
  -d "{\"kind\":\"link_down\",\"port\":\"$third_port\"}" "$sim/sim/faults" >/dev/null ||
  die "POST /sim/faults failed"
for _ in $(seq 60); do
  curl -fsS --max-time 2 "${auth[@]}" "$base/api/alerts" 2>/dev/null | grep -q '"event_id_gap"' && break
  sleep 0.5
done
curl -fsS --max-time 2 "${auth[@]}" "$base/api/alerts" | grep -q '"event_id_gap"' ||
  die "no event_id_gap alert within 30 s of lost UFM events"
log "intake alert raised"

log "driving the dashboard in headless Chromium"
TMPDIR="$tmp" BASE_URL="$base" OUT_DIR="$out" CHROMIUM="$chromium" RULES_DIR="$tmp/rules" SIM_URL="$sim" \
  FAULT_PORT="$fault_port" HOST_PORT="$host_port" DB_URL="$db_url" FABRIC=e2e API_TOKEN="$token" \
  TECH_USER="$tech_user" TECH_PASS="$tech_pass" VIEWER_USER="$viewer_user" VIEWER_PASS="$viewer_pass" \
  ENG_USER="$eng_user" ENG_PASS="$eng_pass" \
  timeout -k 10 240 node "$here/e2e.mjs" || die "browser checks failed (see above)"

log "PASS (screenshots in $out)"
