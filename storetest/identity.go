package storetest

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
)

// family applies a session P with two subagents: one of the subagents/
// layout ("P/agent-a1", in a worktree of the project) and one of the flat
// layout ("agent-b2"), and a session of another project.
func family(t *testing.T, st carryover.Store) {
	t.Helper()
	p := Batch("7f3c2a9e-1111", "/src/app", 0, 4)
	p.Session.Cwd, p.Session.Branch = "/src/app/internal", "main"
	a := Batch("7f3c2a9e-1111/agent-a1", "/src/app", 0, 2)
	a.Session.Parent, a.Session.Cwd, a.Session.Branch = "7f3c2a9e-1111", "/src/app/.claude/worktrees/a1", "worktree-a1"
	a.Session.Title = "Find the flaky test"
	a.Session.Updated = base.Add(10 * time.Minute)
	b := Batch("agent-b2", "/src/app", 0, 1)
	b.Session.Parent, b.Session.Cwd = "7f3c2a9e-1111", "/src/app"
	b.Session.Started = base.Add(-time.Minute)
	o := Batch("7f3c9999-2222", "/src/other", 0, 1)
	apply(t, st, p, a, b, o)
}

func ids(ss []carryover.Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}

func sessions(t *testing.T, st carryover.Store, f carryover.SessionFilter) []carryover.Session {
	t.Helper()
	ss, err := st.Sessions(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// testSessionFamily checks the parent, cwd and branch of sessions, the
// subagent counts and the filters that list a family.
func testSessionFamily(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	family(t, st)
	p, err := st.Session(ctx, "7f3c2a9e-1111")
	if err != nil {
		t.Fatal(err)
	}
	if p.Parent != "" || p.Subagents != 2 || p.Cwd != "/src/app/internal" || p.Branch != "main" || p.Chunks != 4 {
		t.Errorf("parent = %+v, want no parent, 2 subagents, its cwd and branch, 4 chunks", p)
	}
	a, err := st.Session(ctx, "7f3c2a9e-1111/agent-a1")
	if err != nil {
		t.Fatal(err)
	}
	if a.Parent != "7f3c2a9e-1111" || a.Subagents != 0 || a.Cwd != "/src/app/.claude/worktrees/a1" || a.Branch != "worktree-a1" ||
		a.Project != "/src/app" || a.Title != "Find the flaky test" {
		t.Errorf("subagent = %+v", a)
	}
	if got, want := ids(sessions(t, st, carryover.SessionFilter{TopLevel: true})), []string{"7f3c2a9e-1111", "7f3c9999-2222"}; !slices.Equal(got, want) {
		t.Errorf("top-level sessions = %v, want %v", got, want)
	}
	if got, want := ids(sessions(t, st, carryover.SessionFilter{Parent: "7f3c2a9e-1111"})), []string{"7f3c2a9e-1111/agent-a1", "agent-b2"}; !slices.Equal(got, want) {
		t.Errorf("subagents = %v, want %v (most recently updated first)", got, want)
	}
	if got := sessions(t, st, carryover.SessionFilter{TopLevel: true, Project: "/src/app"}); len(got) != 1 || got[0].Subagents != 2 {
		t.Errorf("top-level sessions of /src/app = %+v, want the parent with 2 subagents", got)
	}
	// NoCounts lists the same sessions in the same order, every field
	// but the counts as they are.
	full := sessions(t, st, carryover.SessionFilter{TopLevel: true})
	light := sessions(t, st, carryover.SessionFilter{TopLevel: true, NoCounts: true})
	if len(light) != len(full) {
		t.Fatalf("NoCounts: %d sessions, want %d", len(light), len(full))
	}
	for i, l := range light {
		f := full[i]
		if l.Chunks != 0 || l.Shared != 0 || l.Subagents != 0 {
			t.Errorf("NoCounts: session %s has counts %d/%d/%d, want zeros", l.ID, l.Chunks, l.Shared, l.Subagents)
		}
		f.Chunks, f.Shared, f.Subagents = 0, 0, 0
		if !reflect.DeepEqual(l, f) {
			t.Errorf("NoCounts: session %d = %+v, want %+v", i, l, f)
		}
	}
	for prefix, want := range map[string][]string{
		"7f3c":           {"7f3c2a9e-1111", "7f3c2a9e-1111/agent-a1", "7f3c9999-2222"},
		"7f3c2a9e":       {"7f3c2a9e-1111", "7f3c2a9e-1111/agent-a1"},
		"7f3c2a9e-1111":  {"7f3c2a9e-1111", "7f3c2a9e-1111/agent-a1"},
		"7f3c2a9e-1111/": {"7f3c2a9e-1111/agent-a1"},
		"agent-":         {"agent-b2"},
		"7f3c_":          nil, // no wildcard
		"7F3C":           nil, // case matters
		"zzz":            nil,
	} {
		got := ids(sessions(t, st, carryover.SessionFilter{IDPrefix: prefix}))
		slices.Sort(got)
		if len(got) == 0 {
			got = nil
		}
		if !slices.Equal(got, want) {
			t.Errorf("sessions with prefix %q = %v, want %v", prefix, got, want)
		}
	}

	// Later batches neither clear nor move the parent, project or cwd; a
	// branch reported later replaces the stored one, an empty one does not.
	later := Batch("7f3c2a9e-1111/agent-a1", "/elsewhere", 2, 1)
	later.Session.Parent, later.Session.Cwd, later.Session.Branch = "", "/elsewhere", ""
	for i := range later.Chunks {
		later.Chunks[i].Project = ""
	}
	apply(t, st, later)
	again := Batch("7f3c2a9e-1111", "/src/app", 4, 1)
	again.Session.Cwd, again.Session.Branch = "", "feature"
	apply(t, st, again)
	if a, err = st.Session(ctx, "7f3c2a9e-1111/agent-a1"); err != nil {
		t.Fatal(err)
	}
	if a.Parent != "7f3c2a9e-1111" || a.Project != "/src/app" || a.Cwd != "/src/app/.claude/worktrees/a1" || a.Branch != "worktree-a1" {
		t.Errorf("subagent after a later batch = %+v", a)
	}
	if p, err = st.Session(ctx, "7f3c2a9e-1111"); err != nil {
		t.Fatal(err)
	}
	if p.Cwd != "/src/app/internal" || p.Branch != "feature" {
		t.Errorf("parent after a later batch: cwd %q branch %q, want /src/app/internal and feature", p.Cwd, p.Branch)
	}

	self := Batch("s1", "/p", 0, 1)
	self.Session.Parent = "s1"
	if err := st.Apply(ctx, self); err == nil {
		t.Error("a session that is its own parent was stored")
	}
}

// testPruneFamily checks that a session goes with its subagents, and only
// its own.
func testPruneFamily(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	family(t, st)
	dry, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "7f3c2a9e-1111", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(dry.Sessions)
	slices.Sort(got)
	if want := []string{"7f3c2a9e-1111", "7f3c2a9e-1111/agent-a1", "agent-b2"}; !slices.Equal(got, want) || dry.Chunks != 7 {
		t.Fatalf("dry run = %+v, want sessions %v and 7 chunks", dry, want)
	}
	rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "7f3c2a9e-1111"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep, dry) {
		t.Errorf("prune = %+v, dry run said %+v", rep, dry)
	}
	if left := ids(sessions(t, st, carryover.SessionFilter{})); !slices.Equal(left, []string{"7f3c9999-2222"}) {
		t.Errorf("sessions left = %v, want only the other project's", left)
	}
	if n := len(allChunks(t, st, "")); n != 1 {
		t.Errorf("%d chunks left, want 1", n)
	}
	// Pruning a subagent alone leaves its parent.
	family(t, st)
	if _, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "agent-b2"}); err != nil {
		t.Fatal(err)
	}
	if p, err := st.Session(ctx, "7f3c2a9e-1111"); err != nil || p.Subagents != 1 {
		t.Errorf("parent after pruning a subagent = %+v, %v; want 1 subagent", p, err)
	}
}

// testForgetFamily checks that forgetting a session refuses its subagents
// too, also those archived only later, until the forget is undone.
func testForgetFamily(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	family(t, st)
	rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: "7f3c2a9e-1111", Forget: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sessions) != 3 {
		t.Errorf("forget removed %v, want the session and its 2 subagents", rep.Sessions)
	}
	late := Batch("7f3c2a9e-1111/agent-c3", "/src/app", 0, 1)
	late.Session.Parent = "7f3c2a9e-1111"
	if err := st.Apply(ctx, late); !errors.Is(err, carryover.ErrForgotten) {
		t.Fatalf("apply of a forgotten session's subagent: %v, want ErrForgotten", err)
	}
	if _, err := st.Session(ctx, "7f3c2a9e-1111/agent-c3"); !errors.Is(err, carryover.ErrNotFound) {
		t.Errorf("forgotten session's subagent stored: %v", err)
	}
	other := Batch("7f3c9999-2222/agent-d4", "/src/other", 0, 1)
	other.Session.Parent = "7f3c9999-2222"
	apply(t, st, other)
	if err := st.Unforget(ctx, "7f3c2a9e-1111"); err != nil {
		t.Fatal(err)
	}
	apply(t, st, late)
}
