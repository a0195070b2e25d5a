package retrieve

import (
	"fmt"
	"strings"
	"testing"
)

// TestWrappedLen: the size wrapTyped's lines take is what wrappedLen
// computes, for lists that wrap and lists that do not.
func TestWrappedLen(t *testing.T) {
	for n := range 60 {
		var ids []string
		for i := range n {
			ids = append(ids, fmt.Sprintf("ident_%0*d", 1+i%17, i))
		}
		if got, want := wrappedLen(ids), linesLen(wrapTyped(ids)); got != want {
			t.Fatalf("%d ids: wrappedLen %d, lines take %d", n, got, want)
		}
	}
}

// TestFamilies: identifiers of one directory or one parent name are
// written as a shell family where the first member stood, and sizeWith
// is the size of the lines wrapTyped then writes.
func TestFamilies(t *testing.T) {
	ids := []string{"lib/a/x.ex", "metrics.total_mi", "lib/a/y.ex", "README.md", "metrics.average_mi",
		"lib/b/z.ex", "{odd,one}", "a.b", "lib/a/" + strings.Repeat("w", 120) + ".ex"}
	var fs families
	for _, id := range ids {
		want := fs.sizeWith(id)
		fs.add(id)
		fs.size = want
		if got := linesLen(wrapTyped(fs.tokens())); got != want {
			t.Errorf("after %s: lines of %d bytes, sizeWith said %d", id, got, want)
		}
	}
	if again := newFamilies(ids); again.size != fs.size {
		t.Errorf("newFamilies measured %d, want %d", again.size, fs.size)
	}
	got := strings.Join(fs.tokens(), " ")
	want := "lib/a/{x.ex,y.ex," + strings.Repeat("w", 120) + ".ex} metrics.{total_mi,average_mi} README.md lib/b/z.ex {odd,one} a.b"
	if got != want {
		t.Errorf("tokens:\n%s\nwant\n%s", got, want)
	}
}
