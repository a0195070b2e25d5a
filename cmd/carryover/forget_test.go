package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/sqlite"
)

// TestForgottenSessionStaysGone forgets a live session and checks that its
// next hooks, 'ingest --all' and an import of an older export do not bring
// it back, and that 'forget --undo' lets it be archived again.
func TestForgottenSessionStaysGone(t *testing.T) {
	h := newHookEnv(t)
	// The transcript where 'ingest --all' looks, too.
	projects := filepath.Join(h.dir, ".claude", "projects", "-home-dev")
	if err := os.MkdirAll(projects, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(projects, demoID+".jsonl"), demoSession, 0o600); err != nil {
		t.Fatal(err)
	}
	checkOutput(t, hook.PreCompact, h.run(t, "pre-compact", h.payloadAt(hook.PreCompact, h.transcript)))
	checkOutput(t, hook.SessionStart, h.run(t, "session-start", h.payloadAt(hook.SessionStart, h.transcript)))
	indexes := filepath.Join(hook.RecallIndexDir(h.db), "*.json")
	if ix, _ := filepath.Glob(indexes); len(ix) != 1 {
		t.Fatalf("recall indexes: %v", ix)
	}
	export := filepath.Join(h.dir, "all.jsonl")
	if out, errOut, code := h.runCLI(t, "export", "-o", export); code != 0 {
		t.Fatalf("export exited %d: %s%s", code, out, errOut)
	}
	if n := archived(t, h); n == 0 {
		t.Fatal("the hook archived nothing")
	}

	out, errOut, code := h.runCLI(t, "forget", "--yes", demoID[:8])
	if code != 0 {
		t.Fatalf("forget exited %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(out, "will not be archived again") || !strings.Contains(out, "carryover forget --undo "+demoID) {
		t.Errorf("forget does not say the session stays gone and how to undo it:\n%s", out)
	}
	if ix, _ := filepath.Glob(indexes); len(ix) != 0 {
		t.Errorf("the session's recall index is still there: %v", ix)
	}

	// Its next hooks: exit 0, valid (empty) output, nothing stored.
	for _, ev := range hook.Events {
		out := h.run(t, ev.Arg(), h.payloadAt(ev, h.transcript))
		checkOutput(t, ev, out)
		if out != "" {
			t.Errorf("%s injected into a forgotten session: %q", ev, out)
		}
	}
	if n := archived(t, h); n != 0 {
		t.Fatalf("the hooks stored %d rows of the forgotten session", n)
	}
	log, err := os.ReadFile(h.env["CARRYOVER_LOG"])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), demoID) {
		t.Errorf("the log names the forgotten session again:\n%s", log)
	}
	if !strings.Contains(string(log), "the session was forgotten") {
		t.Errorf("the hooks did not log the skip:\n%s", log)
	}

	out, errOut, code = h.runCLI(t, "ingest", "--all")
	if code != 0 {
		t.Fatalf("ingest --all exited %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(out, demoID+"  forgotten: not archived") || !strings.Contains(out, "skipped 1 transcript of forgotten sessions") {
		t.Errorf("ingest --all does not report the skip:\n%s", out)
	}
	out, errOut, code = h.runCLI(t, "import", export)
	if code != 0 {
		t.Fatalf("import exited %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(out, "imported 0 sessions") || !strings.Contains(out, "skipped 1 session forgotten in this store") {
		t.Errorf("import does not report the skip:\n%s", out)
	}
	if n := archived(t, h); n != 0 {
		t.Fatalf("ingest or import stored %d rows of the forgotten session", n)
	}

	if out, errOut, code = h.runCLI(t, "forget", "--undo", demoID); code != 0 {
		t.Fatalf("forget --undo exited %d: %s%s", code, out, errOut)
	}
	if _, errOut, code = h.runCLI(t, "forget", "--undo", demoID); code == 0 || !strings.Contains(errOut, "is not forgotten") {
		t.Errorf("a second undo: exit %d, %s", code, errOut)
	}
	checkOutput(t, hook.PreCompact, h.run(t, "pre-compact", h.payloadAt(hook.PreCompact, h.transcript)))
	if n := archived(t, h); n == 0 {
		t.Fatal("the hook archived nothing after the undo")
	}
}

// archived counts the rows of the demo session: chunks, audit records and
// hook runs.
func archived(t *testing.T, h *hookEnv) int {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, h.db, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = st.Session(ctx, demoID)
	if err != nil && !errors.Is(err, carryover.ErrNotFound) {
		t.Fatal(err)
	}
	n := 0
	if err == nil {
		n++
	}
	chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: demoID, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	ins, err := st.Injections(ctx, demoID, 0)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.HookRuns(ctx, carryover.HookRunFilter{SessionID: demoID})
	if err != nil {
		t.Fatal(err)
	}
	return n + len(chunks) + len(ins) + len(runs)
}
