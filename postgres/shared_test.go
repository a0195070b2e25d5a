package postgres_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/storetest"
)

// TestSharedChunksMigration turns a schema back into version 7, where the
// chunks a resumed session shares with the session it resumed are known
// only by the items pointing at them, migrates it, and checks that the
// resumed session then reads them at its own places and keeps them when
// the old session is pruned.
func TestSharedChunksMigration(t *testing.T) {
	ctx := context.Background()
	dsn := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	opt := postgres.Options{ConnectTimeout: 10 * time.Second}
	st, err := postgres.Open(ctx, dsn, opt)
	if err != nil {
		t.Fatal(err)
	}
	a := storetest.Batch("a", "/p", 0, 5)
	b := storetest.Resumed(a, "b", 4, 6, 100)
	// Chunks 0 and 2 of b, shared, have no item of b pointing at them: the
	// migration places them by the shared chunks around them.
	b.Items = slices.DeleteFunc(b.Items, func(it carryover.Item) bool { return it.ChunkSeq == 0 || it.ChunkSeq == 2 })
	for i := range b.Items {
		b.Items[i].Turn = b.Chunks[b.Items[i].ChunkSeq].Turn // as the chunker gives them
	}
	for _, x := range []carryover.Batch{a, b} {
		if err := st.Apply(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	want, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: "b", Turn: -1})
	if err != nil || len(want) != 6 {
		t.Fatalf("b holds %d chunks (%v), want 6", len(want), err)
	}
	st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DROP TABLE passages, passage_marks; DROP TABLE chunk_shares; UPDATE meta SET value = '7' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}

	st, err = postgres.Open(ctx, dsn, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	check := func(when string) {
		t.Helper()
		got, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: "b", Turn: -1})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s, b's chunks:\n%+v\nwant\n%+v", when, got, want)
		}
		its, err := st.Items(ctx, carryover.ItemFilter{SessionID: "b"})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range its {
			if it.ChunkID == 0 || it.ChunkID != want[it.ChunkSeq].ID {
				t.Errorf("%s, item %s of b: chunk %d, want %d", when, it.Key, it.ChunkID, want[it.ChunkSeq].ID)
			}
		}
	}
	check("after the migration")
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "a"}); err != nil {
		t.Fatal(err)
	}
	check("after pruning a")
}

// TestRowSecuritySharedChunks: a teammate reads the chunks a shared
// resumed session shares, cannot point a share of their own at another
// role's chunk, and keeps a copy of their own of a transcript both
// archived when the other prunes and forgets theirs; an outsider reads no
// share row.
func TestRowSecuritySharedChunks(t *testing.T) {
	ctx := context.Background()
	f := newRLS(t)
	alice, bob, carol := f.store(t, "alice", f.team), f.store(t, "bob", f.team), f.store(t, "carol", "")
	a := storetest.Batch("a", "/repo", 0, 3)
	b := storetest.Resumed(a, "b", 2, 4, 100)
	for _, x := range []carryover.Batch{a, b} {
		if err := alice.Apply(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	// Bob archived the same transcripts: his own copies, of the same
	// hashes.
	ba := storetest.Batch("bob-a", "/repo", 0, 3)
	for i := range ba.Chunks {
		ba.Chunks[i].Hash = a.Chunks[i].Hash
	}
	for _, x := range []carryover.Batch{ba, storetest.Resumed(ba, "bob-b", 2, 4, 100)} {
		if err := bob.Apply(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	seqs := func(st *postgres.Store, id string) []int {
		t.Helper()
		cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: id, Turn: -1})
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, c := range cs {
			out = append(out, c.Seq)
		}
		return out
	}
	all := []int{0, 1, 2, 3}
	if got := seqs(bob, "b"); !slices.Equal(got, all) {
		t.Errorf("bob reads alice's shared b: chunks %v, want %v", got, all)
	}
	if got := seqs(carol, "b"); len(got) != 0 {
		t.Errorf("carol reads alice's b: chunks %v", got)
	}
	c := f.conn(t, "carol")
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM chunk_shares`).Scan(&n); err != nil || n != 0 {
		t.Errorf("carol reads %d share rows (%v)", n, err)
	}
	// Bob cannot make alice's chunk one of his session's, so nothing of
	// his holds her chunks back from her prune.
	var aliceChunk int64
	if err := f.conn(t, "alice").QueryRow(ctx, `SELECT id FROM chunks WHERE session_id = 'a' AND seq = 2`).Scan(&aliceChunk); err != nil {
		t.Fatal(err)
	}
	err := runSQL(f.conn(t, "bob"), `INSERT INTO chunk_shares (owner, team, project, session_id, chunk_id, seq, turn, win, first_line, last_line)
		VALUES (current_user, $1, '/repo', 'bob-b', $2, 9, 0, 0, 1, 2)`, f.team, aliceChunk)
	if err == nil {
		t.Error("bob wrote a share of alice's chunk")
	}
	for _, p := range []carryover.PruneFilter{{SessionID: "a"}, {SessionID: "b", Forget: true}} {
		if _, err := alice.Prune(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := seqs(bob, "bob-b"); !slices.Equal(got, all) {
		t.Errorf("after alice pruned and forgot hers, bob's bob-b: chunks %v, want %v", got, all)
	}
	if got := seqs(bob, "bob-a"); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("after alice pruned and forgot hers, bob's bob-a: chunks %v, want [0 1 2]", got)
	}
	if _, err := bob.Prune(ctx, carryover.PruneFilter{SessionID: "bob-a"}); err != nil {
		t.Fatal(err)
	}
	if got := seqs(bob, "bob-b"); !slices.Equal(got, all) {
		t.Errorf("after pruning bob-a, bob-b: chunks %v, want %v", got, all)
	}
}
