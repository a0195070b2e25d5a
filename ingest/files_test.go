package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTranscriptFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.jsonl", "a/sub.jsonl", "a/subagents/agent-x.jsonl", "agent-acompact-1.jsonl", "notes.txt"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := TranscriptFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a/sub.jsonl"), filepath.Join(dir, "a/subagents/agent-x.jsonl"), filepath.Join(dir, "b.jsonl")}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// A file is taken as it is, whatever its name.
	one := filepath.Join(dir, "notes.txt")
	if got, err := TranscriptFiles(one); err != nil || !slices.Equal(got, []string{one}) {
		t.Errorf("a file: %q, %v", got, err)
	}
	if _, err := TranscriptFiles(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing path: no error")
	}
	// Paths are taken together, and finding no transcript is an error.
	if got, err := TranscriptFiles(filepath.Join(dir, "a"), one); err != nil || len(got) != 3 {
		t.Errorf("two paths: %q, %v", got, err)
	}
	empty := t.TempDir()
	if _, err := TranscriptFiles(empty); err == nil || !strings.Contains(err.Error(), "no .jsonl transcripts under "+empty) {
		t.Errorf("no transcripts: %v", err)
	}
}
