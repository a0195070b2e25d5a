package ingest

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/chunk"
	cembed "github.com/carryover-dev/carryover/embedding"
	"github.com/carryover-dev/carryover/internal/rawblock"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/transcript"
)

// stagesTranscript is the largest real session, which BenchmarkFileCold
// archives whole; the stage benchmarks below split that work.
func stagesTranscript(b *testing.B) (string, int64) {
	path := filepath.Join("..", "..", "shared", "data", "transcripts", "spotter", "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl")
	fi, err := os.Stat(path)
	if err != nil {
		b.Skipf("no shared transcripts beside the repository: %v", err)
	}
	return path, fi.Size()
}

func decodeAll(b *testing.B, path string) []transcript.Entry {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r := transcript.NewReader(f, 0, 0)
	var entries []transcript.Entry
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return entries
		}
		if err != nil {
			b.Fatal(err)
		}
		entries = append(entries, e)
	}
}

// BenchmarkStages times each stage of a cold ingest of the largest real
// session on its own, on one goroutine: decoding the entries, masking
// them, chunking, embedding the chunks, reading and masking the raw lines,
// and compressing them into blocks. The store's inserts are what
// BenchmarkFileCold adds to their sum.
func BenchmarkStages(b *testing.B) {
	path, size := stagesTranscript(b)
	red := redact.New(redact.Options{})
	// Each stage also reports the process's CPU time per run, which a
	// machine busy with other work inflates far less than wall time.
	run := func(name string, f func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			start := processCPU()
			f(b)
			if b.N > 0 {
				b.ReportMetric(float64((processCPU()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
		})
	}

	run("decode", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			decodeAll(b, path)
		}
	})
	run("redact", func(b *testing.B) {
		b.SetBytes(size)
		entries := decodeAll(b, path)
		work := make([]transcript.Entry, len(entries))
		for b.Loop() {
			// redactEntries replaces the fields it masks: each round masks
			// a fresh copy of the decoded entries.
			b.StopTimer()
			copy(work, entries)
			for i := range work {
				work[i].Blocks = slices.Clone(work[i].Blocks)
			}
			b.StartTimer()
			redactEntries(red.Stream(redact.Carry{}), work)
		}
	})
	entries := decodeAll(b, path)
	redactEntries(red.Stream(redact.Carry{}), entries)
	run("chunk", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			chunk.Build("s", "/p", entries, chunk.NewCursor(), chunk.Options{})
		}
	})
	res := chunk.Build("s", "/p", entries, chunk.NewCursor(), chunk.Options{})
	run("embed", func(b *testing.B) {
		b.SetBytes(size)
		emb := cembed.DefaultHashed()
		for b.Loop() {
			texts := make([]string, len(res.Chunks))
			for i, c := range res.Chunks {
				texts[i] = cembed.ChunkText(c)
			}
			for _, v := range emb.Embed(texts) {
				cembed.Quantize(v)
			}
		}
	})
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	readRaw := func(b *testing.B) []carryover.RawLine {
		raw := newRawReader(f, 0, 0, red, redact.Carry{})
		defer raw.stop()
		res, err := raw.take(context.Background(), size)
		if err != nil {
			b.Fatal(err)
		}
		return res.lines
	}
	run("rawlines", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			readRaw(b)
		}
	})
	lines := readRaw(b)
	run("compress", func(b *testing.B) {
		b.SetBytes(size)
		var c rawblock.Codec
		for b.Loop() {
			if _, err := c.Pack(lines); err != nil {
				b.Fatal(err)
			}
		}
	})
}
