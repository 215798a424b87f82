# Shell functions shared by scripts/demo.sh and tests/dashboard/run.sh; source this file.
# Both need `die` defined by the caller.

# wait_healthy BASE_URL PID: until GET BASE_URL/healthz answers (30 s), or the process exits.
wait_healthy() {
  local base=$1 pid=$2
  for _ in $(seq 150); do
    curl -fsS --max-time 2 "$base/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || die "ufm-remediator serve exited early"
    sleep 0.2
  done
  die "ufm-remediator not healthy within 30 s"
}

# wait_first_pass BASE_URL: the service skips the fabric's past events on its first start, so
# faults are injected only once it has made its first pass over UFM (20 s at most).
wait_first_pass() {
  local base=$1
  for _ in $(seq 100); do
    curl -fsS --max-time 2 "$base/metrics" 2>/dev/null |
      grep -Eq '^ufmr_last_pass_timestamp_seconds(\{[^}]*\})? +[1-9]' && return 0
    sleep 0.2
  done
  die "ufm-remediator made no pass over UFM within 20 s"
}
