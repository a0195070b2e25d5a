package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/carryover-dev/carryover"
)

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
