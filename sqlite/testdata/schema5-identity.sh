#!/usr/bin/env bash
# Writes schema5-identity.db, the store TestIdentityMigration migrates:
# what carryover wrote before sessions had parents and projects were
# repository roots (schema version 5, commit 2a361e8), built by that
# commit's binary from small transcripts whose directories are under
# /FIXTURE (the test moves them to real directories it makes).
#
#   git archive 2a361e8 | tar -x -C OLD && (cd OLD && go build -o BIN ./cmd/carryover)
#   sqlite/testdata/schema5-identity.sh BIN sqlite/testdata/schema5-identity.db
set -euo pipefail
bin=$1
out=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home CARRYOVER_DB=$tmp/store.db CARRYOVER_LOG=$tmp/log
proj=$tmp/projects/-FIXTURE-app

# session FILE SESSION_ID CWD WORD SIDECHAIN AGENT_ID MINUTE: one turn that
# runs a command and answers.
session() {
	local file=$1 sid=$2 cwd=$3 word=$4 side=$5 agent=$6 m=$7
	local env="\"isSidechain\":$side,\"userType\":\"external\",\"cwd\":\"$cwd\",\"sessionId\":\"$sid\",\"version\":\"2.1.100\",\"gitBranch\":\"main\""
	[ -n "$agent" ] && env="$env,\"agentId\":\"$agent\""
	local u=${sid:0:8}-$word
	mkdir -p "$(dirname "$file")"
	cat >"$file" <<JSONL
{"parentUuid":null,$env,"type":"user","message":{"role":"user","content":"Find where the $word cache is built and fix the flaky $word test."},"uuid":"$u-1","timestamp":"2026-01-05T10:$m:00.000Z"}
{"parentUuid":"$u-1",$env,"type":"assistant","message":{"id":"msg_$u-2","type":"message","role":"assistant","model":"claude-opus-4","content":[{"type":"tool_use","id":"toolu_$u","name":"Bash","input":{"command":"go test -run Test${word^}Cache ./internal/$word/"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}},"uuid":"$u-2","timestamp":"2026-01-05T10:$m:05.000Z"}
{"parentUuid":"$u-2",$env,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_$u","content":"--- FAIL: Test${word^}Cache\n    cache_test.go:41: $word key mismatch (token ghp_R8x2Kq9Lm4Tz7Vb1Nc6Wd3Yf5Hg0Js2Pa8Qe)\nFAIL"}]},"uuid":"$u-3","timestamp":"2026-01-05T10:$m:09.000Z"}
{"parentUuid":"$u-3",$env,"type":"assistant","message":{"id":"msg_$u-4","type":"message","role":"assistant","model":"claude-opus-4","content":[{"type":"text","text":"The $word cache key omitted the build tags; internal/$word/cache.go now includes them and Test${word^}Cache passes."}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":20}},"uuid":"$u-4","timestamp":"2026-01-05T10:$m:20.000Z"}
JSONL
}

p1=11111111-1111-4111-8111-111111111111
session "$proj/$p1.jsonl" $p1 /FIXTURE/app kestrel false "" 01
# Claude Code 2.1's layout: the subagent under its parent, with a description.
session "$proj/$p1/subagents/agent-a0f1e2d3c4b5a6978.jsonl" $p1 /FIXTURE/app plover true a0f1e2d3c4b5a6978 02
printf '{"agentType":"general-purpose","description":"Trace the plover cache"}' >"$proj/$p1/subagents/agent-a0f1e2d3c4b5a6978.meta.json"
# The older flat layout: the parent only in its lines' sessionId.
session "$proj/agent-1234abcd.jsonl" $p1 /FIXTURE/app/internal bittern true 1234abcd 03
# A worktree of the repository, and a subdirectory of it.
session "$tmp/projects/-FIXTURE-app-wt/22222222-2222-4222-8222-222222222222.jsonl" 22222222-2222-4222-8222-222222222222 /FIXTURE/app-wt osprey false "" 04
session "$proj/44444444-4444-4444-8444-444444444444.jsonl" 44444444-4444-4444-8444-444444444444 /FIXTURE/app/internal heron false "" 05
# A directory that no longer exists.
session "$tmp/projects/-FIXTURE-gone/55555555-5555-4555-8555-555555555555.jsonl" 55555555-5555-4555-8555-555555555555 /FIXTURE/gone lantern false "" 06
"$bin" ingest "$tmp/projects"
# The first session again (a copy, as a resumed session repeats its lines),
# archived under the worktree: the same chunks in two projects.
mkdir -p "$tmp/copy"
cp "$proj/$p1.jsonl" "$tmp/copy/33333333-3333-4333-8333-333333333333.jsonl"
"$bin" ingest --project /FIXTURE/app-wt "$tmp/copy/33333333-3333-4333-8333-333333333333.jsonl"

# A note, an injection and a hook run, whose projects are text.
"$bin" note --session 44444444 --kind decision "heron cache keys include the build tags"
printf '{"session_id":"44444444-4444-4444-8444-444444444444","transcript_path":"%s","cwd":"/FIXTURE/app/internal/cmd","hook_event_name":"PreCompact","trigger":"manual"}' \
	"$proj/44444444-4444-4444-8444-444444444444.jsonl" | "$bin" hook pre-compact >/dev/null
"$bin" sessions
sqlite3 "$CARRYOVER_DB" 'PRAGMA wal_checkpoint(TRUNCATE); VACUUM;' >/dev/null 2>&1 || true
cp "$CARRYOVER_DB" "$out"
