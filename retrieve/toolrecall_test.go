package retrieve_test

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
)

// tx writes a transcript as Claude Code does: one JSON object per line,
// tool calls and their results paired by id.
type tx struct {
	id, cwd string
	t       time.Time
	lines   []string
	n       int
}

func newTx(id, cwd string, t time.Time) *tx { return &tx{id: id, cwd: cwd, t: t} }

func (x *tx) add(v map[string]any) {
	x.n++
	x.t = x.t.Add(time.Second)
	v["sessionId"], v["cwd"], v["uuid"], v["timestamp"], v["isSidechain"] = x.id, x.cwd, fmt.Sprintf("u%d", x.n), x.t.Format(time.RFC3339), false
	b, _ := json.Marshal(v)
	x.lines = append(x.lines, string(b))
}

func (x *tx) prompt(text string) {
	x.add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
}

func (x *tx) say(text string) {
	x.add(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "id": fmt.Sprintf("m%d", x.n),
		"content": []any{map[string]any{"type": "text", "text": text}}}})
}

// call adds a tool call and its result.
func (x *tx) call(name string, input map[string]any, result string, isErr bool) {
	id := fmt.Sprintf("toolu_%d", x.n)
	x.add(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "id": fmt.Sprintf("m%d", x.n),
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}})
	x.add(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": result, "is_error": isErr}}}})
}

func (x *tx) compact() {
	x.add(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 100000}})
	x.add(map[string]any{"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
		"message": map[string]any{"role": "user", "content": "This session is being continued from a previous conversation. Summary: work on the store."}})
}

// archive writes the transcript and archives it into st as the hooks do.
func (x *tx) archive(t testing.TB, st carryover.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), x.id+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(x.lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := ingest.Archiver{Store: st}
	if _, err := a.File(context.Background(), path, ingest.Options{SessionID: x.id, Project: x.cwd}); err != nil {
		t.Fatal(err)
	}
}

const (
	toolProject = "/home/dev/shop"
	earlierID   = "11111111-1111-4111-8111-111111111111"
	currentID   = "22222222-2222-4222-8222-222222222222"
)

// migrateFailure is the failure both sessions run into.
func migrateFailure(tmp string, line int) string {
	return fmt.Sprintf("Exit code 1\nmigrate: applying 0042_orders.sql\nError: relation \"orders_archive\" does not exist at %s/mig-%d/0042_orders.sql:%d:7\nFAIL", tmp, line, line)
}

// earlierSession fails `make migrate`, fixes the migration and passes.
func earlierSession(t *testing.T, st carryover.Store) {
	x := newTx(earlierID, toolProject, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	x.prompt("add the order archive table and run the migrations")
	x.call("Bash", map[string]any{"command": "make migrate"}, migrateFailure("/tmp/go-build3381", 12), true)
	x.say("The archive table is created by 0041 only on a fresh database; 0042 must create it itself with CREATE TABLE IF NOT EXISTS.")
	x.call("Edit", map[string]any{"file_path": toolProject + "/db/migrations/0042_orders.sql",
		"old_string": "INSERT INTO orders_archive", "new_string": "CREATE TABLE IF NOT EXISTS orders_archive (LIKE orders);\nINSERT INTO orders_archive"}, "The file has been updated successfully.", false)
	x.call("Bash", map[string]any{"command": "make migrate"}, "migrate: applying 0042_orders.sql\nok", false)
	// An unrelated failure that was never fixed.
	x.call("Bash", map[string]any{"command": "npm run lint"}, "Exit code 2\nsrc/app.ts:3:1 error Unexpected console statement no-console", true)
	x.archive(t, st)
}

func failureRecall(t *testing.T, st carryover.Store, req retrieve.FailureRequest) retrieve.Block {
	t.Helper()
	if req.SessionID == "" {
		req.SessionID, req.Project = currentID, toolProject
	}
	blk, err := retrieve.FailureRecall(context.Background(), st, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(blk.Text) > retrieve.FailureBudget {
		t.Errorf("failure recall: %d chars over the budget:\n%s", len(blk.Text), blk.Text)
	}
	return blk
}

func TestFailureRecallAcrossSessions(t *testing.T) {
	st := openStore(t)
	earlierSession(t, st)
	// The same failure in a later session: another temp dir, other line
	// numbers.
	blk := failureRecall(t, st, retrieve.FailureRequest{Tool: "Bash", Command: "make migrate", Error: migrateFailure("/tmp/go-build9020", 31)})
	for _, want := range []string{"this failed before", "session 11111111", "CREATE TABLE IF NOT EXISTS orders_archive",
		"db/migrations/0042_orders.sql", "then `make migrate` passed", "Why: The archive table is created by 0041"} {
		if !strings.Contains(blk.Text, want) {
			t.Errorf("recall lacks %q:\n%s", want, blk.Text)
		}
	}
	if strings.Contains(blk.Text, toolProject+"/") {
		t.Errorf("paths under the project are not relative:\n%s", blk.Text)
	}
	if len(blk.ItemIDs) == 0 {
		t.Fatal("no item ids: the hook could not record it")
	}

	// Once per context window: the hook excludes what it recalled.
	again := failureRecall(t, st, retrieve.FailureRequest{Tool: "Bash", Command: "make migrate", Error: migrateFailure("/tmp/x", 5),
		Exclude: map[int64]bool{blk.ItemIDs[0]: true}})
	if again.Text != "" {
		t.Errorf("recalled twice in one window:\n%s", again.Text)
	}

	for name, req := range map[string]retrieve.FailureRequest{
		"never fixed":    {Tool: "Bash", Command: "npm run lint", Error: "Exit code 2\nsrc/app.ts:9:1 error Unexpected console statement no-console"},
		"unrelated":      {Tool: "Bash", Command: "make migrate", Error: "Exit code 2\ncannot connect to the docker daemon at unix:///var/run/docker.sock"},
		"exit code only": {Tool: "Bash", Command: "make migrate", Error: "Exit code 1\n"},
		"file tool":      {Tool: "Edit", Error: "<tool_use_error>String to replace not found in file.</tool_use_error>"},
		"another tool":   {Tool: "mcp__db__query", Error: migrateFailure("/tmp/q", 3)},
		"interrupt":      {Tool: "Bash", Command: "make migrate", Error: "[Request interrupted by user for tool use]"},
		"in Japanese":    {Tool: "Bash", Command: "make migrate", Error: "Exit code 1\nエラー: テーブル orders_archive が存在しません"},
		"binary":         {Tool: "Bash", Command: "make migrate", Error: "Exit code 1\n\x00\x01\xff\xfe\x7f" + strings.Repeat("\x00", 100)},
	} {
		if blk := failureRecall(t, st, req); blk.Text != "" {
			t.Errorf("%s: recalled\n%s", name, blk.Text)
		}
	}
}

func TestFailureRecallSameSession(t *testing.T) {
	st := openStore(t)
	x := newTx(currentID, toolProject, time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC))
	x.prompt("run the migrations")
	x.call("Bash", map[string]any{"command": "make migrate"}, migrateFailure("/tmp/a1", 12), true)
	x.say("0042 must create the archive table itself.")
	x.call("Edit", map[string]any{"file_path": toolProject + "/db/migrations/0042_orders.sql",
		"old_string": "INSERT INTO orders_archive", "new_string": "CREATE TABLE IF NOT EXISTS orders_archive (LIKE orders);\nINSERT INTO orders_archive"}, "ok", false)
	x.call("Bash", map[string]any{"command": "make migrate"}, "ok", false)
	x.archive(t, st)
	live := migrateFailure("/tmp/b2", 40)
	// Window 0: the failure and its fix are in front of the model.
	if blk := failureRecall(t, st, retrieve.FailureRequest{Window: 0, Tool: "Bash", Command: "make migrate", Error: live}); blk.Text != "" {
		t.Errorf("recalled from the current window:\n%s", blk.Text)
	}
	// After a compaction they are not.
	blk := failureRecall(t, st, retrieve.FailureRequest{Window: 1, Tool: "Bash", Command: "make migrate", Error: live})
	if !strings.Contains(blk.Text, "earlier in this session") || !strings.Contains(blk.Text, "CREATE TABLE IF NOT EXISTS") {
		t.Errorf("after the compaction:\n%s", blk.Text)
	}
	// A stricter threshold than the match reaches: nothing.
	if blk := failureRecall(t, st, retrieve.FailureRequest{Window: 1, Tool: "Bash", Command: "make test", Error: live, MinScore: 0.99}); blk.Text != "" {
		t.Errorf("min score 0.99 with another command recalled:\n%s", blk.Text)
	}
}

// TestFailureRecallErrorSaysFix: a failure whose own text names the fix
// ("Run 'gofmt -w .' to fix.") gets nothing: the recall would repeat it.
// The same failure fixed by something its text does not name is recalled.
func TestFailureRecallErrorSaysFix(t *testing.T) {
	st := openStore(t)
	x := newTx(earlierID, toolProject, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	x.prompt("commit it")
	hookFailure := func(hint string) string {
		return "Pre-commit validation failed:\n[FORMAT] api/checkout_handler.go is not formatted.\n" + hint + "\nFix these issues before committing."
	}
	x.call("Bash", map[string]any{"command": "git commit -m 'checkout keys'"}, hookFailure("Run 'gofmt -w .' to fix."), true)
	x.say("The pre-commit hook wants the code formatted.")
	x.call("Bash", map[string]any{"command": "gofmt -w . 2>&1"}, "", false)
	x.call("Bash", map[string]any{"command": "git commit -m 'checkout keys'"}, "[main 1a2b3c4] checkout keys", false)
	x.archive(t, st)
	req := retrieve.FailureRequest{Tool: "Bash", Command: "git commit -m 'store keys'", Error: hookFailure("Run 'gofmt -w .' to fix.")}
	if blk := failureRecall(t, st, req); blk.Text != "" {
		t.Errorf("repeated the fix the error names:\n%s", blk.Text)
	}
	req.Error = hookFailure("See the contributing guide.")
	if blk := failureRecall(t, st, req); !strings.Contains(blk.Text, "gofmt -w .") {
		t.Errorf("an error that does not name the fix:\n%s", blk.Text)
	}
}

// goTestLog is a failing go test ./... run: the failures given, each a
// test and its message, with packages that pass between them.
func goTestLog(failures ...[3]string) string {
	var b strings.Builder
	b.WriteString("Exit code 1\n")
	for i, f := range failures {
		for j := range 40 {
			fmt.Fprintf(&b, "ok  \tgithub.com/acme/shop/pkg%d_%d\t0.%03ds\n", i, j, j)
		}
		fmt.Fprintf(&b, "=== RUN   %s\n--- FAIL: %s (0.00s)\n    %s\nFAIL\tgithub.com/acme/shop/%s\t0.412s\n", f[0], f[0], f[1], f[2])
	}
	b.WriteString("FAIL\n")
	return b.String()
}

// TestFailureRecallDeepInOutput: an earlier run printed the failure after
// another one, so its error item (the first error lines) does not match
// the failure alone; the passages of its output find it, and the recall
// quotes the lines that matched.
func TestFailureRecallDeepInOutput(t *testing.T) {
	st := openStore(t)
	x := newTx(earlierID, toolProject, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	x.prompt("run the whole test suite")
	x.call("Bash", map[string]any{"command": "go test ./..."}, goTestLog(
		[3]string{"TestCacheWarmup", "cache_test.go:41: timed out waiting for redis at 127.0.0.1:6379", "cache"},
		[3]string{"TestRefundRoundsHalfEven", "refund_test.go:88: got 10.04, want 10.05", "billing"}), true)
	x.say("The cache test needs redis, which is not running here. Refunds must round half to even.")
	x.call("Edit", map[string]any{"file_path": toolProject + "/billing/refund.go",
		"old_string": "math.Round(v*100)", "new_string": "math.RoundToEven(v*100)"}, "The file has been updated successfully.", false)
	x.call("Bash", map[string]any{"command": "go test ./..."}, "ok  \tgithub.com/acme/shop/billing\t0.401s", false)
	// Another test failing deep in a run that was never fixed.
	x.call("Bash", map[string]any{"command": "go test -run Invoice ./..."}, goTestLog(
		[3]string{"TestCacheEviction", "cache_test.go:77: unexpected eviction count 3, want 2", "cache"},
		[3]string{"TestInvoiceNumbering", "invoice_test.go:17: got INV-0007, want INV-0008", "invoice"}), true)
	x.archive(t, st)

	refund := goTestLog([3]string{"TestRefundRoundsHalfEven", "refund_test.go:88: got 20.14, want 20.15", "billing"})
	items, err := st.Items(context.Background(), carryover.ItemFilter{SessionID: earlierID, Kinds: []carryover.ItemKind{carryover.KindError}})
	if err != nil || len(items) != 2 {
		t.Fatalf("error items: %d, %v", len(items), err)
	}
	for _, it := range items {
		if strings.Contains(it.Text, "TestRefundRoundsHalfEven") || strings.Contains(it.Text, "TestInvoiceNumbering") {
			t.Fatalf("the error item holds the deep failure, so the test shows nothing: %s", it.Text)
		}
	}
	blk := failureRecall(t, st, retrieve.FailureRequest{Tool: "Bash", Command: "go test ./billing/", Error: refund})
	for _, want := range []string{"this failed before", "TestRefundRoundsHalfEven", "math.RoundToEven", "billing/refund.go"} {
		if !strings.Contains(blk.Text, want) {
			t.Errorf("recall lacks %q:\n%s", want, blk.Text)
		}
	}
	if strings.Contains(blk.Text, "TestCacheWarmup") {
		t.Errorf("the recall quotes the other failure, not the one that matched:\n%s", blk.Text)
	}
	for name, req := range map[string]retrieve.FailureRequest{
		"another test of the package": {Tool: "Bash", Command: "go test ./billing/", Error: goTestLog(
			[3]string{"TestInvoiceTotals", "invoice_test.go:12: got 3, want 4", "billing"})},
		"deep but never fixed": {Tool: "Bash", Command: "go test ./invoice/", Error: goTestLog(
			[3]string{"TestInvoiceNumbering", "invoice_test.go:17: got INV-0011, want INV-0012", "invoice"})},
		"another tool": {Tool: "mcp__ci__run", Error: refund},
	} {
		if blk := failureRecall(t, st, req); blk.Text != "" {
			t.Errorf("%s: recalled\n%s", name, blk.Text)
		}
	}
}

func TestFailureRecallHugeError(t *testing.T) {
	st := openStore(t)
	earlierSession(t, st)
	huge := migrateFailure("/tmp/h", 8) + "\n" + strings.Repeat("noise line of a long test log\n", 200_000) // 6 MB
	start := time.Now()
	blk := failureRecall(t, st, retrieve.FailureRequest{Tool: "Bash", Command: "make migrate", Error: huge})
	if !strings.Contains(blk.Text, "CREATE TABLE IF NOT EXISTS") {
		t.Errorf("a failure followed by megabytes of output was not matched:\n%s", blk.Text)
	}
	t.Logf("6 MB error text: %v", time.Since(start))
}

func TestSignature(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"Exit code 1\nfoo.go:12:5: undefined: Bar", "Exit code 2\nfoo.go:99:1: undefined: Bar"},
		{"open /tmp/go-build123/x/y.txt: no such file", "open /tmp/TestFoo456/001/y.txt: no such file"},
		{"panic at 0xc000123abc in goroutine 7", "panic at 0xc0004f0000 in goroutine 19"},
		{"2026-02-12T16:58:16.024Z [warning] Failed to parse", "2025-01-01T01:02:03Z [warning] Failed to parse"},
		{"16:58:16.024 [warning] job 7c0e9b1d-58aa-4f0b-a4b5-7f09c1a5e2d3 failed", "09:01:02.5 [warning] job 0f3bf4f1-2e24-4c4a-9bc9-2a61f43b4d01 failed"},
		{"commit 3e9a1c4f rejected", "commit a0b1c2d3e4 rejected"},
		{`C:\Users\dev\AppData\Local\Temp\go-build1\a.exe: access denied`, `C:\Users\ops\AppData\Local\Temp\xyz\a.exe: access denied`},
	} {
		if sa, sb := retrieve.Signature(c.a), retrieve.Signature(c.b); sa != sb {
			t.Errorf("Signature(%q) = %q\nSignature(%q) = %q", c.a, sa, c.b, sb)
		}
	}
	for _, c := range []struct{ a, b string }{
		{"undefined: Bar", "undefined: Baz"},
		{"relation \"orders\" does not exist", "relation \"users\" does not exist"},
	} {
		if retrieve.Signature(c.a) == retrieve.Signature(c.b) {
			t.Errorf("%q and %q have the same signature", c.a, c.b)
		}
	}
}

// fileSession edits a file, leaves an error open about another one, then
// compacts.
func fileSession(t *testing.T, st carryover.Store) {
	x := newTx(currentID, toolProject, time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC))
	x.prompt("make checkout idempotent")
	x.call("Read", map[string]any{"file_path": toolProject + "/api/checkout.go"}, "package api\n", false)
	x.say("Checkout must ignore a repeated request key, so I keep the keys in the idempotency_keys table with a unique index.")
	x.call("Edit", map[string]any{"file_path": toolProject + "/api/checkout.go",
		"old_string": "func Checkout(ctx context.Context, cart Cart) error {", "new_string": "func Checkout(ctx context.Context, cart Cart, idempotencyKey string) error {\n\tif seen, err := keys.Claim(ctx, idempotencyKey); err != nil || seen {"}, "ok", false)
	x.call("Bash", map[string]any{"command": "go test ./api/"}, "Exit code 1\n--- FAIL: TestCheckoutRetry (0.01s)\n    api/retry_test.go:40: retry failed: want 1 order, got 2", true)
	x.compact()
	x.prompt("go on")
	x.archive(t, st)
}

func fileRecall(t *testing.T, st carryover.Store, req retrieve.FileRequest) retrieve.Block {
	t.Helper()
	req.SessionID, req.Project = currentID, toolProject
	if req.Window == 0 {
		req.Window = 1
	}
	blk, err := retrieve.FileRecall(context.Background(), st, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(blk.Text) > retrieve.FileRecallBudget {
		t.Errorf("file recall: %d chars over the budget:\n%s", len(blk.Text), blk.Text)
	}
	return blk
}

// TestFileRecallDeepOpenError: an error left open before the compaction
// that names the file only deep in its output (a linter's report after
// other files' warnings) is recalled when the model reads the file, with
// the line that names it; a file the output only lists is not.
func TestFileRecallDeepOpenError(t *testing.T) {
	st := openStore(t)
	x := newTx(currentID, toolProject, time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC))
	x.prompt("lint the project")
	var out strings.Builder
	out.WriteString("Exit code 1\n")
	for i := range 60 {
		fmt.Fprintf(&out, "web/pages/page_%02d.tsx:%d:1 error Unexpected any. Specify a different type\n", i, i+3)
	}
	out.WriteString("checked web/lib/format_money.ts\n")
	out.WriteString("web/lib/parse_amount.ts:88:14 error Unsafe member access .cents on an any value\n")
	out.WriteString("✖ 61 problems (61 errors, 0 warnings)\n")
	x.call("Bash", map[string]any{"command": "npm run lint"}, out.String(), true)
	x.compact()
	x.prompt("go on")
	x.archive(t, st)

	blk := fileRecall(t, st, retrieve.FileRequest{File: toolProject + "/web/lib/parse_amount.ts"})
	if !strings.Contains(blk.Text, "open") || !strings.Contains(blk.Text, "Unsafe member access .cents") || len(blk.ItemIDs) == 0 {
		t.Fatalf("the open error deep in the lint output:\n%s", blk.Text)
	}
	// A restore that showed the error showed its first lines only.
	shown := fileRecall(t, st, retrieve.FileRequest{File: toolProject + "/web/lib/parse_amount.ts", ShownItems: map[int64]bool{blk.ItemIDs[0]: true}})
	if shown.Text != blk.Text {
		t.Errorf("after a restore that showed the error's first lines:\n%s", shown.Text)
	}
	if blk := fileRecall(t, st, retrieve.FileRequest{File: toolProject + "/web/lib/format_money.ts"}); blk.Text != "" {
		t.Errorf("a file the output only lists:\n%s", blk.Text)
	}
}

// TestFileRecallDeepOutputBudget: one recall decodes at most
// retrieve.DeepReadBytes of failed outputs; an open error's output that
// would pass it is not read back, and a file it names past its first
// lines gets nothing.
func TestFileRecallDeepOutputBudget(t *testing.T) {
	st := openStore(t)
	x := newTx(currentID, toolProject, time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC))
	x.prompt("run the whole suite")
	testLog := func(dir string, size int, last string) string {
		var out strings.Builder
		for _, f := range []string{"index", "cart", "checkout"} {
			fmt.Fprintf(&out, "FAIL %s/%s.test.tsx\n", dir, f)
		}
		for out.Len() < size {
			out.WriteString("    at Object.<anonymous> (node_modules/jest-circus/build/utils.js:298:28)\n")
		}
		return out.String() + last + "\n"
	}
	// The older failure names the file; the newer one, read first, leaves
	// too little of the budget for it.
	x.call("Bash", map[string]any{"command": "npm test -- web/lib"}, testLog("web/lib", retrieve.DeepReadBytes*7/16,
		"web/lib/parse_amount.ts:88:14 error Unsafe member access .cents on an any value"), true)
	x.call("Bash", map[string]any{"command": "npm test"}, testLog("web/pages", retrieve.DeepReadBytes*5/8, "FAIL web/app.test.tsx"), true)
	x.compact()
	x.prompt("go on")
	x.archive(t, st)
	if blk := fileRecall(t, st, retrieve.FileRequest{File: toolProject + "/web/lib/parse_amount.ts"}); blk.Text != "" {
		t.Errorf("outputs over the budget were read back:\n%s", blk.Text)
	}
}

func TestFileRecall(t *testing.T) {
	st := openStore(t)
	fileSession(t, st)
	blk := fileRecall(t, st, retrieve.FileRequest{File: toolProject + "/api/checkout.go"})
	for _, want := range []string{"changed api/checkout.go (1 edit", "unique index", "idempotencyKey string"} {
		if !strings.Contains(blk.Text, want) {
			t.Errorf("file recall lacks %q:\n%s", want, blk.Text)
		}
	}
	if len(blk.ItemIDs) == 0 || len(blk.ChunkIDs) == 0 {
		t.Fatalf("ids %v %v", blk.ItemIDs, blk.ChunkIDs)
	}
	// Relative to the project, the same file.
	if rel := fileRecall(t, st, retrieve.FileRequest{File: "api/checkout.go"}); rel.Text != blk.Text {
		t.Errorf("relative path:\n%s\nwant\n%s", rel.Text, blk.Text)
	}
	// Once per window.
	if again := fileRecall(t, st, retrieve.FileRequest{File: toolProject + "/api/checkout.go", Exclude: map[int64]bool{blk.ItemIDs[0]: true}}); again.Text != "" {
		t.Errorf("recalled twice:\n%s", again.Text)
	}
	// The restore showed the edit already: nothing new to say.
	shown := map[int64]bool{}
	for _, id := range blk.ChunkIDs {
		shown[id] = true
	}
	if rep := fileRecall(t, st, retrieve.FileRequest{File: toolProject + "/api/checkout.go", ShownChunks: shown}); rep.Text != "" {
		t.Errorf("repeated the restore:\n%s", rep.Text)
	}
	// A Read that shows the lines the edit added says all the recall
	// would, but for the edit's reason (which names idempotency_keys):
	// nothing to add. A Read of other lines leaves them news.
	whole := "package api\n\nfunc Checkout(ctx context.Context, cart Cart, idempotencyKey string) error {\n" +
		"\tif seen, err := keys.Claim(ctx, idempotencyKey); err != nil || seen {\n"
	if rep := fileRecall(t, st, retrieve.FileRequest{File: toolProject + "/api/checkout.go", Shown: whole}); rep.Text != "" {
		t.Errorf("repeated what the Read showed:\n%s", rep.Text)
	}
	if part := fileRecall(t, st, retrieve.FileRequest{File: toolProject + "/api/checkout.go", Shown: "package api\n"}); part.Text != blk.Text {
		t.Errorf("a Read of other lines:\n%s\nwant\n%s", part.Text, blk.Text)
	}
	// A file with an open error from before the compaction, never edited.
	open := fileRecall(t, st, retrieve.FileRequest{File: toolProject + "/api/retry_test.go"})
	if !strings.Contains(open.Text, "open") || !strings.Contains(open.Text, "want 1 order, got 2") {
		t.Errorf("open error:\n%s", open.Text)
	}
	for name, req := range map[string]retrieve.FileRequest{
		"untouched file":           {File: toolProject + "/api/cart.go"},
		"no compaction":            {File: toolProject + "/api/checkout.go", Window: -1},
		"more novelty than it has": {File: toolProject + "/api/checkout.go", MinNovel: 50},
		"empty path":               {File: ""},
	} {
		if blk := fileRecall(t, st, req); blk.Text != "" {
			t.Errorf("%s: recalled\n%s", name, blk.Text)
		}
	}
}
