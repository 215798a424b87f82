#!/usr/bin/env bash
# Benchmark of the ticket-list API: with 10,000 tickets in PostgreSQL, does GET /api/tickets answer
# with p99 <= 50 ms at 200 requests/s? Measured with wrk, paced (bench/api_paced.lua), one run per
# URL (the technician queue, a deep page sorted by age, a text search, a rule and age filter).
#
#   bench/api_bench.sh [--duration S] [--rate R] [--connections C] [--tickets N]
#                      [--build-dir DIR] [--no-build]
#
# Starts a throwaway PostgreSQL (scripts/pg-temp.sh) and ufm-sim (a fat tree; FABRIC_SPEC), migrates,
# seeds N tickets directly with SQL (states, rules, guards, 90 days of history, 3-6 timeline
# entries and one or two port actions each, on the simulator's real links), takes the ports of
# held tickets out in the simulator (so reconciliation finds no drift), starts `ufm-remediator
# serve`, then runs wrk on each URL: a short warm-up (not counted; it also tunes the pacing to the
# measured latency) and the measured run. Prints one table: URL, rows answered, achieved req/s,
# p50, p99, max, non-2xx, the service's CPU time per request, the machine's load, and `ok` when
# p99 <= P99_LIMIT_MS (50) at >= 95 % of the asked rate.
# Requests carry a Bearer token when the build has `user add` and `token create`, else the config
# allows anonymous reads. Exits non-zero if anything fails to start (a MISS is only reported);
# every wait is bounded and everything started here is stopped on exit. Installs wrk with apt-get
# when missing (as root). Logs, the table and the plans of statements slower than SLOW_PLAN_MS
# (50; auto_explain) are left in BUILD_DIR/api_bench/. HOLD_S=N keeps everything up N s before the
# runs, to look at it by hand.
set -euo pipefail

die() { echo "api_bench: FAIL: $*" >&2; exit 1; }
log() { echo "api_bench: $*" >&2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/.." && pwd)
# shellcheck source=scripts/service-wait.sh
. "$src/scripts/service-wait.sh"

duration=30
rate=200
conns=20
tickets=10000
build_dir=${BUILD_DIR:-build}
build=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --duration) duration=${2:?}; shift 2 ;;
    --rate) rate=${2:?}; shift 2 ;;
    --connections) conns=${2:?}; shift 2 ;;
    --tickets) tickets=${2:?}; shift 2 ;;
    --build-dir) build_dir=${2:?}; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "api_bench: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for v in duration rate conns tickets; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--${v/conns/connections} must be a positive integer"
done
(( tickets >= 1000 )) || die "--tickets must be at least 1000"
fabric_spec=${FABRIC_SPEC:-fat-tree:leaves=64,spines=32,hosts_per_leaf=32}
p99_limit_ms=${P99_LIMIT_MS:-50}
warmup_s=${WARMUP_S:-5}

for tool in curl python3 psql; do
  command -v "$tool" >/dev/null || die "$tool not found (run scripts/install-deps.sh)"
done
if ! command -v wrk >/dev/null; then
  [[ $(id -u) -eq 0 ]] || die "wrk not found; install it: sudo apt-get install -y wrk"
  log "installing wrk (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  timeout 300 apt-get install -y -q wrk >/dev/null 2>&1 ||
    { timeout 300 apt-get update -q >/dev/null 2>&1 && timeout 300 apt-get install -y -q wrk >/dev/null 2>&1; } ||
    die "apt-get install wrk failed"
fi

cd "$src"
if [[ $build -eq 1 ]]; then
  log "building ufm-remediator and ufm-sim in $build_dir"
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build_dir" -j"$(nproc)" --target ufm-remediator ufm-sim >/dev/null ||
    die "build failed"
fi
bin=$(cd "$build_dir" && pwd)
[[ -x "$bin/ufm-remediator" && -x "$bin/ufm-sim" ]] || die "ufm-remediator or ufm-sim not built in $build_dir"
out="$bin/api_bench"

tmp=$(mktemp -d /tmp/ufmr-api-bench.XXXXXX)
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
  rm -rf "$out"; mkdir -p "$out"
  cp "$tmp"/*.log "$tmp"/*.txt "$tmp"/config.yaml "$out"/ 2>/dev/null
  [[ -s "$tmp/pg/pgdir" ]] && cp "$(cat "$tmp/pg/pgdir")/server.log" "$out/postgres.log" 2>/dev/null
  if [[ $rc -ne 0 ]]; then
    for f in "$tmp"/serve.log "$tmp"/sim.log; do
      [[ -s "$f" ]] || continue
      echo "----- last lines of $(basename "$f") -----" >&2
      tail -n 30 "$f" >&2
    done
    echo "api_bench: logs kept in $out" >&2
  fi
  "$src/scripts/pg-temp.sh" stop "$tmp/pg" >/dev/null 2>&1
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts a command in a process group of its own (so cleanup also stops its children).
start_bg() {
  local logf=$1; shift
  setsid "$@" >"$logf" 2>&1 </dev/null &
  pids+=("$!")
}
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
json_get() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

log "starting PostgreSQL"
db_url=$("$src/scripts/pg-temp.sh" start "$tmp/pg") || die "could not start PostgreSQL"
sql() { psql "$db_url" -X -q -v ON_ERROR_STOP=1 "$@"; }

log "starting ufm-sim ($fabric_spec)"
start_bg "$tmp/sim.log" "$bin/ufm-sim" --listen 127.0.0.1 --port 0 --telemetry-port 0 \
  --topology "$fabric_spec" --user admin --password 123456 --ready-file "$tmp/sim-ready.json"
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
rules_dir=$tmp/rules
mkdir -p "$rules_dir"
cp "$src"/rules/*.yaml "$rules_dir/"
# The service's defaults, but for what a test fabric needs; held tickets are seeded past the caps.
write_config() {
  cat >"$tmp/config.yaml" <<EOF
fabric: bench
ufm:
  url: http://127.0.0.1:$sim_port
  auth: basic
  user: admin
  password: "123456"
telemetry:
  url: http://127.0.0.1:$tel_port/csv/metrics
database:
  url: "$db_url"
  schema_dir: $src/schema
rules:
  dir: $rules_dir
http:
  listen: 127.0.0.1
  port: $http_port
remediation:
  max_disabled_ports: 1000
  max_disabled_percent: 100
  max_disabled_per_switch: 100
  min_active_links_host: 0
EOF
  if [[ ${1:-} == anonymous ]]; then
    printf 'auth:\n  anonymous_read: true\n' >>"$tmp/config.yaml"
  fi
}

# --- Authentication: a viewer's API token when the build can make one, else anonymous reads (or,
# on a build from before the auth section, no authentication at all).
with_token=0
"$bin/ufm-remediator" user add --help >/dev/null 2>&1 &&
  "$bin/ufm-remediator" token create --help >/dev/null 2>&1 && with_token=1
auth_mode="Bearer token (viewer)"
if [[ $with_token -eq 1 ]]; then
  write_config
else
  write_config anonymous
  auth_mode="anonymous read (this build has no user/token commands)"
fi

log "migrating the database"
migrate() {
  timeout 120 "$bin/ufm-remediator" db migrate --config "$tmp/config.yaml" >"$tmp/migrate.log" 2>&1
}
if ! migrate; then
  if [[ $with_token -eq 0 ]] && grep -q 'auth: unknown key' "$tmp/migrate.log"; then
    write_config
    auth_mode="no authentication (this build has no auth section)"
    migrate || { cat "$tmp/migrate.log" >&2; die "ufm-remediator db migrate failed"; }
  else
    cat "$tmp/migrate.log" >&2; die "ufm-remediator db migrate failed"
  fi
fi

token=""
if [[ $with_token -eq 1 ]]; then
  log "creating user 'bench' (viewer) and an API token"
  password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
  printf '%s\n%s\n' "$password" "$password" |
    timeout 60 "$bin/ufm-remediator" user add bench --role viewer --config "$tmp/config.yaml" \
      >"$tmp/user.log" 2>&1 || { cat "$tmp/user.log" >&2; die "ufm-remediator user add failed"; }
  token=$(timeout 60 "$bin/ufm-remediator" token create --user bench --config "$tmp/config.yaml" \
            2>"$tmp/token.log" | tail -n 1 | tr -d '[:space:]') ||
    { cat "$tmp/token.log" >&2; die "ufm-remediator token create failed"; }
  [[ -n "$token" ]] || die "ufm-remediator token create printed no token"
fi

# --- Seed: the fabric's links as UFM lists its ports (leaf end first), shuffled, are the pool
# tickets are drawn from, each with where it is as the service records it when it files a ticket
# (both ends from the inventory, the switch's and the host's names, the text a search matches).
log "seeding $tickets tickets"
curl -fsS --max-time 60 -u admin:123456 "$sim/ufmRest/resources/ports" >"$tmp/ports.json" ||
  die "GET /ufmRest/resources/ports failed"
curl -fsS --max-time 60 -u admin:123456 "$sim/ufmRest/resources/links?cable_info=true" \
  >"$tmp/links.json" || die "GET /ufmRest/resources/links failed"
python3 - "$tmp/ports.json" "$tmp/links.json" >"$tmp/links.tsv" <<'PY'
import json, random, sys
ports = {p["name"].lower(): p for p in json.load(open(sys.argv[1]))}
# As UFM answers: a port's label is its dname; the cable serial comes with the links.
serials = {}
for l in json.load(open(sys.argv[2])):
    for side in ("source", "destination"):
        # Inside "cable_info" as UFM answers ?cable_info=true; a flat "serial_number" beside the
        # link in older simulators.
        info = l.get("cable_info") if isinstance(l.get("cable_info"), dict) else {}
        serial = (info.get("serial_number") or l.get("serial_number", "")).strip()
        # "NA" and "N/A" say there is none, as the service reads them.
        serials[(l[side + "_guid"] + "_" + l[side + "_port"]).lower()] = (
            "" if serial.upper() in ("NA", "N/A") else serial)
def end(p):
    return {"name": p["name"].lower(), "guid": p["guid"], "system_guid": p["systemID"],
            "system_name": p["system_name"], "node_description": p["node_description"],
            "label": p["dname"], "number": p["number"],
            "cable_serial": serials.get(p["name"].lower(), ""),
            "is_switch": p["description"].startswith("Switch")}
links = []
for name, p in sorted(ports.items()):
    peer = ports.get(p.get("peer", "").lower())
    if p.get("tier") != 1 or peer is None:  # leaf ports only: each link once, leaf end first
        continue
    ends = [end(p), end(peer)]
    key = "|".join(sorted([ends[0]["name"], ends[1]["name"]]))
    search = key
    for e in ends:
        for f in ("guid", "system_guid", "system_name", "node_description", "label", "cable_serial"):
            if e[f]:
                search += " " + str(e[f])
    host = ends[1]["system_name"] if not ends[1]["is_switch"] else ""
    links.append([ends[0]["name"], ends[1]["name"], ends[0]["cable_serial"],
                  "host" if host else "uplink", json.dumps(ends, separators=(",", ":")),
                  ends[0]["system_name"], host, search.lower()])
random.Random(42).shuffle(links)
for l in links:
    print("\t".join(l))
PY
[[ -s "$tmp/links.tsv" ]] || die "no links in UFM's port list"
sql -c "CREATE TABLE bench_links (n serial PRIMARY KEY, sw text, peer text, serial text, kind text,
                                  ends text, switch_name text, host_name text, search_text text)"
sql -c "\\copy bench_links (sw, peer, serial, kind, ends, switch_name, host_name, search_text) FROM STDIN" \
  <"$tmp/links.tsv"
active=$(( tickets * 3 / 100 ))
sql -v closed=$(( tickets - active )) -v active=$active >"$tmp/seed.log" 2>&1 <<'SQL' || { cat "$tmp/seed.log" >&2; die "seeding failed"; }
SELECT setseed(0.42);

-- Rules with their share of tickets ([lo, hi) of a uniform draw), a reason and the evidence.
CREATE TEMP TABLE rule_mix (rule text, lo float8, hi float8, reason text, explanation text, method text);
INSERT INTO rule_mix VALUES
  ('link_down',            0.00, 0.30, 'link down for 30 s',
   'UFM reported the link down (event 1502) and it stayed down for 30 s.', 'disable'),
  ('symbol_errors',        0.30, 0.50, 'symbol errors at 180/s over 60 s (threshold 50/s)',
   'The symbol error counter rose by 10,800 in 60 s: 180 a second, above the rule''s 50.', 'disable'),
  ('link_flapping',        0.50, 0.65, 'link went down 6 times in 10 minutes',
   'UFM reported the link down and up again 6 times within 10 minutes (the rule allows 3).', 'disable'),
  ('symbol_ber',           0.65, 0.75, 'symbol BER 3.1e-12 above 1e-12',
   'The symbol bit error rate over the last 5 minutes is 3.1e-12, above 1e-12.', 'isolate'),
  ('port_receive_errors',  0.75, 0.83, 'receive errors at 35/s over 60 s (threshold 10/s)',
   'The receive error counter rose by 2,100 in 60 s: 35 a second, above the rule''s 10.', 'disable'),
  ('ufm_error_thresholds', 0.83, 0.88, 'UFM: port counters above threshold',
   'UFM raised a threshold alarm (event 110) on the port''s error counters.', 'disable'),
  ('repeated_link_downs',  0.88, 0.93, 'link downed counter rose by 4 in an hour',
   'The link downed counter rose by 4 within an hour without UFM reporting the link down.', 'disable'),
  ('sm_unhealthy_port',    0.93, 0.97, 'the subnet manager marked the port unhealthy',
   'The subnet manager marked the port unhealthy (event 702): too many errors.', 'isolate'),
  ('non_optimal_link',     0.97, 1.01, 'link trained at 4x HDR100 instead of 4x NDR',
   'UFM reported the link up at a lower speed than the port supports (event 151).', 'disable');

CREATE TEMP TABLE seed AS
WITH pool AS (SELECT count(*)::int AS c FROM bench_links),
closed AS (
  SELECT now() - random() * interval '90 days' AS created,
         1 + floor(power(random(), 1.6) * (SELECT c FROM pool))::int AS link,
         'closed'::text AS state, random() AS r_rule, random() AS r_act, random() AS r_misc
  FROM generate_series(1, :closed)),
picked AS (
  SELECT n AS link, row_number() OVER () AS k
  FROM (SELECT n FROM bench_links ORDER BY random() LIMIT :active) x),
active AS (
  SELECT now() - random() * (CASE WHEN k > :active * 0.93 THEN interval '60 days'
                                  ELSE interval '21 days' END) AS created,
         link::int,
         CASE WHEN k <= :active * 0.13 THEN 'open'
              WHEN k <= :active * 0.50 THEN 'ticket_only'
              WHEN k <= :active * 0.73 THEN 'port_disabled'
              WHEN k <= :active * 0.88 THEN 'acknowledged'
              WHEN k <= :active * 0.93 THEN 'verifying'
              ELSE 'escalated' END AS state,
         random() AS r_rule, random() AS r_act, random() AS r_misc
  FROM picked)
SELECT s.*, l.sw, l.peer, m.rule, m.reason, m.explanation,
       CASE WHEN m.method = 'isolate' OR s.r_misc < 0.1 THEN 'isolate' ELSE 'disable' END AS method,
       -- Closed tickets: 80 % were acted on; the rest were ticketed behind a guard.
       CASE WHEN s.state = 'ticket_only' OR (s.state = 'closed' AND s.r_act >= 0.8)
            THEN (ARRAY['last_link', 'cooldown', 'cap', 'rate_limit', 'manual', 'dry_run', 'drift'])
                 [1 + floor(s.r_misc * 7)::int]
            ELSE '' END AS guard
FROM (SELECT * FROM closed UNION ALL SELECT * FROM active) s
JOIN bench_links l ON l.n = s.link
JOIN rule_mix m ON s.r_rule >= m.lo AND s.r_rule < m.hi;

-- Oldest first, so ids follow creation as they do in service.
INSERT INTO tickets (fabric, link_key, port_a, port_b, state, rule, reason, action_port,
                     disabled_by_us, attempts, acknowledged_by, soak_until, created_at, updated_at,
                     closed_at, method, guard, explanation, repair_kind)
SELECT 'bench', least(sw, peer) || '|' || greatest(sw, peer), sw, peer, state, rule, reason,
       CASE WHEN guard IN ('manual', 'dry_run') THEN '' ELSE sw END,
       state IN ('port_disabled', 'acknowledged', 'escalated'),
       CASE WHEN state = 'escalated' THEN 3 WHEN r_misc < 0.12 THEN 1 ELSE 0 END,
       CASE WHEN state IN ('acknowledged', 'escalated', 'verifying')
              OR (state = 'closed' AND r_misc < 0.7)
            THEN 'dc-tech-' || (1 + floor(r_act * 9)::int) END,
       CASE WHEN state = 'verifying' THEN now() + interval '1 day'
            WHEN state = 'closed' AND guard = '' THEN closed_at - interval '10 minutes' END,
       created, coalesce(closed_at, created + (now() - created) * r_misc), closed_at,
       method, guard, explanation,
       CASE WHEN state IN ('closed', 'verifying')
            THEN (ARRAY['reseat', 'cable_replaced', 'transceiver_replaced', 'switch_port_replaced',
                        'hca_replaced', 'other'])[1 + floor(power(r_misc, 2) * 6)::int]
            ELSE '' END
FROM (SELECT *, CASE WHEN state = 'closed'
                     THEN least(now(), created + interval '1 hour' + r_act * interval '5 days')
                END AS closed_at
      FROM seed) s
ORDER BY created;

-- 3 to 6 timeline entries a ticket.
INSERT INTO ticket_events (ticket_id, at, kind, actor, message, details)
SELECT t.id,
       t.created_at + (e.i - 1) * (coalesce(t.closed_at, now()) - t.created_at) / 6,
       k.kind,
       CASE WHEN k.kind IN ('acknowledged', 'repair_reported') THEN coalesce(t.acknowledged_by, 'dc-tech-1')
            ELSE 'service' END,
       CASE k.kind
         WHEN 'opened' THEN 'rule ' || t.rule || ': ' || t.reason
         WHEN 'evidence' THEN 'rule ' || t.rule || ': ' || t.reason
         WHEN 'action' THEN t.method || ' ' || t.port_a || ': confirmed by UFM'
         WHEN 'guard' THEN 'not taken out of service: guard ' || t.guard
         WHEN 'acknowledged' THEN 'acknowledged'
         WHEN 'repair_reported' THEN 'repair reported: ' || coalesce(nullif(t.repair_kind, ''), 'reseat')
         WHEN 'soak_started' THEN 'port back in service; soaking the link'
         ELSE 'link clean for the soak; ticket closed' END,
       jsonb_build_object('port', t.port_a, 'rule', t.rule)
FROM tickets t
CROSS JOIN LATERAL generate_series(1, 3 + (t.id * 7 % 4)::int) AS e(i)
CROSS JOIN LATERAL (SELECT CASE
    WHEN t.state = 'closed' AND e.i = 3 + (t.id * 7 % 4)::int THEN 'soak_passed'
    WHEN t.state = 'closed' THEN (ARRAY['opened', CASE WHEN t.guard = '' THEN 'action' ELSE 'guard' END,
                                        'acknowledged', 'repair_reported', 'soak_started'])[e.i]
    ELSE (ARRAY['opened', CASE WHEN t.guard = '' THEN 'action' ELSE 'guard' END, 'evidence',
                'acknowledged', 'evidence', 'evidence'])[e.i] END AS kind) k;

-- The cut (disable or isolate), and for repaired tickets the way back.
INSERT INTO port_actions (fabric, ticket_id, port, system_guid, action, state, reason, job_id,
                          created_at, updated_at, announced, confirmed_at)
SELECT 'bench', t.id, t.port_a, split_part(t.port_a, '_', 1), a.action, 'confirmed',
       'rule ' || t.rule || ': ' || t.reason, (100000 + t.id * 2 + a.back)::text,
       a.at, a.at + interval '4 seconds', true, a.at + interval '4 seconds'
FROM tickets t
CROSS JOIN LATERAL (
  SELECT t.method AS action, 0 AS back, t.created_at + interval '5 seconds' AS at
  UNION ALL
  SELECT CASE t.method WHEN 'isolate' THEN 'unisolate' ELSE 'enable' END, 1,
         coalesce(t.soak_until, now()) - interval '1 hour'
  WHERE t.state IN ('closed', 'verifying')) a
WHERE t.guard = '' AND t.state <> 'open';

-- Columns of later migrations (007: severity, where the link is, how the ticket ended), filled
-- as the service fills them, when this schema has them.
SELECT count(*) = 2 AS has_place FROM information_schema.columns
 WHERE table_name = 'tickets' AND column_name IN ('search_text', 'severity') \gset
\if :has_place
UPDATE tickets t
   SET ends = l.ends::jsonb, switch_name = l.switch_name, host_name = l.host_name,
       search_text = l.search_text,
       severity = CASE WHEN t.rule IN ('symbol_errors', 'symbol_ber', 'link_down', 'link_flapping')
                       THEN 'major' ELSE 'minor' END,
       resolution = CASE WHEN t.state <> 'closed' THEN ''
                         WHEN t.guard <> '' AND t.id % 3 = 0 THEN 'wont_fix'
                         ELSE 'repaired' END,
       resolution_note = CASE WHEN t.state = 'closed' AND t.guard <> '' AND t.id % 3 = 0
                              THEN 'link to a decommissioned node' ELSE '' END
  FROM bench_links l
 WHERE l.sw = t.port_a AND l.peer = t.port_b;
\endif

DROP TABLE bench_links;
VACUUM ANALYZE;
SQL
sql -At -F ' ' -c "SELECT count(*), count(*) FILTER (WHERE state <> 'closed'),
                          (SELECT count(*) FROM ticket_events), (SELECT count(*) FROM port_actions)
                   FROM tickets" >"$tmp/seed-counts.txt"
read -r n_tickets n_active n_events n_actions <"$tmp/seed-counts.txt"
log "seeded: $n_tickets tickets ($n_active not closed), $n_events timeline entries, $n_actions port actions"
sql -At -c "SELECT state, count(*) FROM tickets GROUP BY 1 ORDER BY 2 DESC" | tr '\n' ' ' >"$tmp/seed-states.txt"
log "states: $(cat "$tmp/seed-states.txt")"

# Ports the seeded held tickets keep out of service are out in the simulator too, before the
# service starts (it ignores the fabric's past events), so reconciliation finds no drift.
held=0
while read -r port method; do
  [[ -n "$port" ]] || continue
  curl -fsS --max-time 5 -X POST -H 'Content-Type: application/json' \
    -d "{\"port\":\"$port\",\"action\":\"$method\"}" "$sim/sim/operator" >/dev/null ||
    die "POST /sim/operator ($method $port) failed"
  held=$((held + 1))
done < <(sql -At -F ' ' -c "SELECT action_port, method FROM tickets
                            WHERE disabled_by_us AND state <> 'closed' AND action_port <> ''")
log "$held held ports taken out in the simulator"

# A search term, for a link with several tickets: its cable serial where search covers the
# inventory (schema 007), else a fragment of its host end's port name.
read -r q_port q_peer < <(sql -At -F ' ' -c "SELECT port_a, port_b FROM tickets GROUP BY 1, 2
                                             ORDER BY count(*) DESC, 1 OFFSET 20 LIMIT 1")
if [[ $(sql -At -c "SELECT count(*) FROM information_schema.columns
                    WHERE table_name = 'tickets' AND column_name = 'search_text'") == 1 ]]; then
  q=$(awk -F '\t' -v p="$q_port" '$1 == p {print $3; exit}' "$tmp/links.tsv")
else
  q=${q_peer: -8}
fi
[[ -n "$q" ]] || die "no search term found in the seeded tickets"

# Plans of statements slower than SLOW_PLAN_MS (in the service's sessions,
# opened from here on) go to PostgreSQL's log (api_bench/postgres.log).
sql -c "LOAD 'auto_explain'" -c "ALTER SYSTEM SET session_preload_libraries = 'auto_explain'" \
    -c "ALTER SYSTEM SET auto_explain.log_min_duration = '${SLOW_PLAN_MS:-50}ms'" \
    -c "SELECT pg_reload_conf()" >/dev/null || die "could not set up auto_explain"
log "starting ufm-remediator serve on port $http_port ($auth_mode)"
start_bg "$tmp/serve.log" "$bin/ufm-remediator" serve --config "$tmp/config.yaml"
serve_pid=${pids[-1]}
base="http://127.0.0.1:$http_port"
wait_healthy "$base" "$serve_pid"
wait_first_pass "$base"

if [[ -n ${HOLD_S:-} ]]; then  # to look at it by hand before the runs
  log "holding ${HOLD_S} s: API $base, database \"$db_url\""
  sleep "$HOLD_S" & wait $!
fi

auth_args=()
[[ -n "$token" ]] && auth_args=(-H "Authorization: Bearer $token")
urls=(
  "/api/tickets?state=open"
  "/api/tickets?state=all&limit=100&offset=5000&sort=-created"
  "/api/tickets?state=all&q=$q"
  "/api/tickets?state=all&rule=symbol_errors&min_age=7d"
)

# The pacing: C connections, each waiting about C/R s less its own latency between requests.
period_ms=$(( conns * 1000 / rate ))
threads=$(( $(nproc) < conns ? $(nproc) : conns ))
run_wrk() {  # URL SECONDS DELAY_MS -> the BENCH line
  BENCH_DELAY_MS=$3 BENCH_TOKEN=$token timeout -k 5 $(( $2 + 30 )) \
    wrk -t"$threads" -c"$conns" -d"${2}s" --timeout 5s --latency -s "$here/api_paced.lua" "$base$1" \
    >"$tmp/wrk.txt" 2>&1 || { cat "$tmp/wrk.txt" >&2; die "wrk failed on $1"; }
  cat "$tmp/wrk.txt" >>"$tmp/wrk-all.txt"
  grep '^BENCH ' "$tmp/wrk.txt" || { cat "$tmp/wrk.txt" >&2; die "wrk printed no summary for $1"; }
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
# The service's CPU time so far (user + system, clock ticks): CPU per request does not depend on
# what else the machine is running, unlike the latencies.
ticks=$(getconf CLK_TCK)
svc_cpu() { awk '{print $14 + $15}' "/proc/$serve_pid/stat" 2>/dev/null || echo 0; }
# ... and PostgreSQL's (its server processes: the service's connections stay open).
pg_pid=$(head -n 1 "$(cat "$tmp/pg/pgdir")/data/postmaster.pid")
db_cpu() {
  local total=0 pid
  for pid in $(pgrep -P "$pg_pid"); do
    total=$(( total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0) ))
  done
  echo "$total"
}

results=()
misses=0
for url in "${urls[@]}"; do
  code=$(curl -sS --max-time 10 -o "$tmp/answer.json" -w '%{http_code}' "${auth_args[@]}" "$base$url") ||
    die "GET $url failed"
  rows=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("tickets", [])))' \
           "$tmp/answer.json" 2>/dev/null || echo "-")
  [[ $code == 200 ]] || log "GET $url answered $code: $(head -c 200 "$tmp/answer.json")"
  kib=$(( $(stat -c %s "$tmp/answer.json") / 1024 ))
  warm=$(run_wrk "$url" "$warmup_s" "$period_ms")
  mean=$(field mean_ms "$warm")
  delay=$(python3 -c "print(max(1, round($period_ms - $mean)))")
  log "$url: $rows rows, $kib KiB; warm-up mean ${mean} ms, pacing $delay ms"
  cpu0=$(svc_cpu); dbc0=$(db_cpu)
  line=$(run_wrk "$url" "$duration" "$delay")
  cpu1=$(svc_cpu); dbc1=$(db_cpu)
  load=$(cut -d' ' -f1 /proc/loadavg)
  n=$(field requests "$line")
  cpu_ms=$(python3 -c "print('%.2f' % (($cpu1 - $cpu0) * 1000 / $ticks / max(1, $n)))")
  db_ms=$(python3 -c "print('%.2f' % (($dbc1 - $dbc0) * 1000 / $ticks / max(1, $n)))")
  rps=$(field rps "$line"); p99=$(field p99_ms "$line")
  verdict=$(python3 -c "print('ok' if $p99 <= $p99_limit_ms and $rps >= 0.95 * $rate else 'MISS')")
  bad=$(( $(field non2xx "$line") + $(field errors "$line") ))
  [[ $bad -eq 0 && $code == 200 ]] || verdict=MISS
  [[ $verdict == ok ]] || misses=$((misses + 1))
  results+=("$url|$rows|$rps|$(field p50_ms "$line")|$p99|$(field max_ms "$line")|$bad|$cpu_ms|$db_ms|$load|$verdict")
done

kill -0 "$serve_pid" 2>/dev/null || die "ufm-remediator serve exited during the benchmark"
slow=$(grep -c 'LOG:  duration: ' "$(cat "$tmp/pg/pgdir")/server.log" 2>/dev/null || true)
{
  echo
  echo "GET /api/tickets, $n_tickets tickets ($n_active not closed, $n_events timeline entries," \
       "$n_actions port actions); wrk ${duration} s per URL at $rate req/s asked ($conns connections," \
       "$threads threads); $auth_mode; $(nproc) CPUs, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM"
  fmt='%-62s %5s %7s %8s %8s %8s %7s %7s %6s %5s  %s\n'
  # shellcheck disable=SC2059
  printf "$fmt" URL rows 'req/s' 'p50 ms' 'p99 ms' 'max ms' non-2xx 'svc ms' 'db ms' load \
    "p99<=${p99_limit_ms}ms"
  for r in "${results[@]}"; do
    IFS='|' read -r u rows rps p50 p99 max bad cpu_ms db_ms load verdict <<<"$r"
    # shellcheck disable=SC2059
    printf "$fmt" "$u" "$rows" "$rps" "$p50" "$p99" "$max" "$bad" "$cpu_ms" "$db_ms" "$load" "$verdict"
  done
  echo "rows: tickets in one answer; svc ms, db ms: CPU time per request of the service and of" \
       "PostgreSQL; load: the machine's 1-minute load average after the run (other work on the" \
       "machine lengthens latencies, not CPU time)"
} | tee "$tmp/results.txt"
if grep -q '(drift; left as it is)' "$tmp/serve.log"; then
  log "note: the service reported drift on seeded tickets during the run (serve.log)"
fi
[[ ${slow:-0} -eq 0 ]] ||
  log "$slow statements took over ${SLOW_PLAN_MS:-50} ms in PostgreSQL: plans in $out/postgres.log"
(( misses == 0 )) || log "$misses of ${#urls[@]} URLs missed p99 <= $p99_limit_ms ms at $rate req/s"
