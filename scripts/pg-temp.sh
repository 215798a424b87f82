#!/usr/bin/env bash
# A throwaway PostgreSQL in a folder of its own, for the demo and the tests.
#   scripts/pg-temp.sh start DIR   initdb + start; prints the libpq connection string on stdout
#                                  and keeps it in DIR/url
#   scripts/pg-temp.sh restart DIR stop the server at once (as a crash would) and start it again
#   scripts/pg-temp.sh stop DIR    stop the server and remove DIR
# Listens only on a Unix socket (no TCP port to collide on). The cluster lives in a short folder
# under /tmp (socket paths are limited to ~100 bytes) whose name is kept in DIR/pgdir. As root,
# the server runs as the 'postgres' user, since PostgreSQL refuses to run as root.
set -euo pipefail

cmd=${1:-}; dir=${2:-}
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start|restart|stop DIR" >&2; exit 2
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

case "$cmd" in
  start)
    mkdir -p "$dir"
    pg=$(mktemp -d /tmp/ufmr-pg.XXXXXX)
    chmod 755 "$pg"
    echo "$pg" >"$dir/pgdir"
    [[ $(id -u) -eq 0 ]] && chown postgres: "$pg"
    port=5432
    as_pg "$bindir/initdb" -D "$pg/data" -U postgres -A trust -E UTF8 --no-locale >"$pg/initdb.log" 2>&1 ||
      { cat "$pg/initdb.log" >&2; exit 1; }
    as_pg "$bindir/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w -t 60 \
      -o "-c listen_addresses='' -c unix_socket_directories='$pg' -p $port -c fsync=off -c max_connections=300" \
      start >/dev/null || { cat "$pg/server.log" >&2; exit 1; }
    echo "host=$pg port=$port dbname=postgres user=postgres" | tee "$dir/url"
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
    echo "usage: $0 start|restart|stop DIR" >&2; exit 2
    ;;
esac
