package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/web"
)

// BenchmarkPages renders each page of an archive of 20 sessions × 200
// chunks, each session with a compaction, 10 injections (a restore and
// recalls, with their texts) and 50 hook runs,
// through the whole handler (token check, store reads, template).
func BenchmarkPages(b *testing.B) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "c.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	words := []string{"parser", "migration", "invoice", "renderer", "timeout", "router", "fixture", "schema", "cache", "deploy"}
	for s := range 20 {
		id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", s)
		batch := carryover.Batch{
			Session: carryover.Session{ID: id, Project: "/p", Title: "session " + id, Started: base, Updated: base, Windows: 1, Turns: 40},
			State:   carryover.IngestState{SessionID: id, Path: "/x/" + id + ".jsonl", FileID: "f", Offset: 1, Line: 1},
			Compactions: []carryover.Compaction{{SessionID: id, Window: 1, Trigger: "auto", Line: 500,
				Summary: "summary of the first window"}},
		}
		for i := range 200 {
			text := fmt.Sprintf("Assistant: step %d of %s: the %s touched the %s, then go test ./... passed",
				i, id, words[i%len(words)], words[(i*7+s)%len(words)])
			batch.Chunks = append(batch.Chunks, carryover.Chunk{SessionID: id, Project: "/p", Seq: i, Turn: i / 5,
				Window: i / 100, FirstLine: 5*i + 1, LastLine: 5*i + 5, Start: base, End: base, Text: text,
				Summary: text[:40], Hash: fmt.Sprintf("%s-%d", id, i)})
		}
		if err := st.Apply(ctx, batch); err != nil {
			b.Fatal(err)
		}
		cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: id, Turn: -1, Limit: 5})
		if err != nil {
			b.Fatal(err)
		}
		for j := range 10 {
			in := carryover.Injection{Time: base, SessionID: id, Project: "/p", Event: "UserPromptSubmit", Window: 1, Chars: 2000, Tokens: 500, Hash: "h",
				Reason: "recall: BM25 7.2 ≥ 2, 3 of 4 informative words (coverage 0.78 ≥ 0.5) from this session's window 0, turn 2"}
			for _, c := range cs {
				in.ChunkIDs = append(in.ChunkIDs, c.ID)
			}
			if j == 0 {
				in.Event, in.Chars, in.Tokens = "SessionStart:compact", 4000, 1000
				in.Reason = "restore after compaction 1: 40 items, 3 chunks in 3990 of 4000 chars"
			}
			// The texts a restore and recalls keep, of their usual size.
			in.Text = strings.Repeat("- `go test -race ./internal/pdf/...` passed after the fix in internal/pdf/render.go (L812)\n", in.Chars/90)
			if _, err := st.RecordInjection(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
		for j := range 50 {
			if err := st.RecordHookRun(ctx, carryover.HookRun{Time: base, SessionID: id, Project: "/p", Event: "Stop",
				Latency: time.Duration(10+j) * time.Millisecond, Outcome: "ok"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	s, err := web.New(st, web.Options{Token: token})
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []string{"/", "/project?p=%2Fp", "/session/00000003-0000-4000-8000-000000000000", "/search?q=migration+renderer", "/stats"} {
		b.Run(p, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest("GET", "http://127.0.0.1"+p, nil)
				req.AddCookie(&http.Cookie{Name: web.CookieName, Value: token})
				w := httptest.NewRecorder()
				s.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%s: %d", p, w.Code)
				}
				_, _ = io.Copy(io.Discard, w.Body)
			}
		})
	}
}
