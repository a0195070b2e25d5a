package postgres_test

import (
	"context"
	"slices"
	"testing"

	"github.com/carryover-dev/carryover"
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
