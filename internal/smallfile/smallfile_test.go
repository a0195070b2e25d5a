package smallfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/carryover-dev/carryover/internal/smallfile"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, truncated, err := smallfile.Read(path, 10); err != nil || truncated || string(data) != "0123456789" {
		t.Errorf("within the bound: %q %v %v", data, truncated, err)
	}
	if data, truncated, err := smallfile.Read(path, 4); err != nil || !truncated || string(data) != "0123" {
		t.Errorf("over the bound: %q %v %v", data, truncated, err)
	}
	if _, _, err := smallfile.Read(filepath.Join(dir, "none"), 4); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, _, err := smallfile.Read(dir, 4); !errors.Is(err, smallfile.ErrNotRegular) {
		t.Errorf("a directory: %v", err)
	}
}
