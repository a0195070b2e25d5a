package retrieve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
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

// TestTypedOrderTiers: an identifier weighs by where it came from in its
// chunk (the lines of an inputs item): a call's arguments weigh the most,
// a path a spec named weighs less than one typed in the same chunk and
// more than one typed far earlier, and an archive with fewer lines reads
// as before.
func TestTypedOrderTiers(t *testing.T) {
	items := []carryover.Item{
		{ID: 1, Line: 10, Text: "early/typed_arg.go"},
		{ID: 2, Line: 100, Text: "late/typed_arg.go\nlate/written_text.go\nlate/spec_named.go"},
	}
	order, itemOf := typedOrder(items)
	want := []string{"late/typed_arg.go", "late/written_text.go", "late/spec_named.go", "early/typed_arg.go"}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("order %q, want %q", order, want)
	}
	if itemOf["late/spec_named.go"] != 2 || itemOf["early/typed_arg.go"] != 1 {
		t.Errorf("items %v: each identifier comes from its own item", itemOf)
	}
	if tierWeights[2] > tierWeights[0] || tierWeights[2] <= float64(10*10)/float64(100*100) {
		t.Errorf("spec tier weight %v: want below a typed argument's and above one typed a tenth of the way back", tierWeights[2])
	}
}

// TestMinTypedShare: the typed identifiers' least share is
// SmallTypedShare up to SmallBudget, MinTypedShare from the default
// budget on, and falls steadily between.
func TestMinTypedShare(t *testing.T) {
	if got := minTypedShare(1000); got != SmallTypedShare {
		t.Errorf("1,000 chars: %v, want %v", got, SmallTypedShare)
	}
	if got := minTypedShare(DefaultRestoreBudget * 2); got != MinTypedShare {
		t.Errorf("%d chars: %v, want %v", DefaultRestoreBudget*2, got, MinTypedShare)
	}
	prev := minTypedShare(SmallBudget)
	for b := SmallBudget + 100; b <= DefaultRestoreBudget; b += 100 {
		got := minTypedShare(b)
		if got > prev || got < MinTypedShare {
			t.Fatalf("%d chars: %v after %v: want a share that falls to %v", b, got, prev, MinTypedShare)
		}
		prev = got
	}
	if prev != MinTypedShare {
		t.Errorf("at the default budget: %v, want %v", prev, MinTypedShare)
	}
}
