package exportfile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/sqlite"
)

func TestWriteFileIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "c.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out", "all.jsonl")
	if err := os.Mkdir(filepath.Dir(out), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteFile(ctx, out, st, WriteOptions{Orphans: true}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(data), `{"type":"header","format":"carryover-export"`) {
		t.Fatalf("export: %q, %v", data, err)
	}
	// A failing export (the store is gone) leaves the earlier file as it
	// was, and no temporary file.
	st.Close()
	if _, err := WriteFile(ctx, out, st, WriteOptions{Orphans: true}); err == nil {
		t.Fatal("an export of a closed store did not fail")
	}
	if again, _ := os.ReadFile(out); string(again) != string(data) {
		t.Error("a failed export changed the file")
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".carryover-export-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
