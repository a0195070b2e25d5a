package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
)

// undoIdentity takes a store back to before schema version 9.
const undoIdentity = `DROP INDEX sessions_parent; ALTER TABLE sessions DROP COLUMN parent;
	ALTER TABLE sessions DROP COLUMN cwd; ALTER TABLE sessions DROP COLUMN branch`

// gitRepo makes a repository at dir with a linked worktree at wt, with
// the real git (skipped where there is none, except under CI).
func gitRepo(t testing.TB, dir, wt string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed: no repository to map projects to")
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", dir},
		{"-C", dir, "commit", "-q", "--allow-empty", "-m", "first"},
		{"-C", dir, "worktree", "add", "-q", "-b", "feature", wt},
	} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestIdentityMigration opens a store that the previous carryover wrote
// (testdata/schema5-identity.db, see schema5-identity.sh) after moving its
// /FIXTURE directories to real ones: a repository (app) with a worktree
// (app-wt) and a subdirectory (app/internal), and a directory that is gone.
// Opening it fills the subagents' parents and maps every project to its
// repository root in every table, in one transaction.
func TestIdentityMigration(t *testing.T) {
	ctx := context.Background()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(tmp, "home"))
	app, wt := filepath.Join(tmp, "app"), filepath.Join(tmp, "app-wt")
	gitRepo(t, app, wt)
	if err := os.MkdirAll(filepath.Join(app, "internal", "cmd"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "schema5-identity.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tmp, "carryover.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	var version int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != 5 {
		t.Fatalf("fixture schema version %d, %v; want 5", version, err)
	}
	for _, q := range []string{
		`UPDATE projects SET root = replace(root, '/FIXTURE', ?)`, `UPDATE injections SET project = replace(project, '/FIXTURE', ?)`,
		`UPDATE notes SET project = replace(project, '/FIXTURE', ?)`, `UPDATE hook_runs SET project = replace(project, '/FIXTURE', ?)`,
		`UPDATE redactions SET project = replace(project, '/FIXTURE', ?)`,
	} {
		if _, err := db.Exec(q, tmp); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const (
		p1, p2, p3, p4, p5 = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
			"33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444", "55555555-5555-4555-8555-555555555555"
		sub, flat = p1 + "/agent-a0f1e2d3c4b5a6978", "agent-1234abcd"
	)
	var chunksBefore, triggersBefore int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM sqlite_master WHERE type = 'trigger')`).
		Scan(&chunksBefore, &triggersBefore); err != nil {
		t.Fatal(err)
	}

	st := openStore(t, path)
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != 14 {
		t.Fatalf("schema version %d, %v after the migration; want 14", version, err)
	}
	want := map[string]struct{ parent, project, cwd string }{
		p1:   {"", app, app},
		sub:  {p1, app, app},
		flat: {"", app, filepath.Join(app, "internal")}, // only its transcript names its parent
		p2:   {"", app, wt},
		p3:   {"", app, wt},
		p4:   {"", app, filepath.Join(app, "internal")},
		p5:   {"", filepath.Join(tmp, "gone"), filepath.Join(tmp, "gone")}, // no longer exists: as it was
	}
	all, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(want) {
		t.Errorf("%d sessions after the migration, want %d", len(all), len(want))
	}
	for _, s := range all {
		w, ok := want[s.ID]
		if !ok || s.Parent != w.parent || s.Project != w.project || s.Cwd != w.cwd {
			t.Errorf("session %s: parent %q project %q cwd %q, want %+v", s.ID, s.Parent, s.Project, s.Cwd, w)
		}
	}
	if p, err := st.Session(ctx, p1); err != nil || p.Subagents != 1 {
		t.Errorf("session %s: %d subagents (%v), want 1", p1, p.Subagents, err)
	}
	var projects []string
	if err := selectAll(db, `SELECT root FROM projects ORDER BY root`, &projects); err != nil {
		t.Fatal(err)
	}
	if want := []string{app, filepath.Join(tmp, "gone")}; !slices.Equal(projects, want) {
		t.Errorf("projects = %v, want %v", projects, want)
	}

	// The first session's copy, archived under the worktree, held the same
	// chunk: one is kept, and the copy's items point at it.
	if n := count(t, db, "chunks"); n != chunksBefore-1 {
		t.Errorf("%d chunks, want %d (the duplicate merged)", n, chunksBefore-1)
	}
	its, err := st.Items(ctx, carryover.ItemFilter{SessionID: p3})
	if err != nil || len(its) == 0 {
		t.Fatalf("items of the copy: %v, %v", its, err)
	}
	kept, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: p1, Turn: -1})
	if err != nil || len(kept) != 1 {
		t.Fatalf("chunks of the first session: %v, %v", kept, err)
	}
	for _, it := range its {
		if it.ChunkID != kept[0].ID {
			t.Errorf("item %q of the copy points at chunk %d, want the kept %d", it.Text, it.ChunkID, kept[0].ID)
		}
	}

	// Project text in the audit trail, notes, hook runs and redaction counts.
	for _, table := range []string{"injections", "notes", "hook_runs"} {
		var got []string
		if err := selectAll(db, `SELECT DISTINCT project FROM `+table, &got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []string{app}) {
			t.Errorf("%s projects = %v, want [%s]", table, got, app)
		}
	}
	if ns, err := st.Notes(ctx, app, ""); err != nil || len(ns) != 1 {
		t.Errorf("notes of %s = %v, %v; want the decision", app, ns, err)
	}
	red, err := st.Redactions(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(red, map[string]int{"github-pat": 6}) {
		t.Errorf("redactions of %s = %v, want the three projects' 6 GitHub tokens", app, red)
	}

	// The text index is intact, finds the moved chunks in their new
	// project, and its triggers are all back (with version 12's, which
	// deletes a passage's index row, version 13's three, which drop the
	// words' reaches, and version 14's two, which drop and trim the chunk
	// spans).
	if _, err := db.Exec(`INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')`); err != nil {
		t.Errorf("full-text index after the migration: %v", err)
	}
	var triggers int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'trigger'`).Scan(&triggers); err != nil || triggers != triggersBefore+6 {
		t.Errorf("%d triggers after the migration (%v), want %d", triggers, err, triggersBefore+6)
	}
	for word, session := range map[string]string{"osprey": p2, "heron": p4, "bittern": flat, "plover": sub} {
		hits, err := st.Search(ctx, carryover.Query{Text: word + " cache", Project: app})
		if err != nil || len(hits) == 0 || hits[0].Chunk.SessionID != session {
			t.Errorf("search %q in %s: %d hits, %v; want %s first", word, app, len(hits), err, session)
		}
	}
	// Chunks moved with their triggers suspended are still indexed again
	// when their text changes.
	if _, err := db.Exec(`UPDATE chunks SET text = text || ' wagtail' WHERE session_id = ?`, p2); err != nil {
		t.Fatal(err)
	}
	if hits, err := st.Search(ctx, carryover.Query{Text: "wagtail", Project: app}); err != nil || len(hits) != 1 {
		t.Errorf("search for a word added after the migration: %d hits, %v", len(hits), err)
	}
}

// selectAll scans a one-column query into dst.
func selectAll(db *sql.DB, q string, dst *[]string) error {
	rows, err := db.Query(q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return err
		}
		*dst = append(*dst, v)
	}
	return rows.Err()
}

// BenchmarkIdentityMigration opens a schema 8 store of 10,000 chunks, half
// of them archived under a worktree of a repository, half under the
// repository: the migration moves the worktree's chunks into the
// repository's project (the most it has to move for that many chunks).
func BenchmarkIdentityMigration(b *testing.B) {
	ctx := context.Background()
	tmp, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("HOME", filepath.Join(tmp, "home"))
	app, wt := filepath.Join(tmp, "app"), filepath.Join(tmp, "app-wt")
	gitRepo(b, app, wt)
	path := filepath.Join(tmp, "carryover.db")
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	for s := range 10 {
		id, project := fmt.Sprintf("s%d", s), app
		if s%2 == 1 {
			project = wt
		}
		for from := 0; from < 1000; from += 500 {
			if err := st.Apply(ctx, carryover.Batch{Session: carryover.Session{ID: id, Project: project},
				Chunks: corpus(id, from, 500, r)}); err != nil {
				b.Fatal(err)
			}
		}
	}
	st.Close()
	db := rawDB(b, path)
	if _, err := db.Exec(undoShares + "; " + undoIdentity + "; PRAGMA user_version = 8"); err != nil {
		b.Fatal(err)
	}
	db.Close()
	old, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
		if err := os.WriteFile(path, old, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if ss, err := st.Sessions(ctx, carryover.SessionFilter{Project: app}); err != nil || len(ss) != 10 {
			b.Fatalf("sessions of the root after the migration: %d, %v", len(ss), err)
		}
		st.Close()
		b.StartTimer()
	}
}
