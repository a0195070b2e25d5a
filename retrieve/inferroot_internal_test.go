package retrieve

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/carryover-dev/carryover"
)

// TestInferRoot: a session directory that is not on this machine gives way
// to the parent that holds most of the files the session edited; one that
// exists (its repository root was found) never does.
func TestInferRoot(t *testing.T) {
	edits := func(paths ...string) []carryover.Item {
		var its []carryover.Item
		for _, p := range paths {
			its = append(its, carryover.Item{Kind: carryover.KindFileEdit, Text: filepath.FromSlash(p)})
		}
		return its
	}
	gone := filepath.FromSlash("/nonexistent-carryover-test/repo/assets")
	repo := filepath.Dir(gone)
	for _, tt := range []struct {
		name  string
		dir   string
		edits []carryover.Item
		want  string
	}{
		{"edits across the repository", gone, edits("/nonexistent-carryover-test/repo/lib/a.ex", "/nonexistent-carryover-test/repo/assets/app.js", "/nonexistent-carryover-test/repo/priv/x.css"), repo},
		{"edits inside the directory", gone, edits("/nonexistent-carryover-test/repo/assets/app.js", "/nonexistent-carryover-test/repo/assets/css/x.css"), gone},
		{"most edits elsewhere", gone, edits("/home/u/.claude/plans/p.md", "/tmp/x", "/nonexistent-carryover-test/repo/lib/a.ex"), gone},
		{"no edits", gone, nil, gone},
		{"too far up", filepath.FromSlash("/nonexistent-carryover-test/repo/a/b/c"), edits("/nonexistent-carryover-test/repo/lib/a.ex"), filepath.FromSlash("/nonexistent-carryover-test/repo/a/b/c")},
	} {
		if got := inferRoot(tt.dir, tt.edits); got != tt.want {
			t.Errorf("%s: inferRoot = %q, want %q", tt.name, got, tt.want)
		}
	}
	// A directory on this machine stays, whatever was edited.
	here := t.TempDir()
	sub := filepath.Join(here, "assets")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := inferRoot(sub, edits(filepath.ToSlash(filepath.Join(here, "lib", "a.ex")))); got != sub {
		t.Errorf("existing directory: inferRoot = %q, want %q", got, sub)
	}
}
