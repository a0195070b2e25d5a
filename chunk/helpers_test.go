package chunk_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/carryover-dev/carryover/transcript"
)

// sharedDir returns the shared data directory next to the repository. It
// skips the test when the directory is missing, unless CI=true.
func sharedDir(tb testing.TB) string {
	tb.Helper()
	dir, ok := findShared(tb)
	if !ok {
		tb.Skipf("shared data not found at %s; skipping", dir)
	}
	return dir
}

// findShared reports where the shared data directory is and whether it
// exists; with CI=true a missing directory fails the test.
func findShared(tb testing.TB) (string, bool) {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(wd, "..", "..", "shared") // chunk/ is one level below the repo root
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("shared data missing at %s (CI=true): %v", dir, err)
		}
		return dir, false
	}
	return dir, true
}

// readEntries decodes a whole transcript file.
func readEntries(tb testing.TB, path string) []transcript.Entry {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	r := transcript.NewReader(f, 0, 0)
	var out []transcript.Entry
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, e)
	}
}
