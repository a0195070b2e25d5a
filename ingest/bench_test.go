package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/sqlite"
)

// BenchmarkFileCold archives the largest real session into a fresh store,
// as a cold PreCompact does: transcript decoding, redaction, chunking,
// embedding and the store's inserts. It needs the shared data folder
// beside the repository.
func BenchmarkFileCold(b *testing.B) {
	// Absolute, as Claude Code gives it: the Archiver refuses relative paths.
	path, err := filepath.Abs(filepath.Join("..", "..", "shared", "data", "transcripts", "spotter", "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Skipf("no shared transcripts beside the repository: %v", err)
	}
	b.SetBytes(fi.Size())
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		st, err := sqlite.Open(ctx, filepath.Join(dir, "s.db"), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
}

// BenchmarkFileHugeLine archives a transcript of one 7.3 MB line (see
// hugeLine) into a fresh store, raw line included, as a cold hook does: a
// hook must do it within its deadline, 2 s by default
// (config.Defaults().HookTimeout).
func BenchmarkFileHugeLine(b *testing.B) {
	path := filepath.Join(b.TempDir(), sid+".jsonl")
	huge := hugeLine()
	writeLines(b, path, []string{string(huge)}, 0)
	b.SetBytes(int64(len(huge)))
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "s.db"), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
}
