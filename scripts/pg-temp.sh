#!/usr/bin/env bash
# A throwaway PostgreSQL in a folder of its own, for the demo and the tests.
#   scripts/pg-temp.sh start DIR   initdb + start; prints the libpq connection string on stdout
#                                  and keeps it in DIR/url
#   scripts/pg-temp.sh restart DIR stop the server at once (as a crash would) and start it again
#   scripts/pg-temp.sh stop DIR    stop the server and remove DIR
#   scripts/pg-temp.sh replica PRIMARY_DIR DIR
#                                  a streaming replica of PRIMARY_DIR's server (pg_basebackup),
#                                  made synchronous (the primary's commits wait for it); prints
#                                  and keeps its connection string like start
#   scripts/pg-temp.sh kill DIR    stop the server at once, as a crash would; DIR stays
#   scripts/pg-temp.sh promote DIR the replica in DIR becomes a primary (pg_ctl promote)
# Listens only on a Unix socket (no TCP port to collide on). The cluster lives in a short folder
# under /tmp (socket paths are limited to ~100 bytes) whose name is kept in DIR/pgdir. As root,
# the server runs as the 'postgres' user, since PostgreSQL refuses to run as root.
set -euo pipefail

cmd=${1:-}; dir=${2:-}
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start|restart|stop|kill|promote DIR, or $0 replica PRIMARY_DIR DIR" >&2; exit 2
fi
bindir=$(pg_config --bindir 2>/dev/null || true)
if [[ -z "$bindir" || ! -x "$bindir/initdb" ]]; then
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
fi
if [[ -z "$bindir" || ! -x "$bindir/initdb" ]]; then
  echo "pg-temp: PostgreSQL server binaries not found; install the 'postgresql' package" >&2
  exit 1
fi

as_pg() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

port=5432

# A short folder under /tmp for a new cluster ($pg), named in $dir/pgdir.
new_cluster_dir() {
  mkdir -p "$dir"
  pg=$(mktemp -d /tmp/ufmr-pg.XXXXXX)
  chmod 755 "$pg"
  echo "$pg" >"$dir/pgdir"
  [[ $(id -u) -eq 0 ]] && chown postgres: "$pg"
  return 0
}

# Starts the cluster in $pg, on its Unix socket only.
serve() {
  as_pg "$bindir/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$pg' -p $port -c fsync=off -c max_connections=300" \
    start >/dev/null || { cat "$pg/server.log" >&2; exit 1; }
}

case "$cmd" in
  start)
    new_cluster_dir
    as_pg "$bindir/initdb" -D "$pg/data" -U postgres -A trust -E UTF8 --no-locale >"$pg/initdb.log" 2>&1 ||
      { cat "$pg/initdb.log" >&2; exit 1; }
    serve
    echo "host=$pg port=$port dbname=postgres user=postgres" | tee "$dir/url"
    ;;
  replica)
    primary=$(cat "$dir/pgdir")
    dir=${3:?usage: $0 replica PRIMARY_DIR DIR}
    new_cluster_dir
    as_pg "$bindir/pg_basebackup" -h "$primary" -p $port -U postgres -D "$pg/data" -R -X stream \
      -c fast >"$pg/basebackup.log" 2>&1 || { cat "$pg/basebackup.log" >&2; exit 1; }
    serve
    # Synchronous: a commit the primary acknowledged is on the replica too, so a failover loses
    # nothing. Set on the primary only (after the copy): the promoted replica waits for no one.
    as_pg "$bindir/psql" -h "$primary" -p $port -U postgres -d postgres -qAt \
      -c "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" >/dev/null
    state=
    for _ in $(seq 1 200); do
      state=$(as_pg "$bindir/psql" -h "$primary" -p $port -U postgres -d postgres -qAt \
        -c "SELECT sync_state FROM pg_stat_replication" 2>/dev/null || true)
      [[ "$state" == sync ]] && break
      sleep 0.1
    done
    if [[ "$state" != sync ]]; then
      echo "pg-temp: the replica never became synchronous (sync_state '$state')" >&2; exit 1
    fi
    echo "host=$pg port=$port dbname=postgres user=postgres" | tee "$dir/url"
    ;;
  kill)
    pg=$(cat "$dir/pgdir")
    as_pg "$bindir/pg_ctl" -D "$pg/data" -m immediate -w stop >/dev/null 2>&1 || true
    ;;
  promote)
    pg=$(cat "$dir/pgdir")
    as_pg "$bindir/pg_ctl" -D "$pg/data" -w -t 60 promote >/dev/null ||
      { cat "$pg/server.log" >&2; exit 1; }
    ;;
  restart)
    pg=$(cat "$dir/pgdir")
    as_pg "$bindir/pg_ctl" -D "$pg/data" -l "$pg/server.log" -m immediate -w -t 60 restart \
      >/dev/null || { cat "$pg/server.log" >&2; exit 1; }
    ;;
  stop)
    pg=$(cat "$dir/pgdir" 2>/dev/null || true)
    if [[ -n "$pg" && -d "$pg/data" ]]; then
      as_pg "$bindir/pg_ctl" -D "$pg/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    [[ -n "$pg" && "$pg" == /tmp/ufmr-pg.* ]] && rm -rf "$pg"
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start|restart|stop|kill|promote DIR, or $0 replica PRIMARY_DIR DIR" >&2; exit 2
    ;;
esac
