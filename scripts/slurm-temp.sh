#!/usr/bin/env bash
# A throwaway Slurm cluster on this machine, for the scheduler tests and the demo.
#   scripts/slurm-temp.sh start DIR NODE...  munged, slurmctld and one slurmd per NODE (each a node
#                                            of one CPU in partition "gpu"); prints the path of
#                                            its slurm.conf (for SLURM_CONF), kept in DIR/conf
#   scripts/slurm-temp.sh stop DIR           cancel its jobs, stop its daemons, remove DIR
# Everything lives in a short folder under /tmp (munge's socket path is limited) named in
# DIR/slurmdir; the daemons listen on free loopback ports. Needs Debian's slurmctld, slurmd,
# slurm-client and munge (scripts/install-deps.sh installs them). Runs as root (SlurmUser=root)
# or as any user that may run the daemons.
set -euo pipefail

cmd=${1:-}; dir=${2:-}
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start DIR NODE... | stop DIR" >&2; exit 2
fi
shift 2

need() {
  command -v "$1" >/dev/null 2>&1 || {
    echo "slurm-temp: $1 not found; install slurmctld, slurmd, slurm-client and munge" >&2
    exit 1
  }
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  [[ $# -gt 0 ]] || { echo "usage: $0 start DIR NODE..." >&2; exit 2; }
  for p in munged slurmctld slurmd sinfo scontrol; do need "$p"; done
  mkdir -p "$dir"
  local d
  d=$(mktemp -d /tmp/ufmr-slurm.XXXXXX)
  chmod 755 "$d"
  echo "$d" >"$dir/slurmdir"
  mkdir -p "$d/state" "$d/spool" "$d/log"
  head -c 1024 /dev/urandom >"$d/munge.key"
  chmod 400 "$d/munge.key"
  munged -f --socket="$d/munge.sock" --key-file="$d/munge.key" --pid-file="$d/munged.pid" \
    --log-file="$d/log/munged.log" --seed-file="$d/munge.seed"
  local host ctld_port slurmd_port
  host=$(hostname -s)
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  {
    echo "ClusterName=ufmr"
    echo "SlurmctldHost=$host(127.0.0.1)"
    echo "SlurmUser=$(id -un)"
    echo "SlurmdUser=$(id -un)"
    echo "SlurmctldPort=$ctld_port"
    echo "SlurmdPort=$slurmd_port"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    echo "AuthInfo=socket=$d/munge.sock"
    echo "StateSaveLocation=$d/state"
    echo "SlurmdSpoolDir=$d/spool/%n"
    echo "SlurmctldPidFile=$d/slurmctld.pid"
    echo "SlurmdPidFile=$d/slurmd.%n.pid"
    echo "SlurmctldLogFile=$d/log/slurmctld.log"
    echo "SlurmdLogFile=$d/log/slurmd.%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "SchedulerType=sched/builtin"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    echo "ReturnToService=2"
    echo "MpiDefault=none"
    echo "SlurmctldTimeout=30"
    echo "SlurmdTimeout=30"
    echo "MinJobAge=10"
    echo "KillWait=2"
    for node in "$@"; do
      echo "NodeName=$node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=1 Port=$(free_port) State=UNKNOWN"
    done
    echo "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } >"$d/slurm.conf"
  export SLURM_CONF="$d/slurm.conf"
  slurmctld -f "$d/slurm.conf" -i || { cat "$d/log/slurmctld.log" >&2; exit 1; }
  for node in "$@"; do
    slurmd -f "$d/slurm.conf" -N "$node" || { cat "$d/log/slurmd.$node.log" >&2; exit 1; }
  done
  # Ready when every node is idle.
  for _ in $(seq 1 150); do
    local idle
    idle=$(sinfo -h -N -o '%T' 2>/dev/null | grep -c '^idle$' || true)
    if [[ "$idle" -eq $# ]]; then
      echo "$d/slurm.conf" | tee "$dir/conf"
      return 0
    fi
    sleep 0.2
  done
  echo "slurm-temp: the nodes did not come up within 30 s" >&2
  sinfo >&2 || true
  tail -n 20 "$d/log/slurmctld.log" >&2 || true
  exit 1
}

stop_pid() {
  local f=$1
  [[ -f "$f" ]] || return 0
  local pid
  pid=$(cat "$f" 2>/dev/null || true)
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true
}

stop() {
  local d
  d=$(cat "$dir/slurmdir" 2>/dev/null || true)
  if [[ -n "$d" && -f "$d/slurm.conf" ]]; then
    export SLURM_CONF="$d/slurm.conf"
    local jobs
    jobs=$(squeue -h -o '%i' 2>/dev/null || true)
    if [[ -n "$jobs" ]]; then
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      sleep 1
    fi
    for f in "$d"/slurmd.*.pid; do stop_pid "$f"; done
    stop_pid "$d/slurmctld.pid"
    sleep 0.5
    munged -s --socket="$d/munge.sock" >/dev/null 2>&1 || stop_pid "$d/munged.pid"
  fi
  [[ -n "$d" && "$d" == /tmp/ufmr-slurm.* ]] && rm -rf "$d"
  rm -rf "$dir"
}

case "$cmd" in
  start) start "$@" ;;
  stop) stop ;;
  *) echo "usage: $0 start DIR NODE... | stop DIR" >&2; exit 2 ;;
esac
