package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestScaleSmall generates a small archive and checks the shape of what
// bench scale reports: every measurement ran, from a separate process of
// the binary.
func TestScaleSmall(t *testing.T) {
	src := sharedDir(t, "data", "transcripts", "spotter")
	exe := carryoverBinary(t)
	dir := filepath.Join(t.TempDir(), "store")
	res, err := Scale(context.Background(), ScaleOptions{
		Plan: ScalePlan{Chunks: 2000, PerSession: 500, Projects: 4, Batch: 500},
		Dir:  dir, Transcripts: src, Workers: 2, Runs: 1, Exe: exe, Log: os.Stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks != 2000 || res.Sessions != 4 || res.Projects != 4 {
		t.Errorf("archive %d chunks, %d sessions, %d projects; want 2000, 4, 4", res.Chunks, res.Sessions, res.Projects)
	}
	if res.IngestS <= 0 || res.ChunksPerS <= 0 || res.StoreMB <= 0 || res.Vocabulary < 100 {
		t.Errorf("ingest %.2f s, %.0f chunks/s, store %.1f MB, vocabulary %d", res.IngestS, res.ChunksPerS, res.StoreMB, res.Vocabulary)
	}
	want := []string{"version"}
	for _, p := range scalePrompts {
		want = append(want, p.name)
	}
	for _, q := range scaleQueries {
		want = append(want, q.name)
	}
	if len(res.Measurements) != len(want) {
		t.Fatalf("%d measurements, want %d: %+v", len(res.Measurements), len(want), res.Measurements)
	}
	for i, r := range res.Measurements {
		if r.Name != want[i] || r.Runs != 1 || r.MedianMS <= 0 || r.MaxRSSMB <= 0 {
			t.Errorf("measurement %d: %+v, want %q with a time and an RSS", i, r, want[i])
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("store directory left behind without Keep: %v", err)
	}
}
