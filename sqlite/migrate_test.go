package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/storetest"
)

// TestTermsBackfill opens a store that the previous carryover wrote
// (testdata/schema5-cjk.db: schema version 5, terms without the bigrams of
// Chinese, Japanese and Korean runs) and checks that its chunks are found
// as before right after the migration, and by a word inside such a run
// once Backfill has computed their terms again, with a sound index.
func TestTermsBackfill(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join("testdata", "schema5-cjk.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "carryover.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	var version int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != 5 {
		t.Fatalf("fixture schema version %d, %v; want 5", version, err)
	}
	st := openStore(t, path)
	found := func(q string) []string {
		t.Helper()
		hits, err := st.Search(ctx, carryover.Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Chunk.Text)
		}
		return out
	}
	if got := found("flaky deploy"); len(got) == 0 || got[0] != "fixed the flaky deploy test in internal/build/cache.go" {
		t.Errorf("right after the migration, search flaky deploy = %q", got)
	}
	if got := found("全量"); len(got) != 0 {
		t.Errorf("before the backfill, 全量 finds %q: the old terms have no bigrams", got)
	}
	for {
		n, err := st.Backfill(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	for q, want := range map[string]string{
		"全量":     "首次全量 = 自动化优先",
		"移行":     "データベースの移行を完了しました",
		"데이터베이스": "데이터베이스를 백업했습니다",
		"flaky":  "fixed the flaky deploy test in internal/build/cache.go",
	} {
		if got := found(q); len(got) != 1 || got[0] != want {
			t.Errorf("after the backfill, search %q = %q, want [%q]", q, got, want)
		}
	}
	// The prompt of every chunk: found through any of them.
	if got := found("策略"); len(got) != 5 {
		t.Errorf("search 策略 (inside every chunk's prompt) = %d hits, want 5", len(got))
	}
	if _, err := db.Exec(`INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')`); err != nil {
		t.Errorf("index after the backfill: %v", err)
	}
	var below string
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'terms_backfill_below'`).Scan(&below); err != nil || below != "1" {
		t.Errorf("terms_backfill_below = %q, %v; want 1", below, err)
	}
}

// undoShares takes a store back to before schema version 10 (and 11 to
// 14).
const undoShares = undoTermReach + `; DROP TABLE passage_marks; DROP TABLE passages; DROP TABLE passages_fts; DROP TABLE chunk_shares`

// undoSpans takes a store back to before schema version 14.
const undoSpans = `DROP TRIGGER chunks_spans_au; DROP TRIGGER chunks_spans_ad; DROP TABLE chunk_spans; DELETE FROM meta WHERE key = 'spans_below'`

// undoTermReach takes a store back to before schema version 13.
const undoTermReach = undoSpans + `; DROP TRIGGER chunks_reach_ad; DROP TRIGGER chunks_reach_au; DROP TRIGGER passages_reach_ad;
	DROP TABLE term_reach; DELETE FROM meta WHERE key LIKE 'reach_gen:%'`

// TestSharedChunksMigration turns a store back into schema version 9,
// where the chunks a resumed session shares with the session it resumed
// are known only by the items pointing at them, migrates it, and checks
// that the resumed session then reads them at its own places and keeps
// them when the old session is pruned.
func TestSharedChunksMigration(t *testing.T) {
	ctx := context.Background()
	st, path := newStore(t)
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
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 6 {
		t.Fatalf("b holds %d chunks, want 6", len(want))
	}
	st.Close()
	db := rawDB(t, path)
	for _, q := range []string{undoShares, `PRAGMA user_version = 9`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	st = openStore(t, path)
	got, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: "b", Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after the migration, b's chunks:\n%+v\nwant\n%+v", got, want)
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "a"}); err != nil {
		t.Fatal(err)
	}
	got, err = st.Chunks(ctx, carryover.ChunkFilter{SessionID: "b", Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after pruning a, b's chunks:\n%+v\nwant\n%+v", got, want)
	}
	its, err := st.Items(ctx, carryover.ItemFilter{SessionID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range its {
		if it.ChunkID == 0 || it.ChunkID != want[it.ChunkSeq].ID {
			t.Errorf("item %s of b: chunk %d, want %d", it.Key, it.ChunkID, want[it.ChunkSeq].ID)
		}
	}
}
