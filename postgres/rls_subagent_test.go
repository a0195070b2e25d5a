package postgres_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/storetest"
)

// TestRowSecuritySubagentsStayTheirOwners: a session another role
// archives with the id of one of the reader's sessions as its parent is
// not a subagent of the reader's session. The MCP tools, the web view,
// `carryover show` and an export list a session's subagents through
// Sessions with a Parent filter, so a teammate could otherwise put a
// transcript of their choosing under alice's session.
func TestRowSecuritySubagentsStayTheirOwners(t *testing.T) {
	ctx := context.Background()
	f := newRLS(t)
	alice := f.store(t, "alice", f.team)
	parent := storetest.Batch("a-1", "/repo", 0, 2)
	if err := alice.Apply(ctx, parent); err != nil {
		t.Fatal(err)
	}
	own := storetest.Batch("a-1/agent-own", "/repo", 0, 1)
	own.Session.Parent = "a-1"
	if err := alice.Apply(ctx, own); err != nil {
		t.Fatal(err)
	}

	// bob, her teammate, shares with the team two sessions naming hers as
	// their parent, in both layouts, and a session of his own with her
	// session's id that has a subagent.
	bob := f.store(t, "bob", f.team)
	for _, id := range []string{"a-1/agent-bob", "agent-bob2"} {
		b := storetest.Batch(id, "/repo", 0, 1)
		b.Session.Parent, b.Session.Title = "a-1", "bob was here"
		if err := bob.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := bob.Apply(ctx, storetest.Batch("a-1", "/repo", 0, 1)); err != nil {
		t.Fatal(err)
	}
	sub := storetest.Batch("a-1/agent-bob3", "/repo", 0, 1)
	sub.Session.Parent = "a-1"
	if err := bob.Apply(ctx, sub); err != nil {
		t.Fatal(err)
	}
	// Bob's own session b-1 and its subagent are his to show, to alice too.
	if err := bob.Apply(ctx, storetest.Batch("b-1", "/repo", 0, 1)); err != nil {
		t.Fatal(err)
	}
	bsub := storetest.Batch("b-1/agent-x", "/repo", 0, 1)
	bsub.Session.Parent = "b-1"
	if err := bob.Apply(ctx, bsub); err != nil {
		t.Fatal(err)
	}

	subIDs := func(st carryover.Store, parent string) []string {
		t.Helper()
		subs, err := retrieve.Subagents(ctx, st, parent)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range subs {
			ids = append(ids, s.Owner+" "+s.ID)
		}
		slices.Sort(ids)
		return ids
	}
	if got, want := subIDs(alice, "a-1"), []string{f.r["alice"] + " a-1/agent-own"}; !slices.Equal(got, want) {
		t.Errorf("subagents of alice's a-1, as alice: %q, want %q", got, want)
	}
	if ss, err := alice.Session(ctx, "a-1"); err != nil || ss.Subagents != 1 {
		t.Errorf("alice's a-1: %d subagents, %v; want 1", ss.Subagents, err)
	}
	// Bob sees his own session a-1 and its subagents.
	if got, want := subIDs(bob, "a-1"), []string{f.r["bob"] + " a-1/agent-bob", f.r["bob"] + " a-1/agent-bob3", f.r["bob"] + " agent-bob2"}; !slices.Equal(got, want) {
		t.Errorf("subagents of bob's a-1, as bob: %q, want %q", got, want)
	}
	if got, want := subIDs(alice, "b-1"), []string{f.r["bob"] + " b-1/agent-x"}; !slices.Equal(got, want) {
		t.Errorf("subagents of bob's b-1, as alice: %q, want %q", got, want)
	}
}

// TestRowSecuritySharedSessionStaysItsOwners: a session a teammate shares
// reads, to another member, as that teammate's session alone. A third
// member who archives a session of the same id, shared with the team,
// does not add rows to it (the reader has no session of that id, so the
// rule that hides other roles' rows under the reader's own ids does not
// apply).
func TestRowSecuritySharedSessionStaysItsOwners(t *testing.T) {
	ctx := context.Background()
	f := newRLS(t)
	bob := f.store(t, "bob", f.team)
	b := storetest.Batch("b-1", "/repo", 0, 2)
	if err := bob.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.AddNote(ctx, carryover.Note{SessionID: "b-1", Project: "/repo", Kind: "state", Text: "bob's state"}); err != nil {
		t.Fatal(err)
	}
	alice := f.store(t, "alice", "")
	before := sessionView(t, alice, "b-1")

	// dave joins the team and writes a session of his own with bob's id.
	r, _ := roles(t, f.admin, "dave")
	conn, err := pgx.Connect(ctx, f.admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := runSQL(conn, "GRANT "+f.team+" TO "+r["dave"]); err != nil {
		t.Fatal(err)
	}
	dave := open(t, asRole(t, f.admin, r["dave"]), postgres.Options{Owner: r["dave"], Team: f.team})
	d := storetest.Batch("b-1", "/repo", 0, 3)
	d.Session.Title = "dave was here"
	for i := range d.Chunks {
		d.Chunks[i].Text += " zebra intruder"
	}
	d.Items[0].Text, d.Items[0].Line = "intruder item", 99999
	d.Compactions[0].Summary = "intruder summary"
	if err := dave.Apply(ctx, d); err != nil {
		t.Fatal(err)
	}
	dave.AddNote(ctx, carryover.Note{SessionID: "b-1", Project: "/repo", Kind: "state", Text: "intruder state"})
	dave.RecordInjection(ctx, carryover.Injection{SessionID: "b-1", Project: "/repo", Event: "SessionStart:compact", Hash: "intruder"})
	dave.RecordHookRun(ctx, carryover.HookRun{Time: time.Now(), SessionID: "b-1", Project: "/repo", Event: "Stop", Outcome: "intruder"})

	if got := sessionView(t, alice, "b-1"); got != before {
		t.Errorf("bob's session b-1, as alice, after dave's writes:\n%s\nbefore:\n%s", got, before)
	}
}

// sessionView is view without what is not the session: the listing of
// every session (dave's session of that id is one of its own there) and
// the project's notes.
func sessionView(t *testing.T, st *postgres.Store, id string) string {
	t.Helper()
	var out []string
	notes := 0
	for _, l := range strings.SplitAfter(view(t, st, id), "\n") {
		switch {
		case strings.HasPrefix(l, "listed "):
			continue
		case strings.HasPrefix(l, "notes "):
			notes++
			if notes == 2 {
				continue
			}
		case strings.HasPrefix(l, "note ") && notes == 1:
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "")
}
