package postgres_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/storetest"
)

// gitRepo makes a repository at dir with a linked worktree at wt, with
// the real git (skipped where there is none, except under CI).
func gitRepo(t *testing.T, dir, wt string) {
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

// TestIdentityMigration writes a schema as carryover did before version 7
// (sessions without parent, cwd or branch, each in the project of the
// directory it ran in: a repository, its worktree, a subdirectory, a
// directory that is gone), takes the schema back to version 6, and checks
// that opening it again fills the parents and maps the projects to the
// repository's root in every table.
func TestIdentityMigration(t *testing.T) {
	ctx := context.Background()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(tmp, "home"))
	app, wt, gone := filepath.Join(tmp, "app"), filepath.Join(tmp, "app-wt"), filepath.Join(tmp, "gone")
	internal := filepath.Join(app, "internal")
	gitRepo(t, app, wt)
	if err := os.MkdirAll(filepath.Join(internal, "cmd"), 0o755); err != nil {
		t.Fatal(err)
	}
	dsn := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	st := open(t, dsn, postgres.Options{})

	p1, sub := storetest.Batch("p1", app, 0, 2), storetest.Batch("p1/agent-a1", app, 0, 1)
	p2, p3 := storetest.Batch("p2", wt, 0, 1), storetest.Batch("p3", wt, 0, 2)
	p3.Chunks[0].Hash = p1.Chunks[0].Hash // a resumed copy of p1's first lines
	p4, p5 := storetest.Batch("p4", internal, 0, 1), storetest.Batch("p5", gone, 0, 1)
	p1.Redactions, p2.Redactions, p4.Redactions = map[string]int{"github-pat": 1}, map[string]int{"github-pat": 2}, map[string]int{"aws-key": 1}
	for _, b := range []carryover.Batch{p1, sub, p2, p3, p4, p5} {
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.AddNote(ctx, carryover.Note{SessionID: "p4", Project: internal, Kind: "decision", Text: "keep the tags"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordInjection(ctx, carryover.Injection{SessionID: "p4", Project: filepath.Join(internal, "cmd"), Event: "PreCompact:manual", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordHookRun(ctx, carryover.HookRun{SessionID: "p2", Project: wt, Event: "Stop", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DROP TABLE passages, passage_marks; DROP TABLE chunk_shares;
		ALTER TABLE sessions DROP COLUMN parent, DROP COLUMN cwd, DROP COLUMN branch;
		UPDATE meta SET value = '6' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}

	st = open(t, dsn, postgres.Options{}) // migrates
	want := map[string]struct{ parent, project, cwd string }{
		"p1": {"", app, app}, "p1/agent-a1": {"p1", app, app}, "p2": {"", app, wt}, "p3": {"", app, wt},
		"p4": {"", app, internal}, "p5": {"", gone, gone},
	}
	all, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(want) {
		t.Errorf("%d sessions, want %d", len(all), len(want))
	}
	for _, s := range all {
		if w := want[s.ID]; s.Parent != w.parent || s.Project != w.project || s.Cwd != w.cwd {
			t.Errorf("session %s: parent %q project %q cwd %q, want %+v", s.ID, s.Parent, s.Project, s.Cwd, w)
		}
	}
	// The chunk both projects held is kept once, p1's; p3's items follow it,
	// and p3 shares it (schema version 8).
	kept, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: "p1", Turn: -1})
	if err != nil || len(kept) != 2 {
		t.Fatalf("p1's chunks: %d, %v", len(kept), err)
	}
	if cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: "p3", Turn: -1}); err != nil || len(cs) != 2 ||
		cs[0].ID != kept[0].ID || cs[0].Seq != 0 || cs[1].Seq != 1 || cs[1].ID == kept[1].ID {
		t.Errorf("p3's chunks = %+v, %v; want p1's first as its first, and its second", cs, err)
	}
	its, err := st.Items(ctx, carryover.ItemFilter{SessionID: "p3"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range its {
		if it.ChunkSeq == 0 && it.ChunkID != kept[0].ID {
			t.Errorf("p3's item %q points at chunk %d, want p1's %d", it.Text, it.ChunkID, kept[0].ID)
		}
	}
	for _, table := range []string{"chunks", "items", "compactions", "injections", "notes", "hook_runs", "redactions"} {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE project <> $1 AND project <> $2`, app, gone).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows (%v) in a project that is not a root", table, n, err)
		}
	}
	if red, err := st.Redactions(ctx, app); err != nil || !reflect.DeepEqual(red, map[string]int{"github-pat": 3, "aws-key": 1}) {
		t.Errorf("redactions of %s = %v, %v", app, red, err)
	}
	hits, err := st.Search(ctx, carryover.Query{Text: "step 0 of p4", Project: app})
	if err != nil || len(hits) == 0 || hits[0].Chunk.SessionID != "p4" {
		t.Errorf("search in the root project: %d hits, %v", len(hits), err)
	}
}
