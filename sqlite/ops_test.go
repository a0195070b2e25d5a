package sqlite_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/storetest"
)

func TestPruneRemovesSessionEverywhere(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
	for _, b := range []carryover.Batch{storetest.Batch("s1", "/p/a", 0, 6), storetest.Batch("s2", "/p/a", 0, 4), storetest.Batch("s3", "/p/b", 0, 3)} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.AddNote(ctx, carryover.Note{SessionID: "s1", Project: "/p/a", Kind: "note", Text: "remember zebra"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordInjection(ctx, carryover.Injection{SessionID: "s1", Project: "/p/a", Event: "UserPromptSubmit", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{}); err == nil {
		t.Fatal("prune with no filter succeeded")
	}

	dry, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Sessions) != 1 || dry.Chunks != 6 || dry.Notes != 1 || dry.Injections != 1 || dry.Items != 7 {
		t.Fatalf("dry run report = %+v", dry)
	}
	if hits, _ := st.Search(ctx, carryover.Query{Text: "step of s1"}); len(hits) == 0 {
		t.Fatal("dry run removed rows")
	}

	rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chunks != dry.Chunks || rep.Items != dry.Items || rep.Notes != dry.Notes || rep.Injections != dry.Injections {
		t.Fatalf("prune report %+v differs from dry run %+v", rep, dry)
	}
	hits, err := st.Search(ctx, carryover.Query{Text: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Chunk.SessionID == "s1" {
			t.Fatalf("search still finds forgotten session: %+v", h.Chunk)
		}
	}
	db := rawDB(t, path)
	for _, q := range []string{
		"SELECT count(*) FROM chunks WHERE session_id = 's1'",
		"SELECT count(*) FROM items WHERE session_id = 's1'",
		"SELECT count(*) FROM notes WHERE session_id = 's1'",
		"SELECT count(*) FROM injections WHERE session_id = 's1'",
		"SELECT count(*) FROM chunk_vecs WHERE id NOT IN (SELECT id FROM chunks)",
		"SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 's1'",
	} {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if n != 0 {
			t.Errorf("%s = %d, want 0", q, n)
		}
	}
	if n := count(t, db, "chunks"); n != 7 {
		t.Errorf("other sessions' chunks = %d, want 7", n)
	}

	old, err := st.Prune(ctx, carryover.PruneFilter{UpdatedBefore: base.Add(5 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(old.Sessions, ",") != "s3,s2" {
		t.Errorf("pruned by age = %v, want s3,s2 (oldest first)", old.Sessions)
	}
	if ss, _ := st.Sessions(ctx, carryover.SessionFilter{}); len(ss) != 0 {
		t.Errorf("sessions left: %+v", ss)
	}
}
