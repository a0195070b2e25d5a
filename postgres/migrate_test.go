package postgres_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/storetest"
)

// TestReindexAfterMigration turns a schema back into version 3 (the
// PostgreSQL parser's tokens, no lengths or statistics), migrates it, and
// checks that its chunks are not searched until indexed again, that Apply
// and Backfill index them newest first, and that afterwards every hit
// scores as in a schema written by this version.
func TestReindexAfterMigration(t *testing.T) {
	ctx := context.Background()
	url := serverURL(t, "CARRYOVER_TEST_DATABASE_URL")
	dsn := newSchema(t, url)
	opt := postgres.Options{ConnectTimeout: 10 * time.Second}
	old, err := postgres.Open(ctx, dsn, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Apply(ctx, storetest.Batch("s1", "/p", 0, 600)); err != nil {
		t.Fatal(err)
	}
	old.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		`UPDATE chunks SET tsv = setweight(to_tsvector('simple', text), 'D')`,
		`DROP INDEX chunks_backfill`,
		`DROP INDEX chunks_session_turn`,
		`ALTER TABLE chunks DROP COLUMN fts_len`,
		`ALTER TABLE sessions DROP COLUMN fts_chunks, DROP COLUMN fts_tokens`,
		// What the later migrations add, so that they run again.
		`ALTER TABLE injections DROP COLUMN text, DROP COLUMN reason`,
		`ALTER TABLE sessions DROP COLUMN parent, DROP COLUMN cwd, DROP COLUMN branch`,
		`DROP TABLE raw_blocks`,
		`DROP TABLE chunk_shares`,
		`DROP TABLE passages, passage_marks`,
		`UPDATE meta SET value = '3' WHERE key = 'schema_version'`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	st, err := postgres.Open(ctx, dsn, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	found := func(cmd string) bool {
		t.Helper()
		hits, err := st.Search(ctx, carryover.Query{Text: cmd, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits) == 1 && hits[0].Chunk.Commands[0] == "go test -run "+cmd+" ./..."
	}
	if found("TestCache599") || found("TestCache7") {
		t.Fatal("chunks of the old index are searched before they are indexed again")
	}
	if err := st.Apply(ctx, storetest.Batch("s2", "/p", 0, 1)); err != nil {
		t.Fatal(err)
	}
	if !found("TestCache599") || found("TestCache7") {
		t.Fatalf("after one Apply: newest found %v, oldest found %v; want the newest %d only",
			found("TestCache599"), found("TestCache7"), postgres.BackfillBatch)
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
	if !found("TestCache7") {
		t.Fatal("an old chunk is not found after the backfill")
	}

	// The same archive written by this version scores the same.
	fresh := openSchema(t, url, postgres.Options{})
	for _, b := range []carryover.Batch{storetest.Batch("s1", "/p", 0, 600), storetest.Batch("s2", "/p", 0, 1)} {
		if err := fresh.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"TestCache7 cache.go", "flaky build step 42", "undefined Key"} {
		a, err := st.Search(ctx, carryover.Query{Text: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		b, err := fresh.Search(ctx, carryover.Query{Text: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("%q: %d hits after the backfill, %d in a fresh schema", q, len(a), len(b))
		}
		for i := range a {
			if a[i].Chunk.Hash != b[i].Chunk.Hash || math.Abs(a[i].BM25-b[i].BM25) > 1e-9 {
				t.Errorf("%q, hit %d: %s scoring %v after the backfill, %s scoring %v in a fresh schema",
					q, i, a[i].Chunk.Hash, a[i].BM25, b[i].Chunk.Hash, b[i].BM25)
			}
		}
	}
}
