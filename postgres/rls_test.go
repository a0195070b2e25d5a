package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/storetest"
)

// roles creates login roles for the test (names made unique by a suffix,
// as roles are server-wide), the first member of team, and grants them
// what docs/postgres.md grants users on the schema in dsn's search_path.
// It returns their names and the team's.
func roles(t *testing.T, dsn string, names ...string) (map[string]string, string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 4)
	rand.Read(b)
	suffix := "_" + hex.EncodeToString(b)
	team := "team" + suffix
	out := map[string]string{}
	var all []string
	stmts := []string{"CREATE ROLE " + team + " NOLOGIN"}
	for _, n := range names {
		out[n] = n + suffix
		all = append(all, n+suffix)
		stmts = append(stmts, "CREATE ROLE "+n+suffix+" LOGIN")
	}
	list := strings.Join(all, ", ")
	stmts = append(stmts,
		"GRANT USAGE ON SCHEMA "+schemaOf(t, dsn)+" TO "+list,
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "+schemaOf(t, dsn)+" TO "+list,
		"GRANT USAGE ON ALL SEQUENCES IN SCHEMA "+schemaOf(t, dsn)+" TO "+list,
		"REVOKE UPDATE, DELETE ON meta FROM "+list,
	)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		for _, s := range []string{"DROP OWNED BY " + list, "DROP ROLE " + list + ", " + team} {
			if _, err := conn.Exec(ctx, s); err != nil {
				t.Errorf("%s: %v", s, err)
			}
		}
	})
	return out, team
}

func schemaOf(t *testing.T, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("search_path")
}

func asRole(t *testing.T, dsn, role string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String()
}

func open(t *testing.T, dsn string, opt postgres.Options) *postgres.Store {
	t.Helper()
	opt.ConnectTimeout = 10 * time.Second
	st, err := postgres.Open(context.Background(), dsn, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestRowSecurity has two teammates and an outsider share one schema, each
// connected as their own role: a role reads its own rows and those shared
// with its team, and writes only its own.
func TestRowSecurity(t *testing.T) {
	ctx := context.Background()
	admin := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	open(t, admin, postgres.Options{Owner: "admin"}).Close() // the schema owner migrates
	r, team := roles(t, admin, "alice", "bob", "carol")
	// bob joins alice's team.
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "GRANT "+team+" TO "+r["alice"]+", "+r["bob"]); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	alice := open(t, asRole(t, admin, r["alice"]), postgres.Options{Owner: r["alice"]})
	bob := open(t, asRole(t, admin, r["bob"]), postgres.Options{Owner: r["bob"]})
	carol := open(t, asRole(t, admin, r["carol"]), postgres.Options{Owner: r["carol"]})
	if alice.Owner() != r["alice"] {
		t.Fatalf("Owner() = %q", alice.Owner())
	}

	private := storetest.Batch("a-private", "/repo", 0, 2)
	private.Chunks[0].Text += " zebra private"
	shared := storetest.Batch("a-shared", "/repo", 2, 2)
	shared.Session.Team = team
	shared.Chunks[0].Text += " zebra shared"
	shared.Redactions = map[string]int{"jwt": 2}
	for _, b := range []carryover.Batch{private, shared} {
		if err := alice.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := alice.AddNote(ctx, carryover.Note{SessionID: "a-private", Project: "/repo", Text: "alice's own note"}); err != nil {
		t.Fatal(err)
	}

	visible := func(st *postgres.Store) []string {
		t.Helper()
		ss, err := st.Sessions(ctx, carryover.SessionFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range ss {
			ids = append(ids, s.ID)
		}
		slices.Sort(ids)
		return ids
	}
	hits := func(st *postgres.Store) []string {
		t.Helper()
		hs, err := st.Search(ctx, carryover.Query{Text: "zebra"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hs {
			out = append(out, h.Chunk.SessionID)
		}
		slices.Sort(out)
		return out
	}
	count := func(st *postgres.Store, session string) (chunks, items int) {
		t.Helper()
		cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: session, Turn: -1})
		if err != nil {
			t.Fatal(err)
		}
		its, err := st.Items(ctx, carryover.ItemFilter{SessionID: session})
		if err != nil {
			t.Fatal(err)
		}
		return len(cs), len(its)
	}

	// Reads.
	if got := visible(alice); !slices.Equal(got, []string{"a-private", "a-shared"}) {
		t.Errorf("alice sees %v", got)
	}
	if got := visible(bob); !slices.Equal(got, []string{"a-shared"}) {
		t.Errorf("bob (teammate) sees %v, want a-shared only", got)
	}
	if got := visible(carol); len(got) != 0 {
		t.Errorf("carol (outsider) sees %v", got)
	}
	if got := hits(bob); !slices.Equal(got, []string{"a-shared"}) {
		t.Errorf("bob's search finds %v", got)
	}
	if got := hits(carol); len(got) != 0 {
		t.Errorf("carol's search finds %v", got)
	}
	if c, i := count(bob, "a-shared"); c != 2 || i != 3 {
		t.Errorf("bob reads %d chunks, %d items of the shared session, want 2, 3", c, i)
	}
	for _, st := range []*postgres.Store{bob, carol} {
		if c, i := count(st, "a-private"); c != 0 || i != 0 {
			t.Errorf("%s reads %d chunks, %d items of alice's private session", st.Owner(), c, i)
		}
		if _, err := st.Session(ctx, "a-private"); !errors.Is(err, carryover.ErrNotFound) {
			t.Errorf("%s: Session(a-private) = %v, want ErrNotFound", st.Owner(), err)
		}
		if _, err := st.IngestState(ctx, "a-private"); !errors.Is(err, carryover.ErrNotFound) {
			t.Errorf("%s: IngestState(a-private) = %v, want ErrNotFound", st.Owner(), err)
		}
		if ns, _ := st.Notes(ctx, "/repo", ""); len(ns) != 0 {
			t.Errorf("%s reads alice's notes: %+v", st.Owner(), ns)
		}
	}
	if cs, _ := carol.Compactions(ctx, "a-shared"); len(cs) != 0 {
		t.Errorf("carol reads compactions of the shared session: %+v", cs)
	}
	if red, _ := bob.Redactions(ctx, ""); red["jwt"] != 2 {
		t.Errorf("bob's redaction counts %v, want the shared session's", red)
	}
	if red, _ := carol.Redactions(ctx, ""); len(red) != 0 {
		t.Errorf("carol's redaction counts %v", red)
	}

	// Writes.
	hijack := storetest.Batch("a-shared", "/repo", 10, 1)
	hijack.Session.Title = "bob was here"
	if err := bob.Apply(ctx, hijack); err == nil {
		t.Error("bob wrote into alice's shared session")
	}
	if ss, err := alice.Session(ctx, "a-shared"); err != nil || ss.Title == "bob was here" || ss.Chunks != 2 {
		t.Errorf("alice's session after bob's write: %+v, %v", ss, err)
	}
	if rep, err := bob.Prune(ctx, carryover.PruneFilter{Project: "/repo"}); err != nil || len(rep.Sessions) != 0 || rep.Chunks != 0 {
		t.Errorf("bob's prune of the project: %+v, %v; want nothing removed", rep, err)
	}
	if rep, err := carol.Prune(ctx, carryover.PruneFilter{SessionID: "a-private"}); err != nil || rep.Chunks+rep.Items+rep.Notes != 0 {
		t.Errorf("carol's prune of alice's session: %+v, %v", rep, err)
	}
	if c, i := count(alice, "a-private"); c != 2 || i != 3 {
		t.Errorf("alice's private session after the others' prunes: %d chunks, %d items", c, i)
	}
	// Writing rows under another owner's name fails.
	spoof := open(t, asRole(t, admin, r["carol"]), postgres.Options{Owner: r["alice"]})
	if err := spoof.Apply(ctx, storetest.Batch("c-spoof", "/repo", 0, 1)); err == nil {
		t.Error("carol stored rows owned by alice")
	}
	if _, err := spoof.AddNote(ctx, carryover.Note{Project: "/repo", Text: "from alice, honest"}); err == nil {
		t.Error("carol stored a note owned by alice")
	}
	// Deduplication is per owner: bob storing alice's chunk stores his own.
	dup := storetest.Batch("b-1", "/repo", 0, 2)
	dup.Chunks[0].Hash = private.Chunks[0].Hash
	if err := bob.Apply(ctx, dup); err != nil {
		t.Fatalf("bob's batch repeating alice's private chunk: %v", err)
	}
	if c, _ := count(bob, "b-1"); c != 2 {
		t.Errorf("bob's session has %d chunks, want 2 (his own copy)", c)
	}
	if got := visible(alice); !slices.Equal(got, []string{"a-private", "a-shared"}) {
		t.Errorf("alice sees %v after bob's private batch", got)
	}
	// Sharing later carries the session's rows to the team.
	private.Session.Team = team
	if err := alice.Apply(ctx, carryover.Batch{Session: private.Session, State: private.State}); err != nil {
		t.Fatal(err)
	}
	if c, i := count(bob, "a-private"); c != 2 || i != 3 {
		t.Errorf("bob reads %d chunks, %d items of the session alice shared later, want 2, 3", c, i)
	}
	if c, _ := count(carol, "a-private"); c != 0 {
		t.Errorf("carol reads %d chunks of the shared session", c)
	}

	// Forgetting is the owner's: another role's forget neither removes nor
	// blocks alice's session, and cannot touch alice's record.
	if _, err := carol.Prune(ctx, carryover.PruneFilter{SessionID: "a-private", Forget: true}); err != nil {
		t.Fatal(err)
	}
	if gone, err := alice.Forgotten(ctx, "a-private"); err != nil || gone {
		t.Errorf("alice sees her session forgotten by carol: %v, %v", gone, err)
	}
	if err := alice.Apply(ctx, carryover.Batch{Session: private.Session, State: private.State}); err != nil {
		t.Errorf("carol's forget blocks alice: %v", err)
	}
	if _, err := alice.Prune(ctx, carryover.PruneFilter{SessionID: "a-shared", Forget: true}); err != nil {
		t.Fatal(err)
	}
	if err := alice.Apply(ctx, shared); !errors.Is(err, carryover.ErrForgotten) {
		t.Errorf("alice's apply of her forgotten session: %v", err)
	}
	if err := bob.Unforget(ctx, "a-shared"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("bob's unforget of alice's session: %v", err)
	}
	if _, err := spoof.Prune(ctx, carryover.PruneFilter{SessionID: "c-spoof", Forget: true}); err == nil {
		t.Error("carol recorded a forget owned by alice")
	}
	for _, role := range []string{"bob", "carol"} {
		c, err := pgx.Connect(ctx, asRole(t, admin, r[role]))
		if err != nil {
			t.Fatal(err)
		}
		tag, err := c.Exec(ctx, "DELETE FROM forgotten WHERE owner <> current_user")
		if err != nil || tag.RowsAffected() != 0 {
			t.Errorf("%s deleted %v forgotten records of others (%v)", role, tag.RowsAffected(), err)
		}
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM forgotten WHERE owner <> current_user").Scan(&n); err != nil || n != 0 {
			t.Errorf("%s reads %d forgotten records of others (%v)", role, n, err)
		}
		c.Close(ctx)
	}
	if gone, err := alice.Forgotten(ctx, "a-shared"); err != nil || !gone {
		t.Errorf("alice's forgotten record after the others' attempts: %v, %v", gone, err)
	}
}
