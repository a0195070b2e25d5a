#!/usr/bin/env bash
# Times the restore (SessionStart after a compaction) and prompt recall
# hooks and `carryover search` of one or more carryover binaries on a
# PostgreSQL server reached through scripts/delayproxy, which delays every
# packet: how many round trips each waits on, at a network's distance;
# then a PreCompact that archives the transcript's last 50 lines and the
# PostCompact after it, each run on a session of its own (archived up to
# those lines first, not through the proxy). Run it under
# scripts/with-postgres.sh (it needs CARRYOVER_TEST_DATABASE_URL):
#
#   scripts/with-postgres.sh scripts/pg-hook-latency.sh ./carryover /tmp/carryover-old
#
# DELAY (default 5ms) is each way's delay; RUNS (default 10) the runs per
# hook and binary, interleaved; TRANSCRIPT (default: the largest spotter
# transcript beside the repository) the session, archived by the first
# binary, whose schema the others must be able to open. It prints each
# hook's median per binary, the bytes its last run printed, and whether
# that was what the first binary printed.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BINARY [BINARY...]" >&2; exit 2; }
: "${CARRYOVER_TEST_DATABASE_URL:?run under scripts/with-postgres.sh}"
cd "$(dirname "$0")/.."
DELAY=${DELAY:-5ms} RUNS=${RUNS:-10}
TRANSCRIPT=${TRANSCRIPT:-$(ls -S ../shared/data/transcripts/spotter/*.jsonl 2>/dev/null | head -1)}
[ -f "$TRANSCRIPT" ] || { echo "$0: no transcript (set TRANSCRIPT)" >&2; exit 1; }
TRANSCRIPT=$(cd "$(dirname "$TRANSCRIPT")" && pwd)/$(basename "$TRANSCRIPT")
SID=$(basename "$TRANSCRIPT" .jsonl)
TMP=$(mktemp -d)
PROXY=
trap '[ -n "$PROXY" ] && kill "$PROXY" 2>/dev/null; rm -rf "$TMP"' EXIT
export HOME=$TMP CARRYOVER_LOG=$TMP/log
payload() { printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"%s",%s}' \
  "$SID" "$TRANSCRIPT" "$(dirname "$TRANSCRIPT")" "$1" "$2"; }
payload Stop '"stop_hook_active":false' > "$TMP/stop.json"
payload SessionStart '"source":"compact"' > "$TMP/session-start.json"
payload UserPromptSubmit '"prompt":"which command made the failing test pass again?"' > "$TMP/user-prompt-submit.json"
CARRYOVER_DATABASE_URL=$CARRYOVER_TEST_DATABASE_URL "$1" hook stop < "$TMP/stop.json"

go build -o "$TMP/delayproxy" ./scripts/delayproxy
port=$(sed 's#.*@[^:]*:\([0-9]*\)/.*#\1#' <<<"$CARRYOVER_TEST_DATABASE_URL")
"$TMP/delayproxy" -target "127.0.0.1:$port" -delay "$DELAY" > "$TMP/proxy" &
PROXY=$!
for _ in $(seq 50); do [ -s "$TMP/proxy" ] && break; sleep 0.1; done
pport=$(sed 's/.*://' "$TMP/proxy")
[ -n "$pport" ] || { echo "$0: the proxy did not start" >&2; exit 1; }
export CARRYOVER_DATABASE_URL=${CARRYOVER_TEST_DATABASE_URL/:$port\//:$pport\/}
# A hook that cannot reach the server answers from the local store: the
# log says so, and the figures would be the local store's.
check_server() {
  if grep -q "server unavailable" "$TMP/log"; then
    echo "$0: a hook fell back from the server to the local store:" >&2
    grep "server unavailable" "$TMP/log" | tail -1 >&2
    exit 1
  fi
}

for ev in session-start user-prompt-submit search; do
  for ((r = 0; r < RUNS; r++)); do
    for ((b = 1; b <= $#; b++)); do
      s=$(date +%s%N)
      if [ "$ev" = search ]; then
        "${!b}" search "test failure error fix" --json > "$TMP/out-$b"
      else
        "${!b}" hook "$ev" < "$TMP/$ev.json" > "$TMP/out-$b"
      fi
      echo "$b $(( ($(date +%s%N) - s) / 1000 ))" >> "$TMP/times-$ev"
    done
  done
  check_server
  for ((b = 1; b <= $#; b++)); do
    med=$(awk -v b="$b" '$1 == b {print $2}' "$TMP/times-$ev" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    same=same; cmp -s "$TMP/out-1" "$TMP/out-$b" || same=different
    printf '%-20s %-40s median %6.1f ms, %d bytes out (%s as the first)\n' "$ev" "${!b}" \
      "$(awk -v u="$med" 'BEGIN {print u / 1000}')" "$(wc -c < "$TMP/out-$b")" "$same"
  done
done

# The archive path: each run a new session, its transcript but the last
# 50 lines archived at full speed, then PreCompact of those lines and
# PostCompact through the proxy.
lines=$(wc -l < "$TRANSCRIPT")
for ((r = 0; r < RUNS; r++)); do
  for ((b = 1; b <= $#; b++)); do
    sid=$(cat /proc/sys/kernel/random/uuid)
    t=$TMP/$sid.jsonl
    head -n $((lines - 50)) "$TRANSCRIPT" > "$t"
    printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false}' "$sid" "$t" "$TMP" |
      CARRYOVER_DATABASE_URL=$CARRYOVER_TEST_DATABASE_URL "${!b}" hook stop
    tail -n 50 "$TRANSCRIPT" >> "$t"
    for ev in pre-compact post-compact; do
      name=PreCompact; [ "$ev" = post-compact ] && name=PostCompact
      s=$(date +%s%N)
      printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"%s","trigger":"auto"}' "$sid" "$t" "$TMP" "$name" |
        "${!b}" hook "$ev" > /dev/null
      echo "$b $(( ($(date +%s%N) - s) / 1000 ))" >> "$TMP/times-$ev"
    done
    rm -f "$t"
  done
done
check_server
for ev in pre-compact post-compact; do
  for ((b = 1; b <= $#; b++)); do
    med=$(awk -v b="$b" '$1 == b {print $2}' "$TMP/times-$ev" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    printf '%-20s %-40s median %6.1f ms (50 new lines)\n' "$ev" "${!b}" "$(awk -v u="$med" 'BEGIN {print u / 1000}')"
  done
done
