package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/storetest"
)

// TestWindowsProjectsMigration: a schema that holds one Windows directory
// as several projects (the drive letter's case, the separators) has one
// after schema version 9, in every table; other projects are left alone.
func TestWindowsProjectsMigration(t *testing.T) {
	ctx := context.Background()
	dsn := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	st := open(t, dsn, postgres.Options{})
	const shop, other = `C:\src\shop`, "/home/me/app"
	forms := []string{shop, `c:\src\shop`, `c:/src/shop/`}
	for i, p := range append(forms, other) {
		b := storetest.Batch("s"+string(rune('a'+i)), p, 0, 2)
		b.Redactions = map[string]int{"github-pat": 1}
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.AddNote(ctx, carryover.Note{Project: forms[1], Kind: "decision", Text: "keep the tags"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordInjection(ctx, carryover.Injection{SessionID: "sc", Project: forms[2], Event: "PreCompact:manual", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// A store of version 8 had no passages either (version 10 adds them).
	if _, err := conn.Exec(ctx, `DROP TABLE passage_marks, passages`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `UPDATE meta SET value = '8' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}

	st = open(t, dsn, postgres.Options{}) // migrates
	if ss, err := st.Sessions(ctx, carryover.SessionFilter{Project: shop}); err != nil || len(ss) != 3 {
		t.Errorf("sessions of %s: %d, %v; want 3", shop, len(ss), err)
	}
	for _, table := range []string{"sessions", "chunks", "items", "compactions", "injections", "notes", "redactions"} {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE project <> $1 AND project <> $2`, shop, other).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows (%v) in another form of the project", table, n, err)
		}
	}
	if red, err := st.Redactions(ctx, shop); err != nil || red["github-pat"] != 3 {
		t.Errorf("redactions of %s = %v, %v; want 3 github-pat", shop, red, err)
	}
	if hits, err := st.Search(ctx, carryover.Query{Text: "step 1 of sc", Project: shop}); err != nil || len(hits) == 0 {
		t.Errorf("search in %s: %d hits, %v", shop, len(hits), err)
	}
}
