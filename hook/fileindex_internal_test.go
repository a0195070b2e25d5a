package hook

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
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

// TestRecallItems: the items a restore read stand for every file edit and
// error of the session only when each group that holds them was read
// whole: for the session, before the window, under its limit and from
// every window.
func TestRecallItems(t *testing.T) {
	edits := []carryover.Item{{Kind: carryover.KindFileEdit, Text: "a.go"}, {Kind: carryover.KindFileEdit, Text: "b.go"}}
	errs := []carryover.Item{{Kind: carryover.KindError, Text: "boom"}}
	read := func(f carryover.ItemFilter, groups ...carryover.ItemGroup) *itemsRead {
		return &itemsRead{f: f, groups: groups, got: [][]carryover.Item{edits, errs}}
	}
	f := carryover.ItemFilter{SessionID: "s", BeforeWindow: 2}
	for name, tc := range map[string]struct {
		s    *itemsRead
		want int
	}{
		"whole": {read(f, carryover.ItemGroup{Kinds: []carryover.ItemKind{carryover.KindFileEdit}, Limit: 10},
			carryover.ItemGroup{Kinds: []carryover.ItemKind{carryover.KindError}}), 3},
		"at its limit": {read(f, carryover.ItemGroup{Kinds: []carryover.ItemKind{carryover.KindFileEdit}, Limit: 2},
			carryover.ItemGroup{Kinds: []carryover.ItemKind{carryover.KindError}}), -1},
		"last window only": {read(f, carryover.ItemGroup{Kinds: []carryover.ItemKind{carryover.KindFileEdit}, Limit: 10},
			carryover.ItemGroup{Kinds: []carryover.ItemKind{carryover.KindError}, LastWindow: true}), -1},
		"another window": {read(carryover.ItemFilter{SessionID: "s", BeforeWindow: 1},
			carryover.ItemGroup{Kinds: []carryover.ItemKind{carryover.KindFileEdit}, Limit: 10},
			carryover.ItemGroup{Kinds: []carryover.ItemKind{carryover.KindError}}), -1},
	} {
		got := tc.s.recallItems(2)
		if tc.want < 0 && got != nil || tc.want >= 0 && len(got) != tc.want {
			t.Errorf("%s: %d items (nil %v), want %d (-1: nil)", name, len(got), got == nil, tc.want)
		}
	}
}
