package retrieve_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

const userSession = "5e55a0b1-0000-4000-8000-0000000000u5"

// userFixture stores a session compacted twice: the user stated values in
// the first window and asked other things later, with a long working set.
func userFixture(tb testing.TB) carryover.Store {
	tb.Helper()
	st := openStore(tb)
	s := session(userSession, restoreProject, 2)
	items := []carryover.Item{
		{Kind: carryover.KindGoal, Text: "We decided the staging deploy port is 48213 and the release codename is QZXV-PELICAN. Now check the shell", Line: 3, ChunkSeq: 0},
		{Kind: carryover.KindGoal, Text: "Should we always deploy on Fridays?", Line: 40, ChunkSeq: 1},
		{Kind: carryover.KindGoal, Text: "01:12:38.208 Detected Next.js version: 13.0.2 Running build for NS_ERROR_CORRUPTED_CONTENT", Line: 60, ChunkSeq: 2},
		{Kind: carryover.KindGoal, Text: "Never push to the main branch without a review. The retry budget = 7 attempts.", Line: 80, ChunkSeq: 3},
		{Kind: carryover.KindGoal, Text: "我们决定预发布端口是48213。现在检查一下。", Line: 90, ChunkSeq: 4},
		{Kind: carryover.KindGoal, Text: "now fix the flaky test in retrieve/fill_test.go", Line: 500, Window: 1, ChunkSeq: 10},
		{Kind: carryover.KindGoal, Text: "thanks, go on", Line: 700, Window: 1, ChunkSeq: 11},
	}
	for i := range 40 {
		items = append(items, carryover.Item{Kind: carryover.KindInputs, Key: fmt.Sprintf("inputs:%d", i),
			Text: fmt.Sprintf("%s/pkg%02d/handler_%02d.go handleCase%02d_budget", restoreProject, i, i, i), Line: 510 + i, Window: 1, ChunkSeq: 12 + i%4})
	}
	apply(tb, st, s, nil, items)
	return st
}

// TestRestoreUserWords: what the user stated and the summary lacks comes
// back ahead of the working set, with its line, after a second
// compaction too; questions and pasted logs do not; what the summary
// states is not repeated.
func TestRestoreUserWords(t *testing.T) {
	st := userFixture(t)
	ctx := context.Background()
	summary := "Summary: the user asked to fix a flaky test in retrieve/fill_test.go; work continues."
	for _, budget := range []int{1000, 4000} {
		blk, err := retrieve.Restore(ctx, st, retrieve.RestoreRequest{SessionID: userSession, Project: restoreProject,
			Window: 2, Summary: summary, Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		text := blk.Text
		t.Logf("budget %d:\n%s", budget, text)
		wants := []string{"### The user said\n", "- L3: We decided the staging deploy port is 48213 and the release codename is QZXV-PELICAN."}
		if budget >= 2000 {
			wants = append(wants, "- L80: Never push to the main branch without a review. The retry budget = 7 attempts.",
				"- L90: 我们决定预发布端口是48213。\n") // mixed scripts: the statement, not the request after it
		}
		for _, want := range wants {
			if !strings.Contains(text, want) {
				t.Errorf("budget %d: block lacks %q", budget, want)
			}
		}
		for _, not := range []string{"Fridays", "NS_ERROR", "thanks, go on"} {
			if strings.Contains(text, not) {
				t.Errorf("budget %d: block holds %q (a question, a pasted log, an acknowledgement)", budget, not)
			}
		}
		if u, ws := strings.Index(text, "### The user said"), strings.Index(text, "### Working set"); ws >= 0 && u > ws {
			t.Errorf("budget %d: the user's words come after the working set", budget)
		}
		if len(text) > budget {
			t.Errorf("budget %d: block of %d chars", budget, len(text))
		}
	}

	// A summary that states the values: the sentence is not repeated.
	blk, err := retrieve.Restore(ctx, st, retrieve.RestoreRequest{SessionID: userSession, Project: restoreProject, Window: 2,
		Summary: "The user decided: staging deploy port 48213, release codename QZXV-PELICAN. " + summary, Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(blk.Text, "QZXV-PELICAN") || strings.Contains(blk.Text, "staging deploy port") {
		t.Errorf("the summary states the values, the restore repeats them:\n%s", blk.Text)
	}
}

// TestRestoreAllStated: when the summary states everything found, the
// block says so in one line.
func TestRestoreAllStated(t *testing.T) {
	st := openStore(t)
	s := session(userSession, restoreProject, 1)
	apply(t, st, s, nil, []carryover.Item{
		{Kind: carryover.KindGoal, Text: "We decided the staging deploy port is 48213.", Line: 3, ChunkSeq: 0},
		{Kind: carryover.KindFileEdit, Text: restoreProject + "/deploy/staging.toml", Line: 9, ChunkSeq: 0},
	})
	blk, err := retrieve.Restore(context.Background(), st, retrieve.RestoreRequest{SessionID: userSession, Project: restoreProject,
		Window: 1, Summary: "We decided the staging deploy port is 48213. Edited deploy/staging.toml.", Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(blk.Text, "Nothing to add: the summary states every detail") || strings.Count(blk.Text, "\n- ") != 1 {
		t.Errorf("want the header and one line saying the summary states it all, got:\n%s", blk.Text)
	}
}

// TestRestoreTypedContained: an identifier listed first gives way to a
// later, longer one that contains it.
func TestRestoreTypedContained(t *testing.T) {
	st := openStore(t)
	s := session(userSession, restoreProject, 1)
	apply(t, st, s, nil, []carryover.Item{
		{Kind: carryover.KindInputs, Key: "inputs:a", Text: "packages/app/src/router/index.js", Line: 10, ChunkSeq: 0},
		{Kind: carryover.KindInputs, Key: "inputs:b", Text: "src/router/index.js other_ident_1", Line: 20, ChunkSeq: 1},
	})
	blk, err := retrieve.Restore(context.Background(), st, retrieve.RestoreRequest{SessionID: userSession, Project: restoreProject,
		Window: 1, Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(blk.Text, "packages/app/src/router/index.js") || strings.Contains(blk.Text, " src/router/index.js") {
		t.Errorf("want the longer path only:\n%s", blk.Text)
	}
}
