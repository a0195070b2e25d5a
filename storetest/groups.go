package storetest

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
)

// testItemGroups: a store that reads item groups in one query
// (carryover.ItemGrouper) reads what Items reads group by group, in the
// same order, for every filter, limit and LastWindow.
func testItemGroups(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	grouper, ok := st.(carryover.ItemGrouper)
	if !ok {
		t.Skip("the store reads a group at a time")
	}
	kinds := []carryover.ItemKind{carryover.KindGoal, carryover.KindFileEdit, carryover.KindCommand,
		carryover.KindError, carryover.KindFix, carryover.KindTodo, carryover.KindValue}
	for s, id := range []string{"g1", "g2"} {
		b := carryover.Batch{Session: carryover.Session{ID: id, Project: "/g", Started: base, Updated: base, Windows: 2}}
		for seq := range 60 {
			b.Chunks = append(b.Chunks, carryover.Chunk{SessionID: id, Project: "/g", Seq: seq, Turn: seq / 5, Window: seq / 20,
				FirstLine: 2*seq + 1, LastLine: 2*seq + 2, Start: base, End: base,
				Text: fmt.Sprintf("chunk %d of %s", seq, id), Hash: fmt.Sprintf("g%d-%d", s, seq)})
			// Uneven counts per kind; two kinds share a line (ties go
			// by id); times out of line order (the order across
			// sessions).
			for k, kind := range kinds {
				if seq%(k+1) != 0 {
					continue
				}
				b.Items = append(b.Items, carryover.Item{SessionID: id, ChunkSeq: seq, Kind: kind, Turn: seq / 5,
					Window: seq / 20, Line: 2*seq + 1 + k%2, Time: base.Add(time.Duration((seq*7+s)%50) * time.Minute),
					Weight: 0.5, Key: fmt.Sprintf("%s-%d", kind, seq), Text: fmt.Sprintf("%s %d of %s", kind, seq, id)})
			}
		}
		apply(t, st, b)
	}
	each := struct{ carryover.Store }{st} // hides the capability: a query per group
	// A store may read the groups in one statement when their limits add
	// up to more than the session's items (156 here), or the ids first
	// when they add up to fewer or a group has none: each way is here.
	for _, groups := range [][]carryover.ItemGroup{{
		{Kinds: []carryover.ItemKind{carryover.KindGoal}, Limit: 6},
		{Kinds: []carryover.ItemKind{carryover.KindError, carryover.KindFix}, Limit: 9},
		{Kinds: []carryover.ItemKind{carryover.KindCommand}},
		{Kinds: []carryover.ItemKind{carryover.KindTodo}, Limit: 1000},
	}, {
		{Kinds: []carryover.ItemKind{carryover.KindGoal}, Limit: 6},
		{Kinds: []carryover.ItemKind{carryover.KindError, carryover.KindFix}, Limit: 25},
		{Kinds: []carryover.ItemKind{carryover.KindCommand}, Limit: 1000},
		{Kinds: []carryover.ItemKind{carryover.KindValue, carryover.KindFileEdit}, Limit: 1000},
		{Kinds: []carryover.ItemKind{carryover.KindTodo}, Limit: 3},
	}, {
		{Kinds: []carryover.ItemKind{carryover.KindGoal}, Limit: 40},
		{Kinds: []carryover.ItemKind{carryover.KindFileEdit}, Limit: 4, LastWindow: true},
		{Kinds: []carryover.ItemKind{carryover.KindCommand}, Limit: 80, LastWindow: true},
		{Kinds: []carryover.ItemKind{carryover.KindError}, Limit: 25, LastWindow: true},
		{Kinds: []carryover.ItemKind{carryover.KindValue}, Limit: 2},
	}, {
		// The compaction instructions' groups, limits adding up to more.
		{Kinds: []carryover.ItemKind{carryover.KindGoal}, Limit: 40},
		{Kinds: []carryover.ItemKind{carryover.KindFileEdit}, Limit: 100, LastWindow: true},
		{Kinds: []carryover.ItemKind{carryover.KindCommand}, Limit: 80, LastWindow: true},
		{Kinds: []carryover.ItemKind{carryover.KindError}, Limit: 50, LastWindow: true},
		{Kinds: []carryover.ItemKind{carryover.KindTodo}, Limit: 1},
	}} {
		total := 0
		for _, f := range []carryover.ItemFilter{
			{SessionID: "g1"},
			{SessionID: "g2", BeforeWindow: 2},
			{SessionID: "g1", BeforeWindow: 3},
			{Project: "/g", BeforeWindow: 2},
			{SessionID: "none"},
		} {
			got, err := grouper.ItemGroups(ctx, f, groups)
			if err != nil {
				t.Fatalf("%+v: %v", f, err)
			}
			want, err := carryover.ReadItemGroups(ctx, each, f, groups)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(groups) {
				t.Fatalf("%+v: %d groups, want %d", f, len(got), len(groups))
			}
			for g := range groups {
				if !reflect.DeepEqual(got[g], want[g]) {
					t.Errorf("%+v group %+v: %d items, want %d as Items reads them", f, groups[g], len(got[g]), len(want[g]))
				}
				total += len(want[g])
			}
		}
		if total == 0 {
			t.Errorf("groups %+v: nothing read", groups)
		}
	}
	// The last window's group holds that window's items only.
	got, err := grouper.ItemGroups(ctx, carryover.ItemFilter{SessionID: "g1", BeforeWindow: 3}, []carryover.ItemGroup{
		{Kinds: []carryover.ItemKind{carryover.KindCommand}, LastWindow: true}, {Kinds: []carryover.ItemKind{carryover.KindGoal}},
	})
	if err != nil {
		t.Fatal(err)
	}
	windows, goals := map[int]int{}, map[int]int{}
	for _, it := range got[0] {
		windows[it.Window]++
	}
	for _, it := range got[1] {
		goals[it.Window]++
	}
	if len(windows) != 1 || windows[2] == 0 || len(goals) != 3 {
		t.Errorf("commands of the last window by window %v, goals of every window by window %v", windows, goals)
	}
	if _, err := grouper.ItemGroups(ctx, carryover.ItemFilter{SessionID: "g1"}, []carryover.ItemGroup{
		{Kinds: []carryover.ItemKind{carryover.KindGoal}}, {Kinds: []carryover.ItemKind{carryover.KindGoal, carryover.KindTodo}},
	}); err == nil {
		t.Error("a kind in two groups: no error")
	}
}

// testRestoreReads: what a restore reads, at once where the store can
// (carryover.RestoreReader), is what the reads one after the other give.
func testRestoreReads(t *testing.T, st carryover.Store) {
	ctx := context.Background()
	apply(t, st, Batch("s1", "/p", 0, 8), Batch("s2", "/p", 0, 3))
	for _, n := range []carryover.Note{
		{Time: base, SessionID: "s1", Project: "/p", Kind: "decision", Text: "use sqlite"},
		{Time: base, Project: "/p", Kind: "constraint", Text: "no network in hooks"},
		{Time: base, SessionID: "s2", Project: "/p", Kind: "state", Text: "other session"},
	} {
		if _, err := st.AddNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	each := struct{ carryover.Store }{st} // hides the capabilities
	groups := []carryover.ItemGroup{
		{Kinds: []carryover.ItemKind{carryover.KindCommand}, Limit: 5},
		{Kinds: []carryover.ItemKind{carryover.KindError, carryover.KindFix}, Limit: 2},
		{Kinds: []carryover.ItemKind{carryover.KindGoal}},
	}
	read := 0
	for _, tc := range []struct{ session, project string }{{"s1", "/p"}, {"s1", ""}, {"s2", "/p"}, {"none", "/q"}} {
		r := carryover.RestoreReads{
			Items:  carryover.ItemFilter{SessionID: tc.session, BeforeWindow: 2},
			Groups: groups, SessionID: tc.session, Project: tc.project,
			Recent: carryover.ChunkFilter{SessionID: tc.session, Turn: -1, BeforeWindow: 2, Newest: true, Limit: 3},
		}
		got, err := carryover.ReadForRestore(ctx, st, r)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		want, err := carryover.ReadForRestore(ctx, each, r)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Groups) != len(groups) {
			t.Fatalf("%+v: %d groups, want %d", tc, len(got.Groups), len(groups))
		}
		for g := range groups {
			if (len(got.Groups[g]) > 0 || len(want.Groups[g]) > 0) && !reflect.DeepEqual(got.Groups[g], want.Groups[g]) {
				t.Errorf("%+v group %d: %d items, want %d", tc, g, len(got.Groups[g]), len(want.Groups[g]))
			}
			read += len(got.Groups[g])
		}
		if !reflect.DeepEqual(got.SessionNotes, want.SessionNotes) || !reflect.DeepEqual(got.ProjectNotes, want.ProjectNotes) {
			t.Errorf("%+v notes: %+v, %+v; want %+v, %+v", tc, got.SessionNotes, got.ProjectNotes, want.SessionNotes, want.ProjectNotes)
		}
		if !reflect.DeepEqual(got.Recent, want.Recent) {
			t.Errorf("%+v: %d recent chunks, want %d", tc, len(got.Recent), len(want.Recent))
		}
		read += len(got.SessionNotes) + len(got.ProjectNotes) + len(got.Recent)
		if tc.project == "" && len(got.ProjectNotes) != 0 {
			t.Errorf("%+v: project notes read without a project", tc)
		}
	}
	if read == 0 {
		t.Error("nothing read")
	}
}
