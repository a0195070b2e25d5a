package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/replicate"
	"github.com/carryover-dev/carryover/sqlite"
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

	// Writes. A session is its owner's: bob's batch with the id of alice's
	// shared session is a session of his own, and alice's is unchanged.
	hijack := storetest.Batch("a-shared", "/repo", 10, 1)
	hijack.Session.Title = "bob was here"
	if err := bob.Apply(ctx, hijack); err != nil {
		t.Errorf("bob's batch with the id of alice's session: %v", err)
	}
	if ss, err := alice.Session(ctx, "a-shared"); err != nil || ss.Title == "bob was here" || ss.Chunks != 2 || ss.Owner != r["alice"] {
		t.Errorf("alice's session after bob's write: %+v, %v", ss, err)
	}
	if c, i := count(alice, "a-shared"); c != 2 || i != 3 {
		t.Errorf("alice's shared session after bob's write: %d chunks, %d items, want 2, 3", c, i)
	}
	if rep, err := bob.Prune(ctx, carryover.PruneFilter{Project: "/repo"}); err != nil || !slices.Equal(rep.Sessions, []string{"a-shared"}) || rep.Chunks != 1 {
		t.Errorf("bob's prune of the project: %+v, %v; want his own session only", rep, err)
	}
	if c, i := count(alice, "a-shared"); c != 2 || i != 3 {
		t.Errorf("alice's shared session after bob's prune: %d chunks, %d items, want 2, 3", c, i)
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

// rlsFixture is a schema migrated by its owner (admin) with three roles:
// alice and bob are members of team, carol of none.
type rlsFixture struct {
	admin string
	r     map[string]string
	team  string
}

func newRLS(t *testing.T) *rlsFixture {
	t.Helper()
	ctx := context.Background()
	admin := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	open(t, admin, postgres.Options{Owner: "admin"}).Close()
	r, team := roles(t, admin, "alice", "bob", "carol")
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "GRANT "+team+" TO "+r["alice"]+", "+r["bob"]); err != nil {
		t.Fatal(err)
	}
	return &rlsFixture{admin: admin, r: r, team: team}
}

// store opens the store as the role of name, sharing with team (if not "").
func (f *rlsFixture) store(t *testing.T, name, team string) *postgres.Store {
	t.Helper()
	return open(t, asRole(t, f.admin, f.r[name]), postgres.Options{Owner: f.r[name], Team: team})
}

// conn connects as the role of name, for what a user can do by hand.
func (f *rlsFixture) conn(t *testing.T, name string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, asRole(t, f.admin, f.r[name]))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

// outcome runs one statement in a transaction of its own, rolled back, and
// describes its outcome: the SQLSTATE of an error, else the rows affected.
func outcome(c *pgx.Conn, sql string, args ...any) string {
	ctx := context.Background()
	tx, err := c.Begin(ctx)
	if err != nil {
		return err.Error()
	}
	defer tx.Rollback(ctx)
	tag, err := tx.Exec(ctx, sql, args...)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code
		}
		return err.Error()
	}
	return fmt.Sprintf("ok %d", tag.RowsAffected())
}

// runSQL runs one statement and commits it, returning its error.
func runSQL(c *pgx.Conn, sql string, args ...any) error {
	_, err := c.Exec(context.Background(), sql, args...)
	return err
}

// Rows a role writes by hand, naming a session ($1) and team ($2).
const (
	rawChunk = `INSERT INTO chunks (owner, team, project, session_id, seq, turn, win, first_line, last_line,
		prompt, summary, text, hash, tsv) VALUES (current_user, $2, '/repo', $1, 0, 0, 0, 1, 9,
		'p', 's', 'zebra intruder', 'intruder-' || $1, to_tsvector('simple', 'zebra intruder'))`
	rawItem = `INSERT INTO items (owner, team, project, session_id, chunk_seq, kind, key, text, detail,
		turn, win, line, weight, resolved, count) VALUES (current_user, $2, '/repo', $1, 0, $3, $4, 'intruder item', '',
		0, 0, 99999, 9, true, 1)`
	rawCompaction = `INSERT INTO compactions (owner, team, project, session_id, win, trigger_type, pre_tokens,
		post_tokens, line, summary) VALUES (current_user, $2, '/repo', $1, $3, 'auto', 1, 1, 1, 'intruder summary')`
	rawNote = `INSERT INTO notes (owner, team, project, time, session_id, kind, text)
		VALUES (current_user, $2, '/repo', now(), $1, 'state', 'intruder state')`
	rawInjection = `INSERT INTO injections (owner, team, project, time, session_id, event, win, chars, tokens, hash, latency_us)
		VALUES (current_user, $2, '/repo', now(), $1, 'SessionStart:compact', 0, 1, 1, 'intruder', 1)`
	rawHookRun = `INSERT INTO hook_runs (owner, team, project, time, session_id, event, latency_us, outcome, chars)
		VALUES (current_user, $2, '/repo', now(), $1, 'Stop', 1, 'intruder', 1)`
)

// view is what a role's store shows of one session: every read a restore,
// a recall or an ingest makes of it.
func view(t *testing.T, st *postgres.Store, id string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	ss, err := st.Session(ctx, id)
	fmt.Fprintf(&b, "session %s %q team=%q chunks=%d %v\n", ss.Owner, ss.Title, ss.Team, ss.Chunks, err)
	list, err := st.Sessions(ctx, carryover.SessionFilter{})
	for _, s := range list {
		if s.ID == id {
			fmt.Fprintf(&b, "listed %s %q\n", s.Owner, s.Title)
		}
	}
	fmt.Fprintf(&b, "sessions %v\n", err)
	state, err := st.IngestState(ctx, id)
	fmt.Fprintf(&b, "state %+v %v\n", state, err)
	cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: id, Turn: -1})
	for _, c := range cs {
		fmt.Fprintf(&b, "chunk %d %d %q\n", c.ID, c.Seq, c.Text)
	}
	fmt.Fprintf(&b, "chunks %v\n", err)
	its, err := st.Items(ctx, carryover.ItemFilter{SessionID: id})
	for _, it := range its {
		fmt.Fprintf(&b, "item %d %s %q %q chunk=%d count=%d\n", it.ID, it.Kind, it.Key, it.Text, it.ChunkID, it.Count)
	}
	fmt.Fprintf(&b, "items %v\n", err)
	comps, err := st.Compactions(ctx, id)
	for _, c := range comps {
		fmt.Fprintf(&b, "compaction %d %q\n", c.Window, c.Summary)
	}
	fmt.Fprintf(&b, "compactions %v\n", err)
	for _, scope := range [][2]string{{"", id}, {"/repo", ""}} {
		ns, err := st.Notes(ctx, scope[0], scope[1])
		for _, n := range ns {
			if n.SessionID == id {
				fmt.Fprintf(&b, "note %d %s %q\n", n.ID, n.Kind, n.Text)
			}
		}
		fmt.Fprintf(&b, "notes %v\n", err)
	}
	ins, err := st.Injections(ctx, id, 0)
	for _, in := range ins {
		fmt.Fprintf(&b, "injection %d %s %q\n", in.ID, in.Event, in.Hash)
	}
	fmt.Fprintf(&b, "injections %v\n", err)
	runs, err := st.HookRuns(ctx, carryover.HookRunFilter{SessionID: id})
	for _, r := range runs {
		fmt.Fprintf(&b, "hook run %d %s %q\n", r.ID, r.Event, r.Outcome)
	}
	fmt.Fprintf(&b, "hook runs %v\n", err)
	hits, err := st.Search(ctx, carryover.Query{Text: "zebra intruder step", SessionID: id})
	for _, h := range hits {
		fmt.Fprintf(&b, "hit %d %q\n", h.Chunk.ID, h.Chunk.Text)
	}
	fmt.Fprintf(&b, "search %v\n", err)
	return b.String()
}

// TestRowSecurityTeamMembership: a row is shared only with a team its
// writer is a member of on the server, whatever the team option, a
// batch or a hand-written row says.
func TestRowSecurityTeamMembership(t *testing.T) {
	ctx := context.Background()
	f := newRLS(t)
	aliceT := f.store(t, "alice", f.team)
	shared := storetest.Batch("a-shared", "/repo", 0, 2)
	shared.Chunks[0].Text += " zebra"
	if err := aliceT.Apply(ctx, shared); err != nil {
		t.Fatal(err)
	}
	if _, err := aliceT.AddNote(ctx, carryover.Note{Project: "/repo", Text: "alice's shared note"}); err != nil {
		t.Fatal(err)
	}

	// carol is in no team: the team option (CARRYOVER_TEAM) and a batch's
	// Session.Team are refused on every path.
	carolT := f.store(t, "carol", f.team)
	carol := f.store(t, "carol", "")
	b := storetest.Batch("c-1", "/repo", 0, 1)
	b.Chunks[0].Text += " zebra carol"
	if err := carolT.Apply(ctx, b); err == nil {
		t.Error("carol shared a session with a team she is not in (team option)")
	}
	b.Session.ID, b.Session.Team = "c-2", f.team
	if err := carol.Apply(ctx, b); err == nil {
		t.Error("carol shared a session with a team she is not in (Session.Team)")
	}
	if _, err := carolT.AddNote(ctx, carryover.Note{Project: "/repo", Text: "carol's note"}); err == nil {
		t.Error("carol shared a note with a team she is not in")
	}
	if err := carolT.RecordHookRun(ctx, carryover.HookRun{Time: time.Now(), SessionID: "c-3", Project: "/repo", Event: "Stop", Outcome: "ok"}); err == nil {
		t.Error("carol shared a hook run with a team she is not in")
	}
	if _, err := carolT.RecordInjection(ctx, carryover.Injection{SessionID: "c-3", Project: "/repo", Event: "Stop", Hash: "h"}); err == nil {
		t.Error("carol shared an injection with a team she is not in")
	}
	if _, err := carolT.Prune(ctx, carryover.PruneFilter{SessionID: "c-3", Forget: true}); err == nil {
		t.Error("carol shared a forgotten record with a team she is not in")
	}
	// By hand: a new row, and her own private rows relabelled.
	if err := carol.Apply(ctx, storetest.Batch("c-4", "/repo", 0, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := carol.AddNote(ctx, carryover.Note{SessionID: "c-4", Project: "/repo", Text: "carol's private note"}); err != nil {
		t.Fatal(err)
	}
	c := f.conn(t, "carol")
	for _, q := range []string{rawNote, rawInjection, rawHookRun} {
		if got := outcome(c, q, "c-5", f.team); got != "42501" {
			t.Errorf("carol's row shared with the team by hand: %s, want 42501 (%s)", got, q)
		}
	}
	for _, table := range []string{"sessions", "chunks", "items", "compactions", "notes", "redactions", "forgotten"} {
		if got := outcome(c, "UPDATE "+table+" SET team = $1", f.team); got != "42501" && got != "ok 0" {
			t.Errorf("carol relabelled her %s with the team: %s", table, got)
		}
	}
	// A temporary table named pg_roles, which unqualified names find first,
	// makes no team of hers.
	if err := runSQL(c, "CREATE TEMP TABLE pg_roles AS SELECT $1::name AS rolname, oid FROM pg_catalog.pg_roles WHERE rolname = current_user", f.team); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"sessions", "chunks", "items", "notes"} {
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+table+" WHERE owner <> current_user").Scan(&n); err != nil || n != 0 {
			t.Errorf("carol with a pg_roles of her own reads %d %s of others (%v)", n, table, err)
		}
	}
	if got := outcome(c, rawNote, "c-5", f.team); got != "42501" {
		t.Errorf("carol with a pg_roles of her own shares a note with the team: %s", got)
	}

	// Her teammates-to-be see none of it.
	bob := f.store(t, "bob", "")
	if ss, _ := bob.Sessions(ctx, carryover.SessionFilter{}); len(ss) != 1 || ss[0].ID != "a-shared" {
		t.Errorf("bob sees sessions %+v, want alice's a-shared only", ss)
	}
	if ns, _ := bob.Notes(ctx, "", ""); len(ns) != 1 || ns[0].Text != "alice's shared note" {
		t.Errorf("bob sees notes %+v, want alice's only", ns)
	}
	if hs, _ := bob.Search(ctx, carryover.Query{Text: "zebra"}); len(hs) != 1 || hs[0].Chunk.SessionID != "a-shared" {
		t.Errorf("bob's search finds %+v, want alice's chunk only", hs)
	}
	for _, st := range []*postgres.Store{bob, aliceT} {
		if runs, _ := st.HookRuns(ctx, carryover.HookRunFilter{}); len(runs) != 0 {
			t.Errorf("%s sees hook runs %+v", st.Owner(), runs)
		}
		if ins, _ := st.Injections(ctx, "", 0); len(ins) != 0 {
			t.Errorf("%s sees injections %+v", st.Owner(), ins)
		}
	}

	// Membership is the server's: bob, a member, shares.
	bobT := f.store(t, "bob", f.team)
	if err := bobT.Apply(ctx, storetest.Batch("b-1", "/repo", 0, 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := aliceT.Session(ctx, "b-1"); err != nil {
		t.Errorf("alice does not see bob's shared session: %v", err)
	}
	// Once bob has left the team he can no longer share with it: a new
	// session is refused, and his next write to a session he shared makes
	// it private rather than failing his ingest.
	admin, err := pgx.Connect(ctx, f.admin)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "REVOKE "+f.team+" FROM "+f.r["bob"]); err != nil {
		t.Fatal(err)
	}
	if err := bobT.Apply(ctx, storetest.Batch("b-2", "/repo", 0, 1)); err == nil {
		t.Error("bob shared a new session with the team he left")
	}
	if err := bob.Apply(ctx, storetest.Batch("b-1", "/repo", 2, 2)); err != nil {
		t.Errorf("bob's ingest of the session he shared before leaving the team: %v", err)
	}
	if ss, err := bob.Session(ctx, "b-1"); err != nil || ss.Team != "" || ss.Chunks != 4 {
		t.Errorf("bob's session after leaving the team: %+v, %v; want private with 4 chunks", ss, err)
	}
	if _, err := aliceT.Session(ctx, "b-1"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("alice still sees the session bob made private: %v", err)
	}
	if cs, _ := aliceT.Chunks(ctx, carryover.ChunkFilter{SessionID: "b-1", Turn: -1}); len(cs) != 0 {
		t.Errorf("alice still reads %d chunks of the session bob made private", len(cs))
	}
}

// TestRowSecuritySessionsStayTheirOwners: whatever a teammate writes, by
// the store or by hand, naming another role's session (private or
// shared), that role's session shows none of it, and its rows cannot be
// changed or pointed at.
func TestRowSecuritySessionsStayTheirOwners(t *testing.T) {
	ctx := context.Background()
	f := newRLS(t)
	alice := f.store(t, "alice", "")
	priv := storetest.Batch("a-private", "/repo", 0, 2)
	shared := storetest.Batch("a-shared", "/repo", 0, 2)
	shared.Session.Team = f.team
	for _, b := range []carryover.Batch{priv, shared} {
		if err := alice.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
		if _, err := alice.AddNote(ctx, carryover.Note{SessionID: b.Session.ID, Project: "/repo", Kind: "state", Text: "alice's state"}); err != nil {
			t.Fatal(err)
		}
		if _, err := alice.RecordInjection(ctx, carryover.Injection{SessionID: b.Session.ID, Project: "/repo", Event: "SessionStart:compact", Hash: "alice"}); err != nil {
			t.Fatal(err)
		}
		if err := alice.RecordHookRun(ctx, carryover.HookRun{Time: time.Now(), SessionID: b.Session.ID, Project: "/repo", Event: "Stop", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	ids := []string{"a-private", "a-shared"}
	before := map[string]string{}
	for _, id := range ids {
		before[id] = view(t, alice, id)
	}
	aliceChunks, err := alice.Chunks(ctx, carryover.ChunkFilter{Turn: -1})
	if err != nil || len(aliceChunks) == 0 {
		t.Fatal(aliceChunks, err)
	}

	// bob is alice's teammate; he shares what he writes with the team.
	bob := f.store(t, "bob", f.team)
	c := f.conn(t, "bob")
	for _, id := range ids {
		// By hand, rows naming her session. Chunks, items and compactions
		// belong to a session of their writer's: refused.
		for _, q := range []string{rawChunk, rawItem, rawCompaction} {
			args := []any{id, f.team}
			switch q {
			case rawItem:
				args = append(args, "command", "command:go test cache0")
			case rawCompaction:
				args = append(args, 1)
			}
			if err := runSQL(c, q, args...); err == nil {
				t.Errorf("bob wrote into alice's session %s: %s", id, strings.Fields(q)[2])
			}
		}
		// Notes, injections and hook runs may name a session not archived
		// yet: they are bob's, and not part of alice's session.
		for _, q := range []string{rawNote, rawInjection, rawHookRun} {
			runSQL(c, q, id, f.team)
		}
		// Her rows cannot be changed or removed.
		for _, q := range []string{
			"UPDATE sessions SET title = 'bob was here', ingest_offset = 0, team = $2 WHERE id = $1 AND owner <> current_user",
			"UPDATE chunks SET text = 'bob was here', vec = NULL WHERE session_id = $1 AND owner <> current_user AND $2 <> ''",
			"UPDATE items SET text = 'bob was here' WHERE session_id = $1 AND owner <> current_user AND $2 <> ''",
			"UPDATE compactions SET summary = 'bob was here' WHERE session_id = $1 AND owner <> current_user AND $2 <> ''",
			"UPDATE notes SET text = 'bob was here' WHERE session_id = $1 AND owner <> current_user AND $2 <> ''",
			"DELETE FROM items WHERE session_id = $1 AND owner <> current_user AND $2 <> ''",
			"DELETE FROM chunks WHERE session_id = $1 AND owner <> current_user AND $2 <> ''",
			"DELETE FROM sessions WHERE id = $1 AND owner <> current_user AND $2 <> ''",
		} {
			if got := outcome(c, q, id, f.team); got != "ok 0" && got != "42501" {
				t.Errorf("bob: %s on %s: %s", q, id, got)
			}
		}
		// Through the store: a batch, a state note, an injection and a hook
		// run of a session with her session's id.
		b := storetest.Batch(id, "/repo", 0, 3)
		b.Session.Title = "bob was here"
		for i := range b.Chunks {
			b.Chunks[i].Text += " zebra intruder"
		}
		b.Items[0].Text, b.Items[0].Line = "intruder item", 99999
		b.Compactions[0].Summary = "intruder summary"
		bob.Apply(ctx, b)
		bob.AddNote(ctx, carryover.Note{SessionID: id, Project: "/repo", Kind: "state", Text: "intruder state"})
		bob.RecordInjection(ctx, carryover.Injection{SessionID: id, Project: "/repo", Event: "SessionStart:compact", Hash: "intruder"})
		bob.RecordHookRun(ctx, carryover.HookRun{Time: time.Now(), SessionID: id, Project: "/repo", Event: "Stop", Outcome: "intruder"})
	}
	// An item of his own session cannot point at her chunks.
	if err := bob.Apply(ctx, storetest.Batch("b-1", "/repo", 0, 1)); err != nil {
		t.Fatal(err)
	}
	for _, ch := range aliceChunks {
		q := strings.Replace(rawItem, "chunk_seq,", "chunk_id, chunk_seq,", 1)
		q = strings.Replace(q, "$1, 0, $3", "$1, $5, 0, $3", 1)
		if err := runSQL(c, q, "b-1", f.team, "note", fmt.Sprint("pointer ", ch.ID), ch.ID); err == nil {
			t.Errorf("bob's item points at alice's chunk %d (session %s)", ch.ID, ch.SessionID)
		}
		if got := outcome(c, "UPDATE items SET chunk_id = $1 WHERE owner = current_user", ch.ID); got != "42501" {
			t.Errorf("bob's items repointed at alice's chunk %d: %s", ch.ID, got)
		}
	}

	for _, id := range ids {
		if got := view(t, alice, id); got != before[id] {
			t.Errorf("alice's session %s after bob's writes:\n%s\nbefore:\n%s", id, got, before[id])
		}
	}
}

// TestRowSecurityNoBlocking: rows, locks and open transactions of another
// role never stop an owner's ingest, even when that role knows the
// session ids (a teammate sees the hook runs and sessions shared with the
// team, the next session's id included before its first ingest).
func TestRowSecurityNoBlocking(t *testing.T) {
	ctx := context.Background()
	f := newRLS(t)
	alice := f.store(t, "alice", "")
	aliceT := f.store(t, "alice", f.team)
	if err := alice.Apply(ctx, storetest.Batch("a-private", "/repo", 0, 2)); err != nil {
		t.Fatal(err)
	}
	if err := aliceT.Apply(ctx, storetest.Batch("a-shared", "/repo", 0, 2)); err != nil {
		t.Fatal(err)
	}
	// SessionStart runs before the session's first ingest.
	if err := aliceT.RecordHookRun(ctx, carryover.HookRun{Time: time.Now(), SessionID: "a-next", Project: "/repo", Event: "SessionStart:startup", Outcome: "noop"}); err != nil {
		t.Fatal(err)
	}
	bob := f.store(t, "bob", f.team)
	if runs, err := bob.HookRuns(ctx, carryover.HookRunFilter{}); err != nil || len(runs) != 1 || runs[0].SessionID != "a-next" {
		t.Fatalf("bob sees hook runs %+v, %v", runs, err)
	}
	ids := []string{"a-private", "a-shared", "a-next"}
	next := func(id string) carryover.Batch {
		b := storetest.Batch(id, "/repo", 2, 3)
		b.Items = append(b.Items, storetest.Batch(id, "/repo", 0, 1).Items[0]) // merges into an existing item
		return b
	}
	c := f.conn(t, "bob")
	for _, id := range ids {
		// bob takes every key alice's next batch writes: the session,
		// chunks, items and compaction, through the store and by hand.
		// Whichever of these the policies refuse, the rest must not hurt.
		bob.Apply(ctx, next(id))
		bob.Apply(ctx, storetest.Batch(id, "/repo", 0, 2))
		for _, it := range next(id).Items {
			runSQL(c, rawItem, id, f.team, string(it.Kind), it.Key)
		}
		runSQL(c, rawCompaction, id, f.team, 1)
		runSQL(c, rawChunk, id, f.team)
	}
	// And holds an open transaction with every lock he can take on them.
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, id := range ids {
		// The key of the forget lock of earlier versions.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(1718579815, hashtext($1))", id); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE",
			"SELECT 1 FROM items WHERE session_id = $1 FOR UPDATE",
			"INSERT INTO sessions (id, owner, team, project) VALUES ($1, current_user, '', '/repo') ON CONFLICT DO NOTHING",
			"INSERT INTO notes (owner, team, project, time, session_id, kind, text) VALUES (current_user, '', '/repo', now(), $1, 'state', 'x')",
		} {
			sp, err := tx.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sp.Exec(ctx, q, id); err != nil {
				sp.Rollback(ctx)
			} else {
				sp.Commit(ctx)
			}
		}
	}

	// alice's hooks go on within their time.
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, id := range ids {
		st := alice
		if id != "a-private" {
			st = aliceT
		}
		if err := st.Apply(hctx, next(id)); err != nil {
			t.Errorf("alice's ingest of %s: %v", id, err)
			continue
		}
		if _, err := st.AddNote(hctx, carryover.Note{SessionID: id, Project: "/repo", Kind: "state", Text: "alice's state"}); err != nil {
			t.Errorf("alice's state of %s: %v", id, err)
		}
		ss, err := st.Session(hctx, id)
		if err != nil || ss.Owner != f.r["alice"] {
			t.Errorf("alice's session %s: %+v, %v", id, ss, err)
		}
		want, wantItems := 5, 6 // chunks 0-4; their commands and the error
		if id == "a-next" {
			want, wantItems = 3, 5 // chunks 2-4; commands 0 and 2-4 and the error
		}
		if ss.Chunks != want {
			t.Errorf("alice's session %s has %d chunks, want %d", id, ss.Chunks, want)
		}
		its, err := st.Items(hctx, carryover.ItemFilter{SessionID: id})
		for _, it := range its {
			if it.Text == "intruder item" {
				t.Errorf("alice's session %s shows bob's item %+v", id, it)
			}
		}
		if err != nil || len(its) != wantItems {
			t.Errorf("alice's session %s has %d items (%v), want %d", id, len(its), err, wantItems)
		}
		if st, err := st.IngestState(hctx, id); err != nil || st.Offset != 5000 {
			t.Errorf("alice's ingest state of %s: %+v, %v", id, st, err)
		}
	}
	// Forgetting is not blocked either.
	if _, err := alice.Prune(hctx, carryover.PruneFilter{SessionID: "a-private", Forget: true}); err != nil {
		t.Errorf("alice's forget: %v", err)
	}
}

// TestRowSecurityNoExistenceOracle: whether another role has a session,
// an item key, a compaction or a chunk id changes nothing in what a write
// naming it does.
func TestRowSecurityNoExistenceOracle(t *testing.T) {
	ctx := context.Background()
	f := newRLS(t)
	alice := f.store(t, "alice", "")
	if err := alice.Apply(ctx, storetest.Batch("a-private", "/repo", 0, 2)); err != nil {
		t.Fatal(err)
	}
	cs, err := alice.Chunks(ctx, carryover.ChunkFilter{SessionID: "a-private", Turn: -1})
	if err != nil || len(cs) == 0 {
		t.Fatal(cs, err)
	}
	carol := f.store(t, "carol", "")
	if err := carol.Apply(ctx, storetest.Batch("c-1", "/repo", 0, 1)); err != nil {
		t.Fatal(err)
	}
	c := f.conn(t, "carol")
	pointer := strings.Replace(strings.Replace(rawItem, "chunk_seq,", "chunk_id, chunk_seq,", 1), "$1, 0, $3", "$1, $5, 0, $3", 1)
	for _, p := range []struct {
		sql             string
		exists, missing []any
	}{
		{"INSERT INTO sessions (id, owner, team, project) VALUES ($1, current_user, $2, '/repo')",
			[]any{"a-private", ""}, []any{"a-missing", ""}},
		{rawItem, []any{"a-private", "", "command", "command:go test cache0"}, []any{"a-missing", "", "command", "command:go test cache0"}},
		{rawCompaction, []any{"a-private", "", 1}, []any{"a-missing", "", 1}},
		{rawChunk, []any{"a-private", ""}, []any{"a-missing", ""}},
		{pointer, []any{"c-1", "", "note", "n", cs[0].ID}, []any{"c-1", "", "note", "n", cs[0].ID + 100000}},
	} {
		got, want := outcome(c, p.sql, p.exists...), outcome(c, p.sql, p.missing...)
		if got != want {
			t.Errorf("carol tells alice's key from a missing one: %s vs %s\n%s %v", got, want, p.sql, p.exists)
		}
	}
	// The store: her batch of a session with alice's id is as any other.
	for _, id := range []string{"a-private", "a-missing"} {
		if err := carol.Apply(ctx, storetest.Batch(id, "/repo", 0, 1)); err != nil {
			t.Errorf("carol's batch of %s: %v", id, err)
		}
	}
}

// TestRowSecurityUpgrade upgrades a version 2 schema holding what its
// policies let through: a teammate's rows in alice's sessions and a row
// shared with a team its owner is not in. Alice's sessions read and ingest
// on as before; the teammate's rows become a session of his own; the
// outsider's row becomes private.
func TestRowSecurityUpgrade(t *testing.T) {
	ctx := context.Background()
	admin := newSchema(t, serverURL(t, "CARRYOVER_TEST_DATABASE_URL"))
	if err := postgres.MigrateTo(ctx, admin, 2); err != nil {
		t.Fatal(err)
	}
	f := &rlsFixture{admin: admin}
	f.r, f.team = roles(t, admin, "alice", "bob", "carol")
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "GRANT "+f.team+" TO "+f.r["alice"]+", "+f.r["bob"]); err != nil {
		t.Fatal(err)
	}
	// Version 2 rows, by hand as each role (the store writes version 3).
	a, b, c := f.conn(t, "alice"), f.conn(t, "bob"), f.conn(t, "carol")
	for _, step := range []struct {
		c    *pgx.Conn
		sql  string
		args []any
	}{
		{a, `INSERT INTO sessions (id, owner, team, project, title, ingest_path, ingest_file_id, ingest_offset, ingest_line)
			VALUES ($1, current_user, '', '/repo', 'alice private', '/t/a.jsonl', 'dev:ino:42', 2000, 20),
			($2, current_user, $3, '/repo', 'alice shared', '/t/b.jsonl', 'dev:ino:42', 2000, 20)`, []any{"a-private", "a-shared", f.team}},
		{a, `INSERT INTO chunks (owner, team, project, session_id, seq, turn, win, first_line, last_line, prompt, summary, text, hash, tsv)
			SELECT current_user, s.team, '/repo', s.id, n, 0, 0, 10*n+1, 10*n+9, 'p', 's', 'step of alice', s.id || '-' || n, to_tsvector('simple', 'step of alice')
			FROM sessions s, generate_series(0, 1) n`, nil},
		{a, `INSERT INTO items (owner, team, project, session_id, chunk_id, chunk_seq, kind, key, text, detail, turn, win, line, weight, resolved, count)
			SELECT current_user, s.team, '/repo', s.id, c.id, 0, 'command', 'command:go test cache0', 'alice item', '', 0, 0, 5, 0.5, false, 1
			FROM sessions s JOIN chunks c ON c.session_id = s.id AND c.seq = 0`, nil},
		{a, `INSERT INTO compactions (owner, team, project, session_id, win, trigger_type, pre_tokens, post_tokens, line, summary)
			SELECT current_user, team, '/repo', id, 1, 'auto', 1, 1, 40, 'alice summary' FROM sessions`, nil},
		{a, `INSERT INTO notes (owner, team, project, time, session_id, kind, text)
			SELECT current_user, team, '/repo', now(), id, 'state', 'alice state' FROM sessions`, nil},
		{b, rawChunk, []any{"a-private", f.team}},
		{b, rawChunk, []any{"a-shared", f.team}},
		{b, rawItem, []any{"a-private", f.team, "command", "command:go test cache1"}},
		{b, rawCompaction, []any{"a-shared", f.team, 2}},
		{b, rawNote, []any{"a-private", f.team}},
		{c, `INSERT INTO sessions (id, owner, team, project) VALUES ('c-1', current_user, $1, '/repo')`, []any{f.team}},
		{c, rawNote, []any{"c-1", f.team}},
	} {
		if err := runSQL(step.c, step.sql, step.args...); err != nil {
			t.Fatalf("%v: %s", err, step.sql)
		}
	}

	open(t, admin, postgres.Options{Owner: "admin"}).Close() // migrates
	alice := f.store(t, "alice", "")
	for _, id := range []string{"a-private", "a-shared"} {
		got := view(t, alice, id)
		if strings.Contains(got, "intruder") || strings.Count(got, "chunk ") != 2 || strings.Count(got, "\nitem ") != 1 ||
			strings.Count(got, "compaction ") != 1 || !strings.Contains(got, "Offset:2000") {
			t.Errorf("alice's %s after the upgrade:\n%s", id, got)
		}
		if err := alice.Apply(ctx, storetest.Batch(id, "/repo", 2, 2)); err != nil {
			t.Errorf("alice's ingest of %s after the upgrade: %v", id, err)
		}
		if ss, err := alice.Session(ctx, id); err != nil || ss.Chunks != 4 || ss.Owner != f.r["alice"] {
			t.Errorf("alice's %s after an ingest: %+v, %v", id, ss, err)
		}
	}
	if ss, err := alice.Session(ctx, "a-shared"); err != nil || ss.Team != f.team {
		t.Errorf("alice's shared session after the upgrade: %+v, %v", ss, err)
	}
	// bob's rows in her sessions are private sessions of his.
	bob := f.store(t, "bob", "")
	for _, id := range []string{"a-private", "a-shared"} {
		if ss, err := bob.Session(ctx, id); err != nil || ss.Owner != f.r["bob"] || ss.Team != "" || ss.Chunks != 1 {
			t.Errorf("bob's rows of %s after the upgrade: %+v, %v", id, ss, err)
		}
	}
	if cs, err := bob.Compactions(ctx, "a-shared"); err != nil || len(cs) != 1 || cs[0].Summary != "intruder summary" {
		t.Errorf("bob's compactions of a-shared: %+v, %v", cs, err)
	}
	if its, err := bob.Items(ctx, carryover.ItemFilter{SessionID: "a-private"}); err != nil || len(its) != 1 || its[0].Text != "intruder item" {
		t.Errorf("bob's items of a-private: %+v, %v", its, err)
	}
	// carol's note shared with a team she is not in is private.
	if ns, err := bob.Notes(ctx, "/repo", ""); err != nil || slices.ContainsFunc(ns, func(n carryover.Note) bool { return n.SessionID == "c-1" }) {
		t.Errorf("bob reads carol's note after the upgrade: %+v, %v", ns, err)
	}
	if ss, err := bob.Sessions(ctx, carryover.SessionFilter{}); err != nil || slices.ContainsFunc(ss, func(s carryover.Session) bool { return s.ID == "c-1" }) {
		t.Errorf("bob sees carol's session after the upgrade: %+v, %v", ss, err)
	}
}

// TestRowSecurityCopy: copying an archive to the server as its owner (what
// sync does) goes through the policies, and a teammate's session with the
// id of one being copied neither blocks the copy nor stands in for the
// owner's session.
func TestRowSecurityCopy(t *testing.T) {
	ctx := context.Background()
	f := newRLS(t)
	src, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "src.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	shared := storetest.Batch("a-2", "/repo", 0, 3)
	shared.Session.Team = f.team
	for _, b := range []carryover.Batch{storetest.Batch("a-1", "/repo", 0, 4), shared} {
		if err := src.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
		if _, err := src.AddNote(ctx, carryover.Note{SessionID: b.Session.ID, Project: "/repo", Kind: "state", Text: "alice's state"}); err != nil {
			t.Fatal(err)
		}
	}
	// bob, alice's teammate, has sessions with both ids, shared.
	bob := f.store(t, "bob", f.team)
	for _, id := range []string{"a-1", "a-2"} {
		b := storetest.Batch(id, "/repo", 0, 6)
		b.State.Offset = 99000
		if err := bob.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}

	alice := f.store(t, "alice", "")
	for range 2 {
		if _, err := replicate.Copy(ctx, alice, src, replicate.Options{Batch: 2}); err != nil {
			t.Fatalf("alice's copy to the server: %v", err)
		}
	}
	for _, want := range []struct {
		id     string
		chunks int
		team   string
	}{{"a-1", 4, ""}, {"a-2", 3, f.team}} {
		ss, err := alice.Session(ctx, want.id)
		if err != nil || ss.Owner != f.r["alice"] || ss.Chunks != want.chunks || ss.Team != want.team {
			t.Errorf("alice's %s on the server: %+v, %v; want %d chunks, team %q", want.id, ss, err, want.chunks, want.team)
		}
		if st, err := alice.IngestState(ctx, want.id); err != nil || st.Offset != int64(1000*want.chunks) {
			t.Errorf("alice's ingest state of %s: %+v, %v", want.id, st, err)
		}
		if ns, err := alice.Notes(ctx, "", want.id); err != nil || len(ns) != 1 {
			t.Errorf("alice's notes of %s: %+v, %v", want.id, ns, err)
		}
	}
}
