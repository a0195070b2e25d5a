package rank

import (
	"slices"
	"testing"
)

// TestDiversify checks that a turn's further hits count RepeatDecay times
// less per hit taken before them, and that equal scores keep their order.
func TestDiversify(t *testing.T) {
	cands := []Candidate{
		{ID: 1, Score: 10, Parent: 1},
		{ID: 2, Score: 9, Parent: 1},
		{ID: 3, Score: 8, Parent: 1},
		{ID: 4, Score: 7, Parent: 4},
		{ID: 5, Score: 7, Parent: 5},
	}
	diversify(cands)
	var got []int64
	for _, c := range cands {
		got = append(got, c.ID)
	}
	// 2 counts 9 × 0.67 = 6.03 after 1, below 4 and 5 (7); then 3 counts
	// 8 × 0.67² = 3.6, below 2's 6.03.
	if want := []int64{1, 4, 5, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	for i := 1; i < len(cands); i++ {
		if cands[i].Score > cands[i-1].Score {
			t.Errorf("scores %v and %v out of order", cands[i-1].Score, cands[i].Score)
		}
	}
}
