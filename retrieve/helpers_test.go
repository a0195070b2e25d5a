package retrieve_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
)

// openStore opens a fresh SQLite store in a temporary directory.
func openStore(tb testing.TB) carryover.Store {
	tb.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "carryover.db"), sqlite.Options{})
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() {
		if err := st.Close(); err != nil {
			tb.Errorf("close store: %v", err)
		}
	})
	return st
}

// session builds the session row of a batch.
func session(id, project string, windows int) carryover.Session {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	return carryover.Session{
		ID: id, Project: project, TranscriptPath: filepath.Join(project, id+".jsonl"),
		Title: "test session", Started: t0, Updated: t0.Add(time.Hour), Windows: windows, Turns: 3,
	}
}

// apply writes one batch, with a chunk per distinct ChunkSeq of the items
// when chunks is nil.
func apply(tb testing.TB, st carryover.Store, s carryover.Session, chunks []carryover.Chunk, items []carryover.Item) {
	tb.Helper()
	if chunks == nil {
		seen := map[int]bool{}
		for _, it := range items {
			if seen[it.ChunkSeq] {
				continue
			}
			seen[it.ChunkSeq] = true
			chunks = append(chunks, carryover.Chunk{
				SessionID: s.ID, Project: s.Project, Seq: it.ChunkSeq, Turn: it.Turn, Window: it.Window,
				FirstLine: it.Line, LastLine: it.Line + 2,
				Start: s.Started, End: s.Started,
				Text: fmt.Sprintf("step %d: %s %s", it.ChunkSeq, it.Text, it.Detail),
				Hash: fmt.Sprintf("%s-%d", s.ID, it.ChunkSeq),
			})
		}
	}
	for i := range items {
		items[i].SessionID = s.ID
		if items[i].Key == "" {
			items[i].Key = string(items[i].Kind) + ":" + items[i].Text
		}
		if items[i].Time.IsZero() {
			items[i].Time = s.Started
		}
	}
	err := st.Apply(context.Background(), carryover.Batch{
		Session: s,
		Chunks:  chunks,
		Items:   items,
		State:   carryover.IngestState{SessionID: s.ID, Path: s.TranscriptPath, FileID: "f", Offset: 1, Line: 1},
	})
	if err != nil {
		tb.Fatalf("apply: %v", err)
	}
}
