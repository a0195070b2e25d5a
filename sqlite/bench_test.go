package sqlite_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
)

// vocab is ordered by frequency: corpus draws Zipf-distributed ranks, so the
// first words appear in nearly every chunk, as "file" and "test" do in real
// sessions.
var vocab = strings.Fields(`file test error function the run code change build output line value type config
	package import return check update add fix module server request response handler client cache query index
	database table column schema migration commit branch merge review comment docs readme install version release
	deploy docker container image port host network timeout retry context cancel deadline goroutine channel mutex
	lock struct interface method field slice map pointer string bytes buffer reader writer stream parse decode
	encode json yaml toml flag option argument command shell script bash python node npm yarn cargo rust golang
	compile linker binary target platform linux darwin windows amd64 arm64 memory allocation garbage collector
	benchmark profile trace span metric log level debug info warn panic recover stack frame goroutines leak race
	detector fuzz corpus seed golden fixture snapshot mock stub fake assert require expect compare equal diff patch
	hunk rebase cherry stash tag remote origin upstream fetch pull push clone checkout worktree submodule hook
	precommit lint vet staticcheck gofmt goimports format style naming exported unexported receiver constructor
	factory builder adapter decorator observer strategy visitor iterator generator closure callback promise async
	await thread worker pool queue scheduler cron job task todo plan step phase milestone estimate budget token
	window compaction summary transcript session prompt assistant user tool result message chunk item fact restore`)

var corpusPaths = []string{"internal/store/sqlite.go", "cmd/carryover/main.go", "internal/chunk/chunk.go",
	"retrieve/render.go", "transcript/reader.go", "docs/DESIGN.md", "README.md", "go.mod", "hook/hook.go",
	"internal/build/cache.go", "web/src/App.tsx", "scripts/release.sh", "Makefile", ".github/workflows/ci.yml"}

var corpusIdents = []string{"parseHTTPResponse", "maxRetryCount", "newSessionStore", "applyBatch", "TokenEstimate",
	"errNotFound", "handleSessionStart", "renderRestoreBlock", "busy_timeout", "journal_mode", "user_version",
	"ingestState", "chunkWindow", "compactBoundary", "isCompactSummary"}

// corpus generates n chunks of about 1 KB of session-like text.
func corpus(session string, from, n int, r *rand.Rand) []carryover.Chunk {
	zipf := rand.NewZipf(r, 1.2, 2, uint64(len(vocab)-1))
	word := func() string { return vocab[zipf.Uint64()] }
	var out []carryover.Chunk
	for i := from; i < from+n; i++ {
		var b strings.Builder
		for b.Len() < 1000 {
			switch r.Intn(12) {
			case 0:
				b.WriteString(corpusPaths[r.Intn(len(corpusPaths))])
			case 1:
				b.WriteString(corpusIdents[r.Intn(len(corpusIdents))])
			default:
				b.WriteString(word())
			}
			if r.Intn(9) == 0 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		c := carryover.Chunk{
			Seq: i, Turn: i / 10, FirstLine: 10*i + 1, LastLine: 10*i + 9, Start: base,
			Prompt:   "please " + word() + " the " + word() + " " + word(),
			Summary:  b.String()[:200],
			Text:     b.String(),
			Tools:    []string{"Bash", "Edit"},
			Files:    []string{corpusPaths[r.Intn(len(corpusPaths))]},
			Commands: []string{"go test ./" + word() + "/...", "git " + word()},
			Hash:     fmt.Sprintf("%s-%d", session, i),
		}
		if r.Intn(5) == 0 {
			c.Errors = []string{word() + ": " + word() + " " + word() + " failed: exit status 1"}
		}
		out = append(out, c)
	}
	return out
}

// fill stores sessions×perSession corpus chunks.
func fill(b testing.TB, st *sqlite.Store, sessions, perSession int) {
	b.Helper()
	r := rand.New(rand.NewSource(1))
	for s := range sessions {
		id := fmt.Sprintf("s%d", s)
		for from := 0; from < perSession; from += 500 {
			batch := carryover.Batch{Session: carryover.Session{ID: id, Project: "/p"},
				Chunks: corpus(id, from, min(500, perSession-from), r)}
			if err := st.Apply(context.Background(), batch); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "carryover.db")
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	fill(b, st, 2, 500)
	st.Close()
	b.ResetTimer()
	for b.Loop() {
		st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Session(context.Background(), "s1"); err != nil {
			b.Fatal(err)
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApply(b *testing.B) {
	st, _ := newStore(b)
	r := rand.New(rand.NewSource(1))
	from := 0
	for b.Loop() {
		batch := carryover.Batch{Session: carryover.Session{ID: "s1", Project: "/p"}, Chunks: corpus("s1", from, 100, r)}
		from += 100
		if err := st.Apply(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	st, _ := newStore(b)
	fill(b, st, 10, 1000) // 10k chunks
	for _, bc := range []struct {
		name string
		q    carryover.Query
	}{
		{"rare", carryover.Query{Text: "parseHTTPResponse"}},
		{"two_mid_terms", carryover.Query{Text: "goroutine leak"}},
		{"common_term", carryover.Query{Text: "file"}},
		{"common_terms", carryover.Query{Text: "file test error function"}},
		{"common_term_in_session", carryover.Query{Text: "file", SessionID: "s3"}},
		{"question", carryover.Query{Text: "which command fixed the compaction timeout error in internal/store/sqlite.go?"}},
		{"pasted_10KB", carryover.Query{Text: strings.Repeat("the retry timeout of the server handler failed again; ", 190)}},
	} {
		hits, err := st.Search(context.Background(), bc.q)
		if err != nil || len(hits) == 0 {
			b.Fatalf("%s: %d hits, %v", bc.name, len(hits), err)
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := st.Search(context.Background(), bc.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
