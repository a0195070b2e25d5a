package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
)

func TestSmoke(t *testing.T) {
	dsn := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	ctx := context.Background()
	st, err := postgres.Open(ctx, dsn, postgres.Options{Owner: "postgres"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now().UTC().Truncate(time.Millisecond)
	b := carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p", Updated: now},
		Chunks: []carryover.Chunk{
			{Seq: 0, Hash: "h0", Text: "ran go test on internal/build/cache.go parseHTTPResponse", Files: []string{"src/app/main.go"}},
			{Seq: 1, Hash: "h1", Text: "something else entirely about flaky network"},
		},
		Items: []carryover.Item{{Kind: carryover.KindError, Key: "e1", Text: "boom", ChunkSeq: 1, Line: 3}},
		State: carryover.IngestState{Path: "/x", Offset: 10, Line: 2}}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"main.go", "http response", `foo-bar: (x "unterminated !& | <->`, "cache", "flaky"} {
		hits, err := st.Search(ctx, carryover.Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			t.Logf("%q: %d bm=%.3f score=%.3f", q, h.Chunk.Seq, h.BM25, h.Score)
		}
	}
	its, err := st.Items(ctx, carryover.ItemFilter{SessionID: "s1"})
	t.Logf("%+v %v", its, err)
}
