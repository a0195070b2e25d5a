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
