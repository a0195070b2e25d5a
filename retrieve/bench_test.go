package retrieve_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
)

// BenchmarkRestore restores from a session of 3,000 chunks and about
// 2,000 items over three context windows.
func BenchmarkRestore(b *testing.B) {
	st := openStore(b)
	const id = "be4c0000-0000-4000-8000-000000000001"
	s := session(id, "/src/big", 3)
	kinds := carryover.ItemKinds
	for batch := range 10 {
		var chunks []carryover.Chunk
		var items []carryover.Item
		for i := range 300 {
			seq := batch*300 + i
			w := seq / 1000
			chunks = append(chunks, carryover.Chunk{
				SessionID: id, Project: s.Project, Seq: seq, Turn: seq / 100, Window: w,
				FirstLine: seq*3 + 1, LastLine: seq*3 + 3, Start: s.Started, End: s.Started,
				Text: fmt.Sprintf("step %d: ran go test ./pkg%d/ and edited internal/pkg%d/file%d.go; output ok %d", seq, seq%40, seq%40, seq, seq*7),
				Hash: fmt.Sprintf("c%d", seq),
			})
			if seq%3 != 2 {
				k := kinds[seq%len(kinds)]
				items = append(items, carryover.Item{
					ChunkSeq: seq, Kind: k, Turn: seq / 100, Window: w, Line: seq*3 + 2, Weight: 0.8,
					Text:   fmt.Sprintf("%s item %d: /src/big/internal/pkg%d/file%d.go go test ./pkg%d/ -run Test%d", k, seq, seq%40, seq, seq%40, seq),
					Detail: fmt.Sprintf("because of case %d", seq), Resolved: seq%2 == 0,
				})
			}
		}
		apply(b, st, s, chunks, items)
	}
	ctx := context.Background()
	req := retrieve.RestoreRequest{SessionID: id, Project: s.Project, Window: 3, Summary: "summary mentions /src/big/internal/pkg1/file1.go"}
	b.ResetTimer()
	for b.Loop() {
		blk, err := retrieve.Restore(ctx, st, req)
		if err != nil || blk.Text == "" {
			b.Fatalf("restore: %d chars, %v", len(blk.Text), err)
		}
	}
}

// BenchmarkFileRecallWholeRead recalls a file edited 60 times before the
// compaction, on a Read that returned all of it (400 KB, the edited lines
// last): every edit's identifiers are looked for in the Read, and none is
// news.
func BenchmarkFileRecallWholeRead(b *testing.B) {
	st := openStore(b)
	x := newTx(currentID, toolProject, time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC))
	x.prompt("grow the handlers")
	file := toolProject + "/api/handlers.go"
	var body, edited strings.Builder
	for i := range 60 {
		x.say(fmt.Sprintf("Handler %d needs its own rate_limit_%d.", i, i))
		line := fmt.Sprintf("func handle_%d(w http.ResponseWriter, r *http.Request) { limiter_%d.Allow(r.Context()) }", i, i)
		x.call("Edit", map[string]any{"file_path": file, "old_string": "// end", "new_string": line + "\n// end"}, "ok", false)
		edited.WriteString(line + "\n")
	}
	x.compact()
	x.archive(b, st)
	for body.Len() < 400<<10 {
		body.WriteString("// filler line of the handlers file, nothing in it is new\n")
	}
	body.WriteString(edited.String())
	req := retrieve.FileRequest{SessionID: currentID, Project: toolProject, Window: 1, File: file}
	if blk, err := retrieve.FileRecall(context.Background(), st, req); err != nil || !strings.Contains(blk.Text, "limiter_59") {
		b.Fatalf("without the Read, the newest edit is not recalled: %v %q", err, blk.Text)
	}
	req.Shown = body.String()
	b.ResetTimer()
	for range b.N {
		blk, err := retrieve.FileRecall(context.Background(), st, req)
		if err != nil || blk.Text != "" {
			b.Fatalf("%v %q", err, blk.Text)
		}
	}
}
