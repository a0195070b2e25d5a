package mcpserver_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/mcpserver"
)

// subagent stores a subagent of the demo session with one chunk.
func subagent(t *testing.T, st carryover.Store, id, title, text string) {
	t.Helper()
	t0 := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	err := st.Apply(context.Background(), carryover.Batch{
		Session: carryover.Session{ID: id, Parent: demoSession, Project: demoProject, Cwd: demoProject + "/.claude/worktrees/x",
			Branch: "worktree-x", Title: title, Started: t0, Updated: t0},
		Chunks: []carryover.Chunk{{SessionID: id, Project: demoProject, FirstLine: 1, LastLine: 4, Start: t0, End: t0,
			Prompt: title, Text: text, Hash: id + "-0", Sidechain: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSessionFamilies: a session that ran subagents stays one session for
// the tools. Its id's prefix names it, its timeline lists its subagents,
// and each of them is read as SESSION/agent-ID.
func TestSessionFamilies(t *testing.T) {
	st := demoStore(t)
	subagent(t, st, demoSession+"/agent-a1b2c3", "Measure the renderer", "the renderer takes 41 ms per invoice page")
	subagent(t, st, "agent-5e6f7a8b", "Check the fonts", "DejaVu is embedded in the PDF")
	cs := connect(t, st, mcpserver.Options{Project: demoProject})

	text := mustCall(t, cs, "sessions", map[string]any{})
	if !strings.Contains(text, demoSession+"\n") || !strings.Contains(text, "· 2 subagents") || strings.Contains(text, "agent-") {
		t.Errorf("sessions should list the session with its 2 subagents, not them:\n%s", text)
	}
	// A directory inside the project names it.
	text = mustCall(t, cs, "sessions", map[string]any{"project": filepath.Join(demoProject, "internal", "pdf")})
	if !strings.Contains(text, "Archived sessions in "+demoProject) || !strings.Contains(text, demoSession) {
		t.Errorf("sessions of a directory inside the project:\n%s", text)
	}

	// The current session is the project's latest top-level one, not a
	// subagent updated later.
	text = mustCall(t, cs, "timeline", map[string]any{})
	for _, want := range []string{"Session " + demoSession, "It ran 2 subagents",
		demoSession + "/agent-a1b2c3 · \"Measure the renderer\"", "agent-5e6f7a8b · \"Check the fonts\""} {
		if !strings.Contains(text, want) {
			t.Errorf("timeline lacks %q:\n%s", want, text)
		}
	}
	for _, ref := range []string{"7f3c2a9e", "7f3c", demoSession} {
		if text := mustCall(t, cs, "timeline", map[string]any{"session": ref}); !strings.HasPrefix(text, "Session "+demoSession+" ") {
			t.Errorf("timeline of %q is not the session's:\n%.200s", ref, text)
		}
	}
	text = mustCall(t, cs, "timeline", map[string]any{"session": "7f3c2a9e/agent-a1"})
	for _, want := range []string{"Session " + demoSession + "/agent-a1b2c3", "A subagent of session " + demoSession, "ran in " + demoProject + "/.claude/worktrees/x", "branch worktree-x"} {
		if !strings.Contains(text, want) {
			t.Errorf("timeline of the subagent lacks %q:\n%s", want, text)
		}
	}
	if text := mustCall(t, cs, "get", map[string]any{"session": "7f3c2a9e/agent-5e6f"}); !strings.Contains(text, "DejaVu is embedded") {
		t.Errorf("get of the flat-layout subagent:\n%s", text)
	}
	if text := mustCall(t, cs, "get", map[string]any{"session": "agent-5e6f"}); !strings.Contains(text, "DejaVu is embedded") {
		t.Errorf("get by the subagent's own prefix:\n%s", text)
	}
	if text, isErr := call(t, cs, "timeline", map[string]any{"session": "7f3c2a9e/agent-zz"}); !isErr || !strings.Contains(text, "SESSION/agent-ID") {
		t.Errorf("an unknown subagent: error %v, %q", isErr, text)
	}
}
