#!/usr/bin/env bash
# Runs a command against PGlite (PostgreSQL compiled to WebAssembly, in
# Node) with the pgvector extension: installs the pinned npm packages into
# .cache/pglite when missing, starts an in-memory server on 127.0.0.1
# (random port, or PGLITE_PORT), exports CARRYOVER_TEST_PGVECTOR_URL, runs
# the command and stops the server. Needs node and npm.
#
#   scripts/with-pglite.sh go test -run PGVector ./postgres/
set -euo pipefail
if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi
DIR="$(cd "$(dirname "$0")/.." && pwd)/.cache/pglite"
PKGS=(@electric-sql/pglite@0.5.14 @electric-sql/pglite-socket@0.2.17 @electric-sql/pglite-pgvector@0.0.15)
if [ ! -x "$DIR/node_modules/.bin/pglite-server" ] || [ ! -d "$DIR/node_modules/@electric-sql/pglite-pgvector" ]; then
  mkdir -p "$DIR"
  [ -f "$DIR/package.json" ] || echo '{"private": true}' >"$DIR/package.json"
  npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error "${PKGS[@]}" >&2
fi
PORT=${PGLITE_PORT:-$(( 40000 + RANDOM % 20000 ))}
LOG=$(mktemp)
# PGlite is one single-user backend: connections take turns (-m queues
# them), so the stores it serves must expect slower connects.
"$DIR/node_modules/.bin/pglite-server" -h 127.0.0.1 -p "$PORT" -m 8 \
  -e @electric-sql/pglite-pgvector:vector >"$LOG" 2>&1 &
PID=$!
cleanup() { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -f "$LOG"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 300); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  if ! kill -0 "$PID" 2>/dev/null; then cat "$LOG" >&2; echo "$0: pglite-server exited" >&2; exit 1; fi
  sleep 0.1
done
# Its connections share one backend, so named prepared statements of
# one would clash with another's: pgx must use unnamed ones; and their
# transactions would interleave: one connection per store.
export CARRYOVER_TEST_PGVECTOR_URL="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable&default_query_exec_mode=exec&pool_max_conns=1"
# Not exec: the trap must run to stop the server.
"$@"
