package sqlite

import (
	"slices"
	"testing"
)

// TestDiversify checks that a turn's further hits count repeatDecay times
// less per hit taken before them, and that equal scores keep their order.
func TestDiversify(t *testing.T) {
	cands := []candidate{
		{id: 1, score: 10, parent: 1},
		{id: 2, score: 9, parent: 1},
		{id: 3, score: 8, parent: 1},
		{id: 4, score: 7, parent: 4},
		{id: 5, score: 7, parent: 5},
	}
	diversify(cands)
	var got []int64
	for _, c := range cands {
		got = append(got, c.id)
	}
	// 2 counts 9 × 0.75 = 6.75 after 1, below 4 and 5 (7); then 3 counts
	// 8 × 0.75² = 4.5, below 2's 6.75.
	if want := []int64{1, 4, 5, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	for i := 1; i < len(cands); i++ {
		if cands[i].score > cands[i-1].score {
			t.Errorf("scores %v and %v out of order", cands[i-1].score, cands[i].score)
		}
	}
}
