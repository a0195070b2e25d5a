package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestShowOverview archives a 57-turn session with a compaction and checks
// that show gives a short overview by default (a line a turn), the text
// only when asked, and takes the transcript's path as well as its id.
func TestShowOverview(t *testing.T) {
	h := newHookEnv(t)
	const sid = "5a7e0000-0000-4000-8000-000000000057"
	path := filepath.Join(h.dir, "copy-of-session.jsonl") // not named by its id
	genTranscript(t, path, sid, 57)
	if _, errOut, code := h.runCLI(t, "ingest", path); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	out, errOut, code := h.runCLI(t, "show", sid[:8])
	if code != 0 {
		t.Fatalf("show: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 250 {
		t.Errorf("overview of 57 turns is %d lines, want at most 250", len(lines))
	}
	for _, want := range []string{"57 turns, 1 compaction,", "TURN  LINES", "turn 0: fix the failing test TestGen0 ",
		"turn 56: fix the failing test TestGen56 ", "════ compaction 1 (auto", "--turn N"} {
		if !strings.Contains(out, want) {
			t.Errorf("overview lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "── chunk") {
		t.Errorf("overview prints chunk text:\n%s", out)
	}

	// The compaction line sits between turns 27 and 28.
	if i, j := strings.Index(out, "════ compaction"), strings.Index(out, "turn 28: fix"); i < 0 || j < i || strings.Index(out, "turn 27: fix") > i {
		t.Errorf("compaction not between turns 27 and 28:\n%s", out)
	}

	full, _, code := h.runCLI(t, "show", sid[:8], "--full")
	if code != 0 || strings.Count(full, "━━ turn") != 57 || len(strings.Split(full, "\n")) <= len(lines) {
		t.Errorf("--full (exit %d): %d turns, %d lines", code, strings.Count(full, "━━ turn"), len(strings.Split(full, "\n")))
	}
	one, _, code := h.runCLI(t, "show", sid[:8], "--turn", "3")
	if code != 0 || strings.Count(one, "━━ turn") != 1 || !strings.Contains(one, "go test -run TestGen3 ") {
		t.Errorf("--turn 3 (exit %d):\n%.500s", code, one)
	}

	// The transcript's path, though its name is not the session id.
	byPath, errOut, code := h.runCLI(t, "show", path)
	if code != 0 || byPath != out {
		t.Errorf("show PATH (exit %d, %s) differs from show ID", code, errOut)
	}
	// A copy elsewhere resolves by the session id inside it.
	data, _ := os.ReadFile(path)
	other := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	os.WriteFile(other, data, 0o600)
	if byCopy, errOut, code := h.runCLI(t, "show", other); code != 0 || byCopy != out {
		t.Errorf("show COPY (exit %d, %s) differs from show ID", code, errOut)
	}
	if _, errOut, code := h.runCLI(t, "show", filepath.Join(h.dir, "missing.jsonl")); code != 1 || !strings.Contains(errOut, "no transcript at") {
		t.Errorf("show MISSING.jsonl: exit %d, %s", code, errOut)
	}
	if _, _, code := h.runCLI(t, "show", sid[:8], "--full", "--turn", "2"); code != 2 {
		t.Errorf("--full with --turn: exit %d, want 2", code)
	}

	// COLUMNS bounds the table's lines; --wide lifts it.
	h.env["COLUMNS"] = "60"
	narrow, _, _ := h.runCLI(t, "show", sid[:8])
	_, table, _ := strings.Cut(narrow, "TURN")
	rows := strings.Split("TURN"+table, "\n")
	if len(rows) < 58 {
		t.Fatalf("table of %d lines:\n%s", len(rows), narrow)
	}
	for _, l := range rows[:58] {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("line of %d cells in 60 columns: %q", w, l)
		}
	}
	if !strings.Contains(narrow, "…") {
		t.Error("nothing cut to 60 columns")
	}
	if wide, _, _ := h.runCLI(t, "show", sid[:8], "--wide"); wide != out {
		t.Error("--wide output differs from the uncut one")
	}
}
