#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL server: initdb into a temp
# dir, start it on 127.0.0.1 (random port, or PGPORT), export
# CARRYOVER_TEST_DATABASE_URL, run the command, stop the server and remove
# the dir. Needs the server binaries (Debian: apt-get install postgresql-15;
# PGBIN overrides where they are). Durability is off: the data is thrown away.
#
#   scripts/with-postgres.sh go test ./postgres/ ./storetest/
set -euo pipefail
# Some machines replace /dev/null with a root-only regular file, which
# breaks initdb as 'postgres'. Repair it only inside a private mount
# namespace.
if [ "$(id -u)" = 0 ] && [ ! -c /dev/null ] && [ -z "${PG_NS:-}" ]; then
  exec env PG_NS=1 unshare -m --propagation private bash -c \
    'n=$(mktemp -u); mknod -m 666 "$n" c 1 3 && mount --bind "$n" /dev/null && rm -f "$n" && exec "$0" "$@"' "$0" "$@"
fi
if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
  echo "$0: PostgreSQL server binaries not found (apt-get install postgresql-15, or set PGBIN)" >&2
  exit 1
fi
PORT=${PGPORT:-$(( 20000 + RANDOM % 20000 ))}
TMP=$(mktemp -d)
# initdb and postgres refuse to run as root: drop to the postgres user.
if [ "$(id -u)" = 0 ]; then RUNAS=(runuser -u postgres --); chown postgres: "$TMP"; else RUNAS=(); fi
cleanup() {
  "${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$TMP/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
"${RUNAS[@]}" "$PGBIN/initdb" -D "$TMP/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$TMP/data" -l "$TMP/log" -w -t 30 \
  -o "-c listen_addresses=127.0.0.1 -p $PORT -k $TMP -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
  start >/dev/null
export CARRYOVER_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"
# Not exec: the trap must run to stop the server.
"$@"
