package sqlite_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/storetest"
)

// TestWindowsProjectsMigration: a store that holds one Windows directory
// as several projects (the drive letter's case, the separators) has one
// after schema version 11, in every table, on any system; other projects
// are left as they were.
func TestWindowsProjectsMigration(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/carryover.db"
	st := openStore(t, path)
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
	if err := st.RecordHookRun(ctx, carryover.HookRun{SessionID: "sb", Project: forms[1], Event: "Stop", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	db := rawDB(t, path)
	var projects []string
	if err := selectAll(db, `SELECT root FROM projects ORDER BY root`, &projects); err != nil || len(projects) != 4 {
		t.Fatalf("before: projects %v, %v", projects, err)
	}
	// A store of version 10 had no passages either (version 12 adds them).
	if _, err := db.Exec(undoTermReach + `; DROP TABLE passages_fts; DROP TABLE passage_marks; DROP TABLE passages`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA user_version = 10`); err != nil {
		t.Fatal(err)
	}

	st = openStore(t, path) // migrates
	projects = nil
	if err := selectAll(db, `SELECT root FROM projects ORDER BY root`, &projects); err != nil {
		t.Fatal(err)
	}
	if want := []string{other, shop}; !reflect.DeepEqual(projects, want) {
		t.Errorf("projects = %q, want %q", projects, want)
	}
	all, err := st.Sessions(ctx, carryover.SessionFilter{Project: shop})
	if err != nil || len(all) != 3 {
		t.Errorf("sessions of %s: %d, %v; want 3", shop, len(all), err)
	}
	var chunks int
	if err := db.QueryRow(`SELECT count(*) FROM chunks JOIN projects p ON p.id = chunks.project_id WHERE p.root = ?`, shop).
		Scan(&chunks); err != nil || chunks != 6 {
		t.Errorf("chunks of %s: %d, %v; want 6", shop, chunks, err)
	}
	if hits, err := st.Search(ctx, carryover.Query{Text: "step 1 of sc", Project: shop}); err != nil || len(hits) == 0 {
		t.Errorf("search in %s: %d hits, %v", shop, len(hits), err)
	}
	for _, table := range []string{"injections", "notes", "hook_runs", "redactions"} {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM `+table+` WHERE project NOT IN (?, ?)`, shop, other).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows (%v) in another form of the project", table, n, err)
		}
	}
	if red, err := st.Redactions(ctx, shop); err != nil || red["github-pat"] != 3 {
		t.Errorf("redactions of %s = %v, %v; want 3 github-pat", shop, red, err)
	}
}
