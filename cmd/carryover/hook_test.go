package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/internal/posixtest"
	"github.com/carryover-dev/carryover/sqlite"

	_ "modernc.org/sqlite"
)

const demoID = "7f3c2a9e-5b1d-4e8a-9c6f-2d4b8e1a0c53"

// hookEnv is a HOME, a store and the demo transcript for in-process hook runs.
type hookEnv struct {
	dir, db, transcript string
	env                 map[string]string
}

func newHookEnv(t *testing.T) *hookEnv {
	t.Helper()
	dir := t.TempDir()
	h := &hookEnv{dir: dir, db: filepath.Join(dir, "store", "carryover.db"), transcript: filepath.Join(dir, demoID+".jsonl")}
	h.env = map[string]string{"HOME": dir, "CARRYOVER_DB": h.db, "CARRYOVER_LOG": filepath.Join(dir, "carryover.log")}
	if err := os.WriteFile(h.transcript, demoSession, 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// run runs "carryover hook <event>" in-process and returns its stdout.
func (h *hookEnv) run(t *testing.T, event string, stdin []byte) string {
	t.Helper()
	var out, errOut bytes.Buffer
	a := newApp(bytes.NewReader(stdin), &out, &errOut, func(k string) string { return h.env[k] })
	if code := a.run(context.Background(), []string{"hook", event}); code != 0 {
		t.Fatalf("hook %s exited %d", event, code)
	}
	if errOut.Len() > 0 {
		t.Errorf("hook %s wrote to stderr: %s", event, errOut.String())
	}
	return out.String()
}

func (h *hookEnv) payload(event string, extra map[string]any) []byte {
	p := map[string]any{"session_id": demoID, "transcript_path": h.transcript, "cwd": h.dir, "hook_event_name": event}
	for k, v := range extra {
		p[k] = v
	}
	data, _ := json.Marshal(p)
	return data
}

// checkOutput fails unless out is what Claude Code accepts for the event:
// nothing, one hook JSON object, or (PreCompact) plain text.
func checkOutput(t *testing.T, event hook.Event, out string) {
	t.Helper()
	if out == "" {
		return
	}
	switch event {
	case hook.PreCompact:
		if strings.HasPrefix(strings.TrimSpace(out), "{") {
			t.Errorf("PreCompact printed JSON, which Claude Code would paste into the summariser's prompt: %s", out)
		}
	case hook.SessionStart, hook.UserPromptSubmit, hook.PostToolUse, hook.PostToolUseFailure:
		var v struct {
			HookSpecificOutput struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || v.HookSpecificOutput.HookEventName != string(event) {
			t.Errorf("%s printed invalid output (%v): %s", event, err, out)
		}
	default:
		t.Errorf("%s printed %q, want nothing", event, out)
	}
}

func TestHooksBadInput(t *testing.T) {
	h := newHookEnv(t)
	huge := bytes.Repeat([]byte("x"), hook.MaxInput+10)
	bigLine, _ := json.Marshal(map[string]any{"type": "user", "sessionId": demoID, "uuid": "big",
		"message": map[string]any{"role": "user", "content": "BIG " + strings.Repeat("y", 5<<20)}})
	bigTranscript := filepath.Join(h.dir, "big.jsonl")
	if err := os.WriteFile(bigTranscript, append(append(append([]byte{}, demoSession...), bigLine...), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(h.dir, "binary.jsonl")
	os.WriteFile(binary, []byte("\x00\x01\x02\xff\xfe{{{\n\x00"), 0o600)
	torn := filepath.Join(h.dir, "torn.jsonl")
	os.WriteFile(torn, demoSession[:len(demoSession)/2], 0o600)
	fifo := filepath.Join(h.dir, "fifo.jsonl")
	posixtest.Mkfifo(t, fifo)
	loop := filepath.Join(h.dir, "loop.jsonl")
	os.Symlink(loop+"2", loop)
	os.Symlink(loop, loop+"2")
	withSession := func(ev hook.Event, id any) []byte {
		var p map[string]any
		json.Unmarshal(h.payloadAt(ev, h.transcript), &p)
		p["session_id"] = id
		data, _ := json.Marshal(p)
		return data
	}
	// What is stored before must all be there after.
	h.run(t, "stop", h.payload("Stop", nil))
	before := digest(t, h.db)
	if len(before.Chunks) == 0 {
		t.Fatal("nothing archived before the bad input")
	}

	cases := map[string]func(ev hook.Event) []byte{
		"empty stdin":        func(hook.Event) []byte { return nil },
		"malformed JSON":     func(hook.Event) []byte { return []byte(`{"session_id": broken`) },
		"JSON array":         func(hook.Event) []byte { return []byte(`[{"session_id":"x"}]`) },
		"oversized stdin":    func(hook.Event) []byte { return huge },
		"NUL bytes":          func(hook.Event) []byte { return []byte("\x00\x00\x00") },
		"deeply nested JSON": func(hook.Event) []byte { return []byte(strings.Repeat("[", 100000)) },
		"missing transcript": func(ev hook.Event) []byte {
			return h.payloadAt(ev, filepath.Join(h.dir, "missing.jsonl"))
		},
		"directory transcript": func(ev hook.Event) []byte { return h.payloadAt(ev, h.dir) },
		"binary transcript":    func(ev hook.Event) []byte { return h.payloadAt(ev, binary) },
		"torn transcript":      func(ev hook.Event) []byte { return h.payloadAt(ev, torn) },
		"5 MB line":            func(ev hook.Event) []byte { return h.payloadAt(ev, bigTranscript) },
		"device transcript":    func(ev hook.Event) []byte { return h.payloadAt(ev, "/dev/zero") },
		"FIFO transcript":      func(ev hook.Event) []byte { return h.payloadAt(ev, fifo) },
		"symlink loop":         func(ev hook.Event) []byte { return h.payloadAt(ev, loop) },
		"relative transcript":  func(ev hook.Event) []byte { return h.payloadAt(ev, demoID+".jsonl") },
		"NUL in path":          func(ev hook.Event) []byte { return h.payloadAt(ev, h.transcript+"\x00.txt") },
		"4 KB path":            func(ev hook.Event) []byte { return h.payloadAt(ev, "/"+strings.Repeat("d/", 2100)+"x.jsonl") },
		"session id with /":    func(ev hook.Event) []byte { return withSession(ev, "../../"+demoID) },
		"session id with \\":   func(ev hook.Event) []byte { return withSession(ev, `..\\..\\x`) },
		"session id with NUL":  func(ev hook.Event) []byte { return withSession(ev, demoID+"\x00") },
		"session id a number":  func(ev hook.Event) []byte { return withSession(ev, 42) },
		"session id 1 KB":      func(ev hook.Event) []byte { return withSession(ev, strings.Repeat("a", 1024)) },
	}
	for name, mk := range cases {
		for _, ev := range hook.Events {
			out := h.run(t, ev.Arg(), mk(ev))
			t.Run(name+"/"+string(ev), func(t *testing.T) { checkOutput(t, ev, out) })
		}
	}
	after := digest(t, h.db)
	for _, c := range before.Chunks {
		if _, ok := slices.BinarySearch(after.Chunks, c); !ok {
			t.Fatalf("bad input lost a stored chunk: %s", c)
		}
	}
	if len(after.Items) < len(before.Items) || after.Dups != 0 {
		t.Fatalf("items %d → %d, %d duplicates", len(before.Items), len(after.Items), after.Dups)
	}
	// The FIFO and the link loop were refused, not waited on until the
	// deadline stopped the hook.
	logData, _ := os.ReadFile(h.env["CARRYOVER_LOG"])
	for _, want := range []string{"fifo.jsonl: not a regular file", "loop.jsonl: too many levels of symbolic links"} {
		if !bytes.Contains(logData, []byte(want)) {
			t.Errorf("the log does not say %q", want)
		}
	}
}

func (h *hookEnv) payloadAt(ev hook.Event, transcript string) []byte {
	extra := map[string]any{"transcript_path": transcript}
	switch ev {
	case hook.SessionStart:
		extra["source"] = "compact"
	case hook.UserPromptSubmit:
		extra["prompt"] = "which error did fpdf.NewA4 cause?"
	case hook.PreCompact:
		extra["trigger"] = "auto"
	case hook.PostToolUse:
		extra["tool_name"], extra["tool_input"] = "Read", map[string]any{"file_path": "/home/dev/projects/invoicer/internal/pdf/render.go"}
	case hook.PostToolUseFailure:
		extra["tool_name"], extra["tool_input"] = "Bash", map[string]any{"command": "go test -race ./internal/pdf/..."}
		extra["error"] = "Exit code 1\ninternal/pdf/render.go:42:14: undefined: fpdf.NewA4\nFAIL\texample.com/invoicer/internal/pdf [build failed]"
	}
	return h.payload(string(ev), extra)
}

func TestHookCorruptStore(t *testing.T) {
	h := newHookEnv(t)
	os.MkdirAll(filepath.Dir(h.db), 0o700)
	garbage := bytes.Repeat([]byte("not a database "), 1000)
	if err := os.WriteFile(h.db, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ev := range hook.Events {
		checkOutput(t, ev, h.run(t, ev.Arg(), h.payloadAt(ev, h.transcript)))
	}
	if got, _ := os.ReadFile(h.db); !bytes.Equal(got, garbage) {
		t.Fatal("a hook modified the corrupt store file")
	}
}

// TestHookLockedStore holds the store's write lock, as a long write by
// another process would: hooks must finish inside their deadline with
// valid output, and the next hook archives what was missed.
func TestHookLockedStore(t *testing.T) {
	h := newHookEnv(t)
	h.env["CARRYOVER_HOOK_TIMEOUT"] = "400ms"
	st, err := sqlite.Open(context.Background(), h.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", "file:"+h.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []hook.Event{hook.Stop, hook.PreCompact, hook.SessionStart, hook.UserPromptSubmit} {
		start := time.Now()
		out := h.run(t, ev.Arg(), h.payloadAt(ev, h.transcript))
		// A stall, not a speed target: the deadline is 400 ms.
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("%s took %v with the store locked", ev, el)
		}
		checkOutput(t, ev, out)
	}
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()

	// The short deadline was for the locked store: archiving under -race
	// on a loaded machine may take longer, and this run must archive.
	delete(h.env, "CARRYOVER_HOOK_TIMEOUT")
	h.run(t, "stop", h.payload("Stop", nil))
	st, err = sqlite.Open(context.Background(), h.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Session(context.Background(), demoID)
	if err != nil {
		t.Fatalf("session not archived once the lock was released: %v", err)
	}
	if s.Chunks == 0 || s.Windows != 1 {
		t.Fatalf("session %+v: want chunks and one compaction", s)
	}
}

// TestHookReadOnlyStore makes the store immutable (chattr +i works even for
// root): hooks stay quiet or valid, and what was stored stays readable.
func TestHookReadOnlyStore(t *testing.T) {
	h := newHookEnv(t)
	h.run(t, "stop", h.payload("Stop", nil))
	chattr, err := exec.LookPath("chattr")
	if err != nil {
		t.Skip("chattr not available")
	}
	files, _ := filepath.Glob(h.db + "*")
	dir := filepath.Dir(h.db)
	locked := append(files, dir)
	for _, f := range locked {
		if out, err := exec.Command(chattr, "+i", f).CombinedOutput(); err != nil {
			t.Skipf("chattr +i unsupported here: %v %s", err, out)
		}
	}
	t.Cleanup(func() {
		for _, f := range locked {
			exec.Command(chattr, "-i", f).Run()
		}
	})
	for _, ev := range hook.Events {
		checkOutput(t, ev, h.run(t, ev.Arg(), h.payloadAt(ev, h.transcript)))
	}
	// The CLI says what is wrong; the data is still there.
	var out, errOut bytes.Buffer
	a := newApp(nil, &out, &errOut, func(k string) string { return h.env[k] })
	if code := a.run(context.Background(), []string{"search", "fpdf"}); code == 0 {
		if !strings.Contains(out.String(), "fpdf") {
			t.Fatalf("search on the read-only store found nothing: %s", out.String())
		}
	} else if !strings.Contains(errOut.String(), "carryover: error:") {
		t.Fatalf("search failed without a clear error: %q", errOut.String())
	}
}

func TestHookRestoreAfterCompaction(t *testing.T) {
	h := newHookEnv(t)
	lines := splitLines(demoSession)
	cut, summaryEnd, _ := compactionPoint(lines)
	os.WriteFile(h.transcript, bytes.Join(lines[:cut], nil), 0o600)
	pre := h.run(t, "pre-compact", h.payloadAt(hook.PreCompact, h.transcript))
	if !strings.Contains(pre, "carryover search") || len(pre) > 2100 {
		t.Fatalf("PreCompact instructions (%d chars): %s", len(pre), pre)
	}
	os.WriteFile(h.transcript, bytes.Join(lines[:summaryEnd], nil), 0o600)
	out := h.run(t, "session-start", h.payloadAt(hook.SessionStart, h.transcript))
	checkOutput(t, hook.SessionStart, out)
	var v struct {
		HookSpecificOutput struct{ AdditionalContext string } `json:"hookSpecificOutput"`
	}
	json.Unmarshal([]byte(out), &v)
	ctx := v.HookSpecificOutput.AdditionalContext
	summary := ""
	for _, l := range lines[cut:summaryEnd] {
		summary += string(l)
	}
	// Facts the sample's summary dropped come back.
	for _, fact := range []string{`fpdf.New(\"P\", \"mm\", \"A4\", \"\")`, "Always run the tests with -race", "undefined: fpdf.NewA4"} {
		if strings.Contains(summary, fact) {
			t.Fatalf("bad fixture: the summary holds %q", fact)
		}
		if !strings.Contains(ctx, strings.ReplaceAll(fact, `\"`, `"`)) {
			t.Errorf("restore lacks %q:\n%s", fact, ctx)
		}
	}
	if len(ctx) > 4000 {
		t.Errorf("restore of %d chars exceeds the 4,000 default budget", len(ctx))
	}
	// The injection is audited.
	st, err := sqlite.Open(context.Background(), h.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ins, err := st.Injections(context.Background(), demoID, 10)
	if err != nil {
		t.Fatal(err)
	}
	events := map[string]carryover.Injection{}
	for _, in := range ins {
		events[in.Event] = in
	}
	if in, ok := events["SessionStart:compact"]; !ok || in.Chars != len(ctx) || in.Window != 1 || len(in.ItemIDs) == 0 {
		t.Errorf("restore not audited: %+v", ins)
	}
	if _, ok := events["PreCompact:auto"]; !ok {
		t.Errorf("PreCompact not audited: %+v", ins)
	}
}

// TestLogMasksUserPatterns: the log masks what the user's redact_patterns
// name, as the archive does, not only the built-in detectors: a hook
// error quoting a path that holds such a secret keeps it out of the log.
func TestLogMasksUserPatterns(t *testing.T) {
	h := newHookEnv(t)
	patterns := filepath.Join(h.dir, "patterns")
	if err := os.WriteFile(patterns, []byte("ACME-[0-9]{6}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.env["CARRYOVER_REDACT_PATTERNS"] = patterns
	missing := filepath.Join(h.dir, "ACME-314159", demoID+".jsonl")
	h.run(t, "pre-compact", h.payload("PreCompact", map[string]any{"transcript_path": missing, "trigger": "auto"}))
	logData, err := os.ReadFile(h.env["CARRYOVER_LOG"])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(logData, []byte("ACME-314159")) {
		t.Errorf("the log keeps a secret the user's pattern names:\n%s", logData)
	}
	if !bytes.Contains(logData, []byte("[REDACTED:")) {
		t.Errorf("the log does not show the failure with the secret masked:\n%s", logData)
	}
}
