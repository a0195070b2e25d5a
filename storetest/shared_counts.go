package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
)

// testSharedCounts checks that a session's counts tell the chunks it
// shares from those it stored: Chunks holds both, Shared the first, so
// that a total counts each stored chunk once.
func testSharedCounts(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	a := Batch("a", "/p", 0, 3)
	b := Resumed(a, "b", 2, 4, 100)
	apply(t, st, a, b, Resumed(b, "c", 1, 2, 50))
	ss, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	got, stored := map[string]string{}, 0
	for _, s := range ss {
		got[s.ID] = fmt.Sprintf("%d chunks, %d shared", s.Chunks, s.Shared)
		stored += s.Chunks - s.Shared
	}
	want := map[string]string{"a": "3 chunks, 0 shared", "b": "4 chunks, 2 shared", "c": "2 chunks, 1 shared"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sessions: %v, want %v", got, want)
	}
	if n := len(allChunks(t, st, "")); stored != n {
		t.Errorf("sessions count %d stored chunks, the store has %d", stored, n)
	}
	s, err := st.Session(ctx, "b")
	if err != nil || s.Chunks != 4 || s.Shared != 2 {
		t.Errorf("session b: %d chunks, %d shared, %v; want 4, 2", s.Chunks, s.Shared, err)
	}
}

// testSharedFootprints checks what a store says its sessions' rows take:
// a chunk several sessions hold counts under all of them, not under the
// one that stored it, and goes to the session left holding it when the
// others are pruned.
func testSharedFootprints(t *testing.T, st carryover.Store) {
	fper, ok := st.(carryover.Footprinter)
	if !ok {
		t.Skip("the store does not tell its sessions' sizes")
	}
	ctx := context.Background()
	// a and z are alike but for the session name, which is in the text of
	// every chunk; b shares two of a's three chunks.
	a, z := Batch("a", "/p", 0, 3), Batch("z", "/p", 0, 3)
	b := Resumed(a, "b", 2, 4, 100)
	apply(t, st, a, b, z)
	footprints := func() map[string]int64 {
		fps, err := fper.Footprints(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, f := range fps {
			if !slices.IsSorted(f.Sessions) || len(slices.Compact(slices.Clone(f.Sessions))) != len(f.Sessions) {
				t.Errorf("footprint sessions %q: not sorted and distinct", f.Sessions)
			}
			key := strings.Join(f.Sessions, "+")
			if _, dup := out[key]; dup {
				t.Errorf("two footprints of %s", key)
			}
			out[key] = f.Bytes
		}
		return out
	}
	fp := footprints()
	if len(fp) != 4 || fp["a+b"] <= 0 || fp["a"] <= 0 || fp["b"] <= 0 || fp["z"] <= 0 {
		t.Fatalf("footprints %v: want a, b, z and a+b", fp)
	}
	// a alone has one chunk of z's three: it takes about a third of z's
	// chunk bytes less, and with what it shares about as much as z.
	if fp["a"] >= fp["z"] || !near(fp["a"]+fp["a+b"], fp["z"]) {
		t.Errorf("a takes %d bytes alone and %d with b, z %d: want about z's in all, less alone", fp["a"], fp["a+b"], fp["z"])
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "a"}); err != nil {
		t.Fatal(err)
	}
	after := footprints()
	if len(after) != 2 || !near(after["b"], fp["b"]+fp["a+b"]) || after["z"] != fp["z"] {
		t.Errorf("after pruning a: footprints %v, want b %d, z %d", after, fp["b"]+fp["a+b"], fp["z"])
	}
}

// near reports whether two byte counts are within a tenth of each other
// (a store may compress or encode alike rows a little differently).
func near(x, y int64) bool {
	return x*10 >= y*9 && y*10 >= x*9
}
