package retrieve_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

const (
	restoreSession = "5e55a0b1-0000-4000-8000-000000000001"
	restoreProject = "/src/app"
	// restoreSummary is what the compaction kept: it quotes one edited path
	// (project-relative) and one command.
	restoreSummary = `Summary:
1. Primary Request: add a --budget flag.
2. Files: cmd/carryover/main.go was edited to wire the flag.
3. The user ran   GO VET ./...   which passed.`
)

// restoreFixture stores a session compacted once: window 0 holds the
// facts, window 1 (the current one) a file the model still sees.
func restoreFixture(tb testing.TB) carryover.Store {
	tb.Helper()
	st := openStore(tb)
	s := session(restoreSession, restoreProject, 1)
	items := []carryover.Item{
		{Kind: carryover.KindGoal, Text: "Add a --budget flag to the restore command and cap output at the budget", Turn: 0, Line: 5, ChunkSeq: 0, Weight: 0.8},
		{Kind: carryover.KindConstraint, Text: "never use cgo: the binary must stay static", Turn: 0, Line: 9, ChunkSeq: 0, Weight: 1},
		{Kind: carryover.KindDecision, Text: "rank with FTS5 BM25 instead of embeddings", Detail: "no model download in a hook", Turn: 1, Line: 50, ChunkSeq: 1, Weight: 0.9},
		{Kind: carryover.KindError, Text: "undefined: sqlite.Open (compile error in cmd/carryover/db.go:14)", Detail: "fixed by: go get modernc.org/sqlite@v1.61.1 — in $ go build ./...", Resolved: true, Turn: 1, Line: 100, ChunkSeq: 2, Weight: 0.85},
		{Kind: carryover.KindFix, Text: "go get modernc.org/sqlite@v1.61.1", Turn: 1, Line: 110, ChunkSeq: 2, Weight: 0.85},
		{Kind: carryover.KindError, Text: "panic: runtime error: index out of range [3] with length 3 at retrieve/fill.go:120", Turn: 2, Line: 300, ChunkSeq: 9, Weight: 0.85},
		{Kind: carryover.KindError, Text: "panic: runtime error: index out of range [3] with length 3 at retrieve/fill.go:121", Turn: 2, Line: 310, ChunkSeq: 9, Weight: 0.85},
		{Kind: carryover.KindFileEdit, Text: restoreProject + "/internal/config/loader.go", Detail: "load .carryover.toml before flags", Turn: 1, Line: 150, ChunkSeq: 3, Weight: 0.7},
		{Kind: carryover.KindFileEdit, Text: restoreProject + "/cmd/carryover/main.go", Detail: "wire the flag", Turn: 1, Line: 160, ChunkSeq: 3, Weight: 0.7},
		{Kind: carryover.KindCommand, Text: "go test ./retrieve/ -run TestRestore -count=1", Turn: 2, Line: 250, ChunkSeq: 8, Weight: 0.6},
		{Kind: carryover.KindCommand, Text: "go vet ./...", Turn: 2, Line: 255, ChunkSeq: 8, Weight: 0.6},
		{Kind: carryover.KindMarker, Text: "IMPORTANT: keep the JSON output of search stable", Turn: 2, Line: 260, ChunkSeq: 8, Weight: 1.35},
		{Kind: carryover.KindTodo, Text: "[completed] write the parser\n[in_progress] wire the --budget flag\n[pending] tests for budgets", Turn: 2, Line: 320, ChunkSeq: 10, Weight: 0.8},
		// What the model typed into its tool calls: the working set.
		{Kind: carryover.KindInputs, Text: restoreProject + "/internal/config/loader.go budgetFlagParser DEFAULT_BUDGET_CHARS cmd/carryover/main.go", Key: "inputs:a", Turn: 1, Line: 150, ChunkSeq: 3},
		{Kind: carryover.KindInputs, Text: "restoreBudgetTable_v2 " + restoreProject + "/retrieve/fill.go GO_TEST_TIMEOUT_42s", Key: "inputs:b", Turn: 2, Line: 305, ChunkSeq: 9},
		// The current window: still in the model's context.
		{Kind: carryover.KindFileEdit, Text: restoreProject + "/current/visible.go", Detail: "after the compaction", Turn: 3, Window: 1, Line: 900, ChunkSeq: 20, Weight: 0.7},
	}
	// Filler, so that budgets bind: many specific commands and files.
	for i := range 60 {
		items = append(items,
			carryover.Item{Kind: carryover.KindCommand, Text: fmt.Sprintf("go test ./pkg%02d/ -run TestCase%02d -count=1 -v", i, i), Turn: 0, Line: 20 + i, ChunkSeq: 11 + i%5, Weight: 0.6},
			carryover.Item{Kind: carryover.KindFileEdit, Text: fmt.Sprintf("%s/pkg%02d/handler_%02d.go", restoreProject, i, i), Detail: fmt.Sprintf("handle case %d of the budget table", i), Turn: 0, Line: 20 + i, ChunkSeq: 11 + i%5, Weight: 0.7},
		)
	}
	apply(tb, st, s, nil, items)
	if _, err := st.AddNote(context.Background(), carryover.Note{SessionID: restoreSession, Project: restoreProject, Kind: "state", Text: "Wiring the --budget flag; next: budget tests"}); err != nil {
		tb.Fatal(err)
	}
	return st
}

func restore(tb testing.TB, st carryover.Store, budget int) retrieve.Block {
	tb.Helper()
	blk, err := retrieve.Restore(context.Background(), st, retrieve.RestoreRequest{
		SessionID: restoreSession, Project: restoreProject, Window: 1, Summary: restoreSummary, Budget: budget,
	})
	if err != nil {
		tb.Fatalf("restore: %v", err)
	}
	return blk
}

func TestRestoreEmptyStore(t *testing.T) {
	st := openStore(t)
	blk, err := retrieve.Restore(context.Background(), st, retrieve.RestoreRequest{SessionID: "none", Window: 1})
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	if blk.Text != "" || len(blk.ItemIDs) != 0 || len(blk.ChunkIDs) != 0 {
		t.Errorf("empty store gave %+v, want an empty block", blk)
	}
}

func TestRestoreContent(t *testing.T) {
	st := restoreFixture(t)
	text := restore(t, st, 4000).Text
	t.Logf("restore block (%d chars):\n%s", len(text), text)

	mustContain := []string{
		"## carryover: restored after compaction (session 5e55a0b1, window 1)",
		"paths relative to /src/app",
		"carryover search",
		"- state (note): Wiring the --budget flag; next: budget tests",
		"- last request (L5): Add a --budget flag to the restore command",
		"wire the --budget flag", // todo list
		"- edited: internal/config/loader.go",
		"- test: `go test ./retrieve/ -run TestRestore -count=1` (L250)",                        // provenance: the line, which get takes
		"restoreBudgetTable_v2", "retrieve/fill.go", "DEFAULT_BUDGET_CHARS", "budgetFlagParser", // typed, relative
		"- constraint: never use cgo: the binary must stay static (L9)",
		"- decision: rank with FTS5 BM25 instead of embeddings — because: no model download in a hook",
		"- error (fixed): undefined: sqlite.Open (compile error in cmd/carryover/db.go:14) — fixed by: go get modernc.org/sqlite@v1.61.1",
		"- open error: panic: runtime error: index out of range",
		"IMPORTANT: keep the JSON output of search stable",
	}
	for _, s := range mustContain {
		if !strings.Contains(text, s) {
			t.Errorf("block lacks %q", s)
		}
	}
	mustNot := map[string]string{
		"cmd/carryover/main.go": "a path the summary quotes",
		"go vet ./...":          "a command the summary quotes (other case and spacing)",
		"current/visible.go":    "an item of the current window",
		"fix: `go get":          "a fix already shown with its error",
		"/src/app/":             "a path not made relative to the root",
	}
	for s, why := range mustNot {
		if strings.Contains(text, s) {
			t.Errorf("block holds %s: %q", why, s)
		}
	}
	if n := strings.Count(text, "index out of range"); n != 1 {
		t.Errorf("an error and its near-duplicate (other line number) shown %d times, want once", n)
	}
	if n := strings.Count(text, "internal/config/loader.go"); n != 1 {
		t.Errorf("an edited file also listed as typed: shown %d times", n)
	}

	order := []string{"### Now", "- state (note):", "- last request", "- todo list", "### Working set", "- edited:",
		"- test:", "- typed:", "### Lost facts", "- open error:"}
	last := -1
	for _, s := range order {
		i := strings.Index(text, s)
		if i < 0 {
			t.Errorf("block lacks %q", s)
			continue
		}
		if i < last {
			t.Errorf("%q comes too early", s)
		}
		last = i
	}
	_, facts, _ := strings.Cut(text, "### Lost facts")
	for line := range strings.SplitSeq(facts, "\n") {
		if strings.HasPrefix(line, "- ") && !strings.HasSuffix(line, ")") {
			t.Errorf("fact without provenance: %q", line)
		}
	}
}

func TestRestoreBudgets(t *testing.T) {
	st := restoreFixture(t)
	var prev retrieve.Block
	for _, budget := range []int{500, 1000, 4000, 16000} {
		blk := restore(t, st, budget)
		if len(blk.Text) > budget {
			t.Errorf("budget %d: block has %d chars", budget, len(blk.Text))
		}
		if blk.Text == "" {
			t.Fatalf("budget %d: empty block", budget)
		}
		if len(blk.ItemIDs) <= len(prev.ItemIDs) {
			t.Errorf("budget %d: %d items, no more than the smaller budget's %d", budget, len(blk.ItemIDs), len(prev.ItemIDs))
		}
		for _, id := range prev.ItemIDs {
			if !slices.Contains(blk.ItemIDs, id) {
				t.Errorf("budget %d lost item %d shown with a smaller budget", budget, id)
			}
		}
		// Every returned id is an item of the session shown in the block.
		items, err := st.Items(context.Background(), carryover.ItemFilter{SessionID: restoreSession, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range blk.ItemIDs {
			i := slices.IndexFunc(items, func(it carryover.Item) bool { return it.ID == id })
			if i < 0 {
				t.Errorf("budget %d: id %d is no item of the session", budget, id)
				continue
			}
			if items[i].Kind == carryover.KindInputs {
				// Its identifiers are listed one by one, relative to the root.
				shown := false
				for _, id := range strings.Fields(items[i].Text) {
					shown = shown || strings.Contains(blk.Text, strings.TrimPrefix(id, restoreProject+"/"))
				}
				if !shown {
					t.Errorf("budget %d: no identifier of inputs item %d is in the block", budget, id)
				}
				continue
			}
			head, _, _ := strings.Cut(items[i].Text, "\n")
			head = strings.TrimPrefix(head, restoreProject+"/")
			if len(head) > 30 {
				head = head[:30]
			}
			if !strings.Contains(blk.Text, head) {
				t.Errorf("budget %d: item %d (%q) is not in the block", budget, id, head)
			}
		}
		t.Logf("budget %5d: %5d chars, %3d items", budget, len(blk.Text), len(blk.ItemIDs))
		prev = blk
	}
}

// TestRestoreUsesStoredSummary: without a summary in the request, the one
// stored for the window decides what is novel, with the kept messages.
func TestRestoreUsesStoredSummary(t *testing.T) {
	st := openStore(t)
	s := session("5e55a0b1-0000-4000-8000-000000000002", restoreProject, 1)
	apply(t, st, s, nil, []carryover.Item{
		{Kind: carryover.KindFileEdit, Text: restoreProject + "/kept/in_summary.go", Detail: "x", Line: 10, Weight: 0.7},
		{Kind: carryover.KindFileEdit, Text: restoreProject + "/lost/by_summary.go", Detail: "y", Line: 20, ChunkSeq: 1, Weight: 0.7},
	})
	err := st.Apply(context.Background(), carryover.Batch{
		Session:     s,
		Compactions: []carryover.Compaction{{SessionID: s.ID, Window: 1, Trigger: "auto", Line: 30, Summary: "We changed kept/in_summary.go."}},
		State:       carryover.IngestState{SessionID: s.ID, Path: s.TranscriptPath, FileID: "f", Offset: 2, Line: 31},
	})
	if err != nil {
		t.Fatal(err)
	}
	blk, err := retrieve.Restore(context.Background(), st, retrieve.RestoreRequest{SessionID: s.ID, Project: restoreProject, Window: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The verbatim excerpts of the last steps may mention it; the ranked items may not.
	ranked, _, _ := strings.Cut(blk.Text, "### Last steps")
	if strings.Contains(ranked, "in_summary.go") || !strings.Contains(ranked, "lost/by_summary.go") {
		t.Errorf("the stored summary was not used for novelty:\n%s", blk.Text)
	}
	// What the compaction kept verbatim is left out too, with the stored
	// summary still read.
	blk, err = retrieve.Restore(context.Background(), st, retrieve.RestoreRequest{SessionID: s.ID, Project: restoreProject, Window: 1,
		Kept: "User: look at lost/by_summary.go"})
	if err != nil {
		t.Fatal(err)
	}
	ranked, _, _ = strings.Cut(blk.Text, "### Last steps")
	if strings.Contains(ranked, "in_summary.go") || strings.Contains(ranked, "by_summary.go") {
		t.Errorf("the stored summary and the kept messages were not both used for novelty:\n%s", blk.Text)
	}
}

// TestRestoreTypedTiers: among identifiers typed as recently, those of a
// call's arguments (paths, commands) come before those of the text the
// model put into files; a path is left out only when the summary holds it
// as the model typed it.
func TestRestoreTypedTiers(t *testing.T) {
	st := openStore(t)
	const sid = "5e55a0b1-0000-4000-8000-000000000002"
	var text []string
	for i := range 40 {
		text = append(text, fmt.Sprintf("WrittenConstant_%02d", i))
	}
	items := []carryover.Item{
		{Kind: carryover.KindInputs, Text: restoreProject + "/lib/web/pane_live.ex " + restoreProject + "/lib/web/router.ex\n" +
			strings.Join(text, " "), Key: "inputs:a", Line: 100, ChunkSeq: 1},
	}
	apply(t, st, session(sid, restoreProject, 1), nil, items)
	blk, err := retrieve.Restore(context.Background(), st, retrieve.RestoreRequest{
		SessionID: sid, Project: restoreProject, Window: 1, Budget: 600,
		Summary: "Files: lib/web/router.ex was changed to add the route.",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("block:\n%s", blk.Text)
	// Both paths, one directory's family, the later typed first.
	if !strings.Contains(blk.Text, "- typed: lib/web/{router.ex,pane_live.ex} ") {
		t.Errorf("block lacks the arguments lib/web/router.ex and lib/web/pane_live.ex as a family")
	}
	if strings.Contains(blk.Text, "WrittenConstant_00") || !strings.Contains(blk.Text, "WrittenConstant_39") {
		t.Errorf("the text identifiers should follow, last typed first, as far as the budget goes")
	}
}

// TestRestoreStepsClaimNoChunk: a last step names its call, not what the
// call returned, so its chunk is not among the block's chunks (which a
// prompt's recall leaves out for the rest of the window); a chunk the
// block quotes a fact from still is.
func TestRestoreStepsClaimNoChunk(t *testing.T) {
	st := openStore(t)
	s := session(restoreSession, restoreProject, 1)
	chunks := []carryover.Chunk{
		{Seq: 0, Turn: 0, FirstLine: 10, LastLine: 12, Text: "User: add a test script\nAssistant: We decided to pin vitest to 1.6.",
			Hash: "h0"},
		{Seq: 1, Turn: 0, FirstLine: 20, LastLine: 22, Text: "$ cat assets/package.json  # Read the scripts\n→ ok\n{\"scripts\": {\"test\": \"vitest run\"}}",
			Hash: "h1"},
	}
	for i := range chunks {
		chunks[i].SessionID, chunks[i].Project, chunks[i].Start, chunks[i].End = s.ID, s.Project, s.Started, s.Started
	}
	items := []carryover.Item{{Kind: carryover.KindDecision, Text: "We decided to pin vitest to 1.6.", Line: 11, ChunkSeq: 0, Weight: 0.9}}
	apply(t, st, s, chunks, items)
	stored, err := st.Chunks(context.Background(), carryover.ChunkFilter{SessionID: s.ID, Turn: -1})
	if err != nil || len(stored) != 2 {
		t.Fatalf("chunks: %v, %v", stored, err)
	}
	id := map[int]int64{}
	for _, c := range stored {
		id[c.Seq] = c.ID
	}
	blk := restore(t, st, 4000)
	if !strings.Contains(blk.Text, "$ cat assets/package.json") || !strings.Contains(blk.Text, "pin vitest to 1.6") {
		t.Fatalf("block lacks the step or the fact:\n%s", blk.Text)
	}
	if slices.Contains(blk.ChunkIDs, id[1]) {
		t.Errorf("the chunk of a step is claimed as injected: %v", blk.ChunkIDs)
	}
	if !slices.Contains(blk.ChunkIDs, id[0]) {
		t.Errorf("the chunk of a fact shown is not claimed: %v", blk.ChunkIDs)
	}
}
