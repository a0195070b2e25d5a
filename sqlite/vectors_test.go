package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/embedding"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

// TestVectorsStored checks that Apply stores one quantised vector per new
// chunk, the embedder's vector of the chunk's text, and none twice.
func TestVectorsStored(t *testing.T) {
	st, path := newStore(t)
	text := "The websocket client now reconnects with exponential backoff."
	applyChunks(t, st, "s1", "/p", chunk(0, "a", text), chunk(1, "b", filler))
	applyChunks(t, st, "s1", "/p", chunk(0, "a", text)) // a duplicate
	db := rawDB(t, path)
	if n, c := count(t, db, "chunk_vecs"), count(t, db, "chunks"); n != 2 || c != 2 {
		t.Fatalf("%d vectors for %d chunks, want 2 and 2", n, c)
	}
	var got []byte
	if err := db.QueryRow(`SELECT v.vec FROM chunk_vecs v JOIN chunks c ON c.id = v.id WHERE c.hash = 'a'`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	h := embedding.DefaultHashed()
	want := embedding.Quantize(h.Embed([]string{text})[0])
	if len(got) != h.Dim() || !bytes.Equal(got, want) {
		t.Errorf("stored vector (%d bytes) is not the quantised embedding of the text (%d bytes)", len(got), len(want))
	}
}

// TestMigrateVersion1Store turns a store back into schema version 1 (no
// vectors) and checks that opening it migrates it in place, that search
// works before the backfill, and that Apply and Backfill give every old
// chunk its vector.
func TestMigrateVersion1Store(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	st := openStore(t, path)
	b := storetest.Batch("s1", "/p", 0, 300)
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	st.Close()
	db := rawDB(t, path)
	for _, q := range []string{undoTermReach, "DROP TRIGGER chunks_ai", "DROP TRIGGER chunks_bd", "DROP TRIGGER chunks_bu",
		"DROP TRIGGER chunks_au", "DROP TABLE chunk_vecs", "DROP TABLE meta",
		"DROP TABLE hook_runs", "DROP TABLE redactions", "ALTER TABLE sessions DROP COLUMN owner",
		"ALTER TABLE sessions DROP COLUMN team", "DROP INDEX chunks_project", "DROP TABLE forgotten",
		"ALTER TABLE injections DROP COLUMN text", "ALTER TABLE injections DROP COLUMN reason", "DROP TABLE raw_blocks", strings.TrimPrefix(undoShares, undoTermReach+"; "), undoIdentity, "PRAGMA user_version = 1"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	st = openStore(t, path)
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != 14 {
		t.Fatalf("schema version %d (%v) after open, want 14", v, err)
	}
	if n := count(t, db, "chunk_vecs"); n != 0 {
		t.Fatalf("%d vectors right after the migration, want 0", n)
	}
	hits, err := st.Search(ctx, carryover.Query{Text: b.Chunks[7].Text})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search before the backfill: %d hits, %v", len(hits), err)
	}
	if hits[0].Score != hits[0].BM25 {
		t.Errorf("without vectors Score %v should be the BM25 %v", hits[0].Score, hits[0].BM25)
	}

	// A new batch embeds its chunks and BackfillBatch old ones.
	if err := st.Apply(ctx, storetest.Batch("s2", "/p", 0, 1)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "chunk_vecs"); n != 1+sqlite.BackfillBatch {
		t.Errorf("%d vectors after one Apply, want %d", n, 1+sqlite.BackfillBatch)
	}
	// Backfill also goes through the chunks' terms (migration 0006): count
	// what it embedded in the vectors table.
	before, total := count(t, db, "chunk_vecs"), 0
	for {
		n, err := st.Backfill(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		total += n
	}
	if n := count(t, db, "chunk_vecs") - before; n != 300-sqlite.BackfillBatch || total < n {
		t.Errorf("Backfill embedded %d chunks (reported %d), want %d", n, total, 300-sqlite.BackfillBatch)
	}
	if n, c := count(t, db, "chunk_vecs"), count(t, db, "chunks"); n != c {
		t.Errorf("%d vectors for %d chunks after the backfill", n, c)
	}
	var bad int
	if err := db.QueryRow(`SELECT count(*) FROM chunk_vecs WHERE length(vec) != ?`, embedding.DefaultDim).Scan(&bad); err != nil || bad != 0 {
		t.Errorf("%d vectors of the wrong size (%v)", bad, err)
	}
	hits, err = st.Search(ctx, carryover.Query{Text: b.Chunks[7].Text})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search after the backfill: %d hits, %v", len(hits), err)
	}
	if hits[0].Score <= hits[0].BM25 {
		t.Errorf("after the backfill Score %v should add the vector part to the BM25 %v", hits[0].Score, hits[0].BM25)
	}
}

// hybridStore holds a chunk that answers a question in other words, a
// chunk stuffed with the question's rarest term, and unrelated chunks that
// make the terms' document frequencies realistic.
func hybridStore(t *testing.T, opt sqlite.Options) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "carryover.db"), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	chunks := []carryover.Chunk{
		chunk(0, "related", "The websocket reconnect kept dropping: the client gave up after one attempt when the dial "+
			"timed out, so it now reconnects with exponential backoff."),
		chunk(1, "stuffed", strings.Repeat("GET /api/health timeout after 5000ms, retrying the health probe. ", 6)+
			"Also bumped the websocket library, websocket tests pass."),
	}
	topics := []string{"parser", "database migration", "CSS layout", "release notes", "unit tests", "logging"}
	for i := range 30 {
		tp := topics[i%len(topics)]
		chunks = append(chunks, chunk(2+i, fmt.Sprint("filler-", i), fmt.Sprintf("Worked on the %s: %s %d", tp, filler, i)))
	}
	if err := st.Apply(context.Background(), carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p"}, Chunks: chunks}); err != nil {
		t.Fatal(err)
	}
	return st
}

const hybridQuery = "why did the websocket reconnection keep failing with a timeout"

// TestHybridRanksMeaningAboveStuffing checks that a chunk sharing some
// words and word forms with the question (websocket, reconnection/
// reconnect(s), keep/kept, timeout/timed out) outranks a log about
// something else that repeats one of its rare words and mentions
// another, which BM25 alone prefers.
func TestHybridRanksMeaningAboveStuffing(t *testing.T) {
	st := hybridStore(t, sqlite.Options{})
	hits, err := st.Search(context.Background(), carryover.Query{Text: hybridQuery})
	if err != nil {
		t.Fatal(err)
	}
	score, bm := map[string]float64{}, map[string]float64{}
	for _, h := range hits {
		score[h.Chunk.Hash], bm[h.Chunk.Hash] = h.Score, h.BM25
		if h.Score < h.BM25 {
			t.Errorf("%s: Score %v below its BM25 %v", h.Chunk.Hash, h.Score, h.BM25)
		}
	}
	if bm["stuffed"] <= bm["related"] {
		t.Fatalf("fixture: BM25 should prefer the stuffed chunk (%v vs %v)", bm["stuffed"], bm["related"])
	}
	if len(hits) < 2 || hits[0].Chunk.Hash != "related" {
		t.Errorf("first hit %v, want related (scores %v, bm25 %v)", hits[0].Chunk.Hash, score, bm)
	}
}

// TestHybridDeterministic checks that the same archive and query give the
// same hits and scores, in another store too, with ties in BM25 order.
func TestHybridDeterministic(t *testing.T) {
	ctx := context.Background()
	var runs [][]carryover.Hit
	for range 2 {
		st := hybridStore(t, sqlite.Options{})
		for range 2 {
			hits, err := st.Search(ctx, carryover.Query{Text: hybridQuery + " parser logging"})
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, hits)
		}
	}
	for i, r := range runs[1:] {
		if !reflect.DeepEqual(r, runs[0]) {
			t.Fatalf("run %d differs from run 0", i+1)
		}
	}
	// Identical chunks tie: they keep the index's order (by id).
	st, _ := newStore(t)
	var same []carryover.Chunk
	for i := range 5 {
		same = append(same, chunk(i, fmt.Sprint("same-", i), "the retry loop in the scheduler"))
	}
	same = append(same, chunk(5, "other", filler))
	applyChunks(t, st, "s1", "/p", same...)
	got := search(t, st, carryover.Query{Text: "scheduler retry"})
	if want := []string{"same-0", "same-1", "same-2", "same-3", "same-4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tied hits %v, want %v", got, want)
	}
}

// TestOtherEmbedder checks that the embedder is injectable, and that a
// store opened with an embedder other than the one that wrote its vectors
// ranks by BM25 alone rather than compare incomparable vectors.
func TestOtherEmbedder(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	st, err := sqlite.Open(ctx, path, sqlite.Options{Embedder: embedding.SeedHash{}})
	if err != nil {
		t.Fatal(err)
	}
	applyChunks(t, st, "s1", "/p", chunk(0, "a", "the retry loop in the scheduler"), chunk(1, "b", filler), chunk(2, "c", "scheduler "+filler))
	st.Close()
	var n int
	if err := rawDB(t, path).QueryRow(`SELECT length(vec) FROM chunk_vecs LIMIT 1`).Scan(&n); err != nil || n != (embedding.SeedHash{}).Dim() {
		t.Fatalf("vector of %d bytes (%v), want SeedHash's %d", n, err, (embedding.SeedHash{}).Dim())
	}
	st = openStore(t, path) // the default embedder
	hits, err := st.Search(ctx, carryover.Query{Text: "scheduler retry"})
	if err != nil || len(hits) != 2 {
		t.Fatalf("%d hits, %v", len(hits), err)
	}
	for _, h := range hits {
		if h.Score != h.BM25 {
			t.Errorf("%s: Score %v, BM25 %v: vectors of another embedder were used", h.Chunk.Hash, h.Score, h.BM25)
		}
	}
	applyChunks(t, st, "s1", "/p", chunk(3, "d", "more scheduler work"))
	if c := count(t, rawDB(t, path), "chunk_vecs"); c != 3 {
		t.Errorf("%d vectors, want the first embedder's 3 only", c)
	}
}

// TestIndexBackfill migrates a version 3 store larger than the migration
// re-indexes at once and checks that only the newest chunks are found
// until Backfill has added the older ones, that a pruned session leaves a
// consistent index, and that new chunks are indexed meanwhile.
func TestIndexBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	st := openStore(t, path)
	if err := st.Apply(ctx, storetest.Batch("s1", "/p", 0, 1500)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	db := rawDB(t, path)
	for _, q := range []string{"DROP INDEX chunks_project", "ALTER TABLE chunk_vecs DROP COLUMN parent", "DROP TABLE forgotten",
		"ALTER TABLE injections DROP COLUMN text", "ALTER TABLE injections DROP COLUMN reason", "DROP TABLE raw_blocks", undoShares, undoIdentity, "PRAGMA user_version = 3"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	st = openStore(t, path)
	// found reports whether the best hit for cmd's words is the chunk
	// that ran cmd (in session sid).
	found := func(sid, cmd string) bool {
		t.Helper()
		hits, err := st.Search(ctx, carryover.Query{Text: cmd, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits) == 1 && hits[0].Chunk.SessionID == sid && hits[0].Chunk.Commands[0] == "go test -run "+cmd+" ./..."
	}
	if !found("s1", "TestCache1499") || found("s1", "TestCache7") {
		t.Fatalf("right after the migration: newest found %v, oldest found %v; want only the newest",
			found("s1", "TestCache1499"), found("s1", "TestCache7"))
	}
	if err := st.Apply(ctx, storetest.Batch("s2", "/p", 0, 1)); err != nil {
		t.Fatal(err)
	}
	if !found("s2", "TestCache0") {
		t.Error("a chunk stored after the migration is not found")
	}
	for {
		n, err := st.Backfill(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	if !found("s1", "TestCache7") {
		t.Error("an old chunk is not found after the backfill")
	}
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')`); err != nil {
		t.Errorf("index after a prune: %v", err)
	}
	if found("s1", "TestCache7") || !found("s2", "TestCache0") {
		t.Error("after pruning s1 its chunks are still found, or s2's are not")
	}
}

// TestVectorParents checks that the chunks of one turn share a parent, the
// turn's first chunk, across batches, and that another turn starts anew.
func TestVectorParents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "carryover.db")
	st := openStore(t, path)
	mk := func(seq, turn int) carryover.Chunk {
		c := chunk(seq, fmt.Sprint("c", seq), fmt.Sprintf("step %d of the scheduler work", seq))
		c.Turn = turn
		return c
	}
	applyChunks(t, st, "s1", "/p", mk(0, 0), mk(1, 0))
	applyChunks(t, st, "s1", "/p", mk(2, 0), mk(3, 1), mk(4, 1))
	rows, err := rawDB(t, path).Query(`SELECT c.seq, v.parent, (SELECT seq FROM chunks WHERE id = v.parent)
		FROM chunk_vecs v JOIN chunks c ON c.id = v.id ORDER BY c.seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := []int{0, 0, 0, 3, 3} // the seq of each chunk's parent
	for rows.Next() {
		var seq, parentSeq int
		var parent int64
		if err := rows.Scan(&seq, &parent, &parentSeq); err != nil {
			t.Fatal(err)
		}
		if parentSeq != want[seq] {
			t.Errorf("chunk %d: parent is chunk %d, want %d", seq, parentSeq, want[seq])
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}
