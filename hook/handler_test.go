package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/spool"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

const demoID = "7f3c2a9e-5b1d-4e8a-9c6f-2d4b8e1a0c53"

// env is a store and the demo session's transcript.
type env struct {
	dir, db, transcript string
	budget              int // the restore and recall budgets when not 0
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{dir: dir, db: filepath.Join(dir, "store", "carryover.db"), transcript: filepath.Join(dir, demoID+".jsonl")}
	data, err := os.ReadFile(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.transcript, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) handler() *hook.Handler {
	h := &hook.Handler{Config: hook.Config{DB: e.db, Budget: 4000, RecallBudget: 2000, Recall: true,
		Timeout: 10 * time.Second, SessionEndTimeout: 5 * time.Second}}
	if e.budget > 0 {
		h.Config.Budget, h.Config.RecallBudget = e.budget, e.budget
	}
	return h
}

func (e *env) payload(event string, extra map[string]any) []byte {
	p := map[string]any{"session_id": demoID, "transcript_path": e.transcript, "cwd": e.dir, "hook_event_name": event}
	for k, v := range extra {
		p[k] = v
	}
	data, _ := json.Marshal(p)
	return data
}

func (e *env) runs(t *testing.T) []carryover.HookRun {
	t.Helper()
	st, err := sqlite.Open(context.Background(), e.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.HookRuns(context.Background(), carryover.HookRunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestRunContract: each event writes nothing or one complete output of its
// kind, and each run is recorded with its outcome.
func TestRunContract(t *testing.T) {
	e := newEnv(t)
	h := e.handler()
	var out bytes.Buffer
	res := h.Run(context.Background(), hook.PreCompact, bytes.NewReader(e.payload("PreCompact", map[string]any{"trigger": "auto"})), &out)
	if res.Outcome != "ok" || res.Err != nil || res.Event != "PreCompact:auto" {
		t.Fatalf("PreCompact: %+v", res)
	}
	if text := out.String(); text == "" || strings.HasPrefix(strings.TrimSpace(text), "{") || res.Output != len(text) {
		t.Errorf("PreCompact wrote %q (result %d bytes): want plain instructions", text, res.Output)
	}

	out.Reset()
	res = e.handler().Run(context.Background(), hook.SessionStart, bytes.NewReader(e.payload("SessionStart", map[string]any{"source": "compact"})), &out)
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.HookSpecificOutput.HookEventName != "SessionStart" || v.HookSpecificOutput.AdditionalContext == "" {
		t.Fatalf("SessionStart(compact) wrote %q (%v), result %+v", out.String(), err, res)
	}

	// Bad payloads: nothing written, the run recorded as an error.
	for _, bad := range [][]byte{nil, []byte("{"), []byte(`{"session_id":"../x","transcript_path":"/t"}`),
		[]byte(`{"session_id":"s","transcript_path":"relative.jsonl"}`)} {
		out.Reset()
		res := e.handler().Run(context.Background(), hook.Stop, bytes.NewReader(bad), &out)
		if out.Len() != 0 || res.Outcome != "error" || res.Err == nil {
			t.Errorf("payload %q: wrote %q, result %+v", bad, out.String(), res)
		}
	}
	runs := e.runs(t)
	got := map[string]int{}
	for _, r := range runs {
		got[r.Event+" "+r.Outcome]++
	}
	if got["PreCompact:auto ok"] != 1 || got["SessionStart:compact ok"] != 1 || got["Stop error"] != 4 {
		t.Errorf("recorded runs: %v", got)
	}
}

// TestRunDeadline: a run that cannot finish in time writes nothing and is
// recorded as a timeout.
func TestRunDeadline(t *testing.T) {
	e := newEnv(t)
	h := e.handler()
	h.Config.Timeout = time.Nanosecond
	var out bytes.Buffer
	// A reader that never ends keeps the worker busy past the deadline.
	res := h.Run(context.Background(), hook.SessionStart, endless{}, &out)
	if out.Len() != 0 || res.Outcome != "timeout" {
		t.Fatalf("wrote %q, result %+v", out.String(), res)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestRunForgotten: a forgotten session gets nothing, and not even its run
// is recorded (the row would name it).
func TestRunForgotten(t *testing.T) {
	e := newEnv(t)
	var out bytes.Buffer
	e.handler().Run(context.Background(), hook.Stop, bytes.NewReader(e.payload("Stop", nil)), &out)
	st, err := sqlite.Open(context.Background(), e.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Prune(context.Background(), carryover.PruneFilter{SessionID: demoID, Forget: true}); err != nil {
		t.Fatal(err)
	}
	before := len(e.runs(t))
	st.Close()
	res := e.handler().Run(context.Background(), hook.SessionStart, bytes.NewReader(e.payload("SessionStart", map[string]any{"source": "compact"})), &out)
	if out.Len() != 0 || res.Outcome != "forgotten" {
		t.Fatalf("wrote %q, result %+v", out.String(), res)
	}
	if after := len(e.runs(t)); after != before {
		t.Errorf("a run of a forgotten session was recorded (%d → %d)", before, after)
	}
}

// TestRunServerDown: with a server that refuses connections, the event is
// served from the local store within the deadline, the session is marked
// pending, and the run is recorded locally.
func TestRunServerDown(t *testing.T) {
	e := newEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	h := e.handler()
	h.Config.Timeout = 2 * time.Second
	h.Config.DatabaseURL = "postgres://nobody@" + addr + "/db?sslmode=disable"
	var out bytes.Buffer
	start := time.Now()
	res := h.Run(context.Background(), hook.PreCompact, bytes.NewReader(e.payload("PreCompact", map[string]any{"trigger": "manual"})), &out)
	if res.Outcome != "ok" || out.Len() == 0 || time.Since(start) > 2*time.Second {
		t.Fatalf("result %+v after %v, wrote %q", res, time.Since(start), out.String())
	}
	marks, err := spool.Pending(e.db)
	if err != nil || len(marks) != 1 || marks[0].Session != demoID {
		t.Errorf("pending marks %+v, %v", marks, err)
	}
	if runs := e.runs(t); len(runs) != 1 || runs[0].Event != "PreCompact:manual" {
		t.Errorf("local runs: %+v", runs)
	}
}

// TestRunRecordedOnServer: a run served by the server is recorded there,
// where stats and the web view read it.
func TestRunRecordedOnServer(t *testing.T) {
	dsn := storetest.PostgresDatabase(t)
	ctx := context.Background()
	// Opened first, as a set-up server is: the schema is created then.
	st, err := postgres.Open(ctx, dsn, postgres.Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := newEnv(t)
	h := e.handler()
	h.Config.DatabaseURL, h.Config.ConnectTimeout = dsn, 5*time.Second
	var out bytes.Buffer
	res := h.Run(ctx, hook.PreCompact, bytes.NewReader(e.payload("PreCompact", map[string]any{"trigger": "auto"})), &out)
	if res.Outcome != "ok" {
		t.Fatalf("result %+v", res)
	}
	runs, err := st.HookRuns(ctx, carryover.HookRunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Event != "PreCompact:auto" || runs[0].SessionID != demoID {
		t.Errorf("server runs: %+v", runs)
	}
	if _, err := os.Stat(e.db); err == nil {
		if local := e.runs(t); len(local) != 0 {
			t.Errorf("the run was recorded locally too: %+v", local)
		}
	}
}

// TestRunRecordsSessionProject: a run is recorded under its session's
// project, which a cd in the session does not change, whether the run
// read the project itself (restore, recall, archive) or not; a session
// not archived yet is recorded under its payload's project.
func TestRunRecordsSessionProject(t *testing.T) {
	e := newEnv(t)
	h := e.handler()
	ctx := context.Background()
	elsewhere := t.TempDir()
	run := func(ev hook.Event, name, cwd, sid string, extra map[string]any) {
		t.Helper()
		p := map[string]any{"session_id": sid, "transcript_path": e.transcript, "cwd": cwd, "hook_event_name": name}
		for k, v := range extra {
			p[k] = v
		}
		data, _ := json.Marshal(p)
		if res := h.Run(ctx, ev, bytes.NewReader(data), &bytes.Buffer{}); res.Err != nil {
			t.Fatalf("%s: %+v", name, res)
		}
	}
	run(hook.PreCompact, "PreCompact", e.dir, demoID, map[string]any{"trigger": "auto"})
	run(hook.SessionStart, "SessionStart", elsewhere, demoID, map[string]any{"source": "compact"})
	run(hook.UserPromptSubmit, "UserPromptSubmit", elsewhere, demoID, map[string]any{"prompt": "which test failed?"})
	run(hook.Stop, "Stop", elsewhere, demoID, map[string]any{"stop_hook_active": false})
	const other = "aaaa0000-0000-4000-8000-00000000abcd"
	run(hook.UserPromptSubmit, "UserPromptSubmit", elsewhere, other, map[string]any{"prompt": "which test failed?"})

	st, err := sqlite.Open(ctx, e.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.Session(ctx, demoID)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Project == "" || sess.Project == elsewhere {
		t.Fatalf("the session's project is %q", sess.Project)
	}
	runs := e.runs(t)
	if len(runs) != 5 {
		t.Fatalf("%d runs recorded, want 5: %+v", len(runs), runs)
	}
	for _, r := range runs {
		want := sess.Project
		if r.SessionID == other {
			want = elsewhere
		}
		if r.Project != want {
			t.Errorf("%s of %s recorded under %q, want %q", r.Event, r.SessionID, r.Project, want)
		}
	}
}
