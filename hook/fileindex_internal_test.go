package hook

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReadRecallIndexBounded: a recall index that has become larger than
// the largest index, or a link to an endless device (/dev/zero), is read
// no further and answers "no index", as a garbled one does.
func TestReadRecallIndexBounded(t *testing.T) {
	db := filepath.Join(t.TempDir(), "carryover.db")
	const session = "5e55i0n0-0000-4000-8000-000000000001"
	if err := writeRecallIndex(db, session, recallIndex{Window: 1, Files: []string{pathHash("/src/a.go")}}); err != nil {
		t.Fatal(err)
	}
	if ix, ok := readRecallIndex(db, session); !ok || !ix.has("/src/a.go") {
		t.Fatalf("the index written reads back as %+v, %v", ix, ok)
	}
	path := recallIndexPath(db, session)
	if err := os.WriteFile(path, []byte(`{"window":1,"files":["`+strings.Repeat("a", maxRecallIndex)+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := readRecallIndex(db, session); ok {
		t.Error("an index over the bound was read")
	}
	if runtime.GOOS == "windows" {
		return
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Skipf("no symbolic link: %v", err)
	}
	if _, ok := readRecallIndex(db, session); ok {
		t.Error("an endless index was read")
	}
}
