#!/usr/bin/env bash
# Run a command against a throwaway PostgreSQL server on loopback:
#
#   scripts/with-postgres.sh [--optional] CMD [ARGS...]
#
# Creates a cluster under /tmp (as the postgres user when run as root), starts it on
# 127.0.0.1 and a spare port (GFRC_PG_PORT to choose one), creates role and database `gfrc`,
# exports DATABASE_URL=postgres://gfrc@127.0.0.1:PORT/gfrc, runs CMD, and always stops the
# server and deletes the cluster afterwards, whatever happens. Exits with CMD's exit code.
#
# --optional: when no PostgreSQL server is installed and cannot be installed (not root),
#             say so and exit 0 instead of failing (used by `make test` on laptops).
#             GFRC_REQUIRE_POSTGRES=1 (set by .ci/run) turns --optional off.
# GFRC_PG_DURABLE=1: keep fsync on (benchmarks); by default the throwaway test cluster
#             runs with fsync and synchronous_commit off, which is faster and safe to lose.
set -euo pipefail

optional=0
if [ "${1:-}" = "--optional" ]; then optional=1; shift; fi
if [ "${GFRC_REQUIRE_POSTGRES:-0}" = 1 ]; then optional=0; fi
if [ $# -eq 0 ]; then
  echo "usage: $0 [--optional] CMD [ARGS...]" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"

if ! bin="$("$here/ensure-postgres.sh")"; then
  if [ "$optional" = 1 ]; then
    echo "*** Skipping the PostgreSQL run: no PostgreSQL server on this machine. ***" >&2
    exit 0
  fi
  exit 1
fi

dir="$(mktemp -d /tmp/gfrc-pg.XXXXXX)"
data="$dir/data"
log="$dir/server.log"
as_pg=()
if [ "$(id -u)" = 0 ]; then
  # initdb refuses to run as root: the cluster belongs to the postgres user.
  chown postgres: "$dir"
  as_pg=(runuser -u postgres --)
fi
chmod 700 "$dir"

port="${GFRC_PG_PORT:-}"
if [ -z "$port" ]; then
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
fi

started=0
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ "$started" = 1 ]; then
    "${as_pg[@]}" "$bin/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null 2>&1 \
      || "${as_pg[@]}" "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"${as_pg[@]}" "$bin/initdb" -D "$data" -U gfrc -A trust -E UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }

opts="-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200"
if [ "${GFRC_PG_DURABLE:-0}" != 1 ]; then
  opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
fi
started=1
if ! "${as_pg[@]}" "$bin/pg_ctl" -D "$data" -l "$log" -o "$opts" -w -t 60 start >/dev/null; then
  echo "PostgreSQL did not start:" >&2
  cat "$log" >&2 || true
  exit 1
fi
"$bin/createdb" -h 127.0.0.1 -p "$port" -U gfrc gfrc

export DATABASE_URL="postgres://gfrc@127.0.0.1:$port/gfrc"
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (cluster $dir)" >&2
set +e
"$@"
rc=$?
set -e
exit "$rc"
