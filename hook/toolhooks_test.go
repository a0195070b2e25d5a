package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/sqlite"
)

// The demo session's project, its failing test and the file the failure
// was fixed in.
const (
	demoProject = "/home/dev/projects/invoicer"
	demoRender  = demoProject + "/internal/pdf/render.go"
	demoTest    = "go test -race ./internal/pdf/..."
)

// demoFailure is the demo's failure as PostToolUseFailure gives it, with
// another line number each time.
func demoFailure(line int) string {
	return fmt.Sprintf("Exit code 1\n# example.com/invoicer/internal/pdf [example.com/invoicer/internal/pdf.test]\n"+
		"internal/pdf/render.go:%d:14: undefined: fpdf.NewA4\nFAIL\texample.com/invoicer/internal/pdf [build failed]\nFAIL", line)
}

// compacted archives the demo session through its compaction as Claude
// Code's hooks do: PreCompact on the lines before the boundary, then
// SessionStart(compact) on the lines up to the summary.
func compacted(t *testing.T, e *env) {
	t.Helper()
	write, cut := beforeCompaction(t, e)
	if out, res := e.run(t, hook.PreCompact, map[string]any{"trigger": "auto"}); res.Outcome != "ok" {
		t.Fatalf("PreCompact: %+v %s", res, out)
	}
	write(cut + 2)
	if out, res := e.run(t, hook.SessionStart, map[string]any{"source": "compact"}); res.Outcome != "ok" {
		t.Fatalf("SessionStart: %+v %s", res, out)
	}
}

// beforeCompaction leaves the demo transcript as it was when its
// compaction started, and returns a function that writes its first n lines
// and the index of the compaction's boundary.
func beforeCompaction(t *testing.T, e *env) (write func(n int), cut int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	cut = slices.IndexFunc(lines, func(l []byte) bool { return bytes.Contains(l, []byte(`"compact_boundary"`)) })
	if cut < 0 {
		t.Fatal("the demo session has no compaction")
	}
	write = func(n int) {
		if err := os.WriteFile(e.transcript, bytes.Join(lines[:n], nil), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cut)
	return write, cut
}

// run runs one event with the demo payload plus extra, cwd the demo's
// project, and returns the context it added.
func (e *env) run(t *testing.T, ev hook.Event, extra map[string]any) (string, hook.Result) {
	t.Helper()
	p := map[string]any{"cwd": demoProject}
	for k, v := range extra {
		p[k] = v
	}
	var out bytes.Buffer
	res := e.handler().Run(context.Background(), ev, bytes.NewReader(e.payload(string(ev), p)), &out)
	if out.Len() == 0 {
		return "", res
	}
	if ev == hook.PreCompact {
		return out.String(), res
	}
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(&out)
	if err := dec.Decode(&v); err != nil || dec.More() || v.HookSpecificOutput.HookEventName != string(ev) {
		t.Fatalf("%s wrote invalid output (%v): %s", ev, err, out.String())
	}
	return v.HookSpecificOutput.AdditionalContext, res
}

func failurePayload(errText string) map[string]any {
	return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": demoTest, "description": "Run the tests"},
		"tool_use_id": "toolu_01", "error": errText, "is_interrupt": false, "duration_ms": 476}
}

func readPayload(file string) map[string]any {
	return map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": file},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": file, "content": "package pdf\n"}}, "tool_use_id": "toolu_02"}
}

// injections returns the audit rows of an event.
func (e *env) injections(t *testing.T, event string) []carryover.Injection {
	t.Helper()
	st, err := sqlite.Open(context.Background(), e.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	all, err := st.Injections(context.Background(), demoID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []carryover.Injection
	for _, in := range all {
		if in.Event == event {
			out = append(out, in)
		}
	}
	return out
}

func TestFailureRecallHook(t *testing.T) {
	e := newEnv(t)
	compacted(t, e)
	ctx, res := e.run(t, hook.PostToolUseFailure, failurePayload(demoFailure(57)))
	if res.Outcome != "ok" || !strings.Contains(ctx, "this failed before") || !strings.Contains(ctx, `fpdf.New("P", "mm", "A4", "")`) {
		t.Fatalf("result %+v, context:\n%s", res, ctx)
	}
	if len(ctx) > 800 {
		t.Errorf("%d chars", len(ctx))
	}
	// 50 failures in a row, the same failure at other lines: nothing more.
	for i := range 50 {
		if again, res := e.run(t, hook.PostToolUseFailure, failurePayload(demoFailure(60+i))); again != "" || res.Err != nil {
			t.Fatalf("failure %d: %+v\n%s", i, res, again)
		}
	}
	if n := len(e.injections(t, "PostToolUseFailure")); n != 1 {
		t.Errorf("%d injections recorded, want 1", n)
	}
	// A subagent's context is another one: it gets the recall too, once.
	sub := failurePayload(demoFailure(58))
	sub["agent_id"] = "a350c56f8407386bf"
	if ctx, _ := e.run(t, hook.PostToolUseFailure, sub); !strings.Contains(ctx, "fpdf.New(") {
		t.Errorf("subagent: %q", ctx)
	}
	if ctx, _ := e.run(t, hook.PostToolUseFailure, sub); ctx != "" {
		t.Errorf("subagent, again: %q", ctx)
	}
	if n := len(e.injections(t, "PostToolUseFailure:subagent")); n != 1 {
		t.Errorf("%d subagent injections recorded, want 1", n)
	}
}

func TestFailureRecallHookBadInput(t *testing.T) {
	e := newEnv(t)
	compacted(t, e)
	huge := demoFailure(3) + "\n" + strings.Repeat("x", 3<<20)
	for name, p := range map[string]map[string]any{
		"input a string":  {"tool_name": "Bash", "tool_input": "go test", "error": "Exit code 1\nboom: no such thing here"},
		"input an array":  {"tool_name": "Bash", "tool_input": []int{1, 2}, "error": "Exit code 1\nboom: no such thing here"},
		"input null":      {"tool_name": "Bash", "tool_input": nil, "error": "Exit code 1\nboom: no such thing here"},
		"unknown tool":    {"tool_name": "FrobnicateV9", "tool_input": map[string]any{"x": 1}, "error": "frobnication failed: quota exceeded"},
		"error a number":  {"tool_name": "Bash", "error": 42},
		"binary":          {"tool_name": "Bash", "tool_input": map[string]any{"command": "cat /bin/ls"}, "error": "Exit code 1\n\x00\x01\x7fELF\xff\xfe"},
		"greek":           {"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}, "error": "Exit code 2\nσφάλμα: το αρχείο δεν βρέθηκε"},
		"interrupted":     {"tool_name": "Bash", "tool_input": map[string]any{"command": demoTest}, "error": demoFailure(9), "is_interrupt": true},
		"no error":        {"tool_name": "Bash", "tool_input": map[string]any{"command": demoTest}},
		"huge, no recall": {"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}, "error": "Exit code 1\n" + strings.Repeat("y", 3<<20)},
	} {
		ctx, res := e.run(t, hook.PostToolUseFailure, p)
		if ctx != "" || res.Outcome == "panic" || res.Outcome == "timeout" {
			t.Errorf("%s: %+v\n%s", name, res, ctx)
		}
	}
	// A huge error is read in part, and still matched.
	if ctx, res := e.run(t, hook.PostToolUseFailure, failurePayload(huge)); !strings.Contains(ctx, "fpdf.New(") {
		t.Errorf("huge error: %+v\n%s", res, ctx)
	}
}

func TestFileRecallHook(t *testing.T) {
	e := newEnv(t)
	// Before any compaction there is nothing to recall, and the run is
	// not recorded: it never opened the store.
	beforeCompaction(t, e)
	if ctx, res := e.run(t, hook.Stop, nil); ctx != "" || res.Outcome != "ok" && res.Outcome != "noop" {
		t.Fatalf("Stop: %+v", res)
	}
	runs := len(e.runs(t))
	if ctx, res := e.run(t, hook.PostToolUse, readPayload(demoRender)); ctx != "" || res.Outcome != "noop" {
		t.Fatalf("before the compaction: %+v\n%s", res, ctx)
	}
	if n := len(e.runs(t)); n != runs {
		t.Errorf("an idle PostToolUse was recorded (%d → %d runs)", runs, n)
	}

	compacted(t, e)
	ctx, res := e.run(t, hook.PostToolUse, readPayload(demoRender))
	if res.Outcome != "ok" || !strings.Contains(ctx, "internal/pdf/render.go") || !strings.Contains(ctx, "fpdf.New(") || len(ctx) > 600 {
		t.Fatalf("result %+v, context (%d chars):\n%s", res, len(ctx), ctx)
	}
	// Once per window; the file is then out of the index: no store opened.
	runs = len(e.runs(t))
	for _, tool := range []string{"Read", "Edit", "Write", "MultiEdit"} {
		p := readPayload(demoRender)
		p["tool_name"] = tool
		if again, res := e.run(t, hook.PostToolUse, p); again != "" || res.Outcome != "noop" {
			t.Errorf("%s again: %+v\n%s", tool, res, again)
		}
	}
	// Files the session did not change, other tools, odd inputs: nothing.
	for name, p := range map[string]map[string]any{
		"other file":     readPayload(demoProject + "/internal/invoice/invoice.go"),
		"relative path":  readPayload("internal/invoice/invoice.go"),
		"Grep":           {"tool_name": "Grep", "tool_input": map[string]any{"pattern": "NewA4", "path": demoRender}},
		"unknown tool":   {"tool_name": "mcp__x__y", "tool_input": map[string]any{"file_path": demoRender}},
		"input a string": {"tool_name": "Read", "tool_input": demoRender},
		"no input":       {"tool_name": "Read"},
		"binary path":    readPayload("/\x00\xff"),
	} {
		if ctx, res := e.run(t, hook.PostToolUse, p); ctx != "" || res.Outcome != "noop" {
			t.Errorf("%s: %+v\n%s", name, res, ctx)
		}
	}
	if n := len(e.runs(t)); n != runs {
		t.Errorf("idle PostToolUse runs were recorded (%d → %d)", runs, n)
	}
	if n := len(e.injections(t, "PostToolUse")); n != 1 {
		t.Errorf("%d PostToolUse injections, want 1", n)
	}

	// A failed Bash call reported by PostToolUse (a Claude Code without
	// PostToolUseFailure) gets failure recall.
	bash := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": demoTest},
		"tool_response": "Error: " + demoFailure(70)}
	if ctx, _ := e.run(t, hook.PostToolUse, bash); !strings.Contains(ctx, "this failed before") {
		t.Errorf("failed Bash in PostToolUse: %q", ctx)
	}
	ok := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go vet ./..."},
		"tool_response": map[string]any{"stdout": "Exit code 1 is what the docs say", "stderr": "", "interrupted": false, "isImage": false}}
	if ctx, res := e.run(t, hook.PostToolUse, ok); ctx != "" || res.Outcome != "noop" {
		t.Errorf("a Bash call that worked: %+v %q", res, ctx)
	}
}

// TestFileRecallHookShown: a Read whose result shows everything the
// recall would say gets nothing, and settles the file for the window.
func TestFileRecallHookShown(t *testing.T) {
	first := newEnv(t)
	compacted(t, first)
	recall, _ := first.run(t, hook.PostToolUse, readPayload(demoRender))
	if recall == "" {
		t.Fatal("no file recall to compare with")
	}

	// The session's own transcript holds every line and word of its edits.
	all, err := os.ReadFile(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	compacted(t, e)
	p := readPayload(demoRender)
	p["tool_response"] = map[string]any{"type": "text", "file": map[string]any{"filePath": demoRender, "content": string(all)}}
	if ctx, res := e.run(t, hook.PostToolUse, p); ctx != "" {
		t.Errorf("repeated what the Read showed: %+v\n%s", res, ctx)
	}
	p = readPayload(demoRender)
	p["tool_name"] = "Edit"
	if ctx, res := e.run(t, hook.PostToolUse, p); ctx != "" || res.Outcome != "noop" {
		t.Errorf("an Edit after the Read that showed it all: %+v\n%s", res, ctx)
	}
	// An Edit's tool_response holds the file as it was, which the model
	// does not see: it does not count as shown.
	e2 := newEnv(t)
	compacted(t, e2)
	p = readPayload(demoRender)
	p["tool_name"] = "Edit"
	p["tool_response"] = map[string]any{"filePath": demoRender, "originalFile": string(all)}
	if ctx, _ := e2.run(t, hook.PostToolUse, p); ctx != recall {
		t.Errorf("an Edit's originalFile counted as shown:\n%s\nwant\n%s", ctx, recall)
	}
}

func TestPostToolUseArchive(t *testing.T) {
	e := newEnv(t)
	h := e.handler()
	h.Config.PostToolUseArchive = true
	var out bytes.Buffer
	p := e.payload("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"},
		"tool_response": map[string]any{"stdout": "go.mod"}})
	if res := h.Run(context.Background(), hook.PostToolUse, bytes.NewReader(p), &out); res.Outcome != "noop" || out.Len() != 0 {
		t.Fatalf("result %+v, wrote %q", res, out.String())
	}
	st, err := sqlite.Open(context.Background(), e.db, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if s, err := st.Session(context.Background(), demoID); err != nil || s.Chunks == 0 {
		t.Errorf("PostToolUse with archiving did not archive: %+v, %v", s, err)
	}
}

func TestRecallIndexForget(t *testing.T) {
	e := newEnv(t)
	compacted(t, e)
	files, _ := filepath.Glob(filepath.Join(hook.RecallIndexDir(e.db), "*.json"))
	if len(files) != 1 {
		t.Fatalf("recall index files: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if bytes.Contains(data, []byte("render.go")) || strings.Contains(files[0], demoID) {
		t.Errorf("the index names the session or its files: %s %s", files[0], data)
	}
	if err := hook.RemoveRecallIndex(e.db, demoID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Errorf("index still there: %v", err)
	}
	if ctx, res := e.run(t, hook.PostToolUse, readPayload(demoRender)); ctx != "" || res.Outcome != "noop" {
		t.Errorf("without the index: %+v %q", res, ctx)
	}
}

// TestFailureRecallWorktrees: a failure fixed in one git worktree of a
// repository is recalled in another; a project of another repository gets
// nothing.
func TestFailureRecallWorktrees(t *testing.T) {
	e := newEnv(t)
	root := t.TempDir()
	main, wt, other := filepath.Join(root, "app"), filepath.Join(root, "app-wt"), filepath.Join(root, "other")
	gitdir := filepath.Join(main, ".git", "worktrees", "app-wt")
	for _, d := range []string{gitdir, wt, filepath.Join(other, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(wt, ".git"), "gitdir: "+gitdir+"\n")
	write(filepath.Join(gitdir, "commondir"), "../..\n")

	// The demo session, archived as the main checkout's.
	var out bytes.Buffer
	h := e.handler()
	h.Run(context.Background(), hook.Stop, bytes.NewReader(e.payload("Stop", map[string]any{"cwd": main})), &out)
	live := func(cwd string) string {
		p := failurePayload(demoFailure(77))
		p["session_id"], p["transcript_path"], p["cwd"], p["hook_event_name"] = "3333aaaa-0000-4000-8000-000000000003", e.transcript, cwd, "PostToolUseFailure"
		data, _ := json.Marshal(p)
		var out bytes.Buffer
		e.handler().Run(context.Background(), hook.PostToolUseFailure, bytes.NewReader(data), &out)
		return out.String()
	}
	// The worktree is the main checkout's project: the failure is its own.
	if got := live(wt); !strings.Contains(got, "fpdf.New(") {
		t.Errorf("worktree: %s", got)
	}
	if got := live(other); got != "" {
		t.Errorf("another repository: %s", got)
	}
}

// TestFileRecallHookDeepOpenError: a file named only deep in the output
// of an error left open before the compaction (a lint report) is in the
// recall index, so reading it recalls the line that names it.
func TestFileRecallHookDeepOpenError(t *testing.T) {
	e := newEnv(t)
	const project = "/home/dev/shop"
	var lines []string
	n := 0
	add := func(v map[string]any) {
		n++
		v["sessionId"], v["cwd"], v["uuid"], v["timestamp"] = demoID, project, fmt.Sprintf("u%d", n), fmt.Sprintf("2026-03-04T09:00:%02dZ", n)
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "lint the project"}})
	var out strings.Builder
	out.WriteString("Exit code 1\n")
	for i := range 60 {
		fmt.Fprintf(&out, "web/pages/page_%02d.tsx:%d:1 error Unexpected any. Specify a different type\n", i, i+3)
	}
	out.WriteString("web/lib/parse_amount.ts:88:14 error Unsafe member access .cents on an any value\n")
	add(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "id": "m1",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "npm run lint"}}}}})
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": out.String(), "is_error": true}}}})
	cut := len(lines)
	add(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 100000}})
	add(map[string]any{"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
		"message": map[string]any{"role": "user", "content": "This session is being continued from a previous conversation. Summary: linting."}})
	write := func(n int) {
		if err := os.WriteFile(e.transcript, []byte(strings.Join(lines[:n], "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cut)
	run := func(ev hook.Event, extra map[string]any) (string, hook.Result) {
		extra["cwd"] = project
		var out bytes.Buffer
		res := e.handler().Run(context.Background(), ev, bytes.NewReader(e.payload(string(ev), extra)), &out)
		return out.String(), res
	}
	if out, res := run(hook.PreCompact, map[string]any{"trigger": "auto"}); res.Outcome != "ok" {
		t.Fatalf("PreCompact: %+v %s", res, out)
	}
	write(len(lines))
	if out, res := run(hook.SessionStart, map[string]any{"source": "compact"}); res.Outcome != "ok" {
		t.Fatalf("SessionStart: %+v %s", res, out)
	}
	ctx, res := run(hook.PostToolUse, readPayload(project+"/web/lib/parse_amount.ts"))
	if res.Outcome != "ok" || !strings.Contains(ctx, "Unsafe member access .cents") {
		t.Errorf("reading the file named deep in the open error: %+v\n%s", res, ctx)
	}
	if ctx, res := run(hook.PostToolUse, readPayload(project+"/web/lib/format_money.ts")); ctx != "" || res.Outcome != "noop" {
		t.Errorf("another file: %+v\n%s", res, ctx)
	}
}
