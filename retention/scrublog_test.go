package retention

import (
	"os"
	"path/filepath"
	"testing"
)

// TestScrubLogOwnOnly: forget drops a session's lines from carryover's
// log, but leaves a file CARRYOVER_LOG names that carryover did not start
// (say a notes file that mentions the session) as it is.
func TestScrubLogOwnOnly(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "carryover.log")
	os.WriteFile(own, []byte("time=t level=INFO msg=\"carryover log\" pid=1\ntime=t level=INFO msg=hook session=abc\n"), 0o600)
	notes := filepath.Join(dir, "notes.txt")
	text := "meeting notes\nsession abc was about the migration\n"
	os.WriteFile(notes, []byte(text), 0o600)
	if n, err := scrubLog(own, "abc"); n != 1 || err != nil {
		t.Errorf("own log: %d lines dropped, %v", n, err)
	}
	if n, err := scrubLog(notes, "abc"); n != 0 || err != nil {
		t.Errorf("notes: %d lines dropped, %v", n, err)
	}
	if got, _ := os.ReadFile(notes); string(got) != text {
		t.Errorf("a file carryover did not start was rewritten: %q", got)
	}
}
