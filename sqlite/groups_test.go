package sqlite_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
)

// TestItemGroups: each group reads what Items reads with its kinds and
// limit, in the same order, whatever the filter.
func TestItemGroups(t *testing.T) {
	st, _ := newStore(t)
	ctx := context.Background()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for s, id := range []string{"aaaa0000-0000-4000-8000-000000000001", "aaaa0000-0000-4000-8000-000000000002"} {
		var chunks []carryover.Chunk
		var items []carryover.Item
		for seq := range 120 {
			chunks = append(chunks, carryover.Chunk{SessionID: id, Seq: seq, Turn: seq / 10, Window: seq / 40,
				FirstLine: seq*2 + 1, LastLine: seq*2 + 2, Start: start, End: start,
				Text: fmt.Sprintf("chunk %d of %d", seq, s), Hash: fmt.Sprintf("h%d-%d", s, seq)})
			// Uneven counts per kind: some kinds fill their limit, some
			// do not, one is absent; lines repeat (ties go by id).
			for k, kind := range carryover.ItemKinds[:len(carryover.ItemKinds)-1] {
				if seq%(k+1) != 0 {
					continue
				}
				items = append(items, carryover.Item{ChunkSeq: seq, Kind: kind, Turn: seq / 10, Window: seq / 40,
					Line: seq*2 + 1 + k%2, Time: start.Add(time.Duration(seq*7%50) * time.Minute), Weight: 0.5,
					Key: fmt.Sprintf("%s-%d", kind, seq), Text: fmt.Sprintf("%s %d of session %d", kind, seq, s)})
			}
		}
		b := carryover.Batch{Session: carryover.Session{ID: id, Project: "/src/p", Started: start}, Chunks: chunks, Items: items}
		if err := st.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	// A group without a limit; limits that add up to more than a
	// session's items (read in one statement); limits that add up to
	// fewer (ids first, then the rows picked).
	for _, groups := range [][]carryover.ItemGroup{{
		{Kinds: []carryover.ItemKind{carryover.KindGoal}, Limit: 6},
		{Kinds: []carryover.ItemKind{carryover.KindError, carryover.KindFix}, Limit: 25},
		{Kinds: []carryover.ItemKind{carryover.KindCommand}},
		{Kinds: []carryover.ItemKind{carryover.KindValue, carryover.KindMarker}, Limit: 1000},
		{Kinds: []carryover.ItemKind{carryover.KindTodo}, Limit: 3},
	}, {
		{Kinds: []carryover.ItemKind{carryover.KindGoal}, Limit: 6},
		{Kinds: []carryover.ItemKind{carryover.KindError, carryover.KindFix}, Limit: 25},
		{Kinds: []carryover.ItemKind{carryover.KindCommand}, Limit: 1000},
		{Kinds: []carryover.ItemKind{carryover.KindValue, carryover.KindMarker}, Limit: 1000},
		{Kinds: []carryover.ItemKind{carryover.KindTodo}, Limit: 3},
	}, {
		{Kinds: []carryover.ItemKind{carryover.KindGoal}, Limit: 6},
		{Kinds: []carryover.ItemKind{carryover.KindError, carryover.KindFix}, Limit: 25},
		{Kinds: []carryover.ItemKind{carryover.KindCommand}, Limit: 10},
		{Kinds: []carryover.ItemKind{carryover.KindTodo}, Limit: 3},
	}, {
		// The edits, commands and errors of the filter's last window only,
		// as the compaction instructions read them.
		{Kinds: []carryover.ItemKind{carryover.KindGoal}, Limit: 6},
		{Kinds: []carryover.ItemKind{carryover.KindError, carryover.KindFix}, Limit: 25, LastWindow: true},
		{Kinds: []carryover.ItemKind{carryover.KindCommand}, Limit: 1000, LastWindow: true},
		{Kinds: []carryover.ItemKind{carryover.KindTodo}, Limit: 3, LastWindow: true},
	}} {
		testItemGroups(t, st, groups)
	}
	// The last window's group holds that window's items only, all of them
	// up to its limit.
	f := carryover.ItemFilter{SessionID: "aaaa0000-0000-4000-8000-000000000001", BeforeWindow: 3}
	got, err := st.ItemGroups(ctx, f, []carryover.ItemGroup{
		{Kinds: []carryover.ItemKind{carryover.KindCommand}, LastWindow: true},
		{Kinds: []carryover.ItemKind{carryover.KindGoal}},
	})
	if err != nil {
		t.Fatal(err)
	}
	windows := map[int]int{}
	for _, it := range got[0] {
		windows[it.Window]++
	}
	goals := map[int]int{}
	for _, it := range got[1] {
		goals[it.Window]++
	}
	if len(windows) != 1 || windows[2] == 0 || len(goals) != 3 {
		t.Errorf("commands of the last window by window %v, goals of all windows by window %v", windows, goals)
	}
	if _, err := st.ItemGroups(ctx, carryover.ItemFilter{}, []carryover.ItemGroup{
		{Kinds: []carryover.ItemKind{carryover.KindGoal}}, {Kinds: []carryover.ItemKind{carryover.KindGoal, carryover.KindTodo}},
	}); err == nil {
		t.Error("a kind in two groups: no error")
	}
}

func testItemGroups(t *testing.T, st *sqlite.Store, groups []carryover.ItemGroup) {
	t.Helper()
	ctx := context.Background()
	for _, f := range []carryover.ItemFilter{
		{SessionID: "aaaa0000-0000-4000-8000-000000000001"},
		{SessionID: "aaaa0000-0000-4000-8000-000000000002", BeforeWindow: 2},
		{SessionID: "aaaa0000-0000-4000-8000-000000000001", BeforeWindow: 3},
		{Project: "/src/p", BeforeWindow: 1},
		{SessionID: "aaaa0000-0000-4000-8000-000000000003"},
	} {
		got, err := st.ItemGroups(ctx, f, groups)
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		if len(got) != len(groups) {
			t.Fatalf("%+v: %d groups, want %d", f, len(got), len(groups))
		}
		each, err := sqlite.ItemGroupsEach(st, ctx, f, groups)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for g, gr := range groups {
			from := 0
			if gr.LastWindow && f.BeforeWindow > 1 {
				from = f.BeforeWindow - 1
			}
			want, err := st.Items(ctx, carryover.ItemFilter{SessionID: f.SessionID, Project: f.Project,
				BeforeWindow: f.BeforeWindow, FromWindow: from, Kinds: gr.Kinds, Limit: gr.Limit})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got[g], want) {
				t.Errorf("%+v group %v: %d items, want %d as Items reads them", f, gr.Kinds, len(got[g]), len(want))
			}
			if !reflect.DeepEqual(each[g], want) {
				t.Errorf("%+v group %v, a query per group: %d items, want %d", f, gr.Kinds, len(each[g]), len(want))
			}
			total += len(want)
		}
		if f.SessionID != "aaaa0000-0000-4000-8000-000000000003" && total == 0 {
			t.Errorf("%+v: nothing read", f)
		}
	}
}
