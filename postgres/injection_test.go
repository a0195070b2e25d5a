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

// TestHoldAudit checks that a held injection's audit row is written with
// the next hook run, or by Close, and not before: text and all.
func TestHoldAudit(t *testing.T) {
	ctx := context.Background()
	dsn := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	st := open(t, dsn, postgres.Options{})
	reader := open(t, dsn, postgres.Options{})
	injections := func() []carryover.Injection {
		t.Helper()
		ins, err := reader.Injections(ctx, "s1", 0)
		if err != nil {
			t.Fatal(err)
		}
		return ins
	}
	st.HoldAudit()
	in := carryover.Injection{SessionID: "s1", Project: "/p", Event: "SessionStart:compact", Window: 1, Chars: 5,
		ChunkIDs: []int64{3, 4}, Hash: "h1", Text: "block", Reason: "restore"}
	if id, err := st.RecordInjection(ctx, in); err != nil || id != 0 {
		t.Fatalf("held injection: id %d, %v; want 0, nil", id, err)
	}
	if got := injections(); len(got) != 0 {
		t.Fatalf("a held injection was written before the run: %+v", got)
	}
	run := carryover.HookRun{Time: time.Now(), SessionID: "s1", Project: "/p", Event: "SessionStart:compact", Outcome: "ok", Chars: 5}
	if err := st.RecordHookRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	got := injections()
	if len(got) != 1 || got[0].Text != "block" || got[0].Reason != "restore" || got[0].Hash != "h1" || len(got[0].ChunkIDs) != 2 {
		t.Fatalf("after the run: %+v", got)
	}
	if runs, err := reader.HookRuns(ctx, carryover.HookRunFilter{SessionID: "s1"}); err != nil || len(runs) != 1 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	in.Event, in.Hash = "UserPromptSubmit", "h2"
	if _, err := st.RecordInjection(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if got := injections(); len(got) != 2 || got[0].Hash != "h2" {
		t.Fatalf("after Close: %+v, want the held injection written", got)
	}
}

// TestOpenReadsForgotten checks Options.Session: the open reads whether the
// session was forgotten with the schema's version, on a new schema, a
// current one and one too old to have the record (which it migrates), and
// Forgotten answers right each time.
func TestOpenReadsForgotten(t *testing.T) {
	ctx := context.Background()
	url := serverURL(t, "CARRYOVER_TEST_DATABASE_URL")
	forgetS1 := func(dsn string) {
		t.Helper()
		st := open(t, dsn, postgres.Options{})
		if err := st.Apply(ctx, carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "s1", Forget: true}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, st *postgres.Store, id string, want bool) {
		t.Helper()
		for range 2 { // the open's answer, then the server's
			if gone, err := st.Forgotten(ctx, id); err != nil || gone != want {
				t.Fatalf("%s: Forgotten(%s) = %v, %v; want %v", what, id, gone, err, want)
			}
		}
	}
	fresh := newSchema(t, url)
	check("new schema", open(t, fresh, postgres.Options{Session: "s1"}), "s1", false)
	forgetS1(fresh)
	check("forgotten", open(t, fresh, postgres.Options{Session: "s1"}), "s1", true)
	check("another session", open(t, fresh, postgres.Options{Session: "s2"}), "s1", true)
	check("not forgotten", open(t, fresh, postgres.Options{Session: "s2"}), "s2", false)

	old := newSchema(t, url)
	if err := postgres.MigrateTo(ctx, old, 1); err != nil {
		t.Fatal(err)
	}
	check("schema before the record", open(t, old, postgres.Options{Session: "s1"}), "s1", false)
	forgetS1(old)
	check("migrated, forgotten", open(t, old, postgres.Options{Session: "s1"}), "s1", true)
}
