package rank_test

import (
	"math"
	"slices"
	"testing"

	"github.com/carryover-dev/carryover/rank"
)

func ids(cands []rank.Candidate) []int64 {
	var out []int64
	for _, c := range cands {
		out = append(out, c.ID)
	}
	return out
}

// TestFuseWithoutVectors: with no vector among the candidates, the order
// and the scores stay BM25's.
func TestFuseWithoutVectors(t *testing.T) {
	cands := []rank.Candidate{{ID: 3, BM25: 5, Parent: 1, TurnDoc: 1}, {ID: 1, BM25: 4, Parent: 1}, {ID: 2, BM25: 4}}
	rank.Fuse(cands)
	if got := ids(cands); !slices.Equal(got, []int64{3, 1, 2}) {
		t.Errorf("order %v, want BM25's [3 1 2]", got)
	}
	for _, c := range cands {
		if c.Score != c.BM25 {
			t.Errorf("candidate %d scores %v, want its BM25 %v", c.ID, c.Score, c.BM25)
		}
	}
}

// TestFuse computes a small fusion by hand: vector blend, parent sums,
// turn document and repeat decay.
func TestFuse(t *testing.T) {
	cands := []rank.Candidate{
		{ID: 1, BM25: 10, Cos: 0.1, Vector: true, Parent: 1},
		{ID: 2, BM25: 8, Cos: 0.5, Vector: true, Parent: 1},
		{ID: 3, BM25: 6, Cos: -0.2, Vector: true, Parent: 3, TurnDoc: 0.5},
		{ID: 4, BM25: 5, Parent: 4}, // no vector: its cosine does not count
	}
	cands[3].Cos = 0.9
	rank.Fuse(cands)
	// blend: 1: 10+2·10·0.1 = 12; 2: 8+2·10·0.5 = 18; 3: 6; 4: 5.
	// parents: 1 and 2 share turn 1 (sum 30): 12+0.13·18 = 14.34,
	// 18+0.13·12 = 19.56; 3 adds the turn document 1·10·0.5: 11.
	// taken: 2 (19.56), then 1 counts 14.34·0.67 = 9.6078 < 3's 11.
	want := []struct {
		id    int64
		score float64
	}{{2, 19.56}, {3, 11}, {1, 14.34 * 0.67}, {4, 5}}
	for i, w := range want {
		if cands[i].ID != w.id || math.Abs(cands[i].Score-w.score) > 1e-9 {
			t.Errorf("rank %d: candidate %d scoring %v, want %d scoring %v", i, cands[i].ID, cands[i].Score, w.id, w.score)
		}
	}
}

func TestByBM25(t *testing.T) {
	cands := []rank.Candidate{{ID: 5, BM25: 1}, {ID: 2, BM25: 3}, {ID: 1, BM25: 1}}
	slices.SortFunc(cands, rank.ByBM25)
	if got := ids(cands); !slices.Equal(got, []int64{2, 1, 5}) {
		t.Errorf("order %v, want [2 1 5]", got)
	}
}

func TestTurnScores(t *testing.T) {
	// Turn 1's chunks match all three terms; turn 2 two of them in one
	// chunk; turn 3 one.
	tfs := []map[int]int{{1: 1, 2: 1}, {1: 1, 2: 1}, {1: 1, 3: 1}}
	got := rank.TurnScores(10, tfs)
	if got[1] != 1 || got[2] <= 0 || got[2] >= 1 || got[3] <= 0 || got[3] >= got[2] {
		t.Errorf("turn scores %v: want turn 1 at 1, then 2, then 3", got)
	}
	if got := rank.TurnScores(10, nil); got != nil {
		t.Errorf("no terms: %v, want nil", got)
	}
}

func TestIDFAndBM25(t *testing.T) {
	if got, want := rank.IDF(100, 10), math.Log(90.5/10.5); got != want {
		t.Errorf("IDF(100, 10) = %v, want %v", got, want)
	}
	if got := rank.IDF(10, 8); got != 1e-6 {
		t.Errorf("IDF of a phrase in most rows = %v, want the floor 1e-6", got)
	}
	// One phrase, frequency 2 in a row of average length.
	idf := rank.IDF(100, 10)
	if got, want := rank.BM25([]float64{idf}, []float64{2}, 50, 50), idf*2*2.2/(2+1.2); math.Abs(got-want) > 1e-12 {
		t.Errorf("BM25 = %v, want %v", got, want)
	}
	// A longer row scores less; a phrase it lacks adds nothing.
	if long, short := rank.BM25([]float64{idf, 3}, []float64{2, 0}, 100, 50), rank.BM25([]float64{idf}, []float64{2}, 50, 50); long >= short {
		t.Errorf("BM25 of a row twice the average length %v, want below %v", long, short)
	}
}

func TestPhraseFreq(t *testing.T) {
	// "main go" occurs at 3-4 (weight 3) and 10-11 (weight 1); "go" alone
	// at 7; "main" alone at 20.
	postings := map[string][]rank.Posting{
		"main": {{3, 3}, {10, 1}, {20, 1}},
		"go":   {{4, 3}, {7, 1}, {11, 1}},
	}
	for _, tc := range []struct {
		phrase []string
		want   float64
	}{
		{[]string{"main", "go"}, 4},
		{[]string{"go"}, 5},
		{[]string{"go", "main"}, 0},
		{[]string{"absent"}, 0},
		{nil, 0},
	} {
		if got := rank.PhraseFreq(tc.phrase, postings); got != tc.want {
			t.Errorf("PhraseFreq(%q) = %v, want %v", tc.phrase, got, tc.want)
		}
	}
}

func TestFieldsAndWeights(t *testing.T) {
	if got, want := rank.WeightList(), "2, 1.5, 3, 3, 3, 1, 1"; got != want {
		t.Errorf("WeightList = %q, want %q (the SQLite index's bm25 weights)", got, want)
	}
}

// TestCosineOfOtherSizes checks that vectors of different sizes (of two
// embedders) have no similarity, either way round, rather than a panic.
func TestCosineOfOtherSizes(t *testing.T) {
	q := []float32{0.6, 0.8}
	for _, v := range [][]float32{{1}, {0.6, 0.8, 0}} {
		if got := rank.Cosine(q, v); got != 0 {
			t.Errorf("Cosine(%v, %v) = %v, want 0", q, v, got)
		}
	}
	if got := rank.Cosine(q, []float32{0.6, 0.8}); got != 1 {
		t.Errorf("Cosine of a vector with itself = %v, want 1", got)
	}
}
