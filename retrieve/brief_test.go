package retrieve_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

func TestStartupBrief(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	old := session("aaaaaaaa-old", "/proj", 0)
	old.Title = "Fix the flaky upload test"
	apply(t, st, old, nil, []carryover.Item{
		{ChunkSeq: 0, Kind: carryover.KindCommand, Text: "go test ./upload/ -run TestRetry", Line: 10},
		{ChunkSeq: 1, Kind: carryover.KindFileEdit, Text: "upload/retry.go", Line: 20},
		{ChunkSeq: 2, Kind: carryover.KindError, Text: "panic: nil map in retry.go:42", Line: 30},
		{ChunkSeq: 2, Kind: carryover.KindError, Text: "fixed long ago: timeout", Line: 31, Resolved: true},
	})
	if _, err := st.AddNote(ctx, carryover.Note{Time: time.Now(), SessionID: old.ID, Project: "/proj", Kind: "state", Text: "next: make retries configurable"}); err != nil {
		t.Fatal(err)
	}
	// The new session itself is archived already and must not be described.
	cur := session("bbbbbbbb-new", "/proj", 0)
	cur.Updated = old.Updated.Add(time.Hour)
	cur.Title = "the new session"
	apply(t, st, cur, nil, []carryover.Item{{ChunkSeq: 0, Kind: carryover.KindCommand, Text: "make lint", Line: 3}})

	blk, err := retrieve.StartupBrief(ctx, st, retrieve.BriefRequest{Project: "/proj", SessionID: cur.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"last time in this project", "aaaaaaaa", "Fix the flaky upload test",
		"next: make retries configurable", "panic: nil map in retry.go:42", "upload/retry.go", "go test ./upload/ -run TestRetry"} {
		if !strings.Contains(blk.Text, want) {
			t.Errorf("brief lacks %q:\n%s", want, blk.Text)
		}
	}
	for _, not := range []string{"fixed long ago", "make lint", "the new session"} {
		if strings.Contains(blk.Text, not) {
			t.Errorf("brief holds %q:\n%s", not, blk.Text)
		}
	}
	if len(blk.Text) > retrieve.DefaultBriefBudget {
		t.Errorf("brief is %d chars", len(blk.Text))
	}
	small, err := retrieve.StartupBrief(ctx, st, retrieve.BriefRequest{Project: "/proj", SessionID: cur.ID, Budget: 120})
	if err != nil || len(small.Text) > 120 || small.Text == "" {
		t.Errorf("budget 120: %d chars, %v", len(small.Text), err)
	}
	for _, p := range []string{"/other", ""} {
		none, err := retrieve.StartupBrief(ctx, st, retrieve.BriefRequest{Project: p, SessionID: "x"})
		if err != nil || none.Text != "" {
			t.Errorf("project %q: %q, %v", p, none.Text, err)
		}
	}
}
