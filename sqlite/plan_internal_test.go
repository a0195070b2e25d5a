package sqlite

import (
	"slices"
	"testing"
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
