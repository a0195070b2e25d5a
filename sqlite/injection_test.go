package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/carryover-dev/carryover"
)

// TestMigrateInjectionText turns a store back into the schema before
// injections kept their text and checks that opening it adds the columns
// in place: old records read with no text or reason, new ones keep both.
func TestMigrateInjectionText(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carryover.db")
	st := openStore(t, path)
	old := carryover.Injection{Time: base, SessionID: "s1", Project: "/p", Event: "SessionStart:compact", Window: 1,
		Chars: 12, Tokens: 3, ChunkIDs: []int64{1}, Hash: "h1", Text: "will be lost", Reason: "gone too"}
	if _, err := st.RecordInjection(ctx, old); err != nil {
		t.Fatal(err)
	}
	st.Close()
	db := rawDB(t, path)
	for _, q := range []string{"ALTER TABLE injections DROP COLUMN text", "ALTER TABLE injections DROP COLUMN reason",
		"PRAGMA user_version = 7"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	st = openStore(t, path)
	ins, err := st.Injections(ctx, "s1", 0)
	if err != nil || len(ins) != 1 {
		t.Fatalf("after the migration: %d injections, %v", len(ins), err)
	}
	if ins[0].Text != "" || ins[0].Reason != "" || ins[0].Hash != "h1" || ins[0].Chars != 12 {
		t.Errorf("old record after the migration: %+v", ins[0])
	}
	in := old
	in.Time = base.Add(1000)
	in.Text, in.Reason = "## carryover: restored\n- `go test ./...`\n", "restore after compaction 1: 1 item"
	if _, err := st.RecordInjection(ctx, in); err != nil {
		t.Fatal(err)
	}
	ins, err = st.Injections(ctx, "s1", 1)
	if err != nil || len(ins) != 1 || ins[0].Text != in.Text || ins[0].Reason != in.Reason {
		t.Fatalf("new record: %+v, %v", ins, err)
	}
}
