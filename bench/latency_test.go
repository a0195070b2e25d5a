package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLatencyCompare measures the sample session with two binaries run for
// run (the same one twice, under two names): every row has both columns,
// and the table prints them side by side.
func TestLatencyCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("runs some forty processes")
	}
	if raceBuild {
		// The binary is not built with the race detector: the plain go
		// test run covers this.
		t.Skip("drives separate processes: run without -race")
	}
	exe := carryoverBinary(t)
	other := filepath.Join(t.TempDir(), "carryover-other")
	if err := copyFile(exe, other); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(other, 0o700); err != nil {
		t.Fatal(err)
	}
	sample, err := os.ReadFile(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var notes bytes.Buffer
	res, err := Latency(context.Background(), LatencyOptions{Exe: exe, Compare: other, Transcripts: t.TempDir(),
		Sample: sample, SampleID: demoID, Runs: 2, Log: &notes})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(notes.String(), "built-in sample") {
		t.Errorf("no note about the sample: %q", notes.String())
	}
	want := []string{"version", "PreCompact cold ingest 7f3c2a9e", "PreCompact incremental (50 lines) 7f3c2a9e",
		"PostCompact after it 7f3c2a9e",
		"SessionStart(compact) restore 7f3c2a9e", "UserPromptSubmit recall 7f3c2a9e", "search"}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(res.Rows), len(want), res.Rows)
	}
	for i, r := range res.Rows {
		if r.Name != want[i] || r.Runs != 2 || r.MedianMS <= 0 || r.CPUMS <= 0 || r.MaxRSSMB <= 0 {
			t.Errorf("row %d: %+v, want %q with a time, a CPU time and an RSS", i, r, want[i])
		}
		if r.Compare == nil || r.Compare.MedianMS <= 0 || r.Compare.CPUMS <= 0 || r.Compare.MaxRSSMB <= 0 {
			t.Errorf("row %d (%s): no comparison: %+v", i, r.Name, r.Compare)
		}
	}
	var out bytes.Buffer
	if err := res.Print(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "other median") || !strings.Contains(out.String(), other) {
		t.Errorf("table without the comparison:\n%s", out.String())
	}
}

// TestLatencyToolHooks: without a comparison, the tool hooks are measured
// too, each path doing what its row says (a recall row that recalls
// nothing, or a quiet row that prints, fails the run).
func TestLatencyToolHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs some forty processes")
	}
	if raceBuild {
		t.Skip("drives separate processes: run without -race")
	}
	sample, err := os.ReadFile(filepath.Join("..", "cmd", "carryover", "demodata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Latency(context.Background(), LatencyOptions{Exe: carryoverBinary(t), Transcripts: t.TempDir(),
		Sample: sample, SampleID: demoID, Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res.Rows {
		names = append(names, r.Name)
	}
	for _, want := range []string{"PostToolUse, nothing to recall (Read of a file not changed)",
		"PostToolUse, file recall (Read of a file changed before the compaction)",
		"PostToolUseFailure, no fix to recall", "PostToolUseFailure, failure recall"} {
		if !slices.Contains(names, want) {
			t.Errorf("no row %q in %q", want, names)
		}
	}
}
