package retrieve_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

func TestInstructions(t *testing.T) {
	st := openStore(t)
	s := session("1a5c0000-0000-4000-8000-000000000001", "/src/app", 1)
	items := []carryover.Item{
		{Kind: carryover.KindError, Text: "FAIL: TestBudget (retrieve_test.go:42): got 4100 chars", Window: 1, Line: 800, ChunkSeq: 5, Weight: 0.85},
		{Kind: carryover.KindError, Text: "old error of window 0", Window: 0, Line: 100, ChunkSeq: 1, Weight: 0.85},
		{Kind: carryover.KindError, Text: "fixed error of window 1", Resolved: true, Window: 1, Line: 790, ChunkSeq: 4, Weight: 0.85},
		{Kind: carryover.KindFileEdit, Text: "/src/app/retrieve/fill.go", Window: 1, Line: 780, ChunkSeq: 3, Weight: 0.7},
		{Kind: carryover.KindGoal, Text: "We decided the staging deploy port is 48213. Can you check the shell?", Window: 0, Line: 3, ChunkSeq: 0},
		{Kind: carryover.KindCommand, Text: "go test ./retrieve/ -run TestBudget -count=1 2>&1 | tail -5", Window: 1, Line: 805, ChunkSeq: 6},
		{Kind: carryover.KindCommand, Text: "go test ./old/", Window: 0, Line: 50, ChunkSeq: 1},
		{Kind: carryover.KindTodo, Text: "[x] parser\n[>] wire the --budget flag", Window: 1, Line: 806, ChunkSeq: 6},
		// Two specs a tracker printed: the newer one is the task in progress.
		{Kind: carryover.KindSpec, Text: "No-gos: No schema migration.", Detail: "PROJ-1 · Old task", Window: 0, Line: 20, ChunkSeq: 0, Weight: 0.8},
		{Kind: carryover.KindSpec, Text: "Constraints: No CDN dependency. · Keep reads lock-free.", Detail: "PROJ-2 · Budget flag", Window: 1, Line: 600, ChunkSeq: 2, Weight: 0.8},
		{Kind: carryover.KindSpec, Text: "Out of scope: Windows ARM builds", Detail: "PROJ-2 · Budget flag", Window: 1, Line: 600, ChunkSeq: 2, Weight: 0.8},
		// The files the specs named (an inputs item's third line, the first
		// named last), and later typing with no spec.
		{Kind: carryover.KindInputs, Text: "PROJ-1\n\nold/spec_named.go", Key: "inputs:a", Window: 0, Line: 20, ChunkSeq: 0},
		{Kind: carryover.KindInputs, Text: "PROJ-2\n\ntest/budget_test.go cmd/budget/flag.go", Key: "inputs:b", Window: 1, Line: 600, ChunkSeq: 2},
		{Kind: carryover.KindInputs, Text: "retrieve/fill_test.go\nbudgetChars_v2", Key: "inputs:c", Window: 1, Line: 805, ChunkSeq: 6},
		// Paths on a third line of a chunk that holds no spec item are
		// not the newest spec's.
		{Kind: carryover.KindInputs, Text: "\n\nunpaired/named_elsewhere.go", Key: "inputs:d", Window: 1, Line: 790, ChunkSeq: 4},
	}
	// A long task: the spec was read many steps before the compaction.
	for i := range 60 {
		items = append(items, carryover.Item{Kind: carryover.KindInputs, Text: fmt.Sprintf("step%02d_helper", i), Key: fmt.Sprintf("inputs:step%d", i), Window: 1, Line: 810 + i, ChunkSeq: 7 + i})
	}
	// Many long paths: the reminders must stay within the cap.
	for i := range 40 {
		items = append(items, carryover.Item{Kind: carryover.KindFileEdit, Text: fmt.Sprintf("/src/app/%sfile%02d.go", strings.Repeat("deep/", 20), i), Window: 1, Line: 700 + i, ChunkSeq: 2, Weight: 0.7})
	}
	apply(t, st, s, nil, items)

	got, err := retrieve.Instructions(context.Background(), st, s.ID, 1)
	if err != nil {
		t.Fatalf("instructions: %v", err)
	}
	t.Logf("instructions (%d chars):\n%s", len(got), got)
	if len(got) > retrieve.InstructionsCap {
		t.Errorf("%d chars, over %d", len(got), retrieve.InstructionsCap)
	}
	list := got[strings.Index(got, "Keep these details of this session verbatim:"):]
	if len(list) > retrieve.VerbatimCap+len("Keep these details of this session verbatim:\n") {
		t.Errorf("the session's list takes %d chars, over %d", len(list), retrieve.VerbatimCap)
	}
	for _, want := range []string{"carryover search", "exact file paths", "FAIL: TestBudget (retrieve_test.go:42)", "/src/app/retrieve/fill.go",
		"- We decided the staging deploy port is 48213.\n", "- test: go test ./retrieve/ -run TestBudget -count=1\n", "[>] wire the --budget flag",
		"- Constraints: No CDN dependency. · Keep reads lock-free.\n- Out of scope: Windows ARM builds\n",
		"Files the task's spec names (keep these paths):\n- cmd/budget/flag.go test/budget_test.go\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("instructions lack %q", want)
		}
	}
	for _, not := range []string{"old error of window 0", "fixed error of window 1", "check the shell", "go test ./old/", "No schema migration", "old/spec_named.go", "unpaired/named_elsewhere.go"} {
		if strings.Contains(got, not) {
			t.Errorf("instructions remind of %q, not open in this window", not)
		}
	}

	empty, err := retrieve.Instructions(context.Background(), openStore(t), "unknown", 0)
	if err != nil || !strings.Contains(empty, "carryover search") || len(empty) > retrieve.InstructionsCap {
		t.Errorf("empty store: %d chars, err %v", len(empty), err)
	}
}

// TestInstructionsSpecInFirstChunk: a spec read in the session's first
// chunk (sequence number 0) still names its files.
func TestInstructionsSpecInFirstChunk(t *testing.T) {
	st := openStore(t)
	s := session("1a5c0000-0000-4000-8000-000000000002", "/src/app", 1)
	items := []carryover.Item{
		{Kind: carryover.KindSpec, Text: "Constraints: Keep reads lock-free.", Detail: "PROJ-3 · Reader", Window: 0, Line: 4, ChunkSeq: 0, Weight: 0.8},
		{Kind: carryover.KindInputs, Text: "PROJ-3\n\nreader/reader_test.go reader/reader.go", Key: "inputs:first", Window: 0, Line: 4, ChunkSeq: 0},
		{Kind: carryover.KindInputs, Text: "later_step_helper", Key: "inputs:later", Window: 0, Line: 30, ChunkSeq: 3},
	}
	apply(t, st, s, nil, items)
	got, err := retrieve.Instructions(context.Background(), st, s.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Files the task's spec names (keep these paths):\n- reader/reader.go reader/reader_test.go\n"; !strings.Contains(got, want) {
		t.Errorf("instructions lack %q:\n%s", want, got)
	}
}
