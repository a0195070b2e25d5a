package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
)

// chain builds a, b resuming a (2 of a's 3 chunks) and c resuming b (3 of
// b's 4: a's 2 and one of b's own).
func chain() (a, b, c carryover.Batch) {
	a = Batch("a", "/p", 0, 3)
	b = Resumed(a, "b", 2, 4, 100)
	c = Resumed(b, "c", 3, 5, 50)
	return a, b, c
}

// checkSession checks a session's chunks against its batch, its items'
// chunks, and that a search of it finds each chunk once.
func checkSession(t *testing.T, st carryover.Store, what string, b carryover.Batch) {
	t.Helper()
	checkPlaces(t, what, allChunks(t, st, b.Session.ID), b)
	checkItemChunks(t, st, b.Session.ID)
	if s, err := st.Session(context.Background(), b.Session.ID); err != nil || s.Chunks != len(b.Chunks) {
		t.Errorf("%s: session holds %d chunks (%v), want %d", what, s.Chunks, err, len(b.Chunks))
	}
	got := found(t, st, carryover.Query{Text: "ran go test cache.go", SessionID: b.Session.ID, Limit: 50})
	if len(got) != len(b.Chunks) || len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
		t.Errorf("%s: search of the session = %v, want each of its %d chunks once", what, got, len(b.Chunks))
	}
}

// testSharedChainPruneOrders prunes a chunk three sessions hold (a
// session resumed, then resumed again) in every order: each session left
// keeps all its chunks, at its places, and the last prune removes them.
func testSharedChainPruneOrders(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	for _, order := range [][]string{{"a", "b", "c"}, {"a", "c", "b"}, {"b", "a", "c"}, {"b", "c", "a"}, {"c", "a", "b"}, {"c", "b", "a"}} {
		a, b, c := chain()
		apply(t, st, a, b, c)
		left := map[string]carryover.Batch{"a": a, "b": b, "c": c}
		removed := 0
		for _, id := range order {
			rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: id})
			if err != nil {
				t.Fatalf("order %v: prune %s: %v", order, id, err)
			}
			removed += rep.Chunks
			delete(left, id)
			for _, s := range left {
				checkSession(t, st, fmt.Sprintf("order %v: %s after pruning %s", order, s.Session.ID, id), s)
			}
			if got := found(t, st, carryover.Query{Text: "ran go test cache.go", Project: "/p", Limit: 50}); len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
				t.Errorf("order %v: search of the project finds a chunk twice: %v", order, got)
			}
		}
		if all := allChunks(t, st, ""); len(all) != 0 || removed != 7 {
			t.Errorf("order %v: %d chunks removed, want 7; left %+v", order, removed, places(all))
		}
	}
}

// testSharedBothWays checks a session that shares a chunk of the session
// it resumed and whose own chunk that session shares in turn.
func testSharedBothWays(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	a := Batch("a", "/p", 0, 3)
	b := Resumed(a, "b", 2, 4, 100)
	a2 := Batch("a", "/p", 3, 1)
	a2.Chunks[0].Hash, a2.Chunks[0].Text = b.Chunks[3].Hash, b.Chunks[3].Text
	apply(t, st, a, b, a2)
	wantA := a
	wantA.Chunks = append(slices.Clone(a.Chunks), a2.Chunks...)
	wantA.Chunks[3].Summary, wantA.Chunks[3].Commands = b.Chunks[3].Summary, b.Chunks[3].Commands
	checkPlaces(t, "a", allChunks(t, st, "a"), wantA)
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "a"}); err != nil {
		t.Fatal(err)
	}
	checkSession(t, st, "b after pruning a", b)
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "b"}); err != nil {
		t.Fatal(err)
	}
	if all := allChunks(t, st, ""); len(all) != 0 {
		t.Errorf("chunks left: %+v", places(all))
	}
}

// testSharedReingest applies a resumed session again, as it is and read
// again from the start (its chunks numbered after the ones it has): no
// share is recorded twice and none names the session's own chunk.
func testSharedReingest(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	a := Batch("a", "/p", 0, 3)
	b := Resumed(a, "b", 2, 4, 100)
	apply(t, st, a, b, b)
	checkSession(t, st, "b applied twice", b)
	again := Resumed(a, "b", 2, 4, 100)
	for i := range again.Chunks {
		again.Chunks[i].Seq += 4
	}
	for i := range again.Items {
		again.Items[i].ChunkSeq += 4
	}
	apply(t, st, again)
	checkSession(t, st, "b read again from the start", b)
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "a"}); err != nil {
		t.Fatal(err)
	}
	checkSession(t, st, "b after pruning a", b)
}

// testForgetMiddleOfChain forgets a session that resumed one and was
// resumed in turn.
func testForgetMiddleOfChain(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	a, b, c := chain()
	b.Chunks[3].Text += " only-in-b"
	apply(t, st, a, b, c)
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "b", Forget: true}); err != nil {
		t.Fatal(err)
	}
	checkSession(t, st, "a after forgetting b", a)
	checkSession(t, st, "c after forgetting b", c)
	if got := found(t, st, carryover.Query{Text: "only-in-b"}); len(got) != 0 {
		t.Errorf("forgotten text found: %v", got)
	}
	for _, ch := range allChunks(t, st, "") {
		if ch.SessionID == "b" {
			t.Errorf("chunk %d of the forgotten session left", ch.Seq)
		}
	}
}

// testSharedSubagent: a resumed session's subagent repeats the old
// session's subagent; pruning the old session with its subagents leaves
// the new one's whole.
func testSharedSubagent(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	a := Batch("a", "/p", 0, 2)
	sa := Batch("a/agent-x", "/p", 0, 3)
	sa.Session.Parent = "a"
	b := Resumed(a, "b", 2, 3, 100)
	sb := Resumed(sa, "b/agent-x", 3, 4, 0)
	sb.Session.Parent = "b"
	sb.Session.Updated = base.Add(2 * time.Hour)
	apply(t, st, a, sa, b, sb)
	rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Shared != 5 {
		t.Errorf("prune of a and its subagent handed over %d chunks, want 5", rep.Shared)
	}
	checkSession(t, st, "b after pruning a", b)
	checkSession(t, st, "b's subagent after pruning a", sb)
}
