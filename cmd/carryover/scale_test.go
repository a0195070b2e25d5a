package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// spotterDir returns the real transcripts of the shared data beside the
// repository, skipping the test when they are absent unless CI=true.
func spotterDir(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "data", "transcripts", "spotter")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("shared data missing at %s: %v", dir, err)
		}
		tb.Skipf("shared data not found at %s (a checkout of the repository alone has none)", dir)
	}
	return dir
}

// TestBenchScaleSmall generates a small archive and checks the shape of
// what bench scale reports: every measurement ran, from a separate process.
func TestBenchScaleSmall(t *testing.T) {
	src := spotterDir(t)
	// TestMain puts the test binary in $PATH as "carryover".
	exe, err := exec.LookPath("carryover")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "store")
	var out, errb bytes.Buffer
	a := newApp(bytes.NewReader(nil), &out, &errb, os.Getenv)
	args := []string{"bench", "scale", "--chunks", "2000", "--per-session", "500", "--runs", "1",
		"--dir", dir, "--transcripts", src, "--exe", exe, "--json"}
	if code := a.run(context.Background(), args); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res scaleResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
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
		t.Errorf("store directory left behind without --keep: %v", err)
	}
}
