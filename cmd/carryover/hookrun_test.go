package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/sqlite"
)

func TestHookRunsRecorded(t *testing.T) {
	h := newHookEnv(t)
	h.env["CARRYOVER_HOOK_TIMEOUT"] = "60s" // the outcomes are checked: no timeouts but the one meant
	lines := splitLines(demoSession)
	cut, _, _ := compactionPoint(lines)
	if err := os.WriteFile(h.transcript, bytes.Join(lines[:cut], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	// Recording is bounded (500 ms at most); creating the store on a loaded
	// machine can take longer, so it exists already, as it mostly will.
	st, err := sqlite.Open(context.Background(), h.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	h.run(t, "session-start", h.payload("SessionStart", map[string]any{"source": "startup"}))
	h.run(t, "stop", h.payloadAt(hook.Stop, h.transcript))
	pre := h.run(t, "pre-compact", h.payloadAt(hook.PreCompact, h.transcript))
	h.run(t, "stop", []byte(`{"session_id": broken`))
	// A payload whose stdin never ends: the hook times out.
	h.env["CARRYOVER_HOOK_TIMEOUT"] = "200ms"
	pr, pw := io.Pipe()
	go pw.Write(h.payload("PostCompact", map[string]any{"trigger": "manual"}))
	a := newApp(pr, io.Discard, io.Discard, func(k string) string { return h.env[k] })
	if code := a.run(context.Background(), []string{"hook", "post-compact"}); code != 0 {
		t.Fatalf("hook exited %d", code)
	}
	pw.Close()

	st, err = sqlite.Open(context.Background(), h.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.HookRuns(context.Background(), carryover.HookRunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	type run struct{ event, session, project, outcome string }
	want := []run{ // newest first
		{"PostCompact:manual", demoID, h.dir, "timeout"},
		{"Stop", "", "", "error"},
		{"PreCompact:auto", demoID, h.dir, "ok"},
		{"Stop", demoID, h.dir, "noop"},
		{"SessionStart:startup", demoID, h.dir, "noop"},
	}
	if len(runs) != len(want) {
		t.Fatalf("%d hook runs recorded, want %d: %+v", len(runs), len(want), runs)
	}
	for i, r := range runs {
		if got := (run{r.Event, r.SessionID, r.Project, r.Outcome}); got != want[i] {
			t.Errorf("run %d = %+v, want %+v", i, got, want[i])
		}
		if r.Latency <= 0 || r.Time.IsZero() {
			t.Errorf("run %d: latency %v, time %v", i, r.Latency, r.Time)
		}
	}
	if runs[2].Chars != len(pre) || runs[3].Chars != 0 {
		t.Errorf("chars = %d and %d, want %d (the PreCompact output) and 0", runs[2].Chars, runs[3].Chars, len(pre))
	}
}
