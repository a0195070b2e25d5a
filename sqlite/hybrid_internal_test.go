package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/carryover-dev/carryover"
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
	// 2 counts 9 × 0.67 = 6.03 after 1, below 4 and 5 (7); then 3 counts
	// 8 × 0.67² = 3.6, below 2's 6.03.
	if want := []int64{1, 4, 5, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	for i := 1; i < len(cands); i++ {
		if cands[i].score > cands[i-1].score {
			t.Errorf("scores %v and %v out of order", cands[i-1].score, cands[i].score)
		}
	}
}

// TestTurnScores checks the turn-as-document scores of a search within a
// session: a turn whose chunks together match every query word scores 1,
// one whose single chunk matches two of them less, and a chunk gets its
// turn's score even when it matches one word only.
func TestTurnScores(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "carryover.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const filler = "The assistant read the code and continued with the plan."
	texts := []struct {
		turn int
		text string
	}{
		{1, "The kestrel nests above the barn."},
		{1, "A lantern hangs by the door."},
		{1, "The marmot sleeps all winter."},
		{2, "The kestrel circled the lantern twice."},
		{3, filler}, {4, filler}, {5, filler}, {6, filler},
	}
	var chunks []carryover.Chunk
	for i, x := range texts {
		chunks = append(chunks, carryover.Chunk{Seq: i, Turn: x.turn, Hash: fmt.Sprint(i), Text: x.text})
	}
	if err := st.Apply(ctx, carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p"}, Chunks: chunks}); err != nil {
		t.Fatal(err)
	}
	var w where
	w.add("c.session_id = ?", "s1")
	sc := scope{w: w}
	if err := st.db.QueryRow(`SELECT min(id), max(id) FROM chunks`).Scan(&sc.lo, &sc.hi); err != nil {
		t.Fatal(err)
	}
	p, err := st.plan(ctx, "chunks_fts", queryTerms("kestrel lantern marmot"), sc.lo, sc.hi)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.turnScores(ctx, sc, p.kept)
	if err != nil {
		t.Fatal(err)
	}
	byText := map[string]float64{}
	rows, err := st.db.Query(`SELECT id, text FROM chunks`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			t.Fatal(err)
		}
		if v, ok := got[id]; ok {
			byText[text] = v
		}
	}
	if len(byText) != 4 {
		t.Fatalf("scores for %d chunks, want the 4 that match: %v", len(byText), byText)
	}
	for _, x := range texts[:3] {
		if byText[x.text] != 1 {
			t.Errorf("%q: %v, want 1 (its turn matches every word)", x.text, byText[x.text])
		}
	}
	if v := byText[texts[3].text]; v <= 0 || v >= 1 {
		t.Errorf("%q: %v, want between 0 and 1", texts[3].text, v)
	}
}
