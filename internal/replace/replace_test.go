package replace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/carryover-dev/carryover/internal/replace"
)

// TestFile: the new content takes the old file's place, even while a
// reader holds the old one open, and the temporary name is gone.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	to, from := filepath.Join(dir, "state"), filepath.Join(dir, ".state-tmp")
	if err := os.WriteFile(to, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(from, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	f, err := os.Open(to)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(done)
		// A reader that closes soon, as the state files' readers do.
		buf := make([]byte, 3)
		f.Read(buf)
		f.Close()
	}()
	if err := replace.File(from, to); err != nil {
		t.Fatal(err)
	}
	<-done
	if got, _ := os.ReadFile(to); string(got) != "new" {
		t.Errorf("after the replacement: %q", got)
	}
	if _, err := os.Lstat(from); !os.IsNotExist(err) {
		t.Errorf("the temporary name is still there: %v", err)
	}
}

// TestRemove: a file is removed even while a reader that closes soon holds
// it open; a missing one is an error that says so.
func TestRemove(t *testing.T) {
	p := filepath.Join(t.TempDir(), "journal")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Read(make([]byte, 1))
		f.Close()
	}()
	if err := replace.Remove(p); err != nil {
		t.Fatal(err)
	}
	<-done
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Errorf("still there: %v", err)
	}
	if err := replace.Remove(p); !os.IsNotExist(err) {
		t.Errorf("removing a missing file: %v", err)
	}
}
