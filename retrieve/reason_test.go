package retrieve_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

// TestRestoreReason: a restore says what it holds, in which part of the
// budget, and what it left out.
func TestRestoreReason(t *testing.T) {
	st := restoreFixture(t)
	for _, budget := range []int{500, 4000} {
		blk := restore(t, st, budget)
		t.Logf("budget %d: %s", budget, blk.Reason)
		head := fmt.Sprintf("restore after compaction 1: %s, %s, ", count(len(blk.ItemIDs), "item"), count(len(blk.ChunkIDs), "chunk"))
		if !strings.HasPrefix(blk.Reason, head) {
			t.Errorf("budget %d: reason %q, want it to start with %q", budget, blk.Reason, head)
		}
		if want := fmt.Sprintf(" in %d of %d chars", len(blk.Text), budget); !strings.Contains(blk.Reason, want) {
			t.Errorf("budget %d: reason %q lacks %q", budget, blk.Reason, want)
		}
		// The fixture's summary quotes a path and a command.
		if !regexp.MustCompile(`; [1-9]\d* items? left out as already in the summary$`).MatchString(blk.Reason) {
			t.Errorf("budget %d: reason %q does not count what the summary quotes", budget, blk.Reason)
		}
	}
	// The state note is neither an item nor a chunk.
	if blk := restore(t, st, 4000); !strings.Contains(blk.Reason, ", 1 note in ") {
		t.Errorf("reason %q does not count the state note", blk.Reason)
	}
}

var recallClause = regexp.MustCompile(`^BM25 (\d+\.\d) ≥ 2, (\d+) of (\d+) informative words \(coverage (\d\.\d\d) ≥ 0\.5\) from (.+), turn \d+$`)

// TestRecallReason: a recall says, for each chunk it brought, the scores
// that let it through (above the thresholds) and where it comes from.
func TestRecallReason(t *testing.T) {
	st := archiveFixture(t)
	for _, tc := range []struct{ prompt, from string }{
		{"Which port did we configure for SpotterWeb.Endpoint in config/test.exs?", "this session's window 0"},
		{"the push failed without an upstream, how did we push the spotter-gqc branch?", "session " + carryover.ShortID(otherSession)},
	} {
		blk := recall(t, st, retrieve.RecallRequest{Prompt: tc.prompt})
		t.Logf("%s", blk.Reason)
		clauses, ok := strings.CutPrefix(blk.Reason, "recall: ")
		if !ok || blk.Text == "" {
			t.Fatalf("prompt %q: reason %q for %d chars", tc.prompt, blk.Reason, len(blk.Text))
		}
		parts := strings.Split(clauses, "; ")
		if len(parts) != len(blk.ChunkIDs) {
			t.Errorf("prompt %q: %d clauses for %d chunks: %q", tc.prompt, len(parts), len(blk.ChunkIDs), blk.Reason)
		}
		found := false
		for _, p := range parts {
			m := recallClause.FindStringSubmatch(p)
			if m == nil {
				t.Errorf("clause %q", p)
				continue
			}
			score, _ := strconv.ParseFloat(m[1], 64)
			have, _ := strconv.Atoi(m[2])
			all, _ := strconv.Atoi(m[3])
			cov, _ := strconv.ParseFloat(m[4], 64)
			if score < 2 || have == 0 || have > all || cov < 0.5 {
				t.Errorf("clause %q: below a threshold the hit had to clear", p)
			}
			found = found || m[5] == tc.from
		}
		if !found {
			t.Errorf("prompt %q: no chunk from %s: %q", tc.prompt, tc.from, blk.Reason)
		}
	}
}

func TestStartupBriefReason(t *testing.T) {
	st := openStore(t)
	old := session("aaaaaaaa-old", "/proj", 0)
	apply(t, st, old, nil, []carryover.Item{
		{ChunkSeq: 0, Kind: carryover.KindCommand, Text: "go test ./upload/ -run TestRetry", Line: 10},
		{ChunkSeq: 1, Kind: carryover.KindFileEdit, Text: "upload/retry.go", Line: 20},
	})
	blk, err := retrieve.StartupBrief(context.Background(), st, retrieve.BriefRequest{Project: "/proj", SessionID: "new"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "startup brief of the project's last session aaaaaaaa: 2 items"; blk.Reason != want || len(blk.ItemIDs) != 2 {
		t.Errorf("reason %q for %d items, want %q", blk.Reason, len(blk.ItemIDs), want)
	}
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
