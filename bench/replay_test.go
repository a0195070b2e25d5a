package bench

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/transcript"
)

// demoLines is the sample session the demo replays: tool calls, an error
// and its fix, and one compaction.
func demoLines(t *testing.T) [][]byte {
	t.Helper()
	lines, err := ReadLines(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

const demoID = "7f3c2a9e-5b1d-4e8a-9c6f-2d4b8e1a0c53"

func decode(t *testing.T, line []byte) transcript.Entry {
	t.Helper()
	e, err := transcript.Decode(bytes.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestCompactionsAndPrompts(t *testing.T) {
	lines := demoLines(t)
	points := Compactions(lines)
	if len(points) != 1 {
		t.Fatalf("Compactions = %+v, want one", points)
	}
	p := points[0]
	if e := decode(t, lines[p.Boundary]); !e.IsCompactBoundary() {
		t.Errorf("line %d is not the boundary: %+v", p.Boundary, e)
	}
	if e := decode(t, lines[p.Summary-1]); !e.CompactSummary {
		t.Errorf("line %d is not the summary", p.Summary-1)
	}
	prompts := UserPrompts(lines)
	if len(prompts) < 2 || !strings.HasPrefix(prompts[0].Text, "I need PDF export") {
		t.Fatalf("UserPrompts = %+v", prompts)
	}
	for _, pr := range prompts {
		if e := decode(t, lines[pr.Line]); !e.IsUserPrompt() {
			t.Errorf("prompt at line %d is not a user prompt", pr.Line)
		}
	}
	// A simulated boundary is a boundary where it is appended, with the
	// session's id and directory.
	cut := prompts[1].Line
	sim := append(append([][]byte{}, lines[:cut]...), SimulatedBoundary(lines[:cut]))
	if got := Compactions(sim); len(got) != 1 || got[0] != (Point{cut, cut + 1}) {
		t.Errorf("Compactions with a simulated boundary = %+v, want [{%d %d}]", got, cut, cut+1)
	}
	if e := decode(t, sim[cut]); e.SessionID != demoID || e.Cwd == "" || e.Compact == nil || e.Compact.Trigger != "auto" {
		t.Errorf("simulated boundary: %+v", e)
	}
}

// TestReplay drives the hooks over the sample session: the compaction
// gives instructions and a restore, a recall on a fork leaves the original
// store as it was, the benchmark's thresholds reach the hook, and a
// simulated cut restores too.
func TestReplay(t *testing.T) {
	ctx := context.Background()
	lines := demoLines(t)
	dir := t.TempDir()
	r, err := NewReplay(hookConfig(filepath.Join(dir, "carryover.db"), 4000, DefaultHookTimeout), dir, demoID, lines)
	if err != nil {
		t.Fatal(err)
	}
	p := Compactions(lines)[0]
	c, err := r.Compact(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Written() != p.Summary {
		t.Errorf("written %d lines after the compaction, want %d", r.Written(), p.Summary)
	}
	if !strings.Contains(c.Instructions, "internal/pdf/render.go") || c.PreCompact.Event != "PreCompact:auto" {
		t.Errorf("PreCompact (%s): %q", c.PreCompact.Event, c.Instructions)
	}
	if !strings.Contains(c.Restore, "CGO_ENABLED=0") || c.SessionStart.Event != "SessionStart:compact" || c.SessionStart.Outcome != "ok" {
		t.Errorf("SessionStart (%s, %s): %q", c.SessionStart.Event, c.SessionStart.Outcome, c.Restore)
	}
	if err := r.Write(p.Boundary); err == nil {
		t.Error("the transcript shrank")
	}

	const question = "why did fpdf.NewA4 not build in render.go?"
	ask := func(rp *Replay) string {
		t.Helper()
		text, res, err := rp.Prompt(ctx, question)
		if err != nil {
			t.Fatal(err)
		}
		if res.Event != "UserPromptSubmit" {
			t.Errorf("event %q", res.Event)
		}
		return text
	}
	fork, err := r.Fork(filepath.Join(dir, "fork.db"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ask(fork); !strings.Contains(got, "fpdf.NewA4") {
		t.Fatalf("recall on the fork: %q", got)
	}
	// The hook skips what it injected in this window: asked again on the
	// same store it injects nothing, on a fresh fork the same again.
	if got := ask(fork); got != "" {
		t.Errorf("recall repeated in the window: %q", got)
	}
	again, err := r.Fork(filepath.Join(dir, "fork2.db"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ask(again); !strings.Contains(got, "fpdf.NewA4") {
		t.Errorf("recall on a second fork: %q", got)
	}
	strict, err := r.Fork(filepath.Join(dir, "fork3.db"))
	if err != nil {
		t.Fatal(err)
	}
	strict.Config.RecallThresholds = hook.RecallThresholds{MinScore: 1000}
	if got := ask(strict); got != "" {
		t.Errorf("recall with a BM25 threshold of 1000 injected %q", got)
	}
	if err := fork.Write(len(lines)); err == nil {
		t.Error("a fork wrote the shared transcript")
	}

	// A simulated cut: no boundary, no summary.
	cutDir := t.TempDir()
	sim, err := NewReplay(hookConfig(filepath.Join(cutDir, "carryover.db"), 4000, DefaultHookTimeout), cutDir, demoID, lines)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sim.Compact(ctx, Cut(p.Boundary))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sc.Restore, "CGO_ENABLED=0") || sim.Written() != p.Boundary {
		t.Errorf("simulated cut at %d: written %d, restore %q", p.Boundary, sim.Written(), sc.Restore)
	}
}
