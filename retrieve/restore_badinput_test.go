package retrieve_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

// TestRestorePastedLogOnly: a session whose only user text is one long
// pasted log gets no line of that log as the user's words, and its last
// request is said to be a pasted log (with its last line) rather than
// shown as the log's first bytes; the block stays in its budget and
// carries the working set.
func TestRestorePastedLogOnly(t *testing.T) {
	st := openStore(t)
	s := session(userSession, restoreProject, 1)
	var log strings.Builder
	for i := range 80 {
		fmt.Fprintf(&log, "2026-01-02T10:%02d:%02d.123Z INFO worker[%d] processed batch_%04d in %dms status=OK\n", i/60, i%60, i%4, i, 10+i)
	}
	log.WriteString("ERROR_QUEUE_STALLED: consumer group lagging by 4411 messages\n")
	items := []carryover.Item{{Kind: carryover.KindGoal, Text: log.String(), Line: 2, ChunkSeq: 0}}
	for i := range 10 {
		items = append(items, carryover.Item{Kind: carryover.KindInputs, Key: fmt.Sprintf("inputs:%d", i),
			Text: fmt.Sprintf("%s/worker/batch_%02d.go drainQueue%02d_now", restoreProject, i, i), Line: 10 + i, ChunkSeq: 1})
	}
	apply(t, st, s, nil, items)
	for _, budget := range []int{1000, 4000} {
		blk, err := retrieve.Restore(context.Background(), st, retrieve.RestoreRequest{SessionID: userSession,
			Project: restoreProject, Window: 1, Summary: "Summary: the user pasted a worker log.", Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		if len(blk.Text) > budget {
			t.Errorf("budget %d: block of %d chars", budget, len(blk.Text))
		}
		for _, not := range []string{"### The user said", "INFO worker", "status=OK"} {
			if strings.Contains(blk.Text, not) {
				t.Errorf("budget %d: block holds %q from the pasted log:\n%s", budget, not, blk.Text)
			}
		}
		if !strings.Contains(blk.Text, "a pasted log of 81 lines, ending: ERROR_QUEUE_STALLED") {
			t.Errorf("budget %d: block does not say the request was a pasted log:\n%s", budget, blk.Text)
		}
		if !strings.Contains(blk.Text, "drainQueue") {
			t.Errorf("budget %d: block lacks the working set:\n%s", budget, blk.Text)
		}
	}
}

// TestRestoreUserSaysNo: a user who declined every tool call with a bare
// "no" (stored as requests, never as errors) gets no line of "no"s; what
// they said when declining with a reason comes back.
func TestRestoreUserSaysNo(t *testing.T) {
	st := openStore(t)
	s := session(userSession, restoreProject, 1)
	var items []carryover.Item
	for i := range 12 {
		items = append(items, carryover.Item{Kind: carryover.KindGoal, Text: "no", Line: 10 + 5*i, ChunkSeq: i})
	}
	items = append(items, carryover.Item{Kind: carryover.KindGoal,
		Text: "no, never touch the vendored parser_v2 directory", Line: 100, ChunkSeq: 12})
	apply(t, st, s, nil, items)
	blk, err := retrieve.Restore(context.Background(), st, retrieve.RestoreRequest{SessionID: userSession,
		Project: restoreProject, Window: 1, Summary: "Summary: the user declined the proposed edits.", Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(blk.Text, "never touch the vendored parser_v2 directory") {
		t.Errorf("block lacks the rule stated while declining:\n%s", blk.Text)
	}
	if strings.Contains(blk.Text, ": no\n") || strings.Contains(blk.Text, "error") {
		t.Errorf("block shows a bare refusal or an error:\n%s", blk.Text)
	}
}
