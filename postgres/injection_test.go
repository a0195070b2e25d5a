package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
)

// TestMigrateInjectionText upgrades a schema whose injections kept no text
// (version 3) with an audit record in it: the record reads with no text or
// reason, and new records keep both, NUL bytes and all.
func TestMigrateInjectionText(t *testing.T) {
	ctx := context.Background()
	admin := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	if err := postgres.MigrateTo(ctx, admin, 3); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	base := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	if _, err := conn.Exec(ctx, `INSERT INTO injections (owner, project, time, session_id, event, win, chars, tokens,
		chunk_ids, hash, latency_us) VALUES ('admin', '/p', $1, 's1', 'SessionStart:compact', 1, 12, 3, '{1}', 'h1', 5)`, base); err != nil {
		t.Fatal(err)
	}

	st := open(t, admin, postgres.Options{Owner: "admin"}) // migrates
	ins, err := st.Injections(ctx, "s1", 0)
	if err != nil || len(ins) != 1 {
		t.Fatalf("after the migration: %d injections, %v", len(ins), err)
	}
	if ins[0].Text != "" || ins[0].Reason != "" || ins[0].Hash != "h1" || ins[0].Chars != 12 {
		t.Errorf("old record after the migration: %+v", ins[0])
	}
	in := carryover.Injection{Time: base.Add(time.Second), SessionID: "s1", Project: "/p", Event: "UserPromptSubmit",
		Window: 1, Hash: "h2", Text: "## carryover: recalled\nnul \x00 byte\n", Reason: "recall: BM25 7.2 ≥ 2"}
	if _, err := st.RecordInjection(ctx, in); err != nil {
		t.Fatal(err)
	}
	ins, err = st.Injections(ctx, "s1", 1)
	if err != nil || len(ins) != 1 || ins[0].Text != "## carryover: recalled\nnul \uFFFD byte\n" || ins[0].Reason != in.Reason {
		t.Fatalf("new record: %+v, %v", ins, err)
	}
}
