//go:build unix

package smallfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/carryover-dev/carryover/internal/smallfile"
)

// TestReadRefusesSpecialFiles: a FIFO (which would block the open until a
// writer came) and an endless device, each in a file's place, are refused
// at once.
func TestReadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	if _, _, err := smallfile.Read(fifo, 1<<20); !errors.Is(err, smallfile.ErrNotRegular) {
		t.Errorf("a FIFO: %v", err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Skipf("no symbolic link: %v", err)
	}
	if _, _, err := smallfile.Read(zero, 1<<20); !errors.Is(err, smallfile.ErrNotRegular) {
		t.Errorf("a link to /dev/zero: %v", err)
	}
}
