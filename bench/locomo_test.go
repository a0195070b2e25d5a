package bench

import (
	"context"
	"path/filepath"
	"testing"
)

// locomoData returns the LoCoMo directory of the shared data beside the
// repository, skipping the test when it is absent unless CI=true.
func locomoData(tb testing.TB) string {
	tb.Helper()
	return sharedDir(tb, "data", "locomo")
}

// TestLocomoOneConversation runs the LoCoMo retrieval benchmark on the first
// conversation and checks what holds for any sound ranker: recalls are
// fractions, the seed's hash embedding is no better than chance while ours
// is far better, and the corrected evidence replaces some questions'.
func TestLocomoOneConversation(t *testing.T) {
	dir := locomoData(t)
	convs, err := readLocomo(filepath.Join(dir, "locomo10.json"))
	if err != nil {
		t.Fatal(err)
	}
	audit, err := readLocomoAudit(filepath.Join(dir, "locomo-audit-errors.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := runLocomo(context.Background(), filepath.Join(t.TempDir(), "locomo.db"), convs[:1], audit)
	if err != nil {
		t.Fatal(err)
	}
	turns, _ := convs[0].turns()
	if res.Turns != len(turns) || res.Turns < 100 {
		t.Fatalf("indexed %d turns, conversation has %d", res.Turns, len(turns))
	}
	if res.Replaced == 0 {
		t.Error("no question of the first conversation took the audit's evidence")
	}
	means := map[string]locomoMeans{}
	for _, set := range []string{"original", "corrected"} {
		for _, rk := range locomoRankers {
			s := res.Scores[set][rk][0]
			if s == nil || s.N < 100 {
				t.Fatalf("%s %s: too few questions scored: %+v", set, rk, s)
			}
			m := s.mean()
			for _, v := range []float64{m.TurnR5, m.TurnR10, m.SessionR5, m.SessionR10} {
				if v < 0 || v > 1 {
					t.Errorf("%s %s: recall %v out of [0,1]", set, rk, v)
				}
			}
			if m.TurnR5 > m.TurnR10 || m.SessionR5 > m.SessionR10 || m.TurnR10 > m.SessionR10 {
				t.Errorf("%s %s: recalls not ordered: %+v", set, rk, m)
			}
			if set == "original" {
				means[rk] = m
			}
		}
	}
	// Chance: 10 of ~400 turns is 0.025.
	if m := means["seedhash"]; m.TurnR10 > 0.06 {
		t.Errorf("seedhash turn R@10 %.3f: better than chance?", m.TurnR10)
	}
	for _, rk := range []string{"bm25", "hashed", "hashed_ctx", "fused"} {
		if m := means[rk]; m.TurnR10 < 0.4 || m.SessionR10 < 0.7 {
			t.Errorf("%s: turn R@10 %.3f, session R@10 %.3f: far below the measured figures", rk, m.TurnR10, m.SessionR10)
		}
		if means[rk].TurnR10 < 10*means["seedhash"].TurnR10 {
			t.Errorf("%s turn R@10 %.3f not far above seedhash's %.3f", rk, means[rk].TurnR10, means["seedhash"].TurnR10)
		}
	}
}

func TestRecallAt(t *testing.T) {
	turns := []locomoTurn{{DiaID: "D1:1"}, {DiaID: "D1:2"}, {DiaID: "D2:1"}, {DiaID: "D2:2"}, {DiaID: "D3:1"}}
	// Evidence: turns 1 (session 1) and 4 (session 3); ranking finds turn 0
	// (session 1) and turn 4.
	turn, session := recallAt([]int{0, 4, 2}, []int{1, 4}, turns, 2)
	if turn != 0.5 || session != 1 {
		t.Errorf("recallAt = %v, %v; want 0.5, 1", turn, session)
	}
	turn, session = recallAt([]int{2}, []int{1, 4}, turns, 5)
	if turn != 0 || session != 0 {
		t.Errorf("recallAt = %v, %v; want 0, 0", turn, session)
	}
}

func TestEvidenceTurns(t *testing.T) {
	byID := map[string]int{"D1:3": 0, "D8:6": 1, "D9:17": 2, "D11:26": 3}
	got := evidenceTurns([]string{"D1:3", "D8:6; D9:17", "D:11:26", "D", "D1:3", "D99:1"}, byID)
	want := []int{0, 1, 2, 3}
	if len(got) != len(want) {
		t.Fatalf("evidenceTurns = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("evidenceTurns = %v, want %v", got, want)
		}
	}
}
