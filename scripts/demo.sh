#!/usr/bin/env bash
# The whole system on one machine, with a simulated fabric instead of a real UFM:
#   installs missing packages (as root), builds, starts a throwaway PostgreSQL, ufm-sim (a fat-tree
#   fabric that speaks the UFM REST API) and ufm-remediator serve, breaks a few links, and prints
#   the dashboard address and commands to try. Runs until Ctrl-C, then stops and removes everything
#   it started. Logs and the generated config are left in .demo/.
#
# Environment (all optional):
#   UFM_SIM_PORT=8443 UFM_TELEMETRY_PORT=9001 DASHBOARD_PORT=8080   fixed ports
#   NOTIFY_HOOK_PORT=8099        the demo's webhook receiver (the demo's mailbox takes a free port)
#   DASHBOARD_LISTEN=127.0.0.1   address the dashboard listens on (0.0.0.0 to reach it remotely)
#   SOAK_S=30                    verification window after a repair
#   SKIP_BUILD=1                 use the binaries already in build/
#   DEMO_DURATION=SECONDS        stop by itself after that long (for unattended runs)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

sim_port=${UFM_SIM_PORT:-8443}
tel_port=${UFM_TELEMETRY_PORT:-9001}
http_port=${DASHBOARD_PORT:-8080}
hook_port=${NOTIFY_HOOK_PORT:-8099}
http_listen=${DASHBOARD_LISTEN:-127.0.0.1}
soak_s=${SOAK_S:-30}
demo="$root/.demo"
build="$root/build"

say() { printf '\033[1m== %s\033[0m\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }
# shellcheck source=scripts/service-wait.sh
. "$(dirname "${BASH_SOURCE[0]}")/service-wait.sh"

say "Checking packages"
scripts/install-deps.sh --no-browser

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  say "Building (build/)"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
  # The two programs only: the tests and benchmarks are scripts/test.sh's and scripts/bench's.
  cmake --build build -j"$(nproc)" --target ufm-remediator ufm-sim
fi
[[ -x "$build/ufm-sim" && -x "$build/ufm-remediator" ]] || die "build/ufm-sim or build/ufm-remediator is missing"

for p in "$sim_port" "$tel_port" "$http_port" "$hook_port"; do
  python3 -c 'import socket,sys; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1])))' "$p" 2>/dev/null ||
    die "port $p is in use; pick others with UFM_SIM_PORT, UFM_TELEMETRY_PORT, DASHBOARD_PORT, NOTIFY_HOOK_PORT"
done

# A previous run that was killed hard may have left its database behind.
if [[ -f "$demo/pg/pgdir" ]]; then scripts/pg-temp.sh stop "$demo/pg" >/dev/null 2>&1 || true; fi
mkdir -p "$demo"
rm -f "$demo"/*.log "$demo"/sim-ready.json

pids=()
cleanup() {
  set +e
  trap - EXIT INT TERM
  echo
  say "Stopping"
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null
  done
  wait 2>/dev/null
  scripts/pg-temp.sh stop "$demo/pg" >/dev/null 2>&1
  [[ -n "${slurm_conf:-}" ]] && scripts/slurm-temp.sh stop "$demo/slurm" >/dev/null 2>&1
  echo "Logs are in .demo/"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_bg() {  # start_bg LOGFILE CMD...: in its own process group, so cleanup stops its children too
  local logf=$1; shift
  setsid "$@" >"$logf" 2>&1 </dev/null &
  pids+=("$!")
}
post() { curl -fsS --max-time 10 -X POST -H 'Content-Type: application/json' -d "$2" "$1"; }

say "Starting PostgreSQL (.demo/pg)"
db_url=$(scripts/pg-temp.sh start "$demo/pg")

# UFM's events reach the service three ways, as in a real deployment: REST, the event log file
# (the simulator writes .demo/ufm-event.log) and syslog (UDP); each event counts once.
syslog_port=${UFM_SYSLOG_PORT:-5514}
rm -f "$demo/ufm-event.log"
say "Starting ufm-sim on 127.0.0.1:$sim_port (telemetry :$tel_port, syslog to :$syslog_port)"
start_bg "$demo/sim.log" "$build/ufm-sim" --listen 127.0.0.1 --port "$sim_port" --telemetry-port "$tel_port" \
  --topology fat-tree:leaves=4,spines=2,hosts_per_leaf=4,hcas_per_host=2 --user admin --password 123456 \
  --ready-file "$demo/sim-ready.json" --event-log "$demo/ufm-event.log" --syslog "127.0.0.1:$syslog_port"
sim_pid=${pids[-1]}
for _ in $(seq 300); do
  [[ -s "$demo/sim-ready.json" ]] && break
  kill -0 "$sim_pid" 2>/dev/null || { tail -n 20 "$demo/sim.log" >&2; die "ufm-sim exited"; }
  sleep 0.1
done
[[ -s "$demo/sim-ready.json" ]] || die "ufm-sim did not come up within 30 s (see .demo/sim.log)"
sim="http://127.0.0.1:$sim_port"
curl -fsS --max-time 10 "$sim/sim/links" >"$demo/links.json" || die "GET /sim/links failed"
q() { python3 tests/dashboard/jsonq.py "$@" <"$demo/links.json"; }

# With Slurm installed (Debian's slurmctld, slurmd, munge), a throwaway Slurm cluster whose nodes
# are the fabric's hosts: the service drains a host before cutting its last link. DEMO_SLURM=0
# leaves it out; without Slurm the demo runs as before.
slurm_conf=""
scheduler_yaml=""
if [[ "${DEMO_SLURM:-1}" != 0 ]] && command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
  command -v munged >/dev/null; then
  say "Starting a Slurm cluster of the fabric's hosts (.demo/slurm)"
  # shellcheck disable=SC2046
  if slurm_conf=$(scripts/slurm-temp.sh start "$demo/slurm" $(q hosts) 2>"$demo/slurm.log"); then
    scheduler_yaml="scheduler:
  backend: slurm
  slurm_conf: $slurm_conf
  poll_interval_s: 2
  retry_s: 5"
  else
    slurm_conf=""
    echo "  (Slurm did not start, see .demo/slurm.log: the demo goes on without it)"
  fi
fi

# Who is told: a webhook receiver and a mailbox, both on this machine (.demo/notify/).
say "Starting a webhook receiver (127.0.0.1:$hook_port) and a mailbox (.demo/notify)"
rm -rf "$demo/notify"
mkdir -p "$demo/notify"
start_bg "$demo/webhook.log" scripts/webhook-sink.py --dir "$demo/notify" --port "$hook_port"
start_bg "$demo/mail.log" scripts/mail-sink.py --dir "$demo/notify/mail" --port-file "$demo/notify/smtp-port"
for _ in $(seq 100); do [[ -s "$demo/notify/smtp-port" ]] && break; sleep 0.1; done
[[ -s "$demo/notify/smtp-port" ]] || { cat "$demo/mail.log" >&2; die "the demo's mailbox did not start"; }
smtp_port=$(cat "$demo/notify/smtp-port")
link_host=$http_listen  # the messages' links to ticket pages
[[ "$link_host" == 0.0.0.0 ]] && link_host=$(hostname -f 2>/dev/null || hostname)

cat >"$demo/config.yaml" <<EOF
# Generated by scripts/demo.sh for the simulated fabric; short intervals so things happen quickly.
fabric: demo
ufm:
  url: $sim
  auth: basic
  user: admin
  password: "123456"
  insecure_tls: false
telemetry:
  url: http://127.0.0.1:$tel_port/csv/metrics
  interval_s: 2
database:
  url: "$db_url"
  schema_dir: $root/schema
rules:
  dir: $root/rules
events:
  poll_interval_s: 1
event_log:
  path: $demo/ufm-event.log
  poll_interval_s: 1
syslog:
  listen: 127.0.0.1
  udp_port: $syslog_port
inventory:
  refresh_interval_s: 5
http:
  listen: $http_listen
  port: $http_port
auth:
  # A throwaway demo: anyone may watch; changes need the demo user (or its token).
  anonymous_read: true
remediation:
  dry_run: false
  max_disabled_ports: 20
  soak_s: $soak_s
  max_attempts: 3
$scheduler_yaml
notify:
  dashboard_url: http://$link_host:$http_port/
  receivers:
    - {name: demo-hook, type: webhook, url: "http://127.0.0.1:$hook_port/ufm-remediator"}
    # The demo's mailbox runs on this machine: no STARTTLS (a real server needs it, the default).
    - {name: demo-mail, type: email, url: "smtp://127.0.0.1:$smtp_port", starttls: false,
       from: ufm-remediator@demo.invalid, to: [dc-ops@demo.invalid]}
  route:
    group_wait: 10s       # a burst of tickets is one message
    group_interval: 30s
    routes:
      - {receiver: demo-hook, continue: true}
      - {receiver: demo-mail}
EOF

say "Migrating the database"
"$build/ufm-remediator" db migrate --config "$demo/config.yaml" >"$demo/migrate.log" 2>&1 ||
  { cat "$demo/migrate.log" >&2; die "db migrate failed"; }

say "Adding the demo user (engineer) and an API token for the commands below"
demo_password=demo-password
printf '%s\n' "$demo_password" | "$build/ufm-remediator" user add demo --role engineer \
  --config "$demo/config.yaml" >"$demo/user.log" 2>&1 || { cat "$demo/user.log" >&2; die "user add failed"; }
token=$("$build/ufm-remediator" token create --user demo --config "$demo/config.yaml" 2>>"$demo/user.log") ||
  { cat "$demo/user.log" >&2; die "token create failed"; }

say "Starting ufm-remediator serve on $http_listen:$http_port"
start_bg "$demo/serve.log" "$build/ufm-remediator" serve --config "$demo/config.yaml"
serve_pid=${pids[-1]}
api="http://127.0.0.1:$http_port"
wait_healthy "$api" "$serve_pid"
wait_first_pass "$api"

say "Breaking a few links in the simulator"
# Three faults on three hosts (hosts have two HCAs each, so one bad link is not their last).
down_port=$(q leaf-host-port 0)
symerr_port=$(q leaf-host-port 6)
flap_port=$(q switch-port 5)
spare_port=$(q leaf-host-port 12)
inject() {  # inject KIND PORT [EXTRA_JSON]
  post "$sim/sim/faults" "{\"kind\":\"$1\",\"port\":\"$2\"${3:+,$3}}" >/dev/null || die "could not inject $1 on $2"
  printf '  %-13s %s (port %s)\n' "$1" "$(q describe "$2")" "$2"
}
inject link_down "$down_port"
inject symbol_errors "$symerr_port" '"rate":50'
inject flap "$flap_port" '"interval_s":4'

shown=$http_listen
remote="(listening on all addresses)"
if [[ "$shown" == 0.0.0.0 ]]; then
  shown=$(hostname -f 2>/dev/null || hostname)
else
  remote="(from another machine: ssh -L $http_port:127.0.0.1:$http_port THIS_HOST, then http://localhost:$http_port/)"
fi
cat <<EOF

  Dashboard:  http://$shown:$http_port/
  $remote
  Anyone may watch; to act (acknowledge, mark repaired, silences), log in as
  demo / $demo_password (role engineer).

  Tickets appear within about 30 s. Things to try (paste into another terminal):

  # Break another link (all port names: curl -s $sim/sim/links)
  curl -s -X POST $sim/sim/faults -H 'Content-Type: application/json' \\
    -d '{"kind":"link_down","port":"$spare_port"}'

  # Fix the cable in the simulator (the port stays disabled until the ticket is marked repaired)
  curl -s -X POST $sim/sim/repair -H 'Content-Type: application/json' -d '{"port":"$down_port"}'

  # Mark the ticket repaired: the "Report repair" button does this (as the demo user's token)
  curl -s '$api/api/tickets?state=open'          # ticket ids
  curl -s -X POST $api/api/tickets/ID/repaired -H 'Content-Type: application/json' \\
    -H 'Authorization: Bearer $token' -d '{"kind":"cable_replaced","note":"new cable"}'

  # What the remediator asked UFM to do, and the UFM view of the ports
  curl -s $sim/sim/actions
  curl -s -u admin:123456 $sim/ufmRest/resources/ports

  The service re-enables the port and soaks the link for ${soak_s}s: a repaired link closes the
  ticket; one still broken is disabled again and the ticket reopens (escalated after 3 tries).
  Notifications: each burst of tickets is one message to the webhook receiver (titles in
  .demo/webhook.log, bodies in .demo/notify/hooks.jsonl) and one mail (.demo/notify/mail/*.eml).
  Logs: .demo/serve.log, .demo/sim.log.   Ctrl-C stops everything.

EOF
if [[ -n "$slurm_conf" ]]; then
  drain_host=$(q host-of "$down_port")
  last_port=$(q other-rail "$down_port")
  SLURM_CONF=$slurm_conf sbatch -w "$drain_host" -J pretrain-llm -o /dev/null --wrap 'sleep 90' \
    >/dev/null 2>&1 || echo "  (sbatch failed: no job on $drain_host)"
  cat <<EOF
  Slurm runs too, its nodes the fabric's hosts, and a job (pretrain-llm) runs on $drain_host.
  Once the link_down ticket above has cut one of its links, break its other one, its last:
  the service drains $drain_host in Slurm, waits for the job to end (90 s), then cuts the link;
  after the repair and the soak it resumes the node. Watch it on the ticket page, and in Slurm:
  curl -s -X POST $sim/sim/faults -H 'Content-Type: application/json' \\
    -d '{"kind":"link_down","port":"$last_port"}'
  SLURM_CONF=$slurm_conf sinfo -N -O NodeList,StateComplete,Reason:60

EOF
fi

# Name the link_down ticket once it exists, so the commands above can be pasted as they are.
for _ in $(seq 30); do
  line=$(curl -fsS --max-time 2 "$api/api/tickets?state=all" 2>/dev/null |
    python3 tests/dashboard/jsonq.py ticket "$down_port" 2>/dev/null || true)
  if [[ -n "$line" ]]; then
    echo "  Ticket for the link_down on $down_port: #${line% *} (${line#* }) -> http://$shown:$http_port/tickets/${line% *}"
    break
  fi
  sleep 1
done

if [[ -n "${DEMO_DURATION:-}" ]]; then
  end=$((SECONDS + DEMO_DURATION))
fi
while true; do
  for pid in "$sim_pid" "$serve_pid"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      name=ufm-sim; logf=sim.log
      [[ "$pid" == "$serve_pid" ]] && { name=ufm-remediator; logf=serve.log; }
      tail -n 20 "$demo/$logf" >&2
      die "$name exited unexpectedly (see .demo/$logf)"
    fi
  done
  [[ -n "${end:-}" && $SECONDS -ge $end ]] && break
  sleep 1
done
