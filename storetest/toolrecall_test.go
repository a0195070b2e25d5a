package storetest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/storetest"
)

// TestDeepToolRecallSQLite: see testDeepToolRecall.
func TestDeepToolRecallSQLite(t *testing.T) { testDeepToolRecall(t, sqliteStore(t)) }

// TestDeepToolRecallPostgres: see testDeepToolRecall.
func TestDeepToolRecallPostgres(t *testing.T) {
	testDeepToolRecall(t, newPair(t, storetest.PostgresDatabase(t)).pg)
}

// toolTranscript builds a session's transcript as Claude Code writes it:
// one JSON object a line, each tool call followed by its result.
type toolTranscript struct {
	id, cwd string
	lines   []string
	at      time.Time
}

func (x *toolTranscript) add(v map[string]any) {
	x.at = x.at.Add(time.Second)
	v["sessionId"], v["cwd"], v["uuid"], v["timestamp"] = x.id, x.cwd, fmt.Sprintf("%s-%d", x.id[:8], len(x.lines)), x.at.Format(time.RFC3339)
	b, _ := json.Marshal(v)
	x.lines = append(x.lines, string(b))
}

func (x *toolTranscript) call(name string, input map[string]any, out string, failed bool) {
	id := fmt.Sprintf("toolu_%02d", len(x.lines))
	x.add(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "id": "m" + id,
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}})
	x.add(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": failed}}}})
}

func (x *toolTranscript) archive(t *testing.T, st carryover.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), x.id+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(x.lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (&ingest.Archiver{Store: st}).File(context.Background(), path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
}

// failingLog is a go test ./... run whose failures (test, message,
// package) come after packages that pass.
func failingLog(failures ...[3]string) string {
	var b strings.Builder
	for i, f := range failures {
		for j := range 30 {
			fmt.Fprintf(&b, "ok  \tgithub.com/acme/shop/p%d_%d\t0.01s\n", i, j)
		}
		fmt.Fprintf(&b, "--- FAIL: %s (0.00s)\n    %s\nFAIL\tgithub.com/acme/shop/%s\t0.4s\n", f[0], f[1], f[2])
	}
	return b.String() + "FAIL\n"
}

// testDeepToolRecall: failure and file recall read past an error item's
// first lines in both stores. An earlier session printed a failure after
// another one and fixed it; a later one fails with it alone and is told
// the fix. An error left open before a compaction names a file past its
// first lines; reading the file recalls that line.
func testDeepToolRecall(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	const project = "/home/dev/shop"
	earlier := &toolTranscript{id: "5a0c7e11-0000-4000-8000-000000000001", cwd: project, at: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	earlier.add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "run the whole test suite"}})
	earlier.call("Bash", map[string]any{"command": "go test ./..."}, failingLog(
		[3]string{"TestCacheWarmup", "cache_test.go:41: timed out waiting for redis", "cache"},
		[3]string{"TestRefundRoundsHalfEven", "refund_test.go:88: got 10.04, want 10.05", "billing"}), true)
	earlier.call("Edit", map[string]any{"file_path": project + "/billing/refund.go", "old_string": "math.Round(v*100)",
		"new_string": "math.RoundToEven(v*100)"}, "The file has been updated successfully.", false)
	earlier.call("Bash", map[string]any{"command": "go test ./..."}, "ok  \tgithub.com/acme/shop/billing\t0.4s", false)
	earlier.archive(t, st)

	blk, err := retrieve.FailureRecall(ctx, st, retrieve.FailureRequest{SessionID: "5a0c7e11-0000-4000-8000-000000000002", Project: project,
		Tool: "Bash", Command: "go test ./billing/", Error: failingLog([3]string{"TestRefundRoundsHalfEven", "refund_test.go:88: got 20.14, want 20.15", "billing"})})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(blk.Text, "TestRefundRoundsHalfEven") || !strings.Contains(blk.Text, "math.RoundToEven") {
		t.Errorf("failure recall of a failure printed deep in an earlier run:\n%s", blk.Text)
	}

	lint := &toolTranscript{id: "5a0c7e11-0000-4000-8000-000000000003", cwd: project, at: time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)}
	lint.add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "lint the project"}})
	var out strings.Builder
	for i := range 40 {
		fmt.Fprintf(&out, "web/pages/page_%02d.tsx:%d:1 error Unexpected any\n", i, i+3)
	}
	out.WriteString("web/lib/parse_amount.ts:88:14 error Unsafe member access .cents on an any value\n")
	lint.call("Bash", map[string]any{"command": "npm run lint"}, out.String(), true)
	lint.add(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 100000}})
	lint.add(map[string]any{"type": "user", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": "Summary: linting."}})
	lint.archive(t, st)
	blk, err = retrieve.FileRecall(ctx, st, retrieve.FileRequest{SessionID: lint.id, Project: project, Window: 1, File: project + "/web/lib/parse_amount.ts"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(blk.Text, "Unsafe member access .cents") {
		t.Errorf("file recall of an open error that names the file deep in its output:\n%s", blk.Text)
	}
}
