package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/embedding"
	"github.com/carryover-dev/carryover/postgres"
)

// TestOtherEmbedder checks that only the embedder that claimed the schema
// reranks with its vectors and writes more, also for a store opened before
// the claim (it remembers the embedder only once the schema names one).
func TestOtherEmbedder(t *testing.T) {
	ctx := context.Background()
	dsn := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	open := func(emb carryover.Embedder) *postgres.Store {
		t.Helper()
		st, err := postgres.Open(ctx, dsn, postgres.Options{Embedder: emb, ConnectTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	late := open(nil) // the default embedder, opened before any claim
	first := open(embedding.SeedHash{})
	neighbourFixture(t, first)
	vectorsUsed := func(st *postgres.Store) bool {
		t.Helper()
		hits, err := st.Search(ctx, carryover.Query{Text: "deployment cluster"})
		if err != nil || len(hits) == 0 {
			t.Fatalf("%d hits, %v", len(hits), err)
		}
		for _, h := range hits {
			if h.Score != h.BM25 {
				return true
			}
		}
		return false
	}
	if !vectorsUsed(first) {
		t.Fatal("the claiming embedder's search ranks by BM25 alone")
	}
	for _, st := range []*postgres.Store{late, open(nil)} {
		if vectorsUsed(st) {
			t.Error("a store of another embedder reranked with the claiming embedder's vectors")
		}
	}
	b := carryover.Batch{Session: carryover.Session{ID: "s2", Project: "/p", Updated: time.Now()}, Chunks: []carryover.Chunk{
		{Seq: 0, Turn: 0, Hash: "d", Text: "another deployment"},
	}}
	if err := late.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(vec) FROM chunks`).Scan(&n); err != nil || n != 3 {
		t.Errorf("%d vectors (%v), want the claiming embedder's 3 only", n, err)
	}
}
