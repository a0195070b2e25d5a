package storetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Files returns, by name, the bytes of the closed SQLite store at path and
// of its side files (-wal, -shm): what a test that nothing of a secret is
// kept reads besides the rows (free pages, full-text indexes, the log).
func Files(t testing.TB, path string) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(path + "*")
	if err != nil || len(names) == 0 {
		t.Fatalf("no store files at %s (%v)", path, err)
	}
	files := map[string][]byte{}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(name)] = data
	}
	return files
}
