package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
)

// FuzzQueryTerms checks that any text becomes a valid FTS5 query: every
// term queryTerms yields, and the OR of all of them (what plan builds from
// them), runs against the store's real FTS5 tables without an error, and
// Search and SearchItems accept the text. Seeds are real prompts plus FTS5
// syntax in testdata/fuzz/FuzzQueryTerms.
func FuzzQueryTerms(f *testing.F) {
	for _, s := range []string{
		`why did "go test" fail in internal/build/cache.go?`,
		`NEAR(a b, 3) OR c* AND NOT d ^e {prompt text}: f - +g (h`,
		`"unbalanced "" quote`, `'`, "\x00\x00", `*`, `:`, `""`, `col:term`, `a:b:c`,
		"émigré naïve café ﬁle Ｆｕｌｌ", "日本語のテキスト", "\u200b\u200d\ufeff", "a\u0301\u0301\u0301",
		strings.Repeat("term ", 200), `src/app/main.go foo-bar v1.2.3 TestCache_Key`,
	} {
		f.Add(s)
	}
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	if err := st.Apply(ctx, fuzzBatch()); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		terms := queryTerms(text)
		if len(terms) > maxQueryTerms {
			t.Fatalf("%d terms, at most %d allowed", len(terms), maxQueryTerms)
		}
		exprs := append([]string(nil), terms...)
		if len(terms) > 1 {
			exprs = append(exprs, strings.Join(terms, " OR "))
		}
		for _, fts := range []string{"chunks_fts", "items_fts"} {
			for _, q := range exprs {
				var n int
				if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM `+fts+` WHERE `+fts+` MATCH ?`, q).Scan(&n); err != nil {
					t.Fatalf("%s MATCH %q (from %q): %v", fts, q, text, err)
				}
			}
		}
		if _, err := st.Search(ctx, carryover.Query{Text: text}); err != nil {
			t.Fatalf("Search(%q): %v", text, err)
		}
		if _, err := st.Search(ctx, carryover.Query{Text: text, SessionID: "fuzz", Project: "/p", File: text, BeforeWindow: 2}); err != nil {
			t.Fatalf("filtered Search(%q): %v", text, err)
		}
		if _, err := st.SearchItems(ctx, carryover.Query{Text: text}); err != nil {
			t.Fatalf("SearchItems(%q): %v", text, err)
		}
	})
}

// fuzzBatch is one session whose chunks and items hold the words of the
// seeds, so that terms match and the ranking path runs too.
func fuzzBatch() carryover.Batch {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := carryover.Batch{
		Session: carryover.Session{ID: "fuzz", Project: "/p", Started: at, Updated: at},
		State:   carryover.IngestState{SessionID: "fuzz", Path: "/p/fuzz.jsonl", FileID: "f", Offset: 1, Line: 1},
	}
	texts := []string{
		`go test failed in internal/build/cache.go: undefined: Key`,
		`NEAR the café, émigré wrote src/app/main.go and foo-bar v1.2.3`,
		`日本語のテキスト term prompt text col a b c d e f g h`,
	}
	for i, s := range texts {
		b.Chunks = append(b.Chunks, carryover.Chunk{
			SessionID: "fuzz", Project: "/p", Seq: i, Turn: i, Start: at, End: at, Prompt: s, Summary: s, Text: s,
			Files: []string{"internal/build/cache.go"}, Commands: []string{"go test ./..."}, Errors: []string{s}, Hash: "h" + s,
		})
		b.Items = append(b.Items, carryover.Item{SessionID: "fuzz", ChunkSeq: i, Kind: carryover.KindError, Text: s, Detail: s, Key: s, Turn: i, Line: i + 1, Time: at, Weight: 1})
	}
	return b
}
