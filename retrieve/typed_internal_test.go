package retrieve

import (
	"fmt"
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
