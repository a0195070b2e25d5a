package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestTableFits(t *testing.T) {
	tb := newTable(column{Name: "ID"}, column{Name: "N", Right: true}, column{Name: "EXTRA", Drop: true},
		column{Name: "PATH", Min: 8, Left: true}, column{Name: "TITLE", Min: 8})
	tb.add("a1", "7", "x", "/home/someone/projects/a-long-project-name", "a title that goes on and on and on")
	tb.note("──── a separator line that is longer than the table may be wide")
	tb.add("b2", "12", "y", "/short", "short")
	var wide bytes.Buffer
	if err := tb.write(&wide, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(wide.String(), "/home/someone/projects/a-long-project-name  a title that goes on and on and on\n") ||
		!strings.Contains(wide.String(), "EXTRA") || !strings.Contains(wide.String(), " 7  ") || !strings.Contains(wide.String(), "12") {
		t.Errorf("uncut table:\n%s", wide.String())
	}
	for _, width := range []int{40, 30, 25} {
		var b bytes.Buffer
		if err := tb.write(&b, width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if ansi.StringWidth(l) > width {
				t.Errorf("width %d: line of %d cells: %q", width, ansi.StringWidth(l), l)
			}
		}
		if strings.Contains(out, "EXTRA") {
			t.Errorf("width %d kept the column that may be dropped:\n%s", width, out)
		}
		// Paths keep their end, titles their start.
		if !strings.Contains(out, "…") || !strings.Contains(out, "-name") || !strings.Contains(out, "a ti") {
			t.Errorf("width %d:\n%s", width, out)
		}
	}
}

// TestSessionsFit: sessions fits 100 columns (COLUMNS), --wide prints
// everything and --json is not cut.
func TestSessionsFit(t *testing.T) {
	h := newHookEnv(t)
	for i := range 3 {
		sid := fmt.Sprintf("%d5e55100-0000-4000-8000-000000000000", i)
		path := filepath.Join(h.dir, sid+".jsonl")
		genTranscript(t, path, sid, 4)
		if _, errOut, code := h.runCLI(t, "ingest", path); code != 0 {
			t.Fatalf("ingest: %s", errOut)
		}
	}
	wide, _, code := h.runCLI(t, "sessions", "--wide")
	if code != 0 || !strings.Contains(wide, "CHUNKS") {
		t.Fatalf("sessions --wide (exit %d):\n%s", code, wide)
	}
	h.env["COLUMNS"] = "100"
	out, _, code := h.runCLI(t, "sessions")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	maxWide := 0
	for _, l := range strings.Split(strings.TrimSuffix(wide, "\n"), "\n") {
		maxWide = max(maxWide, ansi.StringWidth(l))
	}
	if maxWide <= 100 {
		t.Fatalf("the uncut table is %d columns: nothing to test", maxWide)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Errorf("%d lines:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 100 {
			t.Errorf("line of %d cells in 100 columns: %q", w, l)
		}
	}
	if !strings.Contains(out, "turn 0: fix") || !strings.Contains(out, "SUBAGENTS") {
		t.Errorf("cut table lost the titles:\n%s", out)
	}
	js, _, _ := h.runCLI(t, "sessions", "--json")
	var v []map[string]any
	if err := json.Unmarshal([]byte(js), &v); err != nil || len(v) != 3 || !strings.HasPrefix(v[0]["title"].(string), "turn 0: fix the failing test TestGen0 ") || len(v[0]["title"].(string)) < 40 {
		t.Errorf("--json: %v %v", err, v)
	}
}
