package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
)

// neighbourFixture stores a chunk that matches the query's words, one
// that only resembles them (other words sharing most of their letters, no
// stem of theirs) and one about something else.
func neighbourFixture(t *testing.T, st *postgres.Store) {
	t.Helper()
	b := carryover.Batch{Session: carryover.Session{ID: "s", Project: "/p", Updated: time.Now()}, Chunks: []carryover.Chunk{
		{Seq: 0, Turn: 0, Hash: "a", Text: "the deployment of the cluster finished"},
		{Seq: 1, Turn: 1, Hash: "b", Text: "the redeployment of each supercluster"},
		{Seq: 2, Turn: 2, Hash: "c", Text: "lunch was a sandwich with pickles"},
	}}
	if err := st.Apply(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

func seqs(t *testing.T, st *postgres.Store, q string) []int {
	t.Helper()
	hits, err := st.Search(context.Background(), carryover.Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, h := range hits {
		out = append(out, h.Chunk.Seq)
	}
	return out
}

// TestPGVectorNeighbours: with pgvector and Options.VectorNeighbours, the
// HNSW index adds chunks near the query that share none of its words;
// without the option, only the full text finds candidates, as in the
// embedded store.
func TestPGVectorNeighbours(t *testing.T) {
	dsn := newSchema(t, serverURL(t, "CARRYOVER_TEST_PGVECTOR_URL"))
	open := func(opt postgres.Options) *postgres.Store {
		t.Helper()
		opt.ConnectTimeout = 10 * time.Second
		st, err := postgres.Open(context.Background(), dsn, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	st := open(postgres.Options{VectorNeighbours: true})
	if !st.PGVector() {
		t.Fatal("no vector extension at CARRYOVER_TEST_PGVECTOR_URL")
	}
	neighbourFixture(t, st)
	if got := seqs(t, st, "deployment cluster"); len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Errorf("pgvector search = %v, want [0 1]: the exact match, then its near neighbour", got)
	}
	// The same schema searched without the option.
	st.Close()
	if got := seqs(t, open(postgres.Options{}), "deployment cluster"); len(got) != 1 || got[0] != 0 {
		t.Errorf("pgvector search without VectorNeighbours = %v, want [0]", got)
	}
}

func TestByteaVectorsRerankOnly(t *testing.T) {
	st := openSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"), postgres.Options{})
	if st.PGVector() {
		t.Fatal("CARRYOVER_TEST_DATABASE_URL has pgvector")
	}
	neighbourFixture(t, st)
	if got := seqs(t, st, "deployment cluster"); len(got) != 1 || got[0] != 0 {
		t.Errorf("search = %v, want [0]: vectors only rerank full-text matches", got)
	}
}
