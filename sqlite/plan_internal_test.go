package sqlite

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/carryover-dev/carryover"
)

func TestByRarity(t *testing.T) {
	ts := []termCount{
		{term: "common", rows: 11, reach: 20},
		{term: "rare", rows: 3, reach: 40},
		{term: "rarest common", rows: 11, reach: 90},
		{term: "also rare", rows: 3, reach: 10},
		{term: "tied", rows: 11, reach: 20},
	}
	byRarity(ts, 10)
	var got []string
	for _, tc := range ts {
		got = append(got, tc.term)
	}
	// By rows; terms over the limit by their reach; ties in query order.
	want := []string{"rare", "also rare", "rarest common", "common", "tied"}
	if !slices.Equal(got, want) {
		t.Errorf("byRarity = %q, want %q", got, want)
	}
}

// TestPlanCounts: one walk per term counts its matches within the rowid
// range up to limit+1, and gives a term with more its reach, the rowid
// of its limit+1st match; a term matching nothing is dropped.
func TestPlanCounts(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "carryover.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// wren in every chunk, finch in every second, crane in every third,
	// ibis in the first four: over 12 chunks, 12, 6, 4 and 4 matches.
	var chunks []carryover.Chunk
	for i := range 12 {
		text := "wren"
		if i%2 == 0 {
			text += " finch"
		}
		if i%3 == 0 {
			text += " crane"
		}
		if i < 4 {
			text += " ibis"
		}
		chunks = append(chunks, carryover.Chunk{Seq: i, Turn: i, Hash: fmt.Sprint(i), Text: text})
	}
	if err := st.Apply(ctx, carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p"}, Chunks: chunks}); err != nil {
		t.Fatal(err)
	}
	var first int64
	if err := st.db.QueryRow(`SELECT min(id) FROM chunks`).Scan(&first); err != nil {
		t.Fatal(err)
	}
	terms := queryTerms("wren finch crane ibis dodo")
	for _, tc := range []struct {
		lo, hi int64
		limit  int
		df     map[string]int
		match  string
		capped bool
	}{
		// finch's 6 matches are one over the limit: it is capped too.
		{first, first + 11, 5, map[string]int{"wren": 6, "finch": 6, "crane": 4, "ibis": 4, "dodo": 0}, `"crane"`, false},
		{first, first + 11, 4, map[string]int{"wren": 5, "finch": 5, "crane": 4, "ibis": 4, "dodo": 0}, `"crane"`, false},
		{first, first + 11, 8, map[string]int{"wren": 9, "finch": 6, "crane": 4, "ibis": 4, "dodo": 0}, `"crane" OR "ibis"`, false},
		// Within chunks 6-11: wren 6, finch 3, crane 2, ibis none.
		{first + 6, first + 11, 3, map[string]int{"wren": 4, "finch": 3, "crane": 2, "ibis": 0, "dodo": 0}, `"crane"`, false},
		// All capped: crane's third match is the furthest.
		{first, first + 11, 2, map[string]int{"wren": 3, "finch": 3, "crane": 3, "ibis": 3, "dodo": 0}, `"crane"`, true},
	} {
		p, err := st.planUpTo(ctx, "chunks_fts", terms, tc.lo, tc.hi, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(p.df, tc.df) || p.match != tc.match || p.capped != tc.capped {
			t.Errorf("rows %d-%d, limit %d: df %v, match %s, capped %v; want %v, %s, %v",
				tc.lo-first, tc.hi-first, tc.limit, p.df, p.match, p.capped, tc.df, tc.match, tc.capped)
		}
	}
}
